// SPDX-License-Identifier: Apache-2.0
// Set-associative tag array with LRU replacement, shared by the L1 and the L2
// banks. Lines hold timing state only (data lives in the BackingStore): the
// time the line's fill completes (a hit on a line still being filled waits for
// it, which models MSHR merging), dirty, and the L2 directory's sharer mask.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace fg {

// x / d and x % d for a divisor fixed at construction: a shift and a mask
// when d is a power of two (line sizes, set counts), a division otherwise
// (e.g. 12 L2 banks). The memory models divide on every access; a 64-bit
// division costs tens of cycles.
class FastDiv {
 public:
  explicit FastDiv(std::uint64_t d = 1)
      : d_(d), pow2_(std::has_single_bit(d)), shift_(static_cast<unsigned>(std::countr_zero(d))) {}
  std::uint64_t div(std::uint64_t x) const { return pow2_ ? x >> shift_ : x / d_; }
  std::uint64_t mod(std::uint64_t x) const { return pow2_ ? x & (d_ - 1) : x % d_; }
  std::uint64_t value() const { return d_; }

 private:
  std::uint64_t d_;
  bool pow2_;
  unsigned shift_;
};

// Where a line goes among `n` banks or channels (mem.interleave): its
// number mod n, or an XOR fold of its bits first, so that addresses at a
// power-of-two-like stride spread over every bank (the hashed indexing of
// NVIDIA's chips since Volta; GPGPU-Sim's IPoly in Accel-Sim's configs).
inline std::uint64_t interleave_fold(std::uint64_t line) {
  return line ^ (line >> 5) ^ (line >> 11) ^ (line >> 17) ^ (line >> 23) ^ (line >> 29);
}

struct CacheLine {
  std::uint64_t line = 0;     // line address (byte address / line size)
  Tick ready = 0;             // fill completes at this time
  std::uint64_t sharers = 0;  // L2 only: L1s holding a copy (bit = requester id)
  int owner = -1;             // L2 only, moesi: the L1 holding it M, O or E
  std::uint8_t state = 0;     // L1 only, moesi: MoesiState
  std::uint32_t sectors = 0;  // L1 only, gpu.sector: the sectors held (bit i: sector i)
  std::uint32_t pending = 0;  // L1 only, gpu.sector: sectors a later sector miss is filling, ready at pending_ready
  Tick pending_ready = 0;
  std::uint32_t dirty_sectors =
      0;  // L1 only, gpu.l1.local_write_back: sectors written since the fill (bit i: sector i)
  bool valid = false;
  bool dirty = false;
  bool invalidated = false;           // tag kept after a coherence invalidation
  bool partial = false;               // L2 only, gpu.l2.write_miss=lazy: allocated by writes, not fetched
  std::uint8_t copies = 0;            // L2 only, gpu.l2.partitions: partitions that hold a copy (bit p)
  std::uint64_t written[2] = {0, 0};  // L2 only, while partial: the bytes written (bit i: byte i of the line)
};

class TagArray {
 public:
  TagArray(std::uint64_t lines, unsigned ways)
      : ways_(ways), sets_(lines / ways), lines_(lines), keys_(lines, 0), lru_(lines, 0) {}
  std::uint64_t sets() const { return sets_.value(); }

  // `key` selects the set (line address, or the bank-local index for L2 banks).
  // The search reads keys_ (line + 1 of a valid way, 0 of an invalid one), 8 B
  // a way, not the ways' CacheLines: a 64-way L1 set of CacheLines is 4.6 KB.
  CacheLine* find(std::uint64_t line, std::uint64_t key) {
    const std::size_t base = set(key);
    const std::uint64_t* k = &keys_[base];
    for (unsigned w = 0; w < ways_; ++w)
      if (k[w] == line + 1) return &lines_[base + w];
    return nullptr;
  }
  // A line with this tag that was invalidated by coherence and not reused since.
  bool was_invalidated(std::uint64_t line, std::uint64_t key) {
    CacheLine* s = &lines_[set(key)];
    for (unsigned w = 0; w < ways_; ++w)
      if (!s[w].valid && s[w].invalidated && s[w].line == line) return true;
    return false;
  }
  // Way to fill: an invalid one, else the least recently used.
  CacheLine* victim(std::uint64_t key) {
    const std::size_t base = set(key);
    const std::uint64_t* k = &keys_[base];
    const std::uint64_t* u = &lru_[base];
    unsigned v = 0;
    for (unsigned w = 0; w < ways_; ++w) {
      if (!k[w]) return &lines_[base + w];
      if (u[w] < u[v]) v = w;
    }
    return &lines_[base + v];
  }
  // Every change of a way's validity goes through these two (keys_ in step).
  // fill: the way now holds `line`, every other field reset.
  void fill(CacheLine* l, std::uint64_t line) {
    const std::size_t i = index(l);
    *l = CacheLine{};
    l->line = line;
    l->valid = true;
    keys_[i] = line + 1;
    lru_[i] = 0;
  }
  // drop: the way no longer holds its line (the tag stays, for was_invalidated).
  void drop(CacheLine* l) {
    l->valid = false;
    keys_[index(l)] = 0;
  }
  void touch(CacheLine* l) { lru_[index(l)] = ++stamp_; }
  // Drops every valid way; returns how many.
  std::uint64_t drop_all() {
    return drop_unless([](std::uint64_t) { return false; });
  }
  // Calls f(line) for every valid way.
  template <class F>
  void for_each_valid(F f) {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i]) f(lines_[i]);
  }
  // Drops every valid line but those whose line number `keep` accepts;
  // returns how many it dropped.
  template <class Keep>
  std::uint64_t drop_unless(Keep keep) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] && !keep(keys_[i] - 1)) drop(&lines_[i]), ++n;
    return n;
  }

 private:
  std::size_t set(std::uint64_t key) const { return sets_.mod(key) * ways_; }
  std::size_t index(const CacheLine* l) const { return static_cast<std::size_t>(l - lines_.data()); }

  unsigned ways_;
  FastDiv sets_;
  std::vector<CacheLine> lines_;
  std::vector<std::uint64_t> keys_;  // by way: line + 1 while valid, else 0
  std::vector<std::uint64_t> lru_;   // by way: last-use stamp
  std::uint64_t stamp_ = 0;
};

}  // namespace fg
