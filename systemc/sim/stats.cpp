// SPDX-License-Identifier: Apache-2.0
#include "sim/stats.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace fg {

StatRegistry& StatRegistry::global() {
  static StatRegistry r;
  return r;
}

void StatRegistry::add(StatBase* s) { stats_.push_back(s); }

void StatRegistry::remove(StatBase* s) {
  auto it = std::find(stats_.begin(), stats_.end(), s);
  if (it != stats_.end()) stats_.erase(it);
}

const StatBase* StatRegistry::find(const std::string& name) const {
  for (const StatBase* s : stats_)
    if (s->name() == name) return s;
  return nullptr;
}

void StatRegistry::dump(nlohmann::ordered_json& values, nlohmann::ordered_json& descriptions,
                        nlohmann::ordered_json* units) const {
  values = nlohmann::ordered_json::object();
  descriptions = nlohmann::ordered_json::object();
  if (units) *units = nlohmann::ordered_json::object();
  for (const StatBase* s : stats_) {
    s->to_json(values[s->name()]);
    descriptions[s->name()] = s->unit().empty() ? s->desc() : s->desc() + " [" + s->unit() + "]";
    if (units) (*units)[s->name()] = s->unit();
  }
}

namespace {
bool matches(const std::string& n, const std::string& prefix, const std::string& suffix) {
  return n.size() >= prefix.size() + suffix.size() && n.compare(0, prefix.size(), prefix) == 0 &&
         n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

double StatRegistry::sum_matching(const std::string& prefix, const std::string& suffix) const {
  double total = 0;
  for (const StatBase* s : stats_)
    if (matches(s->name(), prefix, suffix)) total += s->scalar();
  return total;
}

double StatRegistry::mean_matching(const std::string& prefix, const std::string& suffix) const {
  double sum = 0, n = 0;
  for (const StatBase* s : stats_)
    if (matches(s->name(), prefix, suffix))
      if (const auto* a = dynamic_cast<const Average*>(s)) {
        sum += a->mean() * double(a->count());
        n += double(a->count());
      }
  return n > 0 ? sum / n : 0.0;
}

StatBase::StatBase(const StatGroup& group, std::string name, std::string desc, std::string unit)
    : name_(group.child(name)), desc_(std::move(desc)), unit_(std::move(unit)) {
  StatRegistry::global().add(this);
}

StatBase::~StatBase() { StatRegistry::global().remove(this); }

void Counter::to_json(nlohmann::ordered_json& out) const { out = v_; }

void Average::to_json(nlohmann::ordered_json& out) const {
  out = nlohmann::ordered_json::object();
  out["mean"] = mean();
  out["count"] = n_;
}

Distribution::Distribution(const StatGroup& group, std::string name, std::string desc, std::string unit, double lo,
                           double hi, unsigned buckets)
    : StatBase(group, std::move(name), std::move(desc), std::move(unit)),
      lo_(lo),
      hi_(hi),
      width_((hi - lo) / buckets),
      buckets_(buckets, 0) {}

void Distribution::sample(double x, std::uint64_t n) {
  // A weight of 0 is no sample: it must not move the minimum or maximum (a reconvergence point, which issues no
  // instruction, samples the SIMD utilization with a weight of 0).
  if (n == 0) return;
  n_ += n;
  sum_ += x * static_cast<double>(n);
  sumsq_ += x * x * static_cast<double>(n);
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
  if (x < lo_)
    under_ += n;
  else if (x > hi_)
    over_ += n;
  else if (x == hi_)
    buckets_.back() += n;  // the closed upper end belongs to the last bucket
  else
    buckets_[std::min<std::size_t>(buckets_.size() - 1, static_cast<std::size_t>((x - lo_) / width_))] += n;
}

void Distribution::reset() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  under_ = over_ = n_ = 0;
  sum_ = sumsq_ = 0;
  min_ = std::numeric_limits<double>::infinity();
  max_ = -std::numeric_limits<double>::infinity();
}

void Distribution::to_json(nlohmann::ordered_json& out) const {
  out = nlohmann::ordered_json::object();
  out["count"] = n_;
  out["mean"] = mean();
  out["min"] = min();
  out["max"] = max();
  double var = n_ ? std::max(0.0, sumsq_ / static_cast<double>(n_) - mean() * mean()) : 0.0;
  out["stdev"] = std::sqrt(var);
  out["lo"] = lo_;
  out["bucket_width"] = width_;
  out["underflow"] = under_;
  out["buckets"] = buckets_;
  out["overflow"] = over_;
}

void Series::to_json(nlohmann::ordered_json& out) const {
  out = nlohmann::ordered_json::object();
  out["interval"] = interval_;
  out["samples"] = samples_;
}

double Series::scalar() const {
  if (samples_.empty()) return 0.0;
  double sum = 0;
  for (auto v : samples_) sum += static_cast<double>(v);
  return sum / static_cast<double>(samples_.size());
}

void Formula::to_json(nlohmann::ordered_json& out) const {
  double v = f_();
  out = std::isfinite(v) ? v : 0.0;
}

}  // namespace fg
