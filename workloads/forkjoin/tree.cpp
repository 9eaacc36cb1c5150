// SPDX-License-Identifier: Apache-2.0
// tree: GTaP's synthetic task trees (Maeda & Taura 2026, Sec. 6.3, Figs.
// 7-9) on the fork-join runtime, with thread-level or block-level tasks
// (forkjoin.workers):
//   full    a full binary tree of depth D (node n's children 2n+1, 2n+2): a
//           task spawns its two children, waits for them, then does its work
//           (a leaf only works);
//   pruned  a 3-ary tree (node n's child k is 3n+k+1, 32-bit) whose node at
//           depth d has each child with probability 1 - d/D: s =
//           hash(n ^ d * 0x9e3779b9), then per child s = xorshift(s + k) and
//           the child lives when s mod D < D - d; a task spawns its live
//           children, waits when it spawned any, then works.
// The work of a task, after its taskwait (the paper's do_memory_and_compute):
// mem_ops loads of random elements of an array of doubles (2^20, 8 MiB, in
// the paper; tree.input_log2) and compute_iters independent multiply-adds,
// one after the other, as compiled (work() below: one load in flight, but 4
// in the full tree's thread program, whose loops have no `#pragma unroll 1`).
// A thread task does all of it; a block task's lanes take every
// group_size-th load and multiply-add, and lane 0 writes its own share's
// value (the paper's block programs reduce nothing). A task's value (the
// loads' sum in 2^-32 fixed point, so that it does not depend on order, xor
// the multiply-adds' low bits) goes to out[node] (full) or is added into a
// 2^20-slot sink at hash(node) (pruned). Checked against the host: every
// slot. The hash (lowbias32's constants), the index and multiply-add formulas
// and the node numbering are the paper's programs' (yukim0359/GTaP,
// evaluation/2-comparison/{binary_tree,prob_Bary_tree} at 14669e9): facts, no
// code.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "forkjoin/apps.h"
#include "forkjoin/serial.h"
#include "gpu/host.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg::fj {
namespace {

const Param<std::string> kShape{"tree.shape", "full", std::vector<std::string>{"full", "pruned"},
                                "full: binary tree of depth tree.depth (GTaP Fig. 7); pruned: 3-ary tree whose nodes "
                                "at depth d have each child with probability 1 - d/D (Fig. 8)"};
const Param<std::uint64_t> kDepth{
    "tree.depth",
    10,
    "",
    "depth D (the paper: 20 full, 32 pruned; scaled to simulable sizes: docs/forkjoin.md)",
    {{1}, {24}}};
const Param<std::uint64_t> kMemOps{"tree.mem_ops",
                                   256,
                                   "loads",
                                   "random 8-byte loads per task (the paper's default 256, Figs. 7-8)",
                                   {{0}, {1u << 16}}};
const Param<std::string> kBody{"tree.body", "work", std::vector<std::string>{"work", "scaling"},
                               "work: a task's loads and multiply-adds of Figs. 7-9; scaling: the body of Fig. 3's "
                               "trees (each load through an index array, the block's sums reduced in LDS, a "
                               "dependent multiply-add chain, the parent combining its children's values; full "
                               "trees)"};
const Param<std::string> kUnroll{
    "tree.unroll", "compiled", std::vector<std::string>{"compiled", "none"},
    "compiled: each body as clang compiles it (the full tree's thread program, which has no `#pragma unroll 1`, "
    "unrolled 4 times: 4 loads in flight, clang 14 and 19 alike, tools/tree_unroll.py); none: the full tree's thread "
    "program one step an iteration, one load in "
    "flight, as the pruned tree's (an ablation; docs/forkjoin.md \"Compiled schedules\")"};
const Param<std::uint64_t> kInputLog2{
    "tree.input_log2",
    20,
    "",
    "log2 of the elements of the array the loads read (the paper's 2^20 doubles, 8 MiB, "
    "resident in the H100's L2; docs/forkjoin.md)",
    {{10}, {24}}};
const Param<std::uint64_t> kCompute{
    "tree.compute_iters",
    256,
    "",
    "multiply-add iterations per task (the paper's default 256, Figs. 7-8; Fig. 3's body: two dependent FMAs each)",
    {{0}, {1u << 20}}};

constexpr std::uint32_t kSinkMask = (1u << 20) - 1;  // the pruned tree's 2^20-slot sink

std::uint32_t xorshift32(std::uint32_t s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}
// The paper's 32-bit hash (lowbias32's constants): the pruned tree's draws
// and sink slots.
std::uint32_t hash32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}
std::uint32_t seed_of(std::uint32_t node) { return xorshift32(node ^ 0x9e3779b9u); }
std::uint32_t load_index(std::uint32_t seed, std::uint64_t m, std::uint32_t mask) {
  return xorshift32(seed + static_cast<std::uint32_t>(m) * 747796405u) & mask;
}
std::int64_t fixed(double x) { return std::llround(x * 4294967296.0); }
std::uint32_t mix_of(std::uint32_t seed, std::uint64_t it) {
  const double y = std::fma(static_cast<double>(xorshift32(seed + static_cast<std::uint32_t>(it) * 747796405u)),
                            1.0000001192092896, 0.9999999403953552);
  return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(y));
}
std::uint32_t sink_slot(std::uint32_t node) { return hash32(node) & kSinkMask; }
// Which children the pruned tree's node `id` at depth d (of D) has.
std::uint32_t pruned_children(std::uint32_t id, std::uint32_t d, std::uint32_t depth) {
  std::uint32_t s = hash32(id ^ (d * 0x9e3779b9u));
  std::uint32_t mask = 0;
  for (std::uint32_t k = 0; k < 3; ++k) {
    s = xorshift32(s + k);
    if (s % depth < depth - d) mask |= 1u << k;
  }
  return mask;
}

