// SPDX-License-Identifier: Apache-2.0
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
#include <functional>
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
    drop_before(now);
    if (occupancy == 0 || idle() || arrival >= busy_.back().second) return arrival;
    // First interval starting after arrival.
    auto it = std::upper_bound(begin(), busy_.end(), arrival, [](Tick a, const Interval& i) { return a < i.first; });
    Tick t = arrival;
    if (it != begin() && std::prev(it)->second > t) t = std::prev(it)->second;
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
  bool idle() const { return head_ == busy_.size(); }
  Tick busy_ticks() const { return busy_ticks_; }

 private:
  using Interval = std::pair<Tick, Tick>;
  // The live intervals are busy_[head_..]: dropping the oldest only moves
  // head_, and the dead prefix is erased once it is half the vector (no
  // allocation per reservation; most arrive in order and append).
  std::vector<Interval>::iterator begin() { return busy_.begin() + static_cast<std::ptrdiff_t>(head_); }
  void drop_before(Tick now) {
    while (head_ < busy_.size() && busy_[head_].second <= now) ++head_;
    if (head_ == busy_.size()) {
      busy_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= busy_.size()) {
      busy_.erase(busy_.begin(), begin());
      head_ = 0;
    }
  }
  void insert(Tick s, Tick e) {
    // In-order arrival (the common case): append, or extend the last interval.
    if (idle() || s >= busy_.back().second) {
      if (!idle() && busy_.back().second == s)
        busy_.back().second = e;
      else
        busy_.emplace_back(s, e);
      return;
    }
    auto next = std::lower_bound(begin(), busy_.end(), s, [](const Interval& i, Tick v) { return i.first < v; });
    if (next != begin()) {
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
      next->first = s;
      return;
    }
    busy_.insert(next, Interval{s, e});
  }

  std::vector<Interval> busy_;  // disjoint [start, end) sorted by start, touching ones merged
  std::size_t head_ = 0;
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
  void prune(Tick now) {
    if (lines_.size() <= limit_) return;
    for (auto it = lines_.begin(); it != lines_.end();) {
      it->second.earliest(now, 1, now);  // drops finished intervals
      it = it->second.idle() ? lines_.erase(it) : std::next(it);
    }
    limit_ = std::max<std::size_t>(kMinLines, 2 * lines_.size());
  }
  std::size_t size() const { return lines_.size(); }

 private:
  static constexpr std::size_t kMinLines = 4096;
  std::unordered_map<std::uint64_t, Resource> lines_;
  std::size_t limit_ = kMinLines;
};

// k identical servers (MSHR entries, the entries of a bounded request queue):
// a request takes one from its start until it leaves, which is known only
// after it started. earliest(arrival) is the first time >= arrival at which
// fewer than k are taken, counting every request already holding one as
// holding it from `arrival` on: requests are served in the order they reach
// the resource (a FIFO in host order, which the CUs' ordering makes time
// order). Then the answer is the k-th latest leave time, kept in a min-heap of
// the k latest: O(log k) per request. k = 0: unlimited.
class Slots {
 public:
  explicit Slots(unsigned k = 0) : k_(k) {}
  bool unlimited() const { return k_ == 0; }
  Tick earliest(Tick arrival) const {
    if (unlimited() || latest_.size() < k_) return arrival;
    return std::max(arrival, latest_.front());
  }
  void hold(Tick start, Tick end) {
    if (unlimited() || end <= start) return;
    if (latest_.size() < k_) {
      latest_.push_back(end);
      std::push_heap(latest_.begin(), latest_.end(), std::greater<>());
    } else if (end > latest_.front()) {
      std::pop_heap(latest_.begin(), latest_.end(), std::greater<>());
      latest_.back() = end;
      std::push_heap(latest_.begin(), latest_.end(), std::greater<>());
    }
  }

 private:
  unsigned k_;
  std::vector<Tick> latest_;  // min-heap: the k latest leave times
};

}  // namespace fg
