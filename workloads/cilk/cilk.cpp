// SPDX-License-Identifier: Apache-2.0
#include "cilk/cilk.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpu/host.h"

namespace fg::cilk {

Stack make_stack(flow::Graph& g, const std::string& name, std::uint32_t ce_size, std::uint32_t capacity,
                 std::uint32_t levels, const LevelBody& body, std::uint32_t registers, ContextSize context) {
  Stack s;
  for (std::uint32_t d = 0; d < levels; ++d) {
    chan::Channel& c = g.channel(fmt::format("{}.{}", name, d), ce_size, capacity);
    flow::KernelNode& k = g.kernel(name + "_kernel", body(d), registers, context);
    g.connect(c, k);
    s.level.push_back(&c);
  }
  return s;
}

std::uint64_t stack_bytes(const Config& cfg, std::uint32_t ce_size, std::uint64_t capacity, std::uint32_t levels) {
  return levels * flow::channel_bytes(cfg, ce_size, capacity);
}

Tick run(flow::Graph& g) {
  const Tick t0 = sc_core::sc_time_stamp().value();
  g.execute();
  g.wait_for_done();
  return sc_core::sc_time_stamp().value() - t0;
}

void report(Host& h, flow::Graph& g, Tick elapsed) {
  h.result("kernel_ns", tick_to_ns(elapsed));
  h.result("wavefronts", static_cast<std::uint64_t>(g.aggregator().wavefronts.value()));
}

std::uint64_t fib_reference(std::uint64_t n) {
  std::uint64_t a = 1, b = 1;  // fib(1), fib(2)
  for (std::uint64_t i = 2; i < n; ++i) {
    const std::uint64_t c = a + b;
    a = b;
    b = c;
  }
  return b;
}

LevelScheduler::LevelScheduler(std::vector<Stack> spawn, std::vector<Stack> continuation) {
  auto place = [&](chan::Channel* c, Place p) {
    if (place_.size() <= c->id()) place_.resize(c->id() + 1);
    place_[c->id()] = p;
  };
  std::uint32_t& depth = depth_;
  for (const Stack& s : spawn) depth = std::max(depth, static_cast<std::uint32_t>(s.level.size()));
  for (const Stack& s : continuation) depth = std::max(depth, static_cast<std::uint32_t>(s.level.size()));
  // Deepest first: every pre-spawn channel, then every continuation channel.
  for (std::uint32_t d = depth; d-- > 0;)
    for (const Stack& s : spawn)
      if (d < s.level.size()) {
        order_.push_back(s.level[d]);
        place(s.level[d], Place{true, d, d > 0 ? s.level[d - 1] : nullptr});
      }
  for (std::uint32_t d = depth; d-- > 0;)
    for (const Stack& s : continuation)
      if (d < s.level.size()) {
        order_.push_back(s.level[d]);
        place(s.level[d], Place{false, d, nullptr});
      }
}

void LevelScheduler::order(const std::vector<chan::Channel*>& all, std::vector<chan::Channel*>& out) {
  if (order_.size() != all.size())
    throw std::logic_error(
        fmt::format("cilk: the graph has {} channels and the level scheduler knows {}", all.size(), order_.size()));
  out = order_;
  spawn_busy_ = 0;
  spawn_active_.assign(depth_, false);
  cont_deeper_ = cont_level_busy_ = cont_level_active_ = false;
  cont_depth_ = ~0u;
}

std::uint32_t LevelScheduler::predicate(const chan::Channel& c, std::uint32_t ready, const agg::View& v) {
  const Place& p = place_.at(c.id());
  const bool busy = ready > 0 || c.running > 0;  // yielded wavefronts included
  if (p.spawn) {
    // Whole wavefronts; a partial one when the level above has nothing
    // executing (yielded wavefronts wait for room this work makes) and
    // nothing ready. (sort's merge tasks come from continuations, which go
    // a whole level at a time: theirs are mostly whole wavefronts anyway.)
    const chan::Channel* a = p.above;
    const bool above_idle = !a || (a->running == a->yielded && a->last_tail == a->ctrl_head);
    const std::uint32_t n = ready >= v.width ? ready / v.width * v.width : (above_idle ? ready : 0);
    if (busy) spawn_busy_ = std::max(spawn_busy_, p.depth + 1);
    if (c.running > c.yielded) spawn_active_[p.depth] = true;
    return n;
  }
  // A continuation at depth d: once nothing deeper is ready or running (its
  // descendants are all done), no pre-spawn task at d is executing (one may
  // be between publishing its continuation and its children; a yielded one
  // has not published its continuation), no deeper continuation is ready or
  // running (yielded included: their descendants are not done), and no
  // continuation at d of a stack listed earlier (sort's sort_sync, which
  // publishes merge_sync last) is ready or executing. A yielded sort_sync at
  // d does not hold merge_sync at d back: it publishes nothing until
  // restarted, and the merge_syncs published are whole. (Holding them back
  // deadlocked 64-CE channels: merge_sync full of published continuations,
  // the yielded sort_sync waiting for room there.)
  if (p.depth != cont_depth_) {
    cont_deeper_ = cont_deeper_ || cont_level_busy_;
    cont_level_busy_ = cont_level_active_ = false;
    cont_depth_ = p.depth;
  }
  const bool go = spawn_busy_ <= p.depth + 1 && !spawn_active_[p.depth] && !cont_deeper_ && !cont_level_active_;
  cont_level_busy_ = cont_level_busy_ || busy;
  cont_level_active_ = cont_level_active_ || ready > 0 || c.running > c.yielded;
  return go ? ready : 0;
}

}  // namespace fg::cilk