struct Shape {
  bool pruned = false, scaling = false;
  std::uint64_t indices = 0;          // scaling: the index array (u32 per input element)
  std::uint64_t scalars = 0;          // scaling: GTaP's __device__ g_indices_n, g_indices, g_input
  std::uint64_t globals = 0;          // work: GTaP's __device__ g_input_n, g_input, g_out (full) or g_sink, g_sink_n
  bool unroll = true;                 // work: the full tree's thread program unrolled 4 times (tree.unroll)
  std::uint32_t depth = 0, mask = 0;  // mask: the input's elements - 1
  std::uint64_t mem_ops = 0, compute = 0;
  std::uint64_t input = 0, out = 0;
};

// The value of the share of a task's work starting at `first`, every
// `stride`-th load and multiply-add (the whole of it for stride 1).
std::uint64_t host_value(const Shape& s, const std::vector<double>& input, std::uint32_t node, std::uint32_t stride) {
  const std::uint32_t seed = seed_of(node);
  std::int64_t acc = 0;
  for (std::uint64_t m = 0; m < s.mem_ops; m += stride) acc += fixed(input[load_index(seed, m, s.mask)]);
  std::uint32_t mix = 0;
  for (std::uint64_t it = 0; it < s.compute; it += stride) mix ^= mix_of(seed, it);
  return static_cast<std::uint64_t>(acc) ^ mix;
}

// ---- the body of Figs. 7-9's trees (tree.body=work; yukim0359/GTaP,
// evaluation/2-comparison/{binary_tree,prob_Bary_tree} at 14669e9,
// do_memory_and_compute and the task's store) ----
// As clang -O3 and ptxas compile it for sm_90 (the machine code read
// 2026-11-30, docs/forkjoin.md "Compiled schedules"), each region as its
// instructions besides the global-memory ones and its static schedule
// (Lane::alu_sched; ptxas's stall counts, a load's own stall past its issue
// cycle in the region after it), memory instructions issued where the code
// issues them. The four programs share one body but
// for two things, so there are three codes:
//  - the pruned tree's thread program (loops `#pragma unroll 1`, one load
//    in flight; read with the pragma put back into clang 14's PTX, which
//    drops it, where LLVM 19 on keeps it);
//  - the full tree's thread program, whose loops carry no pragma: clang
//    unrolls both 4 times (4 independent loads in flight, then their adds
//    in order), with a remainder loop of the one-step code (tree.unroll=none:
//    the pruned program's one-step code instead, with the full tree's
//    store; an ablation);
//  - the block programs (lane i takes steps i, i + blockDim, ...; no
//    reduction: thread 0 stores its own share's value).
// Per task: the seed's xorshift and the mem_ops test; then, where there is a
// load, the addresses of the __device__ scalars g_input_n and g_input, their
// two loads in flight together and the mask waiting for the first. A load
// step: the index's xorshift and address (6 in 29), the load, the loop's
// counters in its shadow (4 in 6), the add waiting for the value and the
// back-edge (2 in 17). A multiply-add step: the xorshift, I2F, DFMA, xor and
// the loop's counters, 17 instructions in 41 (the I2F's latency is not
// charged; 45 in 84 per four steps unrolled). Then the value's I2F and the
// store: the full tree loads g_out's pointer first, the pruned tree loads
// g_sink_n and g_sink and hashes the node (its thread program does both
// between its loops: ptxas hoisted them there).
constexpr Code kHeadT1{11, 37}, kHeadT2{12, 42}, kHeadBlock{12, 38}, kSkip{1, 5};
constexpr Code kScalarsPre{2, 9}, kScalarsShadowT1{4, 8}, kScalarsPostT1{1, 7}, kScalarsShadowT2{7, 11},
    kScalarsPostT2{2, 15}, kScalarsShadowBlock{7, 13}, kScalarsPostBlock{1, 7};
