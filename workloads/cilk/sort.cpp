// SPDX-License-Identifier: Apache-2.0
// sort: Cilk's cilksort (Orr et al. Sec. 7.1, from the MIT Cilk
// distribution) on channel stacks (Sec. 5), four kernel nodes as in Table 3:
//
//   sort        a task sorts keys[off, off + len): with `sort.base` keys or
//               fewer it sorts them serially (the base case); otherwise it
//               spawns one task per quarter at depth d + 1 and its
//               continuation at depth d.
//   sort_sync   the four quarters are sorted: spawn the merges of quarters
//               1+2 and 3+4 into the scratch array (merge tasks at depth
//               d + 1) and the second continuation at depth d.
//   merge_sync  both halves are merged into the scratch array: spawn the merge
//               of the two halves back into keys (a merge task at d + 1).
//   merge       a merge task.
//
// Two algorithms (`sort.algorithm`):
//   cilksort  (the default) MIT Cilk's: the base case is its seqquick (a
//             median-of-three quicksort down to 20 keys, then insertion sort),
//             run in memory as the CPU code runs it: every key it reads or
//             writes is a load or a store, every comparison a branch (Sec.
//             8.4: "derived from CPU code that branches liberally"). A merge
//             task is cilkmerge: the larger input first; when the smaller has
//             at most `sort.merge_base` keys it merges serially (seqmerge),
//             otherwise it takes the larger input's median, finds its place
//             in the smaller by binary search (binsplit), stores it, and
//             spawns the two halves' merges one level deeper (Sec. 5: every
//             spawn goes one level down, so the merge stack is as deep as the
//             merge recursion can go).
//   pieces    the earlier model: the base case an insertion sort of the keys
//             loaded into registers, and a continuation cuts its merge into
//             fixed `sort.merge_chunk`-key pieces at once (a merge-path search
//             for where the piece starts, then a serial merge of the piece).
//
// The sorted keys are checked against the host's std::sort every run;
// `--output` writes them, one per line. Keys come from `--input FILE` (one
// integer per line) or are drawn from the seed.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cilk/cilk.h"
#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "inputs/keys.h"
#include "runtime/channel.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

// Table 3: Sort's data set is 1,000,000 keys and its channel width 32,768.
constexpr std::uint64_t kMaxKeys = 1u << 26;
const Param<std::uint64_t> kN{
    "sort.n", 1000000, "keys", "keys to sort, drawn from the seed (Orr et al. Table 3: 1,000,000)", {{1}, {kMaxKeys}}};
const Param<std::string> kInput{"sort.input", "", "",
                                "keys to sort, one integer per line (--input FILE); empty: draw sort.n keys"};
const Param<std::uint64_t> kCapacity{"sort.capacity",
                                     32768,
                                     "CEs",
                                     "capacity of each channel of the stacks (Orr et al. Table 3: 32,768)",
                                     {{0}, {1u << 30}}};
// Sec. 7.1: "until reaching a base case (64 elements)".
const Param<std::uint64_t> kBase{
    "sort.base", 64, "keys", "largest sub-array sorted serially (Orr et al. Sec. 7.1: 64)", {{4}, {4096}}};
// No source: the paper names no merge grain; the base case's 64 keys.
const Param<std::uint64_t> kChunk{
    "sort.merge_chunk",
    64,
    "keys",
    "sort.algorithm=pieces: output keys per merge task (an assumption: the base case's 64; docs/channels.md)",
    {{1}, {1u << 20}}};
// MIT Cilk's cilksort has MERGESIZE = QUICKSIZE (2,048 each); the paper's
// base case is 64 keys (Sec. 7.1), so the same ratio gives 64. With it the
// run launches 4,184 wavefronts on Table 3's input (paper 4,238).
const Param<std::uint64_t> kMergeBase{"sort.merge_base",
                                      64,
                                      "keys",
                                      "sort.algorithm=cilksort on channels: a merge whose smaller input has at most "
                                      "this many keys runs serially (MIT Cilk's MERGESIZE scaled as its QUICKSIZE to "
                                      "the paper's 64-key base case: 64)",
                                      {{1}, {1u << 20}}};
