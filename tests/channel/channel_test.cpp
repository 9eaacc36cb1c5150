// SPDX-License-Identifier: Apache-2.0
// Channels (Orr et al. Sec. 3.2) and the aggregator (Secs. 3.1, 7.2, 8.3):
// layout, the device API's variants, in-order freeing, the predicate, the
// core classes, fib-flow on 1 to 8 CUs, and bad input / faults.
#include "runtime/channel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "aggregator/aggregator.h"
#include "cilk_expect.h"
#include "ctrl/control_core.h"
#include "fg_test.h"
#include "runtime/flow.h"
#include "sim/error.h"

namespace fg::test {
namespace {

std::uint64_t fib(std::uint64_t n) {
  std::uint64_t a = 1, b = 1;
  for (std::uint64_t i = 2; i < n; ++i) b = std::exchange(a, b) + b;
  return b;
}

TEST(ChannelLayout, PointersOnTheirOwnLinesAndArraysSized) {
  chan::Spec s{"c", 12, 256, 64, chan::Variant::Amortized};
  const chan::Layout l = chan::Layout::at(4096, s, 64);
  const std::uint64_t ptrs[] = {l.data_tail, l.ctrl_reserve, l.ctrl_tail, l.data_head, l.ctrl_head};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(ptrs[i], 4096u + 64u * i);
  EXPECT_EQ(l.ce_stride, 12u);
  EXPECT_EQ(l.ctrl - l.data, 256u * 12u);                     // data array: capacity x CE size (line multiple)
  EXPECT_EQ(l.done - l.ctrl, 2u * 256u * 4u);                 // control array: twice the data array's entries
  EXPECT_EQ(chan::Layout::bytes(s, 64), l.done + 64 - 4096);  // 4 done counts in one line
  EXPECT_EQ(l.ce_addr(256 + 3), l.data + 3 * 12);             // indices wrap at the capacity
  EXPECT_EQ(l.ctrl_addr(512 + 5), l.ctrl + 5 * 4);            // control positions wrap at twice it
  EXPECT_EQ(l.done_addr(130), l.done + 2 * 4);                // CE 130 is in done-count block 2
  s.variant = chan::Variant::Padded;
  EXPECT_EQ(chan::Layout::at(4096, s, 64).ce_stride, 64u);  // one CE per cache line
}

TEST(ChannelLayout, InvalidSpecsNameTheKey) {
  auto msg = [](chan::Spec s) {
    try {
      chan::validate(s, "my.key");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(msg({"c", 4, 0, 64, chan::Variant::Amortized}).find("my.key: channel 'c' has zero capacity"),
            std::string::npos);
  EXPECT_NE(msg({"c", 4, 100, 64, chan::Variant::Amortized}).find("not a multiple of the done count 64"),
            std::string::npos);
  EXPECT_EQ(msg({"c", 4, 128, 64, chan::Variant::Amortized}), "accepted");
}

TEST(AggregatorCore, ClassesFollowTheDocumentedDerivation) {
  const auto s = agg::CoreClass::named("simple", 9);
  EXPECT_FALSE(s.pipelined);
  EXPECT_DOUBLE_EQ(s.ipc, 0.2);
  EXPECT_EQ(s.mlp, 1u);
  const auto l = agg::CoreClass::named("light-ooo-2", 9);
  EXPECT_DOUBLE_EQ(l.ipc, std::sqrt(2.0));  // IQ of 2 bounds the window
  EXPECT_EQ(l.mlp, 1u);                     // ROB 8 < 9 instructions per load
  const auto o2 = agg::CoreClass::named("ooo-2", 9);
  EXPECT_DOUBLE_EQ(o2.ipc, 2.0);
  EXPECT_EQ(o2.mlp, 7u);  // 64 / 9
  const auto o4 = agg::CoreClass::named("ooo-4", 9);
  EXPECT_DOUBLE_EQ(o4.ipc, 4.0);
  EXPECT_EQ(o4.mlp, 14u);  // 128 / 9
  EXPECT_THROW(agg::CoreClass::named("ooo-8", 9), UserError);
}

// fib-flow on 1 to 8 CUs in every variant: the result is checked by the
// workload; here the channel's books balance too.
class FibFlow : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(FibFlow, CorrectAndEveryCeProducedConsumedAndFreed) {
  const auto [cus, variant] = GetParam();
  const int n = 16;
  const auto s =
      run_stats(fmt::format("fib-flow --preset orr2014 --set gpu.cus={} --set channel.variant={} --set "
                            "fib_flow.n={}",
                            cus, variant, n));
  const double ces = 2.0 * fib(n) - 1;  // calls of the naive recursion
  EXPECT_EQ(stat(s, "channels.fib.produced"), ces);
  EXPECT_EQ(stat(s, "channels.fib.consumed"), ces);
  EXPECT_EQ(stat(s, "channels.fib.freed"), std::floor(ces / 64) * 64);  // every whole done-count block
  EXPECT_EQ(stat(s, "aggregator.wavefronts"), stat(s, "channels.fib.wavefronts"));
  EXPECT_EQ(stat(s, "gpu.dispatcher.kernels"), stat(s, "aggregator.dispatches"));
  EXPECT_GT(stat(s, "aggregator.run_ns"), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Cus, FibFlow,
    ::testing::Values(std::make_tuple(1, std::string("amortized")), std::make_tuple(2, std::string("amortized")),
                      std::make_tuple(4, std::string("amortized")), std::make_tuple(8, std::string("amortized")),
                      std::make_tuple(1, std::string("per-lane")), std::make_tuple(8, std::string("per-lane")),
                      std::make_tuple(1, std::string("padded")), std::make_tuple(8, std::string("padded"))),
    [](const auto& i) {
      std::string v = std::get<1>(i.param);
      v.erase(std::remove(v.begin(), v.end(), '-'), v.end());
      return fmt::format("{}cu_{}", std::get<0>(i.param), v);
    });

TEST(ChannelVariants, AmortizingTheReservationCutsCasOperations) {
  const std::string base = "fib-flow --preset orr2014 --set gpu.cus=1 --set fib_flow.n=14 --set channel.variant=";
  const auto lane = run_stats(base + "per-lane");
  const auto wave = run_stats(base + "amortized");
  const auto pad = run_stats(base + "padded");
  const double l = stat(lane, "channels.fib.cas_attempts"), w = stat(wave, "channels.fib.cas_attempts");
  EXPECT_GT(l, 8 * w) << "per-lane " << l << " vs amortized " << w;
  EXPECT_GT(stat(lane, "aggregator.run_ns"), 2 * stat(wave, "aggregator.run_ns"));
  // Padding spreads a wavefront's CEs over more lines: more L1 traffic.
  EXPECT_GT(stat(pad, "gpu.cu0.l1.reads") + stat(pad, "gpu.cu0.l1.writes"),
            stat(wave, "gpu.cu0.l1.reads") + stat(wave, "gpu.cu0.l1.writes"));
}

TEST(ChannelFaults, AFullChannelIsExit3NamingIt) {
  const ProcResult r = run_fgsim(
      "run fib-flow --preset orr2014 --set fib_flow.n=16 --set fib_flow.capacity=64 --set yield.enabled=false");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("channel 'fib' is full"), std::string::npos) << r.err;
}

TEST(ChannelFaults, BadCapacityIsExit2NamingTheKey) {
  ProcResult r = run_fgsim("run fib-flow --preset orr2014 --set fib_flow.capacity=0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fib_flow.capacity: channel 'fib' has zero capacity"), std::string::npos) << r.err;
  r = run_fgsim("run fib-flow --preset orr2014 --set fib_flow.capacity=100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fib_flow.capacity"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a multiple of the done count"), std::string::npos) << r.err;
  r = run_fgsim("run fib-flow --preset orr2014 --set channel.variant=linked");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("channel.variant"), std::string::npos) << r.err;
}

// A graph of its own in the harness: one channel of 32-bit CEs (named
// `channel`) whose kernel runs `body`.

void run_graph(const Config& cfg, std::uint32_t initial, std::uint32_t capacity,
               std::function<Task<void>(Lane&, chan::Channel&, std::uint32_t)> body,
               std::function<void(Host&, flow::Graph&)> after = {},
               std::function<void(flow::Graph&)> before_execute = {}, const std::string& channel = "t") {
  HostHarness hh(cfg, [&](Host& h) {
    flow::Graph g(h, "test.capacity");
    chan::Channel& ch = g.channel(channel, 4, capacity);
    flow::KernelNode& k = g.kernel("t_kernel", [&ch, body](Lane& l, std::uint32_t off) { return body(l, ch, off); });
    g.connect(ch, k);
    std::vector<std::uint32_t> ces(initial);
    for (std::uint32_t i = 0; i < initial; ++i) ces[i] = i;
    g.host_enq(ch, ces);
    if (before_execute) before_execute(g);
    g.execute();
    g.wait_for_done();
    if (after) after(h, g);
  });
  hh.run();
}

Task<void> consume(Lane& l, chan::Channel& ch, std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, ch, off);
  (void)co_await l.load<std::uint32_t>(ce.addr);
  co_await chan::tfree(l, ch, ce);
}

Task<void> consume_slowly(Lane& l, chan::Channel& ch, std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, ch, off);
  co_await l.sleep(10000);
  co_await chan::tfree(l, ch, ce);
}

// The summary's channel line keeps a space between a name as long as its
// column and the count (a name of 14 characters ran into it).
TEST(AggregatorSummary, ALongChannelNameKeepsASpaceBeforeItsCount) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=1"});
  std::vector<std::string> lines;
  run_graph(
      cfg, 8, 64, consume, [&](Host&, flow::Graph& g) { lines = g.aggregator().summary_lines(); }, {},
      "a_long_channel");
  const auto line = std::find_if(lines.begin(), lines.end(),
                                 [](const std::string& s) { return s.rfind("channel a_long_channel", 0) == 0; });
  ASSERT_NE(line, lines.end());
  EXPECT_EQ(line->rfind("channel a_long_channel 8 CEs produced, 8 consumed", 0), 0u) << *line;
}