constexpr Code kStepPre{6, 29}, kStepShadow{4, 6}, kStepPost{2, 17}, kLoadExit{3, 12};
// The full thread program's load loop, 4 steps an iteration: its setup, the
// four indices' xorshifts up to the first load, the other three loads'
// addresses, the counters in their shadow, the four adds (the third waits
// for the third and fourth loads: they share a scoreboard), the back-edge;
// the remainder loop's setup (its last two instructions only with a
// remainder).
constexpr Code kQuadSetup{5, 12}, kQuadPre{23, 34}, kQuadAddr2{3, 5}, kQuadAddr3{3, 9}, kQuadAddr4{1, 7},
    kQuadShadow{4, 6}, kQuadAdd{1, 8}, kQuadBack{2, 11}, kRemSetup{3, 14}, kRemSetupMore{2, 9};
constexpr Code kBetweenT1Shadow{2, 5}, kBetweenT1{8, 28}, kBetween{5, 18}, kPreheaderT1{1, 7}, kPreheaderBlock{5, 12},
    kIter{17, 41};
constexpr Code kIterSetupT2{7, 23}, kIterSetupQuad{4, 12}, kIterQuad{45, 84}, kIterRemSetup{2, 10},
    kIterRemSetupMore{2, 9};
constexpr Code kAfterT1{6, 21}, kAfterT2{2, 7}, kAfterBlock{2, 10}, kOutLoad{1, 2}, kOutConvert{1, 1},
    kOutConvertBlock{2, 3}, kOutAddress{2, 9}, kSinkHash{8, 32}, kSinkAddress{3, 15};

// The two scalar loads of a task with loads: g_input_n's (the mask waits
// for it) and g_input's; their values.
struct Globals {
  std::uint32_t mask = 0;
  std::uint64_t input = 0;
};
Task<Globals> load_globals(Lane& l, const Shape& s, const Code& shadow, const Code& post) {
  co_await sched(l, kScalarsPre);
  const Async<std::uint32_t> n = co_await l.load_async<std::uint32_t>(s.globals);
  const Async<std::uint64_t> in = co_await l.load_async<std::uint64_t>(s.globals + 8);
  co_await sched(l, shadow);
  Globals g;
  g.mask = co_await l.wait(n) - 1;
  co_await sched(l, post);
  g.input = co_await l.wait(in);
  co_return g;
}

// The pruned tree's sink: g_sink_n's and g_sink's loads, the node's hash;
// the slot's address. `shadow` runs while the loads are in flight, `post`
// after them.
Task<std::uint64_t> sink_address(Lane& l, const Shape& s, std::uint32_t node, const Code& shadow, const Code& post) {
  co_await sched(l, kScalarsPre);
  const Async<std::uint32_t> n = co_await l.load_async<std::uint32_t>(s.globals + 24);
  const Async<std::uint64_t> sink = co_await l.load_async<std::uint64_t>(s.globals + 16);
  co_await sched(l, shadow);
  const std::uint32_t mask = co_await l.wait(n) - 1;
  const std::uint64_t base = co_await l.wait(sink);
  co_await sched(l, post);
  co_return base + 8ull * (hash32(node) & mask);
}

