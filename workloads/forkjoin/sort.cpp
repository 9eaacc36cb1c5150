// SPDX-License-Identifier: Apache-2.0
// The sorts on the fork-join runtime (GTaP Sec. 6.2, Figs. 3, 4 and 10;
// docs/forkjoin.md), the `sort.mechanism=forkjoin` value of the sort workload
// (keys, host reference and output are the workload's, workloads/cilk/sort.cpp):
//
//   mergesort  msort(l, r) over keys[l..r]: with more than `sort.cutoff` keys
//              (128) it spawns msort of both halves, waits, and merges them
//              serially on its lane into the scratch array, then copies the
//              range back; at or below the cutoff a serial recursive top-down
//              mergesort (the same merge and copy at every level, its calls'
//              frames on the lane's stack, forkjoin/serial.h). The root's
//              final merge is one lane's (the paper's Sec. 6.2 bottleneck).
//   cilksort   MIT Cilk's cilksort: csort(a, n) with n < `sort.cutoff_sort`
//              (64) sorts its keys serially with a 64-wide bitonic network in
//              registers (loads padded with INT_MAX); otherwise it spawns the
//              four quarters, waits, spawns the merges of quarters 1+2 and 3+4
//              into the scratch array, waits, spawns the merge of the halves
//              back, waits. cmerge(a, b, dst) swaps so that a is the larger
//              input; with fewer than `sort.cutoff_merge` (256) keys in all it
//              merges serially, otherwise it splits a at its median, finds the
//              median's place in b by binary search, and spawns both merges.
//              Its data loads bypass the L1 (the paper's ld.global.cg).
//
// The algorithms and their parameters are the paper's evaluation programs'
// (yukim0359/GTaP, evaluation/*/mergesort and */cilksort at 84591ae): facts
// only, no code. EPAQ (forkjoin.queues >= 3, cilksort): a sort child below the
// sort cutoff goes to queue 1, a merge child below the merge cutoff to queue
// 2, everything else (continuations included) to queue 0.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "forkjoin/apps.h"
#include "forkjoin/serial.h"
#include "gpu/host.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"