// The graph API's errors, before anything runs.
TEST(ChannelGraph, MoreInitialCesThanTheCapacityIsAUserErrorNamingTheKey) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    run_graph(make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=1"}), 129, 128, consume);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("test.capacity: 129 initial CEs do not fit channel 't' (0 of 128 in use)"),
              std::string::npos)
        << e.what();
  }
}

void bad_graph(const std::function<void(flow::Graph&)>& build) {
  const Config cfg = make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=1"});
  HostHarness hh(cfg, [&](Host& h) {
    flow::Graph g(h, "test");
    build(g);
    g.execute();
    g.wait_for_done();
  });
  hh.run();
}

TEST(ChannelGraph, AChannelWithoutAKernelNodeIsRefused) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    bad_graph([](flow::Graph& g) {
      chan::Channel& a = g.channel("a", 4, 128);
      chan::Channel& b = g.channel("b", 4, 128);
      flow::KernelNode& k = g.kernel("k", [&a](Lane& l, std::uint32_t off) { return consume(l, a, off); });
      g.connect(a, k);
      g.host_enq(b, std::uint32_t{1});
    });
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "channel 'b' is connected to no kernel node");
  }
}

TEST(ChannelGraph, ACeOfTheWrongSizeIsRefused) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    bad_graph([](flow::Graph& g) { g.host_enq(g.channel("a", 4, 128), std::uint64_t{1}); });
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "channel 'a': a CE of 8 bytes for a CE size of 4");
  }
}