// A task's work on lane `l`: this lane's share of the loops (all of them in
// a thread task), then lane 0's value to out[node] or the sink (added, so
// that the run can be checked: GTaP stores it, the last writer winning).
Task<void> work(Lane& l, const Ctx& t, const Shape& s, std::uint32_t node) {
  const bool block = t.block(), unrolled = !block && !s.pruned && s.unroll;
  const std::uint32_t first = block ? l.local_id() : 0, stride = block ? l.group_size() : 1;
  const std::uint32_t seed = seed_of(node);
  std::int64_t acc = 0;
  co_await sched(l, block ? kHeadBlock : unrolled ? kHeadT2 : kHeadT1);
  if (first < s.mem_ops) {
    Globals g;  // (g++ 12: no co_await in a conditional expression)
    if (block)
      g = co_await load_globals(l, s, kScalarsShadowBlock, kScalarsPostBlock);
    else if (unrolled)
      g = co_await load_globals(l, s, kScalarsShadowT2, kScalarsPostT2);
    else
      g = co_await load_globals(l, s, kScalarsShadowT1, kScalarsPostT1);
    std::uint64_t m = first;
    if (unrolled && s.mem_ops >= 4) {
      co_await sched(l, kQuadSetup);
      for (; m + 4 <= s.mem_ops; m += 4) {
        co_await sched(l, kQuadPre);
        const Async<double> a = co_await l.load_async<double>(g.input + 8ull * load_index(seed, m, g.mask));
        co_await sched(l, kQuadAddr2);
        const Async<double> b = co_await l.load_async<double>(g.input + 8ull * load_index(seed, m + 1, g.mask));
        co_await sched(l, kQuadAddr3);
        const Async<double> c = co_await l.load_async<double>(g.input + 8ull * load_index(seed, m + 2, g.mask));
        co_await sched(l, kQuadAddr4);
        const Async<double> d = co_await l.load_async<double>(g.input + 8ull * load_index(seed, m + 3, g.mask));
        co_await sched(l, kQuadShadow);
        acc += fixed(co_await l.wait(a));
        co_await sched(l, kQuadAdd);
        acc += fixed(co_await l.wait(b));
        co_await sched(l, kQuadAdd);
        acc += fixed(co_await l.wait(c));
        acc += fixed(co_await l.wait(d));
        co_await sched(l, kQuadAdd);
        co_await sched(l, kQuadBack);
      }
    }
    if (unrolled) {
      co_await sched(l, kRemSetup);
      if (m < s.mem_ops) co_await sched(l, kRemSetupMore);
    }
    for (; m < s.mem_ops; m += stride) {
      co_await sched(l, kStepPre);
      const Async<double> v = co_await l.load_async<double>(g.input + 8ull * load_index(seed, m, g.mask));
      co_await sched(l, kStepShadow);
      acc += fixed(co_await l.wait(v));
      co_await sched(l, kStepPost);
    }
    co_await sched(l, kLoadExit);
  } else {
    co_await sched(l, kSkip);
  }
  std::uint64_t sink = 0;
  if (!block && s.pruned) {  // ptxas hoisted the sink's loads and hash here
    sink = co_await sink_address(l, s, node, kBetweenT1Shadow, kBetweenT1);
  } else {
    co_await sched(l, kBetween);
  }
  std::uint32_t mix = 0;
  std::uint64_t it = first;
  if (unrolled && s.compute > 0) {
    co_await sched(l, kIterSetupT2);
    if (s.compute >= 4) co_await sched(l, kIterSetupQuad);
    for (; it + 4 <= s.compute; it += 4) {
      for (std::uint64_t k = 0; k < 4; ++k) mix ^= mix_of(seed, it + k);
      co_await sched(l, kIterQuad);
    }
    co_await sched(l, kIterRemSetup);
    if (it < s.compute) co_await sched(l, kIterRemSetupMore);
  } else if (it < s.compute) {
    co_await sched(l, block ? kPreheaderBlock : kPreheaderT1);
  }
  std::uint64_t iters = 0;
  for (; it < s.compute; it += stride, ++iters) mix ^= mix_of(seed, it);
  if (iters) co_await l.alu_sched(kIter.n * iters, kIter.cycles * iters);
  const std::uint64_t v = static_cast<std::uint64_t>(acc) ^ mix;
  if (!block && s.pruned) {
    co_await sched(l, kAfterT1);
    co_await l.atomic_nr<std::uint64_t>(AtomicOp::Add, sink, v);
    co_return;
  }
  co_await sched(l, block ? kAfterBlock : kAfterT2);
  if (first != 0) co_return;
  if (s.pruned) {  // a block's thread 0
    sink = co_await sink_address(l, s, node, kSinkHash, kSinkAddress);
    co_await l.atomic_nr<std::uint64_t>(AtomicOp::Add, sink, v);
    co_return;
  }
  if (block) co_await sched(l, kOutLoad);
  const Async<std::uint64_t> out = co_await l.load_async<std::uint64_t>(s.globals + 16);
  co_await sched(l, block ? kOutConvertBlock : kOutConvert);
  const std::uint64_t base = co_await l.wait(out);
  co_await sched(l, kOutAddress);
  co_await l.store<std::uint64_t>(base + 8ull * node, v);
}