namespace fg::fj {
namespace {

const Param<std::uint64_t> kCutoff{"sort.cutoff",
                                   128,
                                   "keys",
                                   "fork-join mergesort: ranges of more keys spawn their halves (GTaP Sec. 6.2: 128)",
                                   {{1}, {1u << 26}}};
const Param<std::uint64_t> kCutoffSort{
    "sort.cutoff_sort",
    64,
    "keys",
    "fork-join cilksort: fewer keys are sorted serially by a bitonic network this wide (GTaP Sec. 6.2: 64)",
    {{2}, {4096}}};
const Param<std::uint64_t> kCutoffMerge{"sort.cutoff_merge",
                                        256,
                                        "keys",
                                        "fork-join cilksort: merges of fewer keys run serially (GTaP Sec. 6.2: 256; "
                                        "at least 3: GTaP's split keeps the median in the first half, so a merge of "
                                        "1 + 1 keys would spawn itself)",
                                        {{3}, {1u << 26}}};

// The serial code's steps as clang -O3 and ptxas compile the paper's
// functions for sm_90 (counted from the machine code, clang 14 and ptxas
// 13.0, 2026-11-29; GTaP 84591ae evaluation/2-comparison mergesort and
// cilksort, the same cilksort code in Figs. 3, 4 and 10), each region as
// its instructions and its static schedule (the cycles a lone warp takes to
// issue it, ptxas's stall counts; docs/forkjoin.md "Compiled schedules";
// Lane::alu_sched), memory instructions included: a merge's output key
// loads both inputs' heads again (cilksort's merge_device through its
// ld.global.cg asm, mergesort's through generic loads) and stores one key,
// 18 instructions in 64 cycles (cilksort), 26 in 66 (mergesort's, inlined in
// its recursive function) or 22 in 57 (inlined in its task); a leftover key
// one load and one store, 12 in 30 (cilksort), 14 in 38 or 12 in 28
// (mergesort's); mergesort's leftovers and copy back also go 8 keys an
// iteration, each store waiting for the load before it (the pointers may
// alias); a binary-search step 12 in 56 with its load.
// A key's code around its load (or a merged key's two loads, issued
// together): before the loads, in their shadow (the loads' own stalls past
// their issue cycle and the instructions before the first use, which issue
// while the loads are in flight), and from the use on besides the store
// (whose issue the model charges). A lone warp takes pre + shadow + post +
// one cycle per load and store when the loads take no longer than the
// shadow, else pre + the loads' latency + post.
struct Key {
  Code pre, shadow, post;
};
// 8 keys unrolled, each store waiting for the load before it: before the
// first load, and the rest besides the loads' and stores' issue cycles and
// what issues in their shadows.
struct Group {
  Code pre, post;
};
struct MergeCode {
  Code entry;       // before the merge loop (mergesort's: its scratch pointer's load besides)
  Key per_output;   // a merged key: both heads' loads, the compare, the store
  Code left_setup;  // before a leftover loop that runs
  Key left_key;     // a leftover key: its load and store
  Group left_8;     // 8 leftover keys, unrolled (pre.n 0: no such loop)
  Code copy_setup;  // mergesort's copy back to the keys: before it,
  Key copy_key;     // a key,
  Group copy_8;     // 8 keys
  // Which compiled merge (enter_region): the same helpers serve the three.
  std::uint32_t region = 0;
};
// cilksort's merge_device: entry 8 in 22 and the loop's pre-header 5 in 11;
// a key 18 in 64 (2 in 6, the loads, 6 in 18 in their shadow, 8 in 38 from
// the compare, both predicated stores issued); its leftover setups 7 in 35
// (the b side's 7 in 34), a leftover key 12 in 30 (1 in 5, the load, 4 in
// 8, 6 in 16; the b side's 11 in 30).
constexpr MergeCode kCilkMerge{{13, 33}, {{2, 6}, {6, 18}, {7, 37}}, {7, 35}, {{1, 5}, {4, 8}, {5, 15}}, {}, {}, {}, {},
                               1};
// mergesort_rec_device's inlined merge: setup 16 in 40 (one of them the
// scratch pointer's load, issued by the caller); a key 26 in 66 (6 in 15,
// the loads, 4 in 10, 14 in 39); leftover setups 13 in 58 (14 in 59), a key
// 14 in 38 (3 in 15, the load, 4 in 5, 6 in 17), 8 keys 29 in 96 (3 in 15
// before, 54 cycles not in a load's shadow); copy setup 8 in 46, a key 10 in
// 39 (3 in 15, the load, 4 in 7, 2 in 16), 8 keys 25 in 95 (3 in 15, 57 not
// in a shadow).
constexpr MergeCode kMsortMerge{{15, 39},
                                {{6, 15}, {4, 10}, {13, 38}},
                                {13, 58},
                                {{3, 15}, {4, 5}, {5, 16}},
                                {{3, 15}, {10, 54 - 15 - 16}},
                                {8, 46},
                                {{3, 15}, {4, 7}, {1, 15}},
                                {{3, 15}, {6, 57 - 15 - 16}},
                                2};
// The same merge inlined in the task after its taskwait (no ABI call, so no
// reloads of the memory descriptor): a key 22 in 57 (2 in 6, the loads, 4 in
// 10, 14 in 39), leftovers 12 in 28 (1 in 5, 4 in 5, 6 in 17) and 25 in 88
// per 8 (1 in 5, 48 not in a shadow), copy 8 in 30 per key (1 in 6, 4 in 6,
// 2 in 17) and 21 in 86 per 8 (1 in 5, 50 not in a shadow); its setups were
// not read apart and are the recursive function's.
constexpr MergeCode kMsortTaskMerge{{15, 39},
                                    {{2, 6}, {4, 10}, {13, 38}},
                                    {13, 58},
                                    {{1, 5}, {4, 5}, {5, 16}},
                                    {{1, 5}, {8, 48 - 5 - 16}},
                                    {8, 46},
                                    {{1, 6}, {4, 6}, {1, 16}},
                                    {{1, 5}, {4, 50 - 5 - 16}},
                                    3};
// A binary-search step, 12 in 56: 4 in 20, the load, 1 in 5, 6 in 30.
constexpr Key kSearchStep{{4, 20}, {1, 5}, {6, 30}};

struct Sort {
  std::uint64_t keys = 0, tmp = 0;
  std::uint32_t cutoff = 128, cutoff_sort = 64, cutoff_merge = 256;
  bool epaq = false;
};

// A key's load (through the L2 if `bypass`) in flight.
OpAwaiter<Async<std::int32_t>> load_key(Lane& l, bool bypass, std::uint64_t addr) {
  return bypass ? l.load_async_bypass<std::int32_t>(addr) : l.load_async<std::int32_t>(addr);
}

// One key copied from src to dst with the code around its load (Key).
Task<void> copy_key(Lane& l, const Key& code, bool bypass, std::uint64_t src, std::uint64_t dst) {
  co_await sched(l, code.pre);
  const Async<std::int32_t> x = co_await load_key(l, bypass, src);
  co_await sched(l, code.shadow);
  const std::int32_t v = co_await l.wait(x);
  co_await sched(l, code.post);
  co_await l.store<std::int32_t>(dst, v);
}

// 8 keys copied from src to dst (Group), each store waiting for its load.
Task<void> copy_group(Lane& l, const Group& code, bool bypass, std::uint64_t src, std::uint64_t dst) {
  co_await sched(l, code.pre);
  for (std::uint32_t u = 0; u < 8; ++u) {
    const Async<std::int32_t> x = co_await load_key(l, bypass, src + 4ull * u);
    const std::int32_t v = co_await l.wait(x);
    co_await l.store<std::int32_t>(dst + 4ull * u, v);
  }
  co_await sched(l, code.post);
}

// A merge's leftover keys of one side (n keys from src to dst), 8 at a time
// where the code has such a loop, each store waiting for its load.
// `side`: 1 for a's loop, 2 for b's (two loops of the compiled code).
Task<void> merge_leftover(Lane& l, const MergeCode& code, std::uint32_t side, bool bypass, std::uint64_t src,
                          std::uint32_t n, std::uint64_t dst) {
  if (n == 0) co_return;
  const std::uint32_t frame = enter_region(l, 4 * code.region + side);
  co_await sched(l, code.left_setup);
  std::uint32_t u = 0;
  if (code.left_8.pre.n) {  // each loop's body one level deeper: the lanes that leave it meet (serial.h)
    const std::uint32_t outer = enter_body(l);
    for (; u + 8 <= n; u += 8) co_await copy_group(l, code.left_8, bypass, src + 4ull * u, dst + 4ull * u);
    co_await leave(l, outer);
  }
  const std::uint32_t outer = enter_body(l);
  for (; u < n; ++u) co_await copy_key(l, code.left_key, bypass, src + 4ull * u, dst + 4ull * u);
  co_await leave(l, outer);
  l.path = frame;
}

// Merge a[0, na) and b[0, nb) into dst (one lane): while both have keys,
// both heads loaded (in flight together), the compare, the store; then the
// leftover keys. `bypass`: cilksort's loads through the L2.
Task<void> merge_serial(Lane& l, const MergeCode& code, std::uint64_t a, std::uint32_t na, std::uint64_t b,
                        std::uint32_t nb, std::uint64_t dst, bool bypass) {
  const Key& key = code.per_output;
  std::uint32_t i = 0, j = 0, k = 0;
  const std::uint32_t frame = enter_region(l, 4 * code.region);
  co_await sched(l, code.entry);
  const std::uint32_t outer = enter_body(l);  // the lanes that leave the loop early wait for the rest
  while (i < na && j < nb) {
    co_await sched(l, key.pre);
    const Async<std::int32_t> x = co_await load_key(l, bypass, a + 4ull * i);
    const Async<std::int32_t> y = co_await load_key(l, bypass, b + 4ull * j);
    co_await sched(l, key.shadow);
    co_await l.wait(x.ready > y.ready ? x : y);
    co_await sched(l, key.post);
    const bool take_a = x.value <= y.value;
    co_await l.store<std::int32_t>(dst + 4ull * k++, take_a ? x.value : y.value);
    if (take_a)
      ++i;
    else
      ++j;
  }
  co_await leave(l, outer);
  l.path = frame;
  co_await merge_leftover(l, code, 1, bypass, a + 4ull * i, na - i, dst + 4ull * k);
  k += na - i;
  co_await merge_leftover(l, code, 2, bypass, b + 4ull * j, nb - j, dst + 4ull * k);
}

// Mergesort's copy back of n keys from src to dst (one lane): 8 keys per
// iteration, the rest one at a time; every store waits for the load before
// it (the compiled code's: the two arrays may alias).
Task<void> copy_back(Lane& l, const MergeCode& code, std::uint64_t src, std::uint64_t dst, std::uint32_t n) {
  const std::uint32_t frame = enter_region(l, 4 * code.region + 3);
  co_await sched(l, code.copy_setup);
  std::uint32_t k = 0;
  std::uint32_t outer = enter_body(l);
  for (; k + 8 <= n; k += 8) co_await copy_group(l, code.copy_8, false, src + 4ull * k, dst + 4ull * k);
  co_await leave(l, outer);
  outer = enter_body(l);
  for (; k < n; ++k) co_await copy_key(l, code.copy_key, false, src + 4ull * k, dst + 4ull * k);
  co_await leave(l, outer);
  l.path = frame;
}

// ---- mergesort ----

// mergesort_rec_device (GTaP 84591ae evaluation/2-comparison/mergesort/
// gtap_mergesort.cu, its merge inlined) as clang -O3 and ptxas compile it:
// every invocation, a one-key range too, saves a 56-byte frame (14 words:
// the return address, a, left, right, mid, mid + 1, the length, the
// caller's convergence barrier, four registers of the inlined loops) in a
// prologue of 23 instructions and restores it in an epilogue of 18; 9 per
// call; 16 to set the merge up (one of them the scratch pointer's load).
// Static schedule: prologue 78 cycles, epilogue 59 up to its last restore's
// issue, 3 more to the return and 6 for it, the calls 22 and 20; a one-key
// range 146 cycles for 41 instructions.
constexpr CallShape kMsort{23 - 14, 18 - 14, 14, 78 - 14, 59 - 13, 2, 6};
constexpr std::uint32_t kMsortDepth = 32;  // frames: ranges of up to 2^31 keys

// The serial recursive mergesort of keys[lo..hi] (inclusive), through tmp.
// Each invocation runs in its own frame (Lane::path), `call` the caller's
// how-manyth call it is: the scheme of replay's frames (serial.h).
Task<void> msort_serial(Lane& l, const Ctx& t, const Sort& s, std::uint32_t lo, std::uint32_t hi, std::uint32_t depth,
                        std::uint32_t call) {
  const std::uint32_t caller = l.path;
  const std::uint32_t frame = frame_path(caller, call);
  l.path = frame;
  co_await prologue(l, t, depth, kMsort);
  l.path = deeper(frame);  // the body: a one-key range's lanes wait here for the rest (serial.h)
  if (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    co_await l.alu_sched(9, 22);
    co_await msort_serial(l, t, s, lo, mid, depth + 1, 1);
    co_await l.alu_sched(9, 20);
    co_await msort_serial(l, t, s, mid + 1, hi, depth + 1, 2);
    co_await l.load<std::uint64_t>(s.tmp);  // g_buf (modelled at the scratch array's first word)
    co_await merge_serial(l, kMsortMerge, s.keys + 4ull * lo, mid - lo + 1, s.keys + 4ull * (mid + 1), hi - mid,
                          s.tmp + 4ull * lo, false);
    co_await copy_back(l, kMsortMerge, s.tmp + 4ull * lo, s.keys + 4ull * lo, hi - lo + 1);
  }
  l.path = frame;
  co_await epilogue(l, t, depth, kMsort);
  l.path = caller;
}

// The paper's mergesort's record (GTaP's compiler): the parameters left and
// right and the captured local mid, stored where it is assigned; the merge
// after the taskwait loads left, mid and right.
constexpr Ctx::Live kMsortLive{4, 12};

Fn<void> msort_task(Ctx& t, const Sort* s, std::uint32_t lo, std::uint32_t hi) {
  if (lo >= hi) co_return;
  const std::uint32_t n = hi - lo + 1;
  if (n <= s->cutoff) {
    co_await msort_serial(t.lane(), t, *s, lo, hi, 0, 1);
    co_return;
  }
  const std::uint32_t mid = lo + (hi - lo) / 2;
  co_await t.spawn(msort_task, s, lo, mid);
  co_await t.spawn(msort_task, s, mid + 1, hi);
  co_await t.taskwait(0, kMsortLive);
  co_await t.lane().load<std::uint64_t>(s->tmp);  // g_buf, as the serial code's
  co_await merge_serial(t.lane(), kMsortTaskMerge, s->keys + 4ull * lo, mid - lo + 1, s->keys + 4ull * (mid + 1),
                        hi - mid, s->tmp + 4ull * lo, false);
  co_await copy_back(t.lane(), kMsortTaskMerge, s->tmp + 4ull * lo, s->keys + 4ull * lo, n);
}

// ---- cilksort ----

// The base case (GTaP's sort_small_device, 84591ae evaluation/2-comparison/
// cilksort/gtap_cilksort.cu, the same in Figs. 3, 4 and 10): n < cutoff_sort
// keys at a, sorted by a bitonic network as wide as the cutoff (rounded up to a power of two) in an int
// array on the lane's stack, padded with INT_MAX. As clang -O3 and ptxas
// compile it for sm_90 (the machine code counted 2026-11-29): only the
// innermost loop is unrolled, so the array stays in local memory; a key's
// load through the L2 (predicated: the padding loads nothing) and its store
// to the array, about 4 instructions each; per pass (k, j) a guard of 3
// instructions per position and per compare-exchange the two keys' local
// loads, 8 instructions and two predicated stores, which write only when
// the pair swaps (about 570 instructions and 63 local loads a pass at 64);
// then each of the n keys loaded from the array and stored back. The
// predicated stores are issued by every lane here, those that write nothing
// on the GPU storing the value in place. Static schedule of the 64-wide
// network (docs/forkjoin.md "Compiled schedules"), used per position for
// any width: the load phase 262 instructions in 622 cycles (8 a position
// besides its load and store); a pass 570 in 2,128: an exchange's 8
// instructions besides its 2 local loads and 2 stores in 48 cycles and 3
// per position for the guards in 7.25; 4 in 30 per k; the write-back 9 in
// 34 to enter, 25 in 77 per 8 keys (each store waiting for its load), 8
// in 36 between, 12 in 28 per remaining key, 3 in 11 to return (5 in 23
// after the groups when no key remains).
Task<void> network_sort(Lane& l, const Ctx& t, const Sort& s, std::uint64_t a, std::uint32_t n) {
  const std::uint32_t width = std::bit_ceil(s.cutoff_sort);  // GTaP's cutoffs are powers of two
  std::vector<Async<std::int32_t>> in(n);
  for (std::uint32_t i = 0; i < n; ++i) in[i] = co_await l.load_async_bypass<std::int32_t>(a + 4ull * i);
  for (std::uint32_t i = 0; i < width; ++i) {
    co_await l.alu_sched(2, 8);
    const std::int32_t v = i < n ? co_await l.wait(in[i]) : std::numeric_limits<std::int32_t>::max();
    co_await l.store<std::int32_t>(t.local_word(i), v);
  }
  for (std::uint32_t k = 2; k <= width; k <<= 1) {
    co_await l.alu_sched(4, 30);
    for (std::uint32_t j = k >> 1; j > 0; j >>= 1) {
      co_await l.alu_sched(3ull * width, 29ull * width / 4);  // the guards
      for (std::uint32_t i = 0; i < width; ++i) {
        const std::uint32_t ixj = i ^ j;
        if (ixj <= i) continue;
        const Async<std::int32_t> x = co_await l.load_async<std::int32_t>(t.local_word(i));
        const Async<std::int32_t> ya = co_await l.load_async<std::int32_t>(t.local_word(ixj));
        co_await l.wait(x.ready > ya.ready ? x : ya);
        const std::int32_t y = ya.value;
        co_await l.alu_sched(8, 48);
        // The predicated stores: every lane issues both; a lane whose pair
        // is in order stores its keys where they are (the hardware's
        // predicated-off store writes nothing; here it writes the same
        // value), so the warp's lanes stay together as on the GPU.
        const bool swap = (i & k) == 0 ? x.value > y : x.value < y;
        co_await l.store<std::int32_t>(t.local_word(i), swap ? y : x.value);
        co_await l.store<std::int32_t>(t.local_word(ixj), swap ? x.value : y);
      }
    }
  }
  co_await l.alu_sched(9, 34);
  std::uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    co_await l.alu_sched(25 - 16, 77 - 16);
    for (std::uint32_t u = i; u < i + 8; ++u) {
      const std::int32_t v = co_await l.load<std::int32_t>(t.local_word(u));
      co_await l.store<std::int32_t>(a + 4ull * u, v);
    }
  }
  if (i == n) {  // no key left: the return after the groups
    co_await l.alu_sched(5, 23);
    co_return;
  }
  co_await l.alu_sched(8, 36);
  for (; i < n; ++i) {
    const std::int32_t v = co_await l.load<std::int32_t>(t.local_word(i));
    co_await l.alu_sched(10, 26);
    co_await l.store<std::int32_t>(a + 4ull * i, v);
  }
  co_await l.alu_sched(3, 11);
}

std::uint32_t sort_queue(const Sort& s, std::uint32_t n) { return s.epaq && n < s.cutoff_sort ? 1 : 0; }
std::uint32_t merge_queue(const Sort& s, std::uint32_t n) { return s.epaq && n < s.cutoff_merge ? 2 : 0; }

// The paper's cilksort's records (GTaP's compiler): cilkmerge's are its
// parameters, which the swap assigns (a, b, a_len, b_len: 24 bytes stored
// when it swaps; charged on the path that waits, the base cases' swaps are
// not), nothing live after its taskwait; cilksort's its parameters and the
// six lengths, stored where assigned before the first taskwait, after which
// the merges load arr, tmp and five lengths (36 bytes), after the second
// tmp, arr and two lengths (24), after the third nothing.
constexpr Ctx::Live kCmergeLive{0, 0}, kCmergeSwappedLive{24, 0}, kCsortLive1{24, 36}, kCsortLive2{0, 24},
    kCsortLive3{0, 0};

Fn<void> cmerge_task(Ctx& t, const Sort* s, std::uint64_t a, std::uint32_t na, std::uint64_t b, std::uint32_t nb,
                     std::uint64_t dst) {
  const bool swapped = na < nb;
  if (swapped) {
    std::swap(a, b);
    std::swap(na, nb);
  }
  if (nb == 0) {
    enter_region(t.lane(), 1);  // this branch's own copy of the inlined merge (serial.h)
    co_await merge_serial(t.lane(), kCilkMerge, a, na, b, 0, dst, true);
    co_await t.lane().fence_release();
    co_return;
  }
  if (na + nb < s->cutoff_merge) {
    enter_region(t.lane(), 2);
    co_await merge_serial(t.lane(), kCilkMerge, a, na, b, nb, dst, true);
    co_return;
  }
  // The larger input's median, and how many keys of b are not above it.
  const std::uint32_t sa = (na + 1) / 2;
  const std::int32_t pivot = co_await t.lane().load_bypass<std::int32_t>(a + 4ull * (sa - 1));
  std::uint32_t lo = 0, hi = nb;
  const std::uint32_t outer = enter_body(t.lane());  // the lanes that leave the search early wait for the rest
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    Lane& l = t.lane();
    co_await sched(l, kSearchStep.pre);
    const Async<std::int32_t> x = co_await l.load_async_bypass<std::int32_t>(b + 4ull * mid);
    co_await sched(l, kSearchStep.shadow);
    const std::int32_t v = co_await l.wait(x);
    co_await sched(l, kSearchStep.post);
    if (v <= pivot)
      lo = mid + 1;
    else
      hi = mid;
  }
  co_await leave(t.lane(), outer);
  const std::uint32_t sb = lo;
  co_await t.spawn_on(merge_queue(*s, sa + sb), cmerge_task, s, a, sa, b, sb, dst);
  co_await t.spawn_on(merge_queue(*s, na - sa + nb - sb), cmerge_task, s, a + 4ull * sa, na - sa, b + 4ull * sb,
                      nb - sb, dst + 4ull * (sa + sb));
  const Ctx::Live live = swapped ? kCmergeSwappedLive : kCmergeLive;
  co_await t.taskwait(0, live);
}

