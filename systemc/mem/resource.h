// A contended resource (L1 port, L2 bank, atomic unit, DRAM channel) modelled
// as a reservation calendar: a request arriving at time t occupies the
// resource for `occupancy` from the first free instant >= t.
//
// This is the "busy-until" rule of ARCHITECTURE.md section 2, extended to fill
// gaps: in loosely-timed simulation initiators run ahead of each other within a
// quantum, so requests reach a target out of simulated-time order. A single
// busy-until time would queue an early request behind a later one that happened
// to execute first on the host and serialize requesters that never overlap;
// the calendar keeps the free gaps and places each request in simulated-time
// order. Intervals that end before the global time are dropped.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/time.h"

namespace fg {

class Resource {
 public:
  // Reserve [start, start + occupancy) with start >= arrival the earliest
  // possible; `now` is the global simulated time (nothing arrives before it).
  Tick reserve(Tick arrival, Tick occupancy, Tick now) {
    if (occupancy == 0) return arrival;
    const Tick t = earliest(arrival, occupancy, now);
    commit(t, occupancy);
    return t;
  }
  // The start reserve() would give, without reserving (drops intervals that
  // ended before `now`).
  Tick earliest(Tick arrival, Tick occupancy, Tick now) {
    while (!busy_.empty() && busy_.begin()->second <= now) busy_.erase(busy_.begin());
    if (occupancy == 0 || busy_.empty() || arrival >= busy_.rbegin()->second) return arrival;
    auto it = busy_.upper_bound(arrival);
    Tick t = arrival;
    if (it != busy_.begin()) {
      auto p = std::prev(it);
      if (p->second > t) t = p->second;
    }
    while (it != busy_.end() && it->first < t + occupancy) {
      if (it->second > t) t = it->second;
      ++it;
    }
    return t;
  }
  // Reserve [start, start + occupancy), which must be free.
  void commit(Tick start, Tick occupancy) {
    if (occupancy == 0) return;
    busy_ticks_ += occupancy;
    insert(start, start + occupancy);
  }
  bool idle() const { return busy_.empty(); }
  Tick busy_ticks() const { return busy_ticks_; }

 private:
  void insert(Tick s, Tick e) {
    // In-order arrival (the common case): append, O(1).
    if (busy_.empty() || s >= busy_.rbegin()->second) {
      if (!busy_.empty() && busy_.rbegin()->second == s) std::prev(busy_.end())->second = e;
      else busy_.emplace_hint(busy_.end(), s, e);
      return;
    }
    auto next = busy_.lower_bound(s);
    if (next != busy_.begin()) {
      auto prev = std::prev(next);
      if (prev->second == s) {
        prev->second = e;
        if (next != busy_.end() && next->first == e) {
          prev->second = next->second;
          busy_.erase(next);
        }
        return;
      }
    }
    if (next != busy_.end() && next->first == e) {
      Tick end = next->second;
      busy_.erase(next);
      busy_.emplace(s, end);
      return;
    }
    busy_.emplace(s, e);
  }

  std::map<Tick, Tick> busy_;  // disjoint [start, end), touching ones merged
  Tick busy_ticks_ = 0;
};

// One calendar per line (atomics in flight, directory transactions); lines
// with nothing pending are forgotten (no effect on timing). A prune scans every
// line, so it runs only once the map has doubled since the last one: amortised
// O(1) per access even when nothing can be dropped yet.
class LineCalendars {
 public:
  Resource& operator[](std::uint64_t line) { return lines_[line]; }
  Resource* find(std::uint64_t line) {
    auto it = lines_.find(line);
    return it == lines_.end() ? nullptr : &it->second;
  }
  std::size_t size() const { return lines_.size(); }
  void prune(Tick now) {
    if (lines_.size() <= limit_) return;
    for (auto it = lines_.begin(); it != lines_.end();) {
      it->second.earliest(now, 1, now);  // drops finished intervals
      it = it->second.idle() ? lines_.erase(it) : std::next(it);
    }
    limit_ = std::max<std::size_t>(kMinLines, 2 * lines_.size());
  }

 private:
  static constexpr std::size_t kMinLines = 4096;
  std::unordered_map<std::uint64_t, Resource> lines_;
  std::size_t limit_ = kMinLines;
};

// k identical servers (MSHR entries, the entries of a bounded request queue):
// a request takes one from its start until it leaves, which is known only
// after it started. earliest() gives the first time >= arrival at which fewer
// than k are held. k = 0: unlimited.
class Slots {
 public:
  explicit Slots(unsigned k = 0) : k_(k) {}
  bool unlimited() const { return k_ == 0; }
  Tick earliest(Tick arrival, Tick now) {
    std::erase_if(held_, [&](const auto& h) { return h.second <= now; });
    if (unlimited()) return arrival;
    auto busy_at = [&](Tick t) {
      unsigned n = 0;
      for (const auto& [s, e] : held_) n += s <= t && t < e;
      return n;
    };
    if (busy_at(arrival) < k_) return arrival;
    Tick best = ~Tick{0};
    for (const auto& [s, e] : held_)
      if (e > arrival && e < best && busy_at(e) < k_) best = e;
    return best;
  }
  void hold(Tick start, Tick end) {
    if (!unlimited() && end > start) held_.emplace_back(start, end);
  }

 private:
  unsigned k_;
  std::vector<std::pair<Tick, Tick>> held_;
};

}  // namespace fg