// ---- the body of Fig. 3's trees (tree.body=scaling; yukim0359/GTaP,
// evaluation/1-worker_scalability/tree_*_heavy at 84591ae) ----
// A thread's share: loads m = first, first + stride, ... of input[indices[(hash(node) + m) & mask]], summed
// in order; then its share of the dependent chain x = fma(x, a, b) from the block's sum.
constexpr double kChainA = 1.0000001192092896, kChainB = 1e-7;
// The body as clang -O3 and ptxas compile it for sm_90 (GTaP 84591ae:
// evaluation/2-comparison/tree_load_compute's thread version, Fig. 3's
// block version; the machine code read 2026-11-30, docs/forkjoin.md
// "Compiled schedules"), each region as its instructions and its static
// schedule (Lane::alu_sched: the cycles a lone warp takes to issue it,
// ptxas's stall counts), memory instructions included. GTaP's index is
// (base + m) % g_indices_n, an unsigned remainder by a value loaded at run
// time; our input's size is a power of two, so the host takes the remainder
// with a mask (the same index).
//  - Per task: the test of mem_ops and the three __device__ scalars'
//    addresses (5 instructions, 38 cycles), their loads (g_indices_n,
//    g_indices, g_input, in flight together; the hash waits for them), then
//    the hash, the divisor's reciprocal (hoisted out of the loop) and base's
//    remainder: 36 instructions in 150 cycles (thread; the head 5 in 38),
//    40 in 161 (block; the head 7 in 41); a block's warps with no load skip
//    it all, 4 in 21 (a thread task with no load 2 in 18). The
//    reciprocal's I2F, MUFU and F2I latencies are not charged.
//  - Per load: the add base + m, the remainder (two of its compares 13
//    cycles before the predicated instructions using them) and the index's
//    address, 10 dependent instructions in 66 cycles (block: 64); the index
//    load and 2 instructions in its shadow (6; block 7); after the index the
//    value's address (1 in 6); the value load and 1 instruction (2); after
//    the value the sum's add and the back-edge (2 in 11). 91 cycles (90)
//    and 18 instructions (17) a load, one load in flight.
//  - Between the loops: x = acc + (node & 255) * 1e-9 (an I2F and a DFMA)
//    and the multiply-add loop's setup, 18 instructions in 38 cycles
//    (thread; block: 18 in 47 after the first sum's shared load). Charged
//    as code; the value omits the term (x = acc here and on the host).
//  - Per link of the chain (an iteration, the paper's mix_fma): two
//    dependent double FMAs, the counter, its test and the branch, 5
//    instructions in 23 cycles, not unrolled.
//  - Block reduction (do_memory_and_compute's): the lane's store and a
//    barrier (9 instructions in 31, the second reduction 5 in 22); per
//    halving every warp issues the level's 10 instructions in 48 cycles
//    (its body predicated), the lanes in the lower half loading their
//    partner's slot and storing the sum (each keeps its own in a register),
//    a barrier.
constexpr Code kTaskHeadThread{5, 38}, kTaskHeadBlock{7, 41}, kTaskThread{36, 150}, kTaskBlock{40, 161},
    kTaskSkipThread{2, 18}, kTaskSkipBlock{4, 21};
constexpr Code kIndexThread{10, 66}, kIndexBlock{10, 64}, kIndexShadowThread{2, 5}, kIndexShadowBlock{2, 6},
    kAddress{1, 6}, kValueShadowThread{1, 1}, kSumAndBranch{2, 11}, kBetweenThread{18, 38}, kBetweenBlock{18, 47},
    kLink{5, 23}, kReduceSetup1{9, 31}, kReduceSetup2{5, 22}, kReduceLevel{10, 48};

// The host's value of node `n` of a block of `bs` lanes (1: a thread task),
// given its children's values (leaves: none).
double scaling_value(const Shape& s, const std::vector<double>& input, const std::vector<std::uint32_t>& idx,
                     std::uint32_t node, std::uint32_t bs, const double* children) {
  const std::uint32_t h = hash32(node);
  std::vector<double> part(bs, 0.0);
  for (std::uint32_t i = 0; i < bs; ++i)
    for (std::uint64_t m = i; m < s.mem_ops; m += bs) part[i] += input[idx[(h + m) & s.mask]];
  auto reduce = [&] {
    for (std::uint32_t half = std::bit_ceil(bs) / 2; half; half /= 2)
      for (std::uint32_t i = 0; i < half && i + half < bs; ++i) part[i] += part[i + half];
    return part[0];
  };
  const double sum = reduce();
  for (std::uint32_t i = 0; i < bs; ++i) {
    double x = sum;
    for (std::uint64_t it = i; it < s.compute; it += bs) x = std::fma(x, kChainA, kChainB);
    part[i] = x;
  }
  const double own = reduce();
  return children ? (children[0] + children[1]) / 2 + own * 1e-6 : own;
}

