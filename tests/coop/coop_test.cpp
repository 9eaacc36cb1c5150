// SPDX-License-Identifier: Apache-2.0
// Cooperative kernels (systemc/coop, workloads/runtime/coop.h): the
// occupancy-bound deadlock and its cooperative cure, kills and forks around a
// task the scheduler gathers slots for, the resizing barrier's semantics, and
// the faults of a primitive not every thread reaches.
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "coop/coop.h"
#include "fg_test.h"
#include "gpu/dispatcher.h"
#include "runtime/coop.h"

namespace fg {
namespace {

using test::HostHarness;
using test::run_fgsim;

nlohmann::json run_json(const std::string& args, int expect = 0) {
  const std::string path = (test::scratch_dir() / "s.json").string();
  const auto r = run_fgsim("run " + args + " --quiet --stats " + path);
  EXPECT_EQ(r.code, expect) << args << "\n" << r.err;
  return nlohmann::json::parse(test::slurp(path));
}

// The paper's 56-works/57-deadlocks on our presets: the plain persistent
// kernel deadlocks above resident capacity (tests/gpu/lifecycle_test.cpp);
// written cooperatively it finishes at any requested count, with the
// workgroups that fit active.
TEST(Coop, ACooperativeKernelFinishesAtAnyRequestedCount) {
  for (const char* preset : {"orr2014", "kim2014"}) {
    const auto plain = run_json(fmt::format("persistent --preset {} --set gpu.cus=2", preset));
    const int cap = plain["workload"]["results"]["resident_capacity"];
    for (int n : {cap + 1, 2 * cap, 1000}) {
      const auto j =
          run_json(fmt::format("persistent --preset {} --set gpu.cus=2 --set persistent.mechanism=coop "
                               "--set persistent.groups={}",
                               preset, n));
      EXPECT_EQ(j["workload"]["results"]["active"], cap) << preset << " n=" << n;
      EXPECT_EQ(j["workload"]["results"]["groups"], n);
    }
  }
}

// ---- a work-stealing style kernel sharing the GPU with a task ----

struct Loop {
  std::uint32_t iteration = 0;
};

// Items taken from a global counter until none is left; workgroup 0 asks
// for more workgroups at the top of every iteration, the others offer to
// die there (the paper's work-stealing apps). LDS word 0 shares the item.
// `starts` counts the workgroups' starts: word 0 the launched ones, word 1
// the forked ones (coop::joined); `bare` forks with no transmit block.
Task<> take_items(Lane& l, std::uint64_t next, std::uint64_t done, std::uint32_t n, std::uint32_t work,
                  std::uint64_t starts, bool bare) {
  Loop v;
  if (coop::joined(l) && !bare) v = coop::transmitted<Loop>(l);
  if (l.local_id() == 0) co_await l.atomic_add<std::uint32_t>(starts + (coop::joined(l) ? 4 : 0), 1u);
  for (;;) {
    const std::uint32_t id = co_await l.get_group_id();
    if (id == 0 && bare)
      co_await coop::request_fork(l);
    else if (id == 0)
      co_await coop::request_fork(l, v);
    else
      co_await coop::offer_kill(l);
    if (l.local_id() == 0) {
      const std::uint32_t item = co_await l.atomic_add<std::uint32_t>(next, 1u);
      co_await l.lds_store<std::uint32_t>(0, item);
    }
    co_await l.barrier();
    const std::uint32_t item = co_await l.lds_load<std::uint32_t>(0);
    co_await l.barrier();
    if (item >= n) break;
    co_await l.alu(work);
    if (l.local_id() == 0) co_await l.atomic_add<std::uint32_t>(done + 4ull * item, 1u);
    ++v.iteration;
  }
}

Task<> busy(Lane& l, std::uint32_t work) { co_await l.alu(work); }
Task<> busy_one(Lane& l) { co_await l.alu(1); }

struct Shared {
  std::vector<std::uint32_t> done;
  coop::TaskTimes task;
  std::uint32_t slots = 0, share = 0;
  double kills = 0, forked = 0, tasks = 0;
  std::vector<std::uint32_t> starts;  // launched, forked
  Tick kernel_end = 0;
};

// The kernel takes every slot; after a while a task of `share` workgroups
// arrives: the scheduler asks for workgroups back, they die at offer_kill,
// the task runs on their slots, then workgroup 0's forks take them again.
// share_div 0: the task takes every slot but workgroup 0's.
Shared share_the_gpu(const std::string& preset, std::uint32_t share_div, bool bare = false, std::uint32_t work = 400) {
  Shared out;
  HostHarness h(test::make_config(preset, {"gpu.cus=2", "gpu.mechanisms=coop"}), [&](Host& host) {
    auto& sched = host.gpu().get<coop::Scheduler>("test");
    const std::uint32_t n = 2000, size = 128;
    const KernelLaunch shape{"ws", 0, size, 16, 16, {}};
    out.slots = sched.slots(shape);
    out.share = share_div ? std::max(1u, out.slots / share_div) : out.slots - 1;
    const std::uint64_t next = host.upload(std::vector<std::uint32_t>(1, 0));
    const std::uint64_t done = host.upload(std::vector<std::uint32_t>(n, 0));
    const std::uint64_t starts = host.upload(std::vector<std::uint32_t>(2, 0));
    KernelLaunch k = shape;
    k.body = [=](Lane& l) { return take_items(l, next, done, n, work, starts, bare); };
    KernelState& ks = sched.launch(sched.prepare(out.slots), std::move(k));
    host.wait(sc_core::sc_time(20, sc_core::SC_US));
    KernelLaunch task = shape;
    task.name = "task";
    task.body = [](Lane& l) { return busy(l, 2000); };
    out.task = sched.run_task(std::move(task), out.share);
    while (!ks.finished) sc_core::wait(ks.done);
    out.done = host.download<std::uint32_t>(done, n);
    out.starts = host.download<std::uint32_t>(starts, 2);
    out.kernel_end = ks.end;
    out.kills = sched.kills_accepted.value();
    out.forked = sched.workgroups_forked.value();
    out.tasks = sched.tasks.value();
  });
  h.run();
  return out;
}

TEST(Coop, ATaskGetsItsSlotsByKillsAndTheKernelForksThemBack) {
  FG_REQUIRE_FRESH_KERNEL();
  const Shared s = share_the_gpu("orr2014", 2);
  ASSERT_EQ(s.done.size(), 2000u);
  for (std::size_t i = 0; i < s.done.size(); ++i) ASSERT_EQ(s.done[i], 1u) << "item " << i;  // once each
  EXPECT_EQ(s.tasks, 1);
  EXPECT_EQ(s.kills, s.share);   // exactly the slots the task needed
  EXPECT_EQ(s.forked, s.share);  // and every one taken back after it
  EXPECT_GT(s.task.gather_ns(), 0);
  EXPECT_GT(s.task.exec_ns(), 0);
  EXPECT_GE(s.task.launched, s.task.gathered);
  EXPECT_EQ(s.starts, (std::vector<std::uint32_t>{s.slots, s.share}));
}

// No fork takes slots the scheduler gathers for a task: workgroup 0 asks
// for workgroups every few cycles while the others die one by one for a task
// that needs all of theirs. A fork granted during the gather takes a freed
// slot back after the kills were counted out, and the task then waits for the
// kernel's workgroups to end (the mutation "forks ignore the gathering word"
// gathered at 62.6 us, after the kernel's end, against 30.4 us).
TEST(Coop, NoForkTakesTheSlotsOfAGather) {
  FG_REQUIRE_FRESH_KERNEL();
  const Shared s = share_the_gpu("orr2014", 0, false, 20);
  for (std::size_t i = 0; i < s.done.size(); ++i) ASSERT_EQ(s.done[i], 1u) << "item " << i;
  EXPECT_LT(s.task.done, s.kernel_end);  // the task ran while the kernel did
  EXPECT_EQ(s.kills, s.share);
  EXPECT_EQ(s.forked, s.share);
  EXPECT_EQ(s.starts, (std::vector<std::uint32_t>{s.slots, s.share}));
}

// A fork with no transmit variables (the paper's game has none): the new
// workgroups still know they were forked.
TEST(Coop, AForkWithoutTransmitVariablesIsStillJoined) {
  FG_REQUIRE_FRESH_KERNEL();
  const Shared s = share_the_gpu("kim2014", 4, true);
  for (std::size_t i = 0; i < s.done.size(); ++i) ASSERT_EQ(s.done[i], 1u) << "item " << i;
  EXPECT_EQ(s.kills, s.share);
  EXPECT_EQ(s.starts, (std::vector<std::uint32_t>{s.slots, s.share}));
}

// ---- the resizing barrier's forked workgroups ----

struct Round {
  std::uint32_t round = 0;
};

// Rounds separated by resizing barriers with almost no work between them:
// before barrier r workgroup 0 publishes r + 1, and after it every workgroup
// must see at least its own round published. A forked workgroup must start
// only once the barrier that forked it has released its slaves; one that
// started before could reach the next barrier early, be released by this one
// and run a round ahead (sssp on a grid sharing the GPU deadlocked so). Both
// are counted in `ahead`.
Task<> rounds(Lane& l, const coop::Barrier& b, std::uint64_t published, std::uint64_t ahead, std::uint32_t n) {
  Round v;
  if (coop::joined(l)) {
    // Forked at barrier v.round: it starts once that barrier has released
    // its slaves (its generation counts the releases).
    v = coop::transmitted<Round>(l);
    if (l.local_id() == 0) {
      const std::uint32_t released = co_await l.load_acquire<std::uint32_t>(b.generation);
      if (released < v.round) co_await l.atomic_add<std::uint32_t>(ahead, 1u);
    }
  }
  while (v.round < n) {
    const std::uint32_t id = co_await l.get_group_id();
    if (id == 0 && l.local_id() == 0) co_await l.store_release<std::uint32_t>(published, v.round + 1);
    ++v.round;
    co_await coop::resizing_barrier(l, b, v);
    if (l.local_id() == 0) {
      const std::uint32_t p = co_await l.load_acquire<std::uint32_t>(published);
      if (p < v.round) co_await l.atomic_add<std::uint32_t>(ahead, 1u);
    }
    co_await l.alu(4);
  }
}

// A task takes half the slots (kills at the barriers), then the barriers'
// forks take them back; the new workgroups wait with the slaves for the
// barrier's release (Sec. 4.2). The mutation "forks start at once": 18 of the
// 20 forked workgroups started before the release.
TEST(Coop, AWorkgroupForkedAtAResizingBarrierWaitsForItsRelease) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint32_t ahead = 0, slots = 0;
  double kills = 0, forked = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=2", "gpu.mechanisms=coop"}), [&](Host& host) {
    auto& sched = host.gpu().get<coop::Scheduler>("test");
    const KernelLaunch shape{"rounds", 0, 128, 16, 16, {}};
    slots = sched.slots(shape);
    const std::uint64_t published = host.upload(std::vector<std::uint32_t>(1, 0));
    const std::uint64_t ahead_addr = host.upload(std::vector<std::uint32_t>(1, 0));
    auto ck = sched.prepare(slots);
    const coop::Barrier b = coop::Barrier::make(host, *ck, "rounds");
    KernelLaunch k = shape;
    k.body = [=](Lane& l) { return rounds(l, b, published, ahead_addr, 300); };
    KernelState& ks = sched.launch(std::move(ck), std::move(k));
    host.wait(sc_core::sc_time(5, sc_core::SC_US));
    KernelLaunch task = shape;
    task.name = "task";
    task.body = [](Lane& l) { return busy(l, 2000); };
    sched.run_task(std::move(task), slots / 2);
    while (!ks.finished) sc_core::wait(ks.done);
    ahead = host.download<std::uint32_t>(ahead_addr, 1)[0];
    kills = sched.kills_accepted.value();
    forked = sched.workgroups_forked.value();
  });
  h.run();
  EXPECT_EQ(kills, slots / 2);
  EXPECT_EQ(forked, slots / 2);
  EXPECT_EQ(ahead, 0u);
}