TEST(ChannelGraph, TwoChannelsOfOneNameAreAUserError) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    bad_graph([](flow::Graph& g) {
      g.channel("a", 4, 128);
      g.channel("a", 8, 128);
    });
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "test: a channel 'a' exists already");
  }
}

TEST(AggregatorPredicate, WholeWavefrontsFirstThePartialOneWhenIdle) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint64_t dispatches = 0, waves = 0, ces = 0;
  double run_ns = 0;
  run_graph(make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=2"}), 100, 128, consume_slowly,
            [&](Host&, flow::Graph& g) {
              dispatches = g.aggregator().dispatches.value();
              waves = g.aggregator().wavefronts.value();
              ces = g.aggregator().ces_dispatched.value();
              run_ns = g.aggregator().run_ns.scalar();
            });
  // 64 at once; the 36 left only after the first wavefront completed: two
  // 10 us consumers one after the other.
  EXPECT_EQ(dispatches, 2u);
  EXPECT_EQ(waves, 2u);
  EXPECT_EQ(ces, 100u);
  EXPECT_GT(run_ns, 20000.0);
  EXPECT_LT(run_ns, 22000.0);
}

Task<void> free_twice(Lane& l, chan::Channel& ch, std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, ch, off);
  co_await chan::tfree(l, ch, ce);
  co_await chan::tfree(l, ch, ce);
}