Fn<void> csort_task(Ctx& t, const Sort* s, std::uint64_t a, std::uint64_t tmp, std::uint32_t n) {
  if (n < s->cutoff_sort) {
    co_await network_sort(t.lane(), t, *s, a, n);
    co_return;
  }
  const std::uint32_t n12 = n / 2, n1 = n12 / 2, n2 = n12 - n1, n34 = n - n12, n3 = n34 / 2, n4 = n34 - n3;
  const std::uint64_t a2 = a + 4ull * n1, a3 = a + 4ull * n12, a4 = a3 + 4ull * n3;
  const std::uint64_t t2 = tmp + 4ull * n1, t3 = tmp + 4ull * n12, t4 = t3 + 4ull * n3;
  co_await t.spawn_on(sort_queue(*s, n1), csort_task, s, a, tmp, n1);
  co_await t.spawn_on(sort_queue(*s, n2), csort_task, s, a2, t2, n2);
  co_await t.spawn_on(sort_queue(*s, n3), csort_task, s, a3, t3, n3);
  co_await t.spawn_on(sort_queue(*s, n4), csort_task, s, a4, t4, n4);
  co_await t.taskwait(0, kCsortLive1);
  co_await t.spawn_on(merge_queue(*s, n12), cmerge_task, s, a, n1, a2, n2, tmp);
  co_await t.spawn_on(merge_queue(*s, n34), cmerge_task, s, a3, n3, a4, n4, t3);
  co_await t.taskwait(0, kCsortLive2);
  co_await t.spawn_on(merge_queue(*s, n), cmerge_task, s, tmp, n12, t3, n34, a);
  co_await t.taskwait(0, kCsortLive3);
}

}  // namespace