const Param<std::string> kMechanism{"sort.mechanism", "channels", std::vector<std::string>{"channels", "forkjoin"},
                                    "channels: Cilk on channel stacks (Orr et al.); forkjoin: tasks on the fork-join "
                                    "runtime (GTaP, docs/forkjoin.md)"};
const Param<std::string> kAlgorithm{
    "sort.algorithm", "auto", std::vector<std::string>{"auto", "pieces", "cilksort", "mergesort"},
    "cilksort: MIT Cilk's, merges split recursively at the larger input's median (channels and forkjoin); "
    "pieces: the 4-way split whose merges are cut into sort.merge_chunk pieces (channels, the earlier model); "
    "mergesort: halves and a serial merge (forkjoin, GTaP Sec. 6.2); auto: cilksort"};

// Instructions per step of the serial code (assumptions about the compiled
// loops, docs/channels.md): insertion sort, per comparison (load from the
// register copy, compare, branch, move); merge, per output key (compare,
// select, advance, branch); merge path, per search step.
constexpr std::uint64_t kInstrPerCompare = 4, kInstrPerOutput = 4, kInstrPerSearch = 6;
// cilksort's base case and merge, per step of MIT Cilk's C (assumptions about
// the compiled code in the same spirit; the loads and stores are separate):
// a partition scan step (compare, branch, pointer step), median of three
// (three compares and branches), a partition exchange (two pointer steps),
// an insertion-sort step (compare, branch, pointer step, loop test), a call
// of seqquick (call, return, the loop test), a merge output (compare, branch,
// two pointer steps) and a copied key (pointer steps, loop test).
constexpr std::uint64_t kInstrPerScan = 3, kInstrMed3 = 6, kInstrPerExchange = 2, kInstrPerShift = 4, kInstrPerCall = 4,
                        kInstrPerCopy = 3;
// Cilk's INSERTIONSIZE: seqquick partitions while a range has more keys.
constexpr std::int64_t kInsertionSize = 20;

// CEs (16 B): a sort task or a continuation {u32 off, u32 len, u64 unused}.
// A merge task (32 B): {u32 a_off, u32 a_len, u32 b_off, u32 b_len, u32
// out_off, u32 k0, u32 k1, u32 to_keys}: output keys [k0, k1) of the merge
// of A and B into out_off, from keys to scratch or back (to_keys).
constexpr std::uint32_t kTaskBytes = 16, kMergeBytes = 32;

struct Arrays {
  std::uint64_t keys, scratch;
  std::uint32_t base, chunk;
  std::uint32_t batch;  // merge pieces per lane per talloc: the capacity / 128, at least 1
  bool cilk = false;    // cilksort (seqquick base case, recursive merges); else pieces
  std::uint32_t merge_base = 64;
  std::uint64_t at(bool scratch_array, std::uint32_t i) const { return (scratch_array ? scratch : keys) + 4ull * i; }
};

struct Stacks {
  cilk::Stack sort, sync, msync, merge;
};

std::uint64_t pack(std::uint32_t lo, std::uint32_t hi) { return lo | std::uint64_t{hi} << 32; }
std::uint32_t lo32(std::uint64_t w) { return static_cast<std::uint32_t>(w); }
std::uint32_t hi32(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }

// ---- cilksort's serial code, in memory as MIT Cilk's C runs it ----

// A key's load or store, at the caller's site (its program counter for the
// SIMT model's reconvergence).
auto key(Lane& l, const Arrays& a, bool scratch, std::int64_t i, Lane::Loc loc = Lane::Loc::current()) {
  return l.load<std::int32_t>(a.at(scratch, static_cast<std::uint32_t>(i)), loc);
}
auto put(Lane& l, const Arrays& a, bool scratch, std::int64_t i, std::int32_t v, Lane::Loc loc = Lane::Loc::current()) {
  return l.store<std::int32_t>(a.at(scratch, static_cast<std::uint32_t>(i)), v, loc);
}