TEST(AggregatorFree, ACeFreedTwiceIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    run_graph(make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=1"}), 64, 128, free_twice);
    FAIL() << "no fault";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("freed twice"), std::string::npos) << e.what();
  }
}

// A scheduler that takes only whole wavefronts never dispatches the last 36
// of 100 CEs: nothing runs, nothing will change, and the aggregator says so
// (exit 3) instead of polling until the watchdog.
class WholeWavefrontsOnly final : public agg::Scheduler {
 public:
  std::string name() const override { return "whole-only"; }
  std::uint32_t predicate(const chan::Channel&, std::uint32_t ready, const agg::View& v) override {
    return ready / v.width * v.width;
  }
};

TEST(AggregatorStall, ASchedulerThatLeavesReadyCesWithNothingRunningIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = make_config(
      "orr2014", {"gpu.mechanisms=channels", "gpu.cus=1", "sim.max_time=200000"});  // the watchdog at 200 us
  try {
    run_graph(cfg, 100, 128, consume, {},
              [](flow::Graph& g) { g.aggregator().set_scheduler(std::make_unique<WholeWavefrontsOnly>()); });
    FAIL() << "no fault";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("the scheduler 'whole-only' dispatches none of the ready CEs and no consumer "
                                         "runs or has yielded"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("channel 't' has 36 ready"), std::string::npos) << e.what();
  }
  EXPECT_LT(sc_core::sc_time_stamp().to_seconds(), 1e-3);  // at once, not at the watchdog
}

// Done counts of 128 CEs: the first block is wavefronts 0 and 1. Wavefront 0
// frees its CEs late (20 us); everything else is done within a few
// microseconds. In the middle the data head must still be at 0 (block 0 half
// done, blocks 1-3 done but younger); at the end all four blocks are free.
Task<void> late_half_block(Lane& l, chan::Channel& ch, std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, ch, off);
  if (ce.index < 64) co_await l.sleep(20000);
  co_await chan::tfree(l, ch, ce);
}

TEST(AggregatorFree, SpaceIsFreedInAllocationOrder) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=2", "channel.done_count=128"});
  std::uint32_t head_mid = 99, head_end = 0;
  std::uint64_t done_mid = 0;
  HostHarness hh(cfg, [&](Host& h) {
    flow::Graph g(h, "test");
    chan::Channel& ch = g.channel("t", 4, 512);
    flow::KernelNode& k = g.kernel("k", [&ch](Lane& l, std::uint32_t off) { return late_half_block(l, ch, off); });
    g.connect(ch, k);
    g.host_enq(ch, std::vector<std::uint32_t>(512, 1));
    h.spawn("probe", [&] {
      sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));
      h.memory().copy_out(&head_mid, ch.layout().data_head, 4);
      done_mid = g.aggregator().ces_dispatched.value();
    });
    g.execute();
    g.wait_for_done();
    h.join();
    h.memory().copy_out(&head_end, ch.layout().data_head, 4);
  });
  hh.run();
  EXPECT_EQ(done_mid, 512u);  // everything was dispatched by then
  EXPECT_EQ(head_mid, 0u);
  EXPECT_EQ(head_end, 512u);
}

Task<void> enq_elsewhere(Lane& l, chan::Channel& ch, chan::Channel* other, std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, ch, off);
  const chan::Alloc a = co_await chan::talloc(l, ch, 1);
  co_await l.store<std::uint32_t>(a.addr(ch, 0), 1);
  co_await chan::enq(l, *other, a);
  co_await chan::tfree(l, ch, ce);
}

TEST(ChannelFaults, EnqToAnotherChannelIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=1"});
  HostHarness hh(cfg, [&](Host& h) {
    flow::Graph g(h, "test");
    chan::Channel& a = g.channel("a", 4, 128);
    chan::Channel& b = g.channel("b", 4, 128);
    flow::KernelNode& ka =
        g.kernel("ka", [&a, &b](Lane& l, std::uint32_t off) { return enq_elsewhere(l, a, &b, off); });
    flow::KernelNode& kb = g.kernel("kb", [&b](Lane& l, std::uint32_t off) { return consume(l, b, off); });
    g.connect(a, ka);
    g.connect(b, kb);
    g.host_enq(a, std::uint32_t{7});
    g.execute();
    g.wait_for_done();
  });
  try {
    hh.run();
    FAIL() << "no fault";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("enq to channel 'b' of 1 CEs allocated from channel 0"), std::string::npos)
        << e.what();
  }
}