// ---- faults ----

// Runs `body` as a cooperative kernel of `n` workgroups of 128 on orr2014
// with 1 CU; returns the simulated fault's message ("" when none).
std::string fault_of(std::function<Task<>(Lane&)> body, std::uint32_t n, std::vector<std::string> extra = {},
                     std::uint32_t lds = 16) {
  std::vector<std::string> keys{"gpu.cus=1", "gpu.mechanisms=coop"};
  keys.insert(keys.end(), extra.begin(), extra.end());
  HostHarness h(test::make_config("orr2014", keys), [&](Host& host) {
    auto& sched = host.gpu().get<coop::Scheduler>("test");
    KernelLaunch k{"faulty", 0, 128, 16, lds, {}};
    k.body = std::move(body);
    KernelState& ks = sched.launch(sched.prepare(n), std::move(k));
    while (!ks.finished) sc_core::wait(ks.done);
  });
  try {
    h.run();
  } catch (const SimFault& e) {
    return e.what();
  }
  return "";
}

// offer_kill is workgroup-level: reached by half the threads it is a fault
// naming the primitive, its site, the threads and the kernel.
Task<> half_offer(Lane& l) {
  if (l.local_id() % 2 == 0)
    co_await coop::offer_kill(l);
  else
    co_await l.alu(1);
  co_await l.barrier();
}