std::int32_t med3(std::int32_t x, std::int32_t y, std::int32_t z) {
  if (x < y) return y < z ? y : (x < z ? z : x);
  return y > z ? y : (x > z ? z : x);
}

// seqpart: partition keys[lo, hi] around the median of the ends and the
// middle; the last index of the lower part.
Task<std::int64_t> seqpart(Lane& l, const Arrays& a, std::int64_t lo, std::int64_t hi) {
  const std::int32_t x = co_await key(l, a, false, lo);
  const std::int32_t y = co_await key(l, a, false, hi);
  const std::int32_t z = co_await key(l, a, false, lo + (hi - lo) / 2);
  co_await l.alu(kInstrMed3);
  const std::int32_t pivot = med3(x, y, z);
  std::int64_t cl = lo, ch = hi;
  for (;;) {
    std::int32_t h = 0, v = 0;
    for (;;) {
      h = co_await key(l, a, false, ch);
      co_await l.alu(kInstrPerScan);
      if (h <= pivot) break;
      --ch;
    }
    for (;;) {
      v = co_await key(l, a, false, cl);
      co_await l.alu(kInstrPerScan);
      if (v >= pivot) break;
      ++cl;
    }
    if (cl >= ch) break;
    co_await put(l, a, false, ch--, v);
    co_await put(l, a, false, cl++, h);
    co_await l.alu(kInstrPerExchange);
  }
  co_return ch < hi ? ch : ch - 1;
}

Task<> insertion_sort(Lane& l, const Arrays& a, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t q = lo + 1; q <= hi; ++q) {
    const std::int32_t v = co_await key(l, a, false, q);
    std::int64_t p = q - 1;
    for (; p >= lo; --p) {
      const std::int32_t b = co_await key(l, a, false, p);
      co_await l.alu(kInstrPerShift);
      if (b <= v) break;
      co_await put(l, a, false, p + 1, b);
    }
    co_await put(l, a, false, p + 1, v);
  }
}

// seqquick: quicksort of keys[lo, hi], the lower part recursively and the
// upper part in the loop, insertion sort below Cilk's INSERTIONSIZE.
Task<> seqquick(Lane& l, const Arrays& a, std::int64_t lo, std::int64_t hi) {
  co_await l.alu(kInstrPerCall);
  while (hi - lo >= kInsertionSize) {
    const std::int64_t p = co_await seqpart(l, a, lo, hi);
    co_await seqquick(l, a, lo, p);
    lo = p + 1;
  }
  co_await insertion_sort(l, a, lo, hi);
}

// seqmerge: merge a[0, na) and b[0, nb) of one array into out of the other.
Task<> seqmerge(Lane& l, const Arrays& a, bool from_scratch, std::uint32_t a_off, std::uint32_t na, std::uint32_t b_off,
                std::uint32_t nb, std::uint32_t out) {
  std::uint32_t i = 0, j = 0, k = out;
  if (na && nb) {
    std::int32_t x = co_await key(l, a, from_scratch, a_off);
    std::int32_t y = co_await key(l, a, from_scratch, b_off);
    for (;;) {
      co_await l.alu(kInstrPerOutput);
      if (x < y) {
        co_await put(l, a, !from_scratch, k++, x);
        if (++i == na) break;
        x = co_await key(l, a, from_scratch, a_off + i);
      } else {
        co_await put(l, a, !from_scratch, k++, y);
        if (++j == nb) break;
        y = co_await key(l, a, from_scratch, b_off + j);
      }
    }
  }
  // The rest of the input that is left (Cilk's memcpy).
  const std::uint32_t from = i < na ? a_off + i : b_off + j, rest = i < na ? na - i : nb - j;
  for (std::uint32_t r = 0; r < rest; ++r) {
    const std::int32_t v = co_await key(l, a, from_scratch, from + r);
    co_await l.alu(kInstrPerCopy);
    co_await put(l, a, !from_scratch, k++, v);
  }
}