// Channel A's consumers each put one CE into channel B (64 CEs), whose
// consumers never free theirs: B fills exactly with 64 producers and is full
// for the 65th.
Task<void> consume_keep(Lane& l, chan::Channel& ch, std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, ch, off);
  (void)co_await l.load<std::uint32_t>(ce.addr);
}

Task<void> forward(Lane& l, chan::Channel& a, chan::Channel& b, std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, a, off);
  const chan::Alloc x = co_await chan::talloc(l, b, 1);
  co_await l.store<std::uint32_t>(x.addr(b, 0), 1);
  co_await chan::enq(l, b, x);
  co_await chan::tfree(l, a, ce);
}

void fill(std::uint32_t producers, bool yield = false) {
  const Config cfg = make_config(
      "orr2014", {"gpu.mechanisms=channels", "gpu.cus=2", yield ? "yield.enabled=true" : "yield.enabled=false"});
  HostHarness hh(cfg, [&](Host& h) {
    flow::Graph g(h, "test");
    chan::Channel& a = g.channel("a", 4, 128);
    chan::Channel& b = g.channel("b", 4, 64);
    flow::KernelNode& ka = g.kernel("ka", [&a, &b](Lane& l, std::uint32_t off) { return forward(l, a, b, off); });
    flow::KernelNode& kb = g.kernel("kb", [&b](Lane& l, std::uint32_t off) { return consume_keep(l, b, off); });
    g.connect(a, ka);
    g.connect(b, kb);
    g.host_enq(a, std::vector<std::uint32_t>(producers, 1));
    g.execute();
    g.wait_for_done();
  });
  hh.run();
}

TEST(ChannelFull, ExactlyTheCapacityFits) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_NO_THROW(fill(64));
}

TEST(ChannelFull, OneMoreThanTheCapacityIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    fill(65);
    FAIL() << "no fault";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("channel 'b' is full: 1 CEs requested with 64 of 64 in use"),
              std::string::npos)
        << e.what();
  }
}

// With yield on, the 65th producer yields instead; b's consumers finish
// without freeing, so nothing will ever make room: the aggregator's
// diagnosis names the channel and the yielded wavefront.
TEST(ChannelFull, AYieldThatCanNeverBeRestartedIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    fill(65, true);
    FAIL() << "no fault";
  } catch (const SimFault& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("yield: 1 consumer wavefronts yielded, none can be restarted"), std::string::npos) << m;
    EXPECT_NE(m.find("channel 'b' (64 of 64 CEs in use) is awaited by 1 wavefronts needing 1 CEs"), std::string::npos)
        << m;
    EXPECT_NE(m.find("ka workgroup"), std::string::npos) << m;
  }
}

TEST(AggregatorCore, ASimplerCoreBlocksTheGpuLonger) {
  const std::string base = "fib-flow --preset orr2014 --set gpu.cus=2 --set fib_flow.n=14 --set aggregator.core=";
  const auto simple = run_stats(base + "simple");
  const auto ooo = run_stats(base + "ooo-2");
  EXPECT_GT(stat(simple, "aggregator.gpu_blocked_ns"), 1.5 * stat(ooo, "aggregator.gpu_blocked_ns"));
  EXPECT_GT(stat(simple, "aggregator.dispatch_ns") / stat(simple, "aggregator.dispatches"),
            4 * stat(ooo, "aggregator.dispatch_ns") / stat(ooo, "aggregator.dispatches"));
}

