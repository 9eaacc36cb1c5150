// SPDX-License-Identifier: Apache-2.0
// Statistics: counters, averages, distributions and formulas with
// hierarchical dotted names ("gpu.cu3.l1.hits") and a description each.
//
// A module owns its statistics as members and gives them its StatGroup; they
// register with the process-wide StatRegistry on construction and leave it on
// destruction. Dumps are in registration order, which depends only on the
// configuration, so identical runs give identical stats.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fg {

class StatBase;

class StatRegistry {
 public:
  static StatRegistry& global();
  void add(StatBase* s);
  void remove(StatBase* s);
  const std::vector<StatBase*>& all() const { return stats_; }
  const StatBase* find(const std::string& name) const;
  // values {name: value}, descriptions {name: "text [unit]"}, units {name: "ns" or ""}
  void dump(nlohmann::ordered_json& values, nlohmann::ordered_json& descriptions,
            nlohmann::ordered_json* units = nullptr) const;
  // Sum of the numeric value of every stat whose name matches prefix*suffix
  // (e.g. "gpu.cu", ".l1.hits"): the summary's totals over instances.
  double sum_matching(const std::string& prefix, const std::string& suffix) const;
  // Mean over all samples of the averages whose names match prefix*suffix.
  double mean_matching(const std::string& prefix, const std::string& suffix) const;

 private:
  std::vector<StatBase*> stats_;
};

// A naming scope: "gpu" -> "gpu.cu3" -> "gpu.cu3.l1".
class StatGroup {
 public:
  explicit StatGroup(std::string path) : path_(std::move(path)) {}
  StatGroup(const StatGroup& parent, const std::string& name) : path_(parent.path_ + "." + name) {}
  const std::string& path() const { return path_; }
  std::string child(const std::string& name) const { return path_ + "." + name; }

 private:
  std::string path_;
};

class StatBase {
 public:
  StatBase(const StatGroup& group, std::string name, std::string desc, std::string unit);
  StatBase(const StatBase&) = delete;
  StatBase& operator=(const StatBase&) = delete;
  virtual ~StatBase();
  const std::string& name() const { return name_; }
  const std::string& desc() const { return desc_; }
  const std::string& unit() const { return unit_; }
  virtual void to_json(nlohmann::ordered_json& out) const = 0;
  // A single number standing for this stat (count, mean, value).
  virtual double scalar() const = 0;
  virtual void reset() = 0;

 private:
  std::string name_, desc_, unit_;
};

class Counter final : public StatBase {
 public:
  using StatBase::StatBase;
  Counter& operator++() {
    ++v_;
    return *this;
  }
  Counter& operator+=(std::uint64_t n) {
    v_ += n;
    return *this;
  }
  std::uint64_t value() const { return v_; }
  void to_json(nlohmann::ordered_json& out) const override;
  double scalar() const override { return static_cast<double>(v_); }
  void reset() override { v_ = 0; }

 private:
  std::uint64_t v_ = 0;
};

// Mean of samples (e.g. queueing delay per request).
class Average final : public StatBase {
 public:
  using StatBase::StatBase;
  void sample(double x, std::uint64_t n = 1) {
    sum_ += x * static_cast<double>(n);
    n_ += n;
  }
  double mean() const { return n_ ? sum_ / static_cast<double>(n_) : 0.0; }
  std::uint64_t count() const { return n_; }
  void to_json(nlohmann::ordered_json& out) const override;
  double scalar() const override { return mean(); }
  void reset() override { sum_ = 0, n_ = 0; }

 private:
  double sum_ = 0;
  std::uint64_t n_ = 0;
};

// Histogram over [lo, hi] in equal buckets (hi itself in the last) plus
// underflow/overflow, with
// count, mean, min, max and standard deviation.
class Distribution final : public StatBase {
 public:
  Distribution(const StatGroup& group, std::string name, std::string desc, std::string unit, double lo, double hi,
               unsigned buckets);
  void sample(double x, std::uint64_t n = 1);
  std::uint64_t count() const { return n_; }
  double mean() const { return n_ ? sum_ / static_cast<double>(n_) : 0.0; }
  double min() const { return n_ ? min_ : 0.0; }
  double max() const { return n_ ? max_ : 0.0; }
  const std::vector<std::uint64_t>& buckets() const { return buckets_; }
  void to_json(nlohmann::ordered_json& out) const override;
  double scalar() const override { return mean(); }
  void reset() override;

 private:
  double lo_, hi_, width_;
  std::vector<std::uint64_t> buckets_;
  std::uint64_t under_ = 0, over_ = 0, n_ = 0;
  double sum_ = 0, sumsq_ = 0;
  double min_ = std::numeric_limits<double>::infinity(), max_ = -std::numeric_limits<double>::infinity();
};

// A value sampled every `interval` ticks of some clock (unit cycles, say),
// built from changes: set(t, v) says the value is v from tick t on. Sample k
// is the value at the start of tick k * interval (after every change before
// it); samples run up to the last change. Dumped as
// {"interval": ..., "samples": [...]}.
class Series final : public StatBase {
 public:
  Series(const StatGroup& group, std::string name, std::string desc, std::string unit, std::uint64_t interval)
      : StatBase(group, std::move(name), std::move(desc), std::move(unit)), interval_(interval) {}
  void set(std::uint64_t t, std::uint64_t v) {
    for (; next_ <= t; next_ += interval_) samples_.push_back(cur_);
    cur_ = v;
  }
  std::uint64_t current() const { return cur_; }
  const std::vector<std::uint64_t>& samples() const { return samples_; }
  void to_json(nlohmann::ordered_json& out) const override;
  double scalar() const override;  // the mean sample
  void reset() override { samples_.clear(), next_ = 0, cur_ = 0; }

 private:
  std::uint64_t interval_;
  std::uint64_t next_ = 0, cur_ = 0;
  std::vector<std::uint64_t> samples_;
};

// A value computed from other stats when dumped (hit rate, bandwidth).
class Formula final : public StatBase {
 public:
  Formula(const StatGroup& group, std::string name, std::string desc, std::string unit, std::function<double()> f)
      : StatBase(group, std::move(name), std::move(desc), std::move(unit)), f_(std::move(f)) {}
  void to_json(nlohmann::ordered_json& out) const override;
  double scalar() const override { return f_(); }
  void reset() override {}

 private:
  std::function<double()> f_;
};

}  // namespace fg