// binsplit: how many keys of b[0, nb) are below `pivot` (Cilk's binsplit
// returns the last of them).
Task<std::uint32_t> binsplit(Lane& l, const Arrays& a, bool scratch, std::uint32_t b_off, std::uint32_t nb,
                             std::int32_t pivot) {
  std::uint32_t lo = 0, hi = nb;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::int32_t v = co_await key(l, a, scratch, b_off + mid);
    co_await l.alu(kInstrPerSearch);
    if (v < pivot)
      lo = mid + 1;
    else
      hi = mid;
  }
  co_return lo;
}

// A merge task of cilksort: merge [a_off, +na) and [b_off, +nb) into out.
Task<> cilkmerge(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t a_off, std::uint32_t na,
                 std::uint32_t b_off, std::uint32_t nb, std::uint32_t out, bool to_keys) {
  const bool from_scratch = to_keys;
  if (na < nb) {
    std::swap(a_off, b_off);
    std::swap(na, nb);
  }
  co_await l.alu(kInstrPerCall);
  if (na == 0) co_return;
  if (nb <= a.merge_base || d + 1 >= s.merge.level.size()) {
    co_await seqmerge(l, a, from_scratch, a_off, na, b_off, nb, out);
    co_return;
  }
  const std::uint32_t s1 = na / 2;
  const std::int32_t pivot = co_await key(l, a, from_scratch, a_off + s1);
  const std::uint32_t s2 = co_await binsplit(l, a, from_scratch, b_off, nb, pivot);
  co_await put(l, a, !from_scratch, out + s1 + s2, pivot);
  chan::Channel& child = s.merge.at(d + 1);
  const chan::Alloc ma = co_await chan::talloc(l, child, 2, true);
  auto spawn = [&](Lane& lr, chan::Alloc al) -> Task<> {
    const std::uint64_t p = al.addr(child, 0), q = al.addr(child, 1);
    co_await lr.store<std::uint64_t>(p, pack(a_off, s1));
    co_await lr.store<std::uint64_t>(p + 8, pack(b_off, s2));
    co_await lr.store<std::uint64_t>(p + 16, pack(out, 0));
    co_await lr.store<std::uint64_t>(p + 24, pack(s1 + s2, to_keys ? 1 : 0));
    co_await lr.store<std::uint64_t>(q, pack(a_off + s1 + 1, na - s1 - 1));
    co_await lr.store<std::uint64_t>(q + 8, pack(b_off + s2, nb - s2));
    co_await lr.store<std::uint64_t>(q + 16, pack(out + s1 + s2 + 1, 0));
    co_await lr.store<std::uint64_t>(q + 24, pack(na + nb - s1 - s2 - 1, to_keys ? 1 : 0));
    co_await chan::enq(lr, child, al);
  };
  if (ma.split)  // the wavefront's spawns exceed the channel: in rounds
    co_await chan::in_rounds(l, child, 2, spawn);
  else
    co_await spawn(l, ma);
}

Task<> sort_task(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.sort.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint32_t lo = lo32(w), len = hi32(w);
  if (len <= a.base && a.cilk) {
    co_await seqquick(l, a, lo, static_cast<std::int64_t>(lo) + len - 1);
  } else if (len <= a.base) {
    std::vector<std::int32_t> v(len);
    for (std::uint32_t i = 0; i < len; ++i) v[i] = co_await l.load<std::int32_t>(a.at(false, lo + i));
    std::uint64_t compares = 0;
    for (std::uint32_t i = 1; i < len; ++i) {
      const std::int32_t x = v[i];
      std::uint32_t j = i;
      for (; j > 0; --j) {
        ++compares;
        if (v[j - 1] <= x) break;
        v[j] = v[j - 1];
      }
      v[j] = x;
    }
    co_await l.alu(compares * kInstrPerCompare + len);
    for (std::uint32_t i = 0; i < len; ++i) co_await l.store<std::int32_t>(a.at(false, lo + i), v[i]);
  } else {
    chan::Channel& cont = s.sync.at(d);
    chan::Channel& child = s.sort.at(d + 1);
    const chan::Alloc ka = co_await chan::talloc(l, cont, 1);         // sync
    const chan::Alloc ca = co_await chan::talloc(l, child, 4, true);  // spawn the quarters
    co_await l.store<std::uint64_t>(ka.addr(cont, 0), w);
    const std::uint32_t q = len / 4;
    if (ca.split) {  // the wavefront's spawns exceed the channel: in rounds, the continuation last
      co_await chan::in_rounds(l, child, 4, [&](Lane& lr, chan::Alloc a) -> Task<> {
        for (std::uint32_t i = 0; i < 4; ++i)
          co_await lr.store<std::uint64_t>(a.addr(child, i), pack(lo + i * q, i < 3 ? q : len - 3 * q));
        co_await chan::enq(lr, child, a);
      });
      co_await chan::enq(l, cont, ka);
    } else {
      for (std::uint32_t i = 0; i < 4; ++i)
        co_await l.store<std::uint64_t>(ca.addr(child, i), pack(lo + i * q, i < 3 ? q : len - 3 * q));
      co_await chan::enq(l, cont, ka);
      co_await chan::enq(l, child, ca);
    }
  }
  co_await chan::tfree(l, in, ce);
}

