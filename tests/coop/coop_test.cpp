// SPDX-License-Identifier: Apache-2.0
// Cooperative kernels (systemc/coop, workloads/runtime/coop.h): the
// occupancy-bound deadlock and its cooperative cure, kills and forks around a
// task the scheduler gathers slots for, the resizing barrier's semantics, and
// the faults of a primitive not every thread reaches.
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
Task<> take_items(Lane& l, std::uint64_t next, std::uint64_t done, std::uint32_t n, std::uint32_t work) {
  Loop v;
  if (coop::joined(l)) v = coop::transmitted<Loop>(l);
  for (;;) {
    const std::uint32_t id = co_await l.get_group_id();
    if (id == 0)
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

struct Shared {
  std::vector<std::uint32_t> done;
  coop::TaskTimes task;
  std::uint32_t slots = 0, share = 0;
  double kills = 0, forked = 0, tasks = 0;
};

// The kernel takes every slot; after a while a task of `share` workgroups
// arrives: the scheduler asks for workgroups back, they die at offer_kill,
// the task runs on their slots, then workgroup 0's forks take them again.
Shared share_the_gpu(const std::string& preset, std::uint32_t share_div) {
  Shared out;
  HostHarness h(test::make_config(preset, {"gpu.cus=2", "gpu.mechanisms=coop"}), [&](Host& host) {
    auto& sched = host.gpu().get<coop::Scheduler>("test");
    const std::uint32_t n = 2000, size = 128, work = 400;
    const KernelLaunch shape{"ws", 0, size, 16, 16, {}};
    out.slots = sched.slots(shape);
    out.share = std::max(1u, out.slots / share_div);
    const std::uint64_t next = host.upload(std::vector<std::uint32_t>(1, 0));
    const std::uint64_t done = host.upload(std::vector<std::uint32_t>(n, 0));
    KernelLaunch k = shape;
    k.body = [=](Lane& l) { return take_items(l, next, done, n, work); };
    KernelState& ks = sched.launch(sched.prepare(out.slots), std::move(k));
    host.wait(sc_core::sc_time(20, sc_core::SC_US));
    KernelLaunch task = shape;
    task.name = "task";
    task.body = [](Lane& l) { return busy(l, 2000); };
    out.task = sched.run_task(std::move(task), out.share);
    while (!ks.finished) sc_core::wait(ks.done);
    out.done = host.download<std::uint32_t>(done, n);
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
}

}  // namespace
}  // namespace fg