TEST(CoopFault, AnOfferKillReachedByHalfTheThreadsIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  const std::string e = fault_of(half_offer, 2);
  EXPECT_NE(e.find("offer_kill at "), std::string::npos) << e;
  EXPECT_NE(e.find("coop_test.cpp"), std::string::npos) << e;  // the site
  EXPECT_NE(e.find("reached by 32 of the 64 threads"), std::string::npos) << e;
  EXPECT_NE(e.find("of kernel 'faulty'"), std::string::npos) << e;
}

// The wavefronts of one workgroup at different workgroup-level calls: the
// workgroup can never go on.
Task<> split_calls(Lane& l) {
  if (l.local_id() < 64)
    co_await coop::offer_kill(l);
  else
    co_await coop::request_fork(l);
}

TEST(CoopFault, WavefrontsAtDifferentCallsAreAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  const std::string e = fault_of(split_calls, 2);
  EXPECT_NE(e.find("its wavefronts reached different workgroup-level calls"), std::string::npos) << e;
  EXPECT_NE(e.find("offer_kill at coop_test.cpp:"), std::string::npos) << e;
  EXPECT_NE(e.find("request_fork at coop_test.cpp:"), std::string::npos) << e;
}

// A transmit block over coop.transmit_limit is refused naming the key.
struct Big {
  std::uint32_t v[20] = {};
};
Task<> fork_big(Lane& l) {
  const Big b;
  co_await coop::request_fork(l, b);
}

