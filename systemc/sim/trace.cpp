// SPDX-License-Identifier: Apache-2.0
#include "sim/trace.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/error.h"

namespace fg {

Trace& Trace::get() {
  static Trace t;
  return t;
}

Trace::~Trace() { discard(); }

void Trace::open(const std::string& path, Tick window_start, Tick window_end) {
  discard();
  file_ = std::make_unique<OutputFile>(path, "--trace");
  start_ = window_start;
  end_ = window_end;
  first_ = true;
  file_->stream() << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
}

void Trace::reset() {
  file_.reset();
  pids_.clear();
  tids_.clear();
  next_tid_ = 1;
}

void Trace::close() {
  if (!file_) return;
  file_->stream() << "\n]}\n";
  std::unique_ptr<OutputFile> f = std::move(file_);
  reset();
  f->commit();
}

void Trace::discard() {
  if (file_) file_->discard();
  reset();
}

void Trace::emit_raw(const std::string& s) {
  std::ostream& o = file_->stream();
  if (!first_) o << ",\n";
  first_ = false;
  o << s;
}

int Trace::track(const std::string& group, const std::string& name) {
  auto pit = pids_.find(group);
  int pid;
  if (pit == pids_.end()) {
    pid = static_cast<int>(pids_.size()) + 1;
    pids_.emplace(group, pid);
    if (on()) {
      emit_raw(fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":{}}}}})", pid,
                           nlohmann::json(group).dump()));
      emit_raw(
          fmt::format(R"({{"ph":"M","pid":{},"name":"process_sort_index","args":{{"sort_index":{}}}}})", pid, pid));
    }
  } else {
    pid = pit->second;
  }
  auto key = std::make_pair(pid, name);
  auto tit = tids_.find(key);
  if (tit != tids_.end()) return pid * 100000 + tit->second;
  int tid = next_tid_++;
  tids_.emplace(key, tid);
  if (on()) {
    emit_raw(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":{}}}}})", pid, tid,
                         nlohmann::json(name).dump()));
    emit_raw(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})", pid,
                         tid, tid));
  }
  return pid * 100000 + tid;
}

void Trace::span(int track, const char* name, Tick start, Tick dur) {
  if (!file_) return;
  if (start >= end_ || start + dur < start_) return;
  int pid = track / 100000, tid = track % 100000;
  emit_raw(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":"{}","ts":{}.{:06},"dur":{}.{:06}}})", pid, tid, name,
                       start / 1000000, start % 1000000, dur / 1000000, dur % 1000000));
}

void Trace::counter(int track, const char* name, Tick t, double value) {
  if (!file_) return;
  if (t >= end_ || t < start_) return;
  int pid = track / 100000;
  emit_raw(fmt::format(R"({{"ph":"C","pid":{},"name":"{}","ts":{}.{:06},"args":{{"value":{}}}}})", pid, name,
                       t / 1000000, t % 1000000, value));
}

}  // namespace fg