// The pieces of the merge of [a_off, a_off + a_len) and [b_off, b_off +
// b_len) into out_off.
struct Merge {
  std::uint32_t a_off, a_len, b_off, b_len, out_off;
  // Merge tasks it takes: pieces of `chunk` keys, or one (a cilkmerge, chunk 0).
  std::uint32_t pieces(std::uint32_t chunk) const { return chunk ? (a_len + b_len + chunk - 1) / chunk : 1; }
};

// Both continuations: spawn the pieces of the merges `m` (one or two) and,
// for sort_sync, the next continuation: its talloc first, its enq last, so
// it is published after all its merges. The pieces go out in batches of at
// most `batch` per lane, so that a wavefront's request fits the channel
// (a top-level merge of 1,000,000 keys has 15,625 pieces); a lane short of
// room yields between batches while the merges it published run.
Task<> spawn_merges(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint64_t w, const Merge* m,
                    std::uint32_t count, bool to_keys, chan::Channel* next) {
  chan::Channel& child = s.merge.at(d + 1);
  chan::Alloc ka;
  if (next) ka = co_await chan::talloc(l, *next, 1);
  const std::uint32_t chunk = a.cilk ? 0 : a.chunk;
  const std::uint32_t first = m[0].pieces(chunk);  // pieces of the first merge, then of the second
  const std::uint32_t total = count == 2 ? first + m[1].pieces(chunk) : first;
  for (std::uint32_t done = 0; done < total;) {
    const std::uint32_t n = std::min(total - done, a.batch);
    const chan::Alloc ma = co_await chan::talloc(l, child, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Merge& mm = done + i < first ? m[0] : m[1];
      const std::uint32_t piece = done + i < first ? done + i : done + i - first;
      const std::uint32_t len = mm.a_len + mm.b_len;
      const std::uint64_t p = ma.addr(child, i);
      co_await l.store<std::uint64_t>(p, pack(mm.a_off, mm.a_len));
      co_await l.store<std::uint64_t>(p + 8, pack(mm.b_off, mm.b_len));
      co_await l.store<std::uint64_t>(p + 16, pack(mm.out_off, piece * chunk));
      co_await l.store<std::uint64_t>(p + 24, pack(chunk ? std::min(len, (piece + 1) * chunk) : len, to_keys ? 1 : 0));
    }
    co_await l.alu(4);
    co_await chan::enq(l, child, ma);
    done += n;
  }
  if (next) {
    co_await l.store<std::uint64_t>(ka.addr(*next, 0), w);
    co_await chan::enq(l, *next, ka);
  }
}

Task<> sort_sync(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.sync.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint32_t lo = lo32(w), len = hi32(w), q = len / 4;
  // Quarters 1+2 and 3+4 into the scratch array at the same offsets.
  const Merge m[2] = {{lo, q, lo + q, q, lo}, {lo + 2 * q, q, lo + 3 * q, len - 3 * q, lo + 2 * q}};
  co_await l.alu(12);
  co_await spawn_merges(l, a, s, d, w, m, 2, false, &s.msync.at(d));
  co_await chan::tfree(l, in, ce);
}