// Sum part[] over the workgroup's lanes in LDS (slot 8 B per lane from
// base); every lane gets the total. As GTaP's block reduction (Fig. 3's
// do_memory_and_compute): a barrier after the lanes' stores and one per
// halving, none after the total's read (the task's second sum uses the next
// area, where GTaP's reuses the same one).
Task<double> block_sum(Lane& l, std::uint32_t base, double v, const Code& setup) {
  const std::uint32_t i = l.local_id(), g = l.group_size();
  co_await l.alu_sched(setup.n - 2, setup.cycles - 2);
  co_await l.lds_store<double>(base + 8 * i, v);
  co_await l.barrier();
  for (std::uint32_t half = std::bit_ceil(g) / 2; half; half /= 2) {
    co_await l.alu_sched(kReduceLevel.n - 3, kReduceLevel.cycles - 3);
    if (i < half && i + half < g) {
      v += co_await l.lds_load<double>(base + 8 * (i + half));
      co_await l.lds_store<double>(base + 8 * i, v);
    }
    co_await l.barrier();
  }
  co_return co_await l.lds_load<double>(base);
}

Task<void> scaling_work(Lane& l, const Ctx& t, const Shape& s, std::uint32_t node, std::uint32_t d) {
  const bool block = t.block();
  const std::uint32_t first = block ? l.local_id() : 0, stride = block ? l.group_size() : 1;
  const std::uint32_t h = hash32(node);
  double acc = 0;
  if (first < s.mem_ops) {
    const Code& task = block ? kTaskBlock : kTaskThread;
    const Code& head = block ? kTaskHeadBlock : kTaskHeadThread;
    co_await sched(l, head);
    Async<std::uint64_t> last = co_await l.load_async<std::uint64_t>(s.scalars);
    for (std::uint32_t k = 1; k < 3; ++k) {
      const Async<std::uint64_t> a = co_await l.load_async<std::uint64_t>(s.scalars + 8 * k);
      if (a.ready > last.ready) last = a;
    }
    co_await l.wait(last);
    co_await l.alu_sched(task.n - head.n - 3, task.cycles - head.cycles - 3);
  } else {
    const Code& skip = block ? kTaskSkipBlock : kTaskSkipThread;
    co_await sched(l, skip);
  }
  const Code& index = block ? kIndexBlock : kIndexThread;
  const Code& index_shadow = block ? kIndexShadowBlock : kIndexShadowThread;
  for (std::uint64_t m = first; m < s.mem_ops; m += stride) {
    co_await sched(l, index);
    const Async<std::uint32_t> i = co_await l.load_async<std::uint32_t>(s.indices + 4ull * ((h + m) & s.mask));
    co_await sched(l, index_shadow);
    co_await l.wait(i);
    co_await sched(l, kAddress);
    const Async<double> v = co_await l.load_async<double>(s.input + 8ull * i.value);
    if (!block) co_await sched(l, kValueShadowThread);
    acc += co_await l.wait(v);
    co_await sched(l, kSumAndBranch);
  }
  const double sum = block ? co_await block_sum(l, t.lds(), acc, kReduceSetup1) : acc;
  const Code& between = block ? kBetweenBlock : kBetweenThread;
  co_await sched(l, between);
  double x = sum;
  std::uint64_t links = 0;
  for (std::uint64_t it = first; it < s.compute; it += stride, ++links) x = std::fma(x, kChainA, kChainB);
  if (links) co_await l.alu_sched(kLink.n * links, kLink.cycles * links);
  const double own = block ? co_await block_sum(l, t.lds() + 8 * l.group_size(), x, kReduceSetup2) : x;
  if (first != 0) co_return;
  double v = own;
  if (d < s.depth) {
    const double a = co_await l.load<double>(s.out + 8ull * (2 * node + 1));
    const double b = co_await l.load<double>(s.out + 8ull * (2 * node + 2));
    v = (a + b) / 2 + own * 1e-6;
  }
  co_await l.store<double>(s.out + 8ull * node, v);
}

