// SPDX-License-Identifier: Apache-2.0
// Cilk on channels (Orr et al., ISCA 2014, Sec. 5): a Cilk program's
// pre-spawn tasks (the code up to `sync`) and post-spawn tasks (the
// continuation after `sync`) live in stacks of channels indexed by recursion
// depth (Figs. 10-12). Each `spawn` is a talloc/enq into the pre-spawn
// channel one level deeper; each `sync` a talloc/enq into the continuation
// channel of its own level. A pre-spawn task that finds the deeper channel
// full yields (talloc does it, Sec. 5.3), which bounds the breadth-first
// recursion's memory to the channels' capacity.
//
// The aggregator's scheduler (Sec. 7.2) is levelized:
//   - pre-spawn channels first, deepest first: whole wavefronts of CEs, and a
//     partial wavefront once the level above has nothing executing (yielded
//     wavefronts wait for room) or ready: nothing more arrives for now;
//   - then continuation channels, deepest first: depth d's once no
//     pre-spawn or continuation channel deeper than d has anything ready or
//     running (yielded wavefronts included), no pre-spawn task of depth d
//     is executing, and no continuation channel of depth d of a stack listed
//     before has anything ready or executing (a continuation may publish the
//     next one of its task, as sort's do; a yielded one publishes nothing
//     until the aggregator restarts it, and has not published that next one:
//     it is published last).
//     All of d's continuations' children are then done, and all of them
//     are dispatched at once. A continuation is published by its
//     pre-spawn task together with its children (both tallocs first, then
//     both enqs), so a yielded task has published neither.
// Continuations that write their result into their parent continuation's CE
// (the "private result in the channel stack" of Sec. 5.2) therefore read
// finished values, and with yield the recursion drains from the bottom:
// base cases free space, so every level makes progress (Sec. 5.3).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aggregator/aggregator.h"
#include "runtime/flow.h"

namespace fg::cilk {

// One stack of channels: level[d] holds depth d's CEs, consumed by a kernel
// node made by `body(d)`.
struct Stack {
  std::vector<chan::Channel*> level;
  chan::Channel& at(std::size_t d) const { return *level.at(d); }
};

using LevelBody = std::function<std::function<Task<void>(Lane&, std::uint32_t)>(std::uint32_t depth)>;

// `levels` channels "<name>.<d>" of `ce_size`-byte CEs and `capacity` CEs,
// each connected to its own kernel node "<name>_kernel" (same code, its depth
// bound) with Table 3's registers and context size.
Stack make_stack(flow::Graph& g, const std::string& name, std::uint32_t ce_size, std::uint32_t capacity,
                 std::uint32_t levels, const LevelBody& body, std::uint32_t registers, ContextSize context);

// Device memory of make_stack's `levels` channels (flow::channel_bytes each).
std::uint64_t stack_bytes(const Config& cfg, std::uint32_t ce_size, std::uint64_t capacity, std::uint32_t levels);

// Run a graph whose initial CEs are in: execute, wait for the end; the
// simulated time it took.
Tick run(flow::Graph& g);
// The results every channel workload reports after its own: kernel_ns (the
// graph's time) and the consumer wavefronts launched.
void report(Host& h, flow::Graph& g, Tick elapsed);
// fib(n) with fib(1) = fib(2) = 1: the host reference of fib and fib-flow.
std::uint64_t fib_reference(std::uint64_t n);

class LevelScheduler final : public agg::Scheduler {
 public:
  LevelScheduler(std::vector<Stack> spawn, std::vector<Stack> continuation);
  std::string name() const override { return "cilk-levelized"; }
  void order(const std::vector<chan::Channel*>& all, std::vector<chan::Channel*>& out) override;
  std::uint32_t predicate(const chan::Channel& c, std::uint32_t ready, const agg::View& v) override;
  // The levelized scheduler's compiled costs (tools/firmware, AArch64 -O2):
  // 50 per pass (with its per-pass reset; 47 before the continuation gate
  // of 2026-11-28) and 75 per channel polled (the level predicate), against
  // the default scheduler's 33 and 25: the differences are added to
  // whatever the defaults are set to.
  std::uint32_t pass_instructions(std::uint32_t dflt) const override { return dflt + (50 - 33); }
  std::uint32_t poll_instructions(std::uint32_t dflt) const override { return dflt + (75 - 25); }

 private:
  struct Place {
    bool spawn = true;
    std::uint32_t depth = 0;
    const chan::Channel* above = nullptr;  // spawn: the same stack's channel one level up
  };
  std::vector<chan::Channel*> order_;
  std::vector<Place> place_;  // by channel id
  std::uint32_t depth_ = 0;
  // This pass, from the channels polled so far:
  std::uint32_t spawn_busy_ = 0;    // 1 + the deepest pre-spawn level with CEs ready or wavefronts running
  std::vector<bool> spawn_active_;  // pre-spawn levels with wavefronts executing (not yielded)
  // Continuations are polled deepest first: a deeper level polled so far has
  // CEs ready or wavefronts running (yielded ones included); at the level
  // being polled, the same or wavefronts executing (not yielded).
  bool cont_deeper_ = false, cont_level_busy_ = false, cont_level_active_ = false;
  std::uint32_t cont_depth_ = ~0u;
};

}  // namespace fg::cilk