Task<> merge_sync(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.msync.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint32_t lo = lo32(w), len = hi32(w), h = len / 4 * 2;
  const Merge m{lo, h, lo + h, len - h, lo};  // the halves, back into the keys
  co_await l.alu(8);
  co_await spawn_merges(l, a, s, d, w, &m, 1, true, nullptr);
  co_await chan::tfree(l, in, ce);
}

Task<> merge_task(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.merge.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w0 = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint64_t w1 = co_await l.load<std::uint64_t>(ce.addr + 8);
  const std::uint64_t w2 = co_await l.load<std::uint64_t>(ce.addr + 16);
  const std::uint64_t w3 = co_await l.load<std::uint64_t>(ce.addr + 24);
  const std::uint32_t a_off = lo32(w0), na = hi32(w0), b_off = lo32(w1), nb = hi32(w1);
  const std::uint32_t out = lo32(w2), k0 = hi32(w2), k1 = lo32(w3);
  const bool to_keys = hi32(w3) != 0;
  if (a.cilk) {
    co_await cilkmerge(l, a, s, d, a_off, na, b_off, nb, out, to_keys);
    co_await chan::tfree(l, in, ce);
    co_return;
  }
  const bool from_scratch = to_keys;  // merges into scratch read keys, and back
  // Merge path: i keys of A and k0 - i of B precede output k0 (A first on ties).
  std::uint32_t lo = k0 > nb ? k0 - nb : 0, hi = std::min(k0, na);
  for (; lo < hi;) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::int32_t x = co_await l.load<std::int32_t>(a.at(from_scratch, a_off + mid));
    const std::int32_t y = co_await l.load<std::int32_t>(a.at(from_scratch, b_off + (k0 - mid - 1)));
    co_await l.alu(kInstrPerSearch);
    if (x <= y)
      lo = mid + 1;
    else
      hi = mid;
  }
  std::uint32_t i = lo, j = k0 - lo;
  std::int32_t x = 0, y = 0;
  if (i < na) x = co_await l.load<std::int32_t>(a.at(from_scratch, a_off + i));
  if (j < nb) y = co_await l.load<std::int32_t>(a.at(from_scratch, b_off + j));
  for (std::uint32_t k = k0; k < k1; ++k) {
    const bool take_a = j >= nb || (i < na && x <= y);
    co_await l.alu(kInstrPerOutput);
    co_await l.store<std::int32_t>(a.at(!from_scratch, out + k), take_a ? x : y);
    if (take_a) {
      if (++i < na) x = co_await l.load<std::int32_t>(a.at(from_scratch, a_off + i));
    } else {
      if (++j < nb) y = co_await l.load<std::int32_t>(a.at(from_scratch, b_off + j));
    }
  }
  co_await chan::tfree(l, in, ce);
}

// Depth of the deepest base case: quarter (len / 4 three times, the rest
// once) until `base` keys or fewer. The lengths of one level differ by a few
// keys, and the larger one does not always lead to the deepest path (with
// base 4: 50 -> 12, 14 -> 3, 5 -> ...; 49 -> 12, 13 -> 3, 4), so every
// length of each level is followed.
std::uint32_t sort_depth(std::uint64_t n, std::uint64_t base) {
  std::vector<std::uint64_t> level{n}, next;
  std::uint32_t depth = 0;
  for (;;) {
    next.clear();
    for (const std::uint64_t len : level)
      if (len > base)
        for (const std::uint64_t part : {len / 4, len - 3 * (len / 4)})
          if (std::find(next.begin(), next.end(), part) == next.end()) next.push_back(part);
    if (next.empty()) return depth;
    ++depth;
    level.swap(next);
  }
}

