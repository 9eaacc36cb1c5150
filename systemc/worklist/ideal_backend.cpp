// SPDX-License-Identifier: Apache-2.0
#include "worklist/ideal_backend.h"

#include <algorithm>

#include <fmt/format.h>

namespace fg::wl {

// ---- IdealBackend ----------------------------------------------------------

void IdealBackend::step(const In& in, Out& o) {
  o.pull_status.assign(n_, hwwl::kPullNone);
  o.pull_id.assign(n_, 0);
  o.push_gnt.assign(n_, false);
  Side& pl = pull_side(in.double_buf);
  // Answers from the state at the start of the cycle: empty means DONE.
  const bool empty = pl.size() == 0;
  for (unsigned b = 0; b < n_; ++b) {
    if (!in.pull[b]) continue;
    if (pl.size() == 0) {
      // Another lane took the last ID this cycle: this lane would have got
      // it a cycle later, so it waits (unlimited bandwidth, finite IDs).
      o.pull_status[b] = empty ? hwwl::kPullDone : hwwl::kPullWait;
      continue;
    }
    o.pull_status[b] = hwwl::kPullId;
    if (sorted_) {
      o.pull_id[b] = pl.heap.top();
      pl.heap.pop();
    } else {
      o.pull_id[b] = pl.fifo.front();
      pl.fifo.pop_front();
    }
  }
  Side& ps = side_[in.double_buf ? 1 - sel_ : 0];
  for (unsigned b = 0; b < n_; ++b) {
    if (!in.push[b]) continue;
    o.push_gnt[b] = true;
    if (sorted_)
      ps.heap.push(in.push_id[b]);
    else
      ps.fifo.push_back(in.push_id[b]);
  }
  if (in.double_buf && in.swap && empty && pull_side(true).size() == 0) sel_ = 1 - sel_;
  o.sys_empty = pull_side(in.double_buf).size() == 0;
}

unsigned IdealBackend::pull_count(unsigned, unsigned, bool double_buf) const {
  return static_cast<unsigned>(pull_side(double_buf).size());
}

std::string IdealBackend::where(bool double_buf) const {
  const std::size_t pl = pull_side(double_buf).size(), ps = double_buf ? side_[1 - sel_].size() : 0;
  if (pl + ps == 0) return "";
  return fmt::format("ideal {} worklist: {} on the pull side, {} on the push side", sorted_ ? "sorted" : "FIFO", pl,
                     ps);
}

// ---- MagicBackend ----------------------------------------------------------

void MagicBackend::step(const In& in, Out& o) {
  const auto n = static_cast<unsigned>(bank_.size());
  const auto cores = n / lanes_;
  const bool dbl = in.double_buf;
  const bool hvu = !in.rf_put.empty();
  const unsigned cap = dbl ? depth_ / 2 : depth_;
  o.pull_status.assign(n, hwwl::kPullNone);
  o.pull_id.assign(n, 0);
  o.push_gnt.assign(n, false);
  o.rf_gnt.assign(hvu ? n : 0, false);
  o.rsv_gnt.assign(hvu ? cores : 0, false);
  // Work anywhere, in the banks or the virtualization units: WAIT, not DONE.
  std::size_t visible = 0;
  for (const Bank& b : bank_) visible += b.pull(dbl).size();
  const bool work = visible != 0 || in.hvu_busy;
  std::vector<bool> was_empty(n);
  for (unsigned i = 0; i < n; ++i) was_empty[i] = bank_[i].pull(dbl).empty();
  // Free entries of a bank's push side (single mode: its one FIFO, less its
  // reserved entries) and of its pull side (refills).
  const auto push_room = [&](const Bank& b) -> unsigned {
    const std::size_t used = dbl ? b.side[1 - b.sel].size() : b.side[0].size() + b.rsv;
    return used < cap ? static_cast<unsigned>(cap - used) : 0u;
  };
  const auto pull_room = [&](const Bank& b) -> unsigned {
    const std::size_t used = b.pull(dbl).size() + (dbl ? 0 : b.rsv);
    return used < cap ? static_cast<unsigned>(cap - used) : 0u;
  };
  // The bank with the most room, from `from` on (the magic placement: no
  // bandwidth limit, any bank of any core); n when every bank is full.
  const auto roomiest = [&](unsigned from, auto room) {
    unsigned best = n, most = 0;
    for (unsigned k = 0; k < n; ++k) {
      const unsigned i = (from + k) % n;
      if (const unsigned r = room(bank_[i]); r > most) best = i, most = r;
    }
    return best;
  };
  for (unsigned i = 0; i < n; ++i) {
    Bank& b = bank_[i];
    if (in.pull[i]) {
      if (!b.pull(dbl).empty()) {
        o.pull_status[i] = hwwl::kPullId;
        o.pull_id[i] = b.pull(dbl).front();
        b.pull(dbl).pop_front();
      } else {
        o.pull_status[i] = work ? hwwl::kPullWait : hwwl::kPullDone;
      }
    }
    if (in.push[i]) {
      // Its own bank, or (full) the roomiest of all: refused only when every
      // bank of every core is full (then the virtualization unit spills it).
      const unsigned to = push_room(b) ? i : roomiest(i, push_room);
      if (to != n) {
        o.push_gnt[i] = true;
        bank_[to].push(dbl).push_back(in.push_id[i]);
      }
    }
  }
  if (hvu) {
    // Refills: into the bank's reserved entry, its free one, or the roomiest
    // pull side of all.
    for (unsigned i = 0; i < n; ++i) {
      if (!in.rf_put[i]) continue;
      Bank& b = bank_[i];
      unsigned to = i;
      if (!dbl && b.rsv != 0)
        --b.rsv;
      else if (!pull_room(b))
        to = roomiest(i, pull_room);
      if (to == n) continue;
      o.rf_gnt[i] = true;
      bank_[to].pull(dbl).push_back(in.rf_id[i]);
    }
    // Reservations (single mode): one entry in every bank of the core.
    for (unsigned c = 0; c < cores && !dbl; ++c) {
      if (!in.rsv[c]) continue;
      bool all = true;
      for (unsigned l = 0; l < lanes_ && all; ++l) all = push_room(bank_[c * lanes_ + l]) != 0;
      if (!all) continue;
      o.rsv_gnt[c] = true;
      for (unsigned l = 0; l < lanes_; ++l) ++bank_[c * lanes_ + l].rsv;
    }
  }
  for (unsigned i = 0; i < n; ++i) {
    Bank& b = bank_[i];
    if (dbl && in.swap && was_empty[i] && b.pull(dbl).empty()) b.sel = 1 - b.sel;
  }
  std::vector<bool> waited(n);
  for (unsigned i = 0; i < n; ++i) waited[i] = o.pull_status[i] == hwwl::kPullWait;
  level(dbl, waited);
  o.sys_empty = !in.hvu_busy;
  for (const Bank& b : bank_) o.sys_empty = o.sys_empty && b.pull(dbl).empty();
}

void MagicBackend::level(bool dbl, const std::vector<bool>& waited) {
  const auto n = bank_.size();
  const std::size_t cap = dbl ? depth_ / 2 : depth_;
  std::size_t total = 0;
  for (const Bank& b : bank_) total += b.pull(dbl).size();
  if (total == 0) return;
  // Each bank's limit: its capacity less its reserved entries (single mode).
  std::vector<std::size_t> limit(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = dbl ? 0 : bank_[i].rsv;
    limit[i] = std::max(cap > r ? cap - r : 0, bank_[i].pull(dbl).size());
  }
  // Targets as even as the limits allow (water filling): the largest level
  // L with sum(min(limit, L)) <= total; the remainder one each to banks with
  // room above L, first those whose pull got WAIT this cycle, then round
  // robin from a start that advances every cycle (a fixed order would starve
  // the last banks' lanes whenever fewer IDs than banks remain).
  std::size_t lo = 0, hi = total;
  const auto filled = [&](std::size_t L) {
    std::size_t s = 0;
    for (std::size_t i = 0; i < n; ++i) s += std::min(limit[i], L);
    return s;
  };
  while (lo < hi) {
    const std::size_t mid = (lo + hi + 1) / 2;
    if (filled(mid) <= total)
      lo = mid;
    else
      hi = mid - 1;
  }
  std::vector<std::size_t> target(n);
  for (std::size_t i = 0; i < n; ++i) target[i] = std::min(limit[i], lo);
  std::size_t extra = total - filled(lo), given = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t k = 0; k < n && given < extra; ++k) {
      const std::size_t i = (rr_ + k) % n;
      if (waited[i] == (pass == 0) && target[i] < limit[i]) ++target[i], ++given;
    }
  rr_ = (rr_ + 1) % n;
  std::size_t give = 0;  // next bank with more than its target
  for (std::size_t i = 0; i < n; ++i) {
    auto& to = bank_[i].pull(dbl);
    while (to.size() < target[i]) {
      while (bank_[give].pull(dbl).size() <= target[give]) ++give;
      auto& from = bank_[give].pull(dbl);
      to.push_back(from.back());
      from.pop_back();
    }
  }
}

std::string MagicBackend::where(bool double_buf) const {
  std::string s;
  const unsigned cores = static_cast<unsigned>(bank_.size()) / lanes_;
  for (unsigned c = 0; c < cores; ++c) {
    std::size_t pl = 0, ps = 0;
    for (unsigned l = 0; l < lanes_; ++l) {
      const Bank& b = bank_[c * lanes_ + l];
      pl += b.pull(double_buf).size();
      ps += double_buf ? b.side[1 - b.sel].size() : 0;
    }
    if (pl + ps) s += fmt::format("{}core {}: {} pull side, {} push side", s.empty() ? "" : "; ", c, pl, ps);
  }
  return s;
}

}  // namespace fg::wl