// As the paper's programs (GTaP 84591ae evaluation/1-worker_scalability
// tree_*_heavy, Fig. 3; 14669e9 evaluation/2-comparison binary_tree and
// prob_Bary_tree, Figs. 7-9): an inner node spawns (a block task's thread 0)
// and waits, a leaf does not wait. Fig. 8's block task shares its spawn
// count through shared memory and a barrier and waits only with children;
// Fig. 3's block leaf meets at a barrier before its return (its inner
// node's barrier before the taskwait is the runtime's: run_task).
// The trees' records (GTaP's compiler): the parameters (node, height,
// mem_ops, compute_iters; the pruned tree's also D and B), no local live
// across the taskwait; the work after it loads node, mem_ops and
// compute_iters.
constexpr Ctx::Live kTreeLive{0, 12};

Fn<void> tree_task(Ctx& t, const Shape* s, std::uint32_t node, std::uint32_t d) {
  const bool block = t.block();
  if (d < s->depth) {
    Lane& l = t.lane();  // until the taskwait: a task resumes on another worker's lane
    const bool spawner = !block || l.local_id() == 0;
    std::uint32_t n = 2;
    if (s->pruned) {
      const std::uint32_t live = pruned_children(node, d, s->depth);
      if (spawner) {
        co_await l.alu(12);                      // the hash and three draws
        for (std::uint32_t k = 0; k < 3; ++k) {  // each trip's `if` reconverges at the trip's end (serial.h)
          const std::uint32_t outer = enter_body(l);
          if (live >> k & 1) co_await t.spawn(tree_task, s, node * 3 + k + 1, d + 1);
          co_await leave(l, outer);
        }
      }
      n = static_cast<std::uint32_t>(std::popcount(live));
      if (block) {  // the shared spawn count: thread 0's store, a barrier, every thread's load
        if (spawner) co_await l.lds_store<std::uint32_t>(t.lds(), n);
        co_await l.barrier();
        n = co_await l.lds_load<std::uint32_t>(t.lds());
      }
    } else if (spawner) {
      co_await t.spawn(tree_task, s, 2 * node + 1, d + 1);
      co_await t.spawn(tree_task, s, 2 * node + 2, d + 1);
    }
    if (n) co_await t.taskwait(0, kTreeLive);
  }
  Lane& l = t.lane();
  if (s->scaling) {
    co_await scaling_work(l, t, *s, node, d);
    if (block && d == s->depth) co_await l.barrier();
    co_return;
  }
  co_await work(l, t, *s, node);
}