// Levels of the merge stack. pieces: one below each continuation level.
// cilksort: a merge of t keys that splits (its smaller input has more than
// merge_base keys, so t > 2 merge_base) spawns merges of at most 3t/4 keys
// each (half the larger input and all of the smaller, at most three quarters
// of both); the top merges start one level below the deepest continuation
// with at most n keys. (A merge at the last level would merge serially; this
// bound never lets it happen.)
std::uint32_t merge_levels(std::uint64_t n, std::uint64_t base, bool cilk, std::uint64_t merge_base) {
  const std::uint32_t levels = sort_depth(n, base) + 1;
  if (!cilk) return levels;
  std::uint32_t splits = 0;
  for (std::uint64_t t = n; t > 2 * merge_base; t = t * 3 / 4) ++splits;
  return levels + splits;
}

// Keys from `path`: one integer per line (blank lines skipped); anything else
// is a UserError naming file:line.
void sort(Host& h) {
  const Config& cfg = h.config();
  std::vector<std::int32_t> keys;
  if (const std::string path = kInput.get(cfg); !path.empty()) {
    if (!cfg.is_default(kN.name()))
      throw UserError(
          fmt::format("{} (set by {}) does not apply: the keys come from {}", kN.name(), cfg.origin(kN.name()), path));
    keys = keys::read_file(path, kMaxKeys);
  } else {
    keys.resize(kN.get(cfg));
    std::uniform_int_distribution<std::int32_t> dist(std::numeric_limits<std::int32_t>::min(),
                                                     std::numeric_limits<std::int32_t>::max());
    for (auto& k : keys) k = dist(h.rng());
  }
  const auto n = static_cast<std::uint32_t>(keys.size());
  const bool forkjoin = kMechanism.get(cfg) == "forkjoin";
  std::string algorithm = kAlgorithm.get(cfg);
  if (algorithm == "auto") algorithm = "cilksort";
  if (forkjoin ? algorithm == "pieces" : algorithm == "mergesort")
    throw UserError(fmt::format("sort.algorithm={}: not a sort of sort.mechanism={} ({})", algorithm,
                                kMechanism.get(cfg), forkjoin ? "cilksort or mergesort" : "cilksort or pieces"));
  auto check = [&](const std::vector<std::int32_t>& got) {
    std::vector<std::int32_t> want = keys;
    std::sort(want.begin(), want.end());
    std::uint64_t wrong = 0, first_wrong = n;
    for (std::uint32_t i = 0; i < n; ++i)
      if (got[i] != want[i]) {
        ++wrong;
        first_wrong = std::min<std::uint64_t>(first_wrong, i);
      }
    h.check(wrong == 0, fmt::format("sort: {} of {} keys out of place, the first at index {}", wrong, n, first_wrong));
    h.result("keys", std::uint64_t{n});
  };
  if (forkjoin) {
    for (const std::string& key : {kCapacity.name(), kBase.name(), kChunk.name(), kMergeBase.name()})
      if (cfg.set_by_user(key))
        throw UserError(
            fmt::format("{}: sort.mechanism=forkjoin has no channels (its cutoffs are sort.cutoff, "
                        "sort.cutoff_sort and sort.cutoff_merge)",
                        key));
    const std::vector<std::int32_t> got = fj::sort_app(h, keys, algorithm == "cilksort");
    check(got);
    for (const std::int32_t k : got) h.output() << k << "\n";
    return;
  }
  for (const std::string& key : fj::sort_keys())
    if (cfg.set_by_user(key)) throw UserError(fmt::format("{}: a fork-join setting (sort.mechanism=forkjoin)", key));
  const bool cilk = algorithm == "cilksort";
  if (const Param<std::uint64_t>& other = cilk ? kChunk : kMergeBase; cfg.set_by_user(other.name()))
    throw UserError(fmt::format("{}: a sort.algorithm={} setting (sort.algorithm={})", other.name(),
                                cilk ? "pieces" : "cilksort", algorithm));
  const auto cap = static_cast<std::uint32_t>(kCapacity.get(cfg));
  Arrays a{h.upload(keys), h.upload(std::vector<std::int32_t>(n)), static_cast<std::uint32_t>(kBase.get(cfg)),
           static_cast<std::uint32_t>(kChunk.get(cfg)), std::max<std::uint32_t>(1, cap / 128)};
  a.cilk = cilk;
  a.merge_base = static_cast<std::uint32_t>(kMergeBase.get(cfg));
  const std::uint32_t depth = sort_depth(n, a.base);
  flow::Graph g(h, kCapacity.name());
  Stacks s;
  auto body = [&a, &s](auto fn) {
    return [&a, &s, fn](std::uint32_t d) {
      return [&a, &s, fn, d](Lane& l, std::uint32_t off) { return fn(l, a, s, d, off); };
    };
  };
  // Table 3: four kernel nodes, 16s/8d/2c each.
  const ContextSize ctx{856, 16, 8, 2};
  const std::uint32_t conts = std::max<std::uint32_t>(depth, 1);
  s.sync = cilk::make_stack(g, "sort_sync", kTaskBytes, cap, conts, body(sort_sync), 32, ctx);
  s.msync = cilk::make_stack(g, "merge_sync", kTaskBytes, cap, conts, body(merge_sync), 32, ctx);
  s.sort = cilk::make_stack(g, "sort", kTaskBytes, cap, depth + 1, body(sort_task), 32, ctx);
  s.merge = cilk::make_stack(g, "merge", kMergeBytes, cap, merge_levels(n, a.base, cilk, a.merge_base),
                             body(merge_task), 32, ctx);
  // Continuation stacks in production order: sort_sync publishes merge_sync.
  g.aggregator().set_scheduler(
      std::make_unique<cilk::LevelScheduler>(std::vector{s.sort, s.merge}, std::vector{s.sync, s.msync}));
  struct Root {
    std::uint64_t w, pad;
  };
  static_assert(sizeof(Root) == kTaskBytes);
  g.host_enq(s.sort.at(0), Root{pack(0, n), 0});
  const Tick elapsed = cilk::run(g);
  const std::vector<std::int32_t> got = h.download<std::int32_t>(a.keys, n);
  check(got);
  h.result("base_depth", std::uint64_t{depth});
  cilk::report(h, g, elapsed);
  for (const std::int32_t k : got) h.output() << k << "\n";
}

