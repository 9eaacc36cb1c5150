// SPDX-License-Identifier: Apache-2.0
// Worklists of the paper's limit studies (Kim & Batten, Secs. V-B and V-D),
// model only (no RTL), behind the unit's Backend interface:
//
//  * IdealBackend (Fig. 5): "a single infinite-capacity worklist with
//    unlimited bandwidth": every lane's pull in a cycle gets a work ID while
//    the worklist holds one, FIFO or, "sorted by work ID before every pull",
//    the smallest ID first. WAIT never happens; DONE when it is empty.
//  * MagicBackend (Fig. 6, scheme `magic`): the banked worklist (one FIFO bank
//    per lane, one access per bank per cycle, as the unit presents them) with
//    an "idealized redistribution scheme that evenly distributes work across
//    cores ignoring bandwidth constraints": after every cycle the pull sides
//    of all banks of all cores are levelled (counts differ by at most one;
//    the remainder goes first to banks whose pull got WAIT), moving IDs from
//    the tails of the fuller banks to the emptier. A push or a refill that
//    finds its bank full goes to the roomiest bank of any core at once; only
//    when every bank is full is it refused, and the virtualization unit
//    spills it (Sec. III-D), as with every other scheme: magic is the bound
//    of the banked worklist with the paper's capacity, not another capacity.
//
// Both keep the double-buffer mode's two sides (pushes fill the push side,
// the swap at a kernel boundary exchanges them when the pull side is empty)
// and answer a pull from the state at the start of the cycle, as the RTL
// does (a push in the same cycle is not yet visible).
#pragma once

#include <cstdint>
#include <deque>
#include <queue>
#include <string>
#include <vector>

#include "worklist/backend.h"

namespace fg::wl {

class IdealBackend final : public Backend {
 public:
  IdealBackend(unsigned banks, bool sorted) : n_(banks), sorted_(sorted) {}
  void step(const In& in, Out& o) override;
  // Every bank sees the one worklist.
  unsigned pull_count(unsigned, unsigned, bool double_buf) const override;
  std::string where(bool double_buf) const override;

 private:
  struct Side {
    std::deque<std::uint32_t> fifo;
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> heap;
    std::size_t size() const { return fifo.size() + heap.size(); }
  };
  Side& pull_side(bool dbl) { return side_[dbl ? sel_ : 0]; }
  const Side& pull_side(bool dbl) const { return side_[dbl ? sel_ : 0]; }
  unsigned n_;
  bool sorted_;
  Side side_[2];
  unsigned sel_ = 0;  // double mode: the pull side
};

class MagicBackend final : public Backend {
 public:
  MagicBackend(unsigned cores, unsigned lanes, unsigned depth) : lanes_(lanes), depth_(depth), bank_(cores * lanes) {}
  void step(const In& in, Out& o) override;
  unsigned pull_count(unsigned core, unsigned lane, bool double_buf) const override {
    return static_cast<unsigned>(bank_[core * lanes_ + lane].pull(double_buf).size());
  }
  std::string where(bool double_buf) const override;

 private:
  // As the RTL's bank: two sides in double mode, each swapping its sides by
  // itself when its pull side is empty.
  struct Bank {
    std::deque<std::uint32_t> side[2];
    unsigned sel = 0;
    unsigned rsv = 0;  // entries reserved by the virtualization unit (single mode)
    std::deque<std::uint32_t>& pull(bool dbl) { return side[dbl ? sel : 0]; }
    const std::deque<std::uint32_t>& pull(bool dbl) const { return side[dbl ? sel : 0]; }
    std::deque<std::uint32_t>& push(bool dbl) { return side[dbl ? 1 - sel : 0]; }
  };
  void level(bool double_buf, const std::vector<bool>& waited);
  unsigned lanes_, depth_;
  std::vector<Bank> bank_;
  std::size_t rr_ = 0;
};

}  // namespace fg::wl
