// SPDX-License-Identifier: Apache-2.0
// Chrome trace-event JSON writer (opens in ui.perfetto.dev and chrome://tracing).
//
// Off unless a file is opened (fgsim --trace). Tracks are (process, thread)
// pairs named once; events are complete ("X") spans in simulated time, written
// as they happen so memory stays bounded, and only if they overlap the window
// [start, end). Timestamps are microseconds with picosecond precision.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "sim/output.h"
#include "sim/time.h"

namespace fg {

class Trace {
 public:
  static Trace& get();
  // The file is written through an OutputFile: it replaces `path` only when
  // close() completes it (close() throws UserError on a write error).
  void open(const std::string& path, Tick window_start, Tick window_end);
  void close();
  // Drops an unfinished trace (the target file is left as it was).
  void discard();
  bool on() const { return file_ != nullptr; }

  // Track id for (group, name); creates it (with its metadata) on first use.
  int track(const std::string& group, const std::string& name);
  // A span [start, start+dur) on a track; `name` is the event label.
  void span(int track, const char* name, Tick start, Tick dur);
  void span(int track, const std::string& name, Tick start, Tick dur) { span(track, name.c_str(), start, dur); }
  // A counter track's value from time t on (Perfetto draws it as a step graph).
  void counter(int track, const char* name, Tick t, double value);

 private:
  Trace() = default;
  ~Trace();
  void emit_raw(const std::string& s);

  void reset();
  std::unique_ptr<OutputFile> file_;
  Tick start_ = 0, end_ = 0;
  bool first_ = true;
  std::map<std::string, int> pids_;
  std::map<std::pair<int, std::string>, int> tids_;
  int next_tid_ = 1;
};

}  // namespace fg
