// SPDX-License-Identifier: Apache-2.0
// Address translation (docs/memory.md, "Address translation"): an L1 TLB in
// front of each requester's L1-to-L2 path and one L2 TLB the requesters share.
// A request the L1 sends to the L2 (a read miss, a bypassing read, a store,
// an atomic) first needs its page's translation: found in the L1 TLB it costs
// nothing; missed there it costs `l1_miss_latency` cycles when the L2 TLB
// holds it and `l1_miss_latency + walk_latency` when it does not (a page
// walk). A translation on its way is waited for, not fetched again. Off
// (`gpu.tlb.l1_entries` 0) nothing is translated: the model before.
//
// Timing contract: like the caches, loosely timed; a lookup is made when its
// request leaves the L1, in host order, and returns when the translation is
// ready (never waits itself).
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>

#include "sim/config.h"
#include "sim/time.h"

namespace fg {

struct TlbParams {
  unsigned l1_entries = 0;       // 0: no translation
  unsigned l1_miss_latency = 0;  // cycles an L1 TLB miss the L2 TLB serves adds
  unsigned l2_entries = 0;       // 0: the L2 TLB holds every page (no walks)
  unsigned walk_latency = 0;     // cycles a page walk adds to the L2 TLB's miss
  std::uint64_t page = 2u << 20;
  bool on() const { return l1_entries > 0; }
  static TlbParams from(const Config& cfg);
};

// A fully associative set of page translations, least recently used first
// out, each with the tick it is (or becomes) ready. Not a TagArray (mem/
// tag_array.h), whose lookup scans a set's ways: an L2 TLB of thousands of
// entries in one set is looked up on every L1 TLB miss, so it is hashed.
class TlbSet {
 public:
  explicit TlbSet(std::size_t entries = 0) : cap_(entries) {}
  // The entry of `page` (made the most recently used), or nullptr.
  Tick* find(std::uint64_t page);
  // Adds `page` ready at `ready` (the least recently used entry leaves when full; 0 entries: unlimited).
  void put(std::uint64_t page, Tick ready);
  std::size_t size() const { return order_.size(); }

 private:
  std::size_t cap_;
  std::list<std::pair<std::uint64_t, Tick>> order_;
  std::unordered_map<std::uint64_t, std::list<std::pair<std::uint64_t, Tick>>::iterator> at_;
};

// The shared L2 TLB (owned by the memory system).
class SharedTlb {
 public:
  explicit SharedTlb(const TlbParams& p) : p_(p), set_(p.l2_entries) {}
  // An L1 TLB's miss of `page` at `t`: when the translation is ready (with
  // `clock` the requester's); `walked` says whether it needed a page walk.
  Tick miss(std::uint64_t page, Tick t, const Clock& clock, bool& walked);

 private:
  TlbParams p_;
  TlbSet set_;
};

}  // namespace fg