// Keys a run sorts: sort.n, or at most one per two bytes of sort.input (a
// digit and a newline each).
std::uint64_t keys_bound(const Config& c) {
  const std::string path = kInput.get(c);
  if (path.empty()) return kN.get(c);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : std::min<std::uint64_t>(size / 2 + 1, kMaxKeys);  // a missing file is reported when it is read
}

// The keys and their output, and the four channel stacks as sort() makes
// them with the spill blocks of their kernels (or the fork-join runtime's).
std::uint64_t device_bytes(const Config& c) {
  const std::uint64_t n = keys_bound(c);
  if (kMechanism.get(c) == "forkjoin") return 8 * n + fj::runtime_bytes(c, 48, 7, fj::sort_local_slots(c));
  const std::uint64_t base = kBase.get(c), cap = kCapacity.get(c);
  const std::uint32_t depth = sort_depth(n, base);
  const std::uint32_t conts = std::max<std::uint32_t>(depth, 1);
  const std::string alg = kAlgorithm.get(c);
  const std::uint32_t merges = merge_levels(n, base, alg == "auto" || alg == "cilksort", kMergeBase.get(c));
  return 8 * n + 2 * cilk::stack_bytes(c, kTaskBytes, cap, conts) + cilk::stack_bytes(c, kTaskBytes, cap, depth + 1) +
         cilk::stack_bytes(c, kMergeBytes, cap, merges) + flow::spill_bytes(c, ContextSize{856, 16, 8, 2});
}

const RegisterWorkload kReg{
    {"sort", "Cilk sort (4-way split, 64-key base cases, merges) on channel stacks (Orr et al. Sec. 7.1)",
     kInput.name(), sort, device_bytes, [](const Config& c) {
       return kMechanism.get(c) == "forkjoin" ? std::vector<std::string>{fj::kName} : flow::mechanisms(c);
     }}};

}  // namespace
}  // namespace fg