std::vector<std::string> sort_keys() { return {kCutoff.name(), kCutoffSort.name(), kCutoffMerge.name()}; }
std::uint32_t sort_local_slots(const Config& c) {
  return std::max(stack_slots(kMsortDepth, kMsort.frame),
                  stack_slots(1, std::bit_ceil(static_cast<std::uint32_t>(kCutoffSort.get(c)))));  // cilksort's network
}

std::vector<std::int32_t> sort_app(Host& h, const std::vector<std::int32_t>& keys, bool cilksort) {
  const Config& cfg = h.config();
  const std::vector<std::string> other = cilksort ? std::vector<std::string>{kCutoff.name()}
                                                  : std::vector<std::string>{kCutoffSort.name(), kCutoffMerge.name()};
  for (const std::string& key : other)
    if (cfg.set_by_user(key))
      throw UserError(fmt::format("{}: a {} setting (sort.algorithm={})", key, cilksort ? "mergesort" : "cilksort",
                                  cilksort ? "cilksort" : "mergesort"));
  const auto n = static_cast<std::uint32_t>(keys.size());
  Sort s;
  s.keys = h.upload(keys);
  s.tmp = h.upload(std::vector<std::int32_t>(n));
  s.cutoff = static_cast<std::uint32_t>(kCutoff.get(cfg));
  s.cutoff_sort = static_cast<std::uint32_t>(kCutoffSort.get(cfg));
  s.cutoff_merge = static_cast<std::uint32_t>(kCutoffMerge.get(cfg));
  s.epaq = cilksort && std::get<std::uint64_t>(cfg.value("forkjoin.queues")) >= 3;
  Program p;
  p.first_finish = true;  // Sec. 6.2 and Fig. 10 ran the sorts with FIRST_TASK_FINISH
  if (cilksort) {
    p.name = "cilksort";
    p.payload = 48;                                                // GTAP_MAX_TASK_DATA_SIZE in the paper's cilksort
    p.max_children = 7;                                            // 4 sorts, 2 merges, 1 merge over the task's life
    p.local_slots = stack_slots(1, std::bit_ceil(s.cutoff_sort));  // the base case's array
    run(h, p, csort_task, static_cast<const Sort*>(&s), s.keys, s.tmp, n);
  } else {
    p.name = "mergesort";
    p.payload = 16;  // left, right, n, mid
    p.max_children = 2;
    p.local_slots = stack_slots(kMsortDepth, kMsort.frame);  // the serial mergesort's stack
    run(h, p, msort_task, static_cast<const Sort*>(&s), 0u, n - 1);
  }
  return h.download<std::int32_t>(s.keys, n);
}

}  // namespace fg::fj