TEST(CoopFault, ATransmitBlockOverItsLimitNamesTheKey) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    fault_of(fork_big, 2);
    FAIL() << "not refused";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("coop.transmit_limit: request_fork in kernel 'faulty' transmits 80 bytes, "
                                         "more than the limit of 64 B"),
              std::string::npos)
        << e.what();
  }
}

// A workgroup that takes a CU's whole LDS fits once per CU; with one CU and
// the scheduler's reserved slot there is no slot left for it: diagnosed at
// launch (exit 3), not a run that never starts.
TEST(CoopFault, AKernelThatCanNeverBeGrantedAWorkgroupIsDiagnosed) {
  FG_REQUIRE_FRESH_KERNEL();
  const std::string e = fault_of(busy_one, 4, {"coop.reserve_slot=true"}, 40 * 1024);
  EXPECT_NE(e.find("cooperative kernel 'faulty' can never be granted a workgroup: 0 of 0 slots free"),
            std::string::npos)
      << e;
}

// The reserved slot: one workgroup slot fewer for the cooperative kernel, as
// the paper's megakernel prototype (Table 2 compares both versions there).
TEST(Coop, TheReservedSlotLeavesTheKernelOneSlotFewer) {
  for (const char* preset : {"orr2014", "kim2014"}) {
    const auto plain = run_json(fmt::format("persistent --preset {} --set gpu.cus=2", preset));
    const int cap = plain["workload"]["results"]["resident_capacity"];
    const auto j = run_json(fmt::format(
        "persistent --preset {} --set gpu.cus=2 --set persistent.mechanism=coop --set coop.reserve_slot=true "
        "--set persistent.groups=1000",
        preset));
    EXPECT_EQ(j["workload"]["results"]["active"], cap - 1) << preset;
    const auto d = run_json(fmt::format(
        "persistent --preset {} --set gpu.cus=2 --set persistent.mechanism=coop --set coop.reserve_slot=true", preset));
    EXPECT_EQ(d["workload"]["results"]["groups"], cap - 1) << preset;  // groups=0: the slots
  }
}
}  // namespace
}  // namespace fg