// Cold loads to distinct lines: 7 fit the ooo-2 core's load window (64-entry
// ROB / 9 instructions per load: the aggregator's mix with 8 instructions per
// channel polled; 2 with the compiled 25), 14 need two rounds.
TEST(ControlCore, LoadsOverlapUpToTheCoresMemoryParallelism) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = make_config(
      "orr2014", {"gpu.mechanisms=channels", "gpu.cus=1", "ctrl.core=ooo-2", "aggregator.poll_instructions=8"});
  Tick t7 = 0, t14 = 0, t1 = 0;
  HostHarness hh(cfg, [&](Host& h) {
    agg::Aggregator& a = h.gpu().get<agg::Aggregator>("test");
    ctrl::ControlCore& cp = a.control_core();
    ASSERT_EQ(a.core().mlp, 7u);
    const std::uint64_t base = h.alloc(64 * 64);
    std::vector<std::uint64_t> addrs;
    std::vector<std::uint32_t> v;
    auto measure = [&](std::uint64_t first, unsigned n) {
      addrs.clear();
      for (unsigned i = 0; i < n; ++i) addrs.push_back(base + 64ull * (first + i));
      cp.acquire(a.firmware());
      const Tick t0 = cp.time();
      cp.load_words(addrs, v);
      const Tick t = cp.time() - t0;
      cp.release(a.firmware());
      return t;
    };
    t1 = measure(0, 1);
    t7 = measure(8, 7);
    t14 = measure(24, 14);
  });
  hh.run();
  EXPECT_GT(t7, t1);                   // one round, a little longer than one load (DRAM bandwidth)
  EXPECT_GT(t14, t7 + (t1 * 8) / 10);  // a second round
  EXPECT_LT(t14, 2 * t7 + t1);
}

// A second firmware shares the control core with the aggregator, time-sliced:
// while it holds the core the aggregator does not run (it waits for the core
// between passes), each is charged its own instructions, loads and stores,
// and the channel graph still completes.
TEST(ControlCore, ASecondFirmwareSharesTheCoreTimeSliced) {
  FG_REQUIRE_FRESH_KERNEL();
  constexpr unsigned kSlices = 40, kInstr = 500;
  unsigned held_throughout = 0, while_running = 0;
  double agg_instr = 0, agg_held = 0, total_instr = 0;
  std::uint64_t mine = 0, my_loads = 0;
  run_graph(
      make_config("orr2014", {"gpu.mechanisms=channels", "gpu.cus=2"}), 1024, 1024, consume_slowly,
      [&](Host&, flow::Graph& g) {
        while (mine == 0) sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));  // the second firmware's last slice
        ctrl::ControlCore& cp = g.aggregator().control_core();
        agg_instr = static_cast<double>(g.aggregator().firmware().instructions.value());
        agg_held = g.aggregator().firmware().held_ns.scalar();
        total_instr = cp.instructions.scalar();
      },
      [&](flow::Graph& g) {
        ctrl::ControlCore& cp = g.aggregator().control_core();
        ctrl::Firmware& fw = cp.attach("test_fw", 4);
        agg::Aggregator* a = &g.aggregator();
        sc_core::sc_spawn(
            [&cp, &fw, a, &held_throughout, &while_running, &mine, &my_loads] {
              for (unsigned i = 0; i < kSlices; ++i) {
                cp.acquire(fw);
                if (a->running()) ++while_running;
                cp.instr(kInstr);
                cp.load_word(64);  // waits in SystemC: the aggregator may try to take the core meanwhile
                held_throughout += cp.holder() == &fw;
                cp.release(fw);
                sc_core::wait(sc_core::sc_time(100, sc_core::SC_NS));
              }
              mine = fw.instructions.value();
              my_loads = fw.loads.value();
            },
            "second_firmware");
      });
  EXPECT_EQ(held_throughout, kSlices);  // nobody took the core from it
  EXPECT_GT(while_running, 0u);         // it ran between the aggregator's passes
  EXPECT_EQ(mine, std::uint64_t{kSlices} * (kInstr));
  EXPECT_EQ(my_loads, kSlices);
  EXPECT_GT(agg_instr, 0);
  EXPECT_GT(agg_held, 0);
  EXPECT_EQ(total_instr, agg_instr + static_cast<double>(mine));
}

// While the aggregator runs, the CUs run ahead only to the next cycle edge:
// a dispatched workgroup issues from its placement, whatever the quantum.
TEST(ChannelQuantum, FibFlowOnEightCusDoesNotDependOnTheQuantum) {
  const std::string base = "fib-flow --preset orr2014 --set gpu.cus=8 --set fib_flow.n=20 --set sim.quantum=";
  const auto one = run_stats(base + "1");
  const auto dflt = run_stats(base + "20");
  EXPECT_EQ(stat(one, "aggregator.run_ns"), stat(dflt, "aggregator.run_ns"));
  EXPECT_EQ(stat(one, "channels.fib.cas_failures"), stat(dflt, "channels.fib.cas_failures"));
}

TEST(ChannelStats, SameConfigSameStats) {
  expect_same_stats("fib-flow --preset orr2014 --set gpu.cus=4 --set fib_flow.n=14");
}

}  // namespace
}  // namespace fg::test