void tree(Host& h) {
  const Config& cfg = h.config();
  Shape s;
  s.pruned = kShape.get(cfg) == "pruned";
  s.depth = static_cast<std::uint32_t>(kDepth.get(cfg));
  s.mem_ops = kMemOps.get(cfg);
  s.compute = kCompute.get(cfg);
  if (!s.pruned && s.depth > 22)
    throw UserError(
        fmt::format("tree.depth={}: a full tree deeper than 22 (8M tasks) is "
                    "beyond what the model simulates",
                    s.depth));
  s.scaling = kBody.get(cfg) == "scaling";
  s.unroll = kUnroll.get(cfg) == "compiled";
  if (s.scaling && s.pruned) throw UserError("tree.body=scaling: Fig. 3's trees are full (tree.shape=full)");
  s.mask = static_cast<std::uint32_t>((1ull << kInputLog2.get(cfg)) - 1);
  // The input: doubles uniform in [-1, 1) (the paper draws them from
  // mt19937_64 with seed 0xC0FFEE; ours from the run's seed).
  std::vector<double> input(std::uint64_t{s.mask} + 1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& x : input) x = u(h.rng());
  s.input = h.upload(input);
  std::vector<std::uint32_t> indices;
  if (s.scaling) {  // the index array: random elements of the input
    indices.resize(input.size());
    std::uniform_int_distribution<std::uint32_t> pick(0, s.mask);
    for (auto& i : indices) i = pick(h.rng());
    s.indices = h.upload(indices);
    s.scalars = h.upload(std::vector<std::uint64_t>{std::uint64_t{s.mask} + 1, s.indices, s.input});
  }
  // The host's tasks and values (a block task's: lane 0's share).
  const bool block = block_workers(cfg, false);
  if (!s.unroll && (block || s.pruned || s.scaling))
    throw UserError(
        "tree.unroll=none: only the full tree's thread program is unrolled (tree.shape=full, "
        "forkjoin.workers=thread, tree.body=work)");
  const std::uint64_t size = std::get<std::uint64_t>(cfg.value("forkjoin.group_size"));
  const std::uint32_t stride = block ? static_cast<std::uint32_t>(size ? size : 256) : 1;
  std::vector<std::uint64_t> want;
  std::uint64_t tasks = 0;
  if (s.pruned) {
    want.assign(kSinkMask + 1, 0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{0, 0}};
    while (!stack.empty()) {
      const auto [id, d] = stack.back();
      stack.pop_back();
      ++tasks;
      want[sink_slot(id)] += host_value(s, input, id, stride);
      if (d < s.depth) {
        const std::uint32_t live = pruned_children(id, d, s.depth);
        for (std::uint32_t k = 0; k < 3; ++k)
          if (live >> k & 1) stack.emplace_back(id * 3 + k + 1, d + 1);
      }
    }
  } else if (s.scaling) {  // children before parents: from the last node up
    tasks = (2ull << s.depth) - 1;
    want.resize(tasks);
    std::vector<double> v(tasks);
    const std::uint64_t first_leaf = (1ull << s.depth) - 1;
    for (std::uint64_t n = tasks; n-- > 0;) {
      const double kids[2] = {n < first_leaf ? v[2 * n + 1] : 0.0, n < first_leaf ? v[2 * n + 2] : 0.0};
      v[n] = scaling_value(s, input, indices, static_cast<std::uint32_t>(n), stride, n < first_leaf ? kids : nullptr);
      want[n] = std::bit_cast<std::uint64_t>(v[n]);
    }
  } else {
    tasks = (2ull << s.depth) - 1;
    want.resize(tasks);
    for (std::uint64_t n = 0; n < tasks; ++n) want[n] = host_value(s, input, static_cast<std::uint32_t>(n), stride);
  }
  s.out = h.alloc(8 * want.size());
  static const std::array<std::uint64_t, 4096> kZeros{};
  for (std::size_t i = 0; i < want.size(); i += kZeros.size())
    h.copy_in(s.out + 8 * i, kZeros.data(), 8 * std::min(kZeros.size(), want.size() - i));
  if (!s.scaling)  // GTaP's __device__ scalars, read by every task: g_input_n, g_input, g_out or g_sink, g_sink_n
    s.globals = h.upload(std::vector<std::uint64_t>{std::uint64_t{s.mask} + 1, s.input, s.out, kSinkMask + 1ull});
  Program p;
  p.name = "tree";
  p.block_ok = true;
  p.max_children = s.pruned ? 3 : 2;                 // GTAP_MAX_CHILD_TASKS in the paper's trees
  p.payload = s.pruned || !block ? 24 : 16;          // GTAP_MAX_TASK_DATA_SIZE: 24 B, 16 B block full
  p.first_finish = !s.pruned;                        // Fig. 7 ran FIRST_TASK_FINISH, Fig. 8 ALL
  if (s.scaling && block) p.task_lds = 16 * stride;  // the block sums' two areas
  if (s.pruned && block) p.task_lds = 8;             // the spawn count
  const RunInfo r = run(h, p, tree_task, static_cast<const Shape*>(&s), 0u, 0u);
  const auto got = h.download<std::uint64_t>(s.out, want.size());
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) bad += got[i] != want[i];
  h.check(bad == 0,
          fmt::format("tree: {} of {} {} differ from the host's", bad, want.size(), s.pruned ? "sink slots" : "nodes"));
  h.result("tasks", tasks);
  (void)r;
  h.output() << tasks << "\n";
}

std::uint64_t tree_bytes(const Config& cfg) {
  const bool pruned = kShape.get(cfg) == "pruned";
  const std::uint64_t d = kDepth.get(cfg);
  const std::uint64_t out = pruned ? (kSinkMask + 1ull) : (d <= 22 ? (2ull << d) : 0);
  return 12ull * (1ull << kInputLog2.get(cfg)) + 8 * out + 32 + runtime_bytes(cfg, 24, pruned ? 3 : 2);
}

const RegisterWorkload kReg{{"tree",
                             "GTaP's synthetic task trees (full binary, pruned 3-ary) with memory and compute work per "
                             "task, on the fork-join runtime (thread or block workers)",
                             "", tree, tree_bytes, [](const Config&) { return std::vector<std::string>{kName}; }}};

}  // namespace
}  // namespace fg::fj
