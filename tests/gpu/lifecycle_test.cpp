// SPDX-License-Identifier: Apache-2.0
// The kernel lifecycle in the front end (docs/compute-unit.md, "Kernel
// lifecycle"): launch policies by name, early workgroup exit, growing a
// running kernel, the workgroup count as a device operation, observers, the
// per-kernel extension, CU partitioning, and occupancy-bound dispatch.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"
#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "gpu/op.h"
#include "gpu/wavefront.h"

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

Task<> busy(Lane& l, std::uint32_t n) { co_await l.alu(n); }

// ---- grow and shrink: the example mechanism `elastic` ----

// A kernel of one workgroup grows to 8 (the new ones start at once, with the
// value given in their transmit block), then halves; the survivors see the
// new count. The host checks every workgroup's record.
TEST(Lifecycle, AKernelGrowsAndShrinksItself) {
  for (const char* preset : {"orr2014", "kim2014"})
    for (int cus : {1, 3}) {
      const auto j = run_json(fmt::format("elastic --preset {} --set gpu.cus={} --set sim.max_time=1e6", preset, cus));
      ASSERT_EQ(j["workload"]["checks"].size(), 1u) << preset;
      EXPECT_EQ(j["workload"]["results"]["workgroups"], 8);
      EXPECT_EQ(j["workload"]["results"]["exited"], 4);
      const auto& k = j["kernels"][0];
      EXPECT_EQ(k["grown"], 7);
      EXPECT_EQ(k["exited"], 4);
      // Grown workgroups pay no launch latency (orr2014's is 5000 cycles at 1 GHz).
      if (std::string(preset) == "orr2014") {
        EXPECT_LT(k["end_ns"].get<double>() - k["first_dispatch_ns"].get<double>(), 5000.0);
      }
      EXPECT_EQ(j["stats"]["elastic.grown_groups"], 7);
    }
}

// ---- occupancy-bound dispatch ----

// A non-cooperative persistent kernel with a spinning grid barrier: at
// resident capacity it finishes; one workgroup more is a deadlock that names
// the barrier and the workgroup never dispatched.
TEST(Lifecycle, AGridBarrierOverResidentCapacityIsADiagnosedDeadlock) {
  for (const char* preset : {"orr2014", "kim2014"}) {
    const auto ok = run_json(fmt::format("persistent --preset {} --set gpu.cus=2", preset));
    const int cap = ok["workload"]["results"]["resident_capacity"];
    EXPECT_EQ(ok["workload"]["results"]["groups"], cap);
    EXPECT_GT(cap, 0);
    const auto r = run_fgsim(
        fmt::format("run persistent --preset {} --set gpu.cus=2 --set persistent.groups={} --quiet", preset, cap + 1));
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("deadlock: no more events"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(fmt::format("{} blocked on spin on grid barrier 'persistent'", cap)), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(fmt::format(
                  "kernel 'persistent': 1 of {} workgroups not dispatched (waiting for room on a CU)", cap + 1)),
              std::string::npos)
        << r.err;
  }
}

// A CU's capacity for a launch is the least of four limits, and
// capacity_bound names which (the fork-join runtime's message on too many
// workers names the settings to change from it): each limit made the least
// in turn, and on a tie the first in the order slots, workgroups, registers,
// LDS, with every limit of the tie in `binding`.
TEST(Lifecycle, CapacityNamesTheLimitsThatBindIt) {
  FG_REQUIRE_FRESH_KERNEL();
  using L = ComputeUnit::Limit;
  const auto bit = [](L l) { return 1u << static_cast<unsigned>(l); };
  struct Row {
    KernelLaunch launch;
    std::uint32_t groups;
    L limit;
    unsigned binding;
  };
  // A CU of 40 slots, 10 workgroups, 65,536 lane-registers and 65,536 B of
  // LDS, 64-lane wavefronts.
  const std::vector<Row> rows = {
      {{"slots", 0, 512, 0, 0, {}}, 5, L::kSlots, bit(L::kSlots)},             // 8 wavefronts a group: 40 / 8
      {{"groups", 0, 64, 0, 0, {}}, 10, L::kWorkgroups, bit(L::kWorkgroups)},  // 40 by the slots
      {{"regs", 0, 128, 128, 0, {}}, 4, L::kRegisters, bit(L::kRegisters)},    // 65536 / (2 x 64 x 128)
      {{"lds", 0, 64, 8, 16384, {}}, 4, L::kLds, bit(L::kLds)},                // 65536 / 16384; 128 by registers
      {{"slots-groups", 0, 256, 0, 0, {}}, 10, L::kSlots, bit(L::kSlots) | bit(L::kWorkgroups)},  // 40 / 4 = 10
      {{"slots-regs", 0, 512, 25, 0, {}}, 5, L::kSlots, bit(L::kSlots) | bit(L::kRegisters)},  // 65536 / (512 x 25) = 5
      {{"regs-lds", 0, 128, 128, 16384, {}}, 4, L::kRegisters, bit(L::kRegisters) | bit(L::kLds)}};
  std::vector<ComputeUnit::CapacityBound> got;
  HostHarness h(
      test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.slots=40", "gpu.cu.max_workgroups=10",
                                    "gpu.cu.registers=65536", "gpu.cu.lds=65536", "gpu.cu.wavefront_width=64"}),
      [&](Host& host) {
        for (const Row& r : rows) got.push_back(host.gpu().cu(0).capacity_bound(r.launch));
        for (const Row& r : rows) EXPECT_EQ(host.gpu().cu(0).capacity(r.launch), r.groups) << r.launch.name;
      });
  h.run();
  ASSERT_EQ(got.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(got[i].groups, rows[i].groups) << rows[i].launch.name;
    EXPECT_EQ(got[i].limit(), rows[i].limit) << rows[i].launch.name;
    EXPECT_EQ(got[i].binding, rows[i].binding) << rows[i].launch.name;
  }
}

// ---- early exit ----

// Odd workgroups exit at once (their later store must not happen); the slots
// they free take the next kernel's workgroup before the even ones end.
TEST(Lifecycle, AnExitedWorkgroupEndsAndFreesItsRoomAtOnce) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> marks;
  Tick b_start = 0, a_end = 0;
  std::uint32_t a_groups = 0, a_exited = 0;
  HostHarness h(
      test::make_config("orr2014", {"gpu.cus=1", "gpu.frontend.launch_latency=0", "gpu.frontend.policy=priority"}),
      [&](Host& host) {
        auto& d = host.dispatcher();
        const KernelLaunch probe{"a", 0, 128, 8, 0, {}};
        const auto groups = static_cast<std::uint32_t>(d.resident_capacity(probe));
        const std::uint64_t m = host.upload(std::vector<std::uint32_t>(groups, 0));
        KernelState& a = d.submit({"a", 128ull * groups, 128, 8, 0, [m](Lane& l) -> Task<> {
                                     if (l.group_id() % 2) co_await l.exit();
                                     co_await l.alu(2000);
                                     co_await l.store<std::uint32_t>(m + 4ull * l.group_id(), 1);
                                   }});
        host.wait(sc_core::sc_time(50, sc_core::SC_NS));
        KernelState& b = d.submit({"b", 128, 128, 8, 0, [](Lane& l) { return busy(l, 1); }});
        while (!a.finished) sc_core::wait(a.done);
        while (!b.finished) sc_core::wait(b.done);
        b_start = b.first_dispatch, a_end = a.end;
        a_groups = a.num_groups, a_exited = a.groups_exited;
        marks = host.download<std::uint32_t>(m, groups);
      });
  h.run();
  ASSERT_FALSE(marks.empty());
  for (std::size_t g = 0; g < marks.size(); ++g) EXPECT_EQ(marks[g], g % 2 ? 0u : 1u) << "workgroup " << g;
  EXPECT_EQ(a_exited, marks.size() / 2);
  EXPECT_EQ(a_groups, marks.size() - marks.size() / 2);                   // exited workgroups no longer count
  EXPECT_LT(b_start, a_end / 4);                                          // b got an exited workgroup's room
  EXPECT_EQ(h.stat("gpu.cu0.exits"), static_cast<double>(marks.size()));  // 2 wavefronts per exited workgroup
}

// ---- observers ----

struct Recorder : FrontEndObserver {
  std::vector<std::string> log;
  void kernel_submitted(KernelState& k, Tick) override { log.push_back("submitted " + k.launch.name); }
  void kernel_waiting(KernelState& k, Tick) override { log.push_back("waiting " + k.launch.name); }
  void workgroup_finished(KernelState& k, std::uint32_t g, Tick, bool exited) override {
    log.push_back(fmt::format("group {} {}{}", k.launch.name, g, exited ? " exited" : ""));
  }
  void kernel_finished(KernelState& k, Tick) override { log.push_back("finished " + k.launch.name); }
};

// One CU: a fills it; b (queued behind it, no room) is seen waiting once.
TEST(Lifecycle, ObserversSeeSubmitWaitingWorkgroupsAndTheEnd) {
  FG_REQUIRE_FRESH_KERNEL();
  Recorder rec;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.frontend.launch_latency=0"}), [&](Host& host) {
    auto& d = host.dispatcher();
    d.add_observer(&rec);
    KernelState& a = d.submit({"a", 64 * 40, 64 * 40, 8, 0, [](Lane& l) -> Task<> {
                                 co_await l.alu(100);
                                 if (l.local_id() >= 64) co_await l.exit();
                               }});
    KernelState& b = d.submit({"b", 64, 64, 8, 0, [](Lane& l) { return busy(l, 1); }});
    while (!b.finished) sc_core::wait(b.done);
    (void)a;
    d.remove_observer(&rec);
  });
  h.run();
  const std::vector<std::string> want{"submitted a", "submitted b", "waiting b", "group a 0 exited",
                                      "finished a",  "group b 0",   "finished b"};
  EXPECT_EQ(rec.log, want);
}

// ---- the extension slot and CU partitioning ----

struct Tag : KernelExtension {
  std::uint32_t value = 0;
};
class TagUnit final : public OpUnit {
 public:
  TagUnit() : OpUnit("test_tag") {}
  void issue(IssueContext& c) const override {
    const Tag* t = c.wave().workgroup().kernel->ext<Tag>();
    c.for_each([&](Lane& l) { l.pending.result = t ? t->value : 0; });
  }
};
const TagUnit kTag;

Task<> record(Lane& l, std::uint64_t out) {
  const auto tag = co_await l.op<std::uint32_t>(kTag, Lane::Loc::current(), [](PendingOp&) {});
  const std::uint32_t cu = co_await l.cu_id();
  if (l.local_id() == 0) co_await l.store<std::uint32_t>(out + 4ull * l.group_id(), tag * 100 + cu);
}

// Two kernels side by side, each confined to one CU, each with its tag.
TEST(Lifecycle, KernelsConfinedToCusCarryTheirExtension) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> ra, rb;
  std::uint64_t cap_all = 0, cap_one = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=2", "gpu.frontend.policy=priority"}), [&](Host& host) {
    auto& d = host.dispatcher();
    const std::uint64_t oa = host.upload(std::vector<std::uint32_t>(16, 0));
    const std::uint64_t ob = host.upload(std::vector<std::uint32_t>(16, 0));
    cap_all = d.resident_capacity({"p", 0, 64, 8, 0, {}});
    cap_one = d.resident_capacity({"p", 0, 64, 8, 0, {}}, {1});
    auto tagged = [&](std::uint32_t v, int cu) {
      SubmitOptions o;
      auto t = std::make_shared<Tag>();
      t->value = v;
      o.ext = t;
      o.cus = {cu};
      return o;
    };
    KernelState& a = d.submit({"a", 64 * 16, 64, 8, 0, [oa](Lane& l) { return record(l, oa); }}, tagged(7, 1));
    KernelState& b = d.submit({"b", 64 * 16, 64, 8, 0, [ob](Lane& l) { return record(l, ob); }}, tagged(9, 0));
    while (!a.finished) sc_core::wait(a.done);
    while (!b.finished) sc_core::wait(b.done);
    ra = host.download<std::uint32_t>(oa, 16);
    rb = host.download<std::uint32_t>(ob, 16);
  });
  h.run();
  EXPECT_EQ(cap_one * 2, cap_all);
  for (std::uint32_t v : ra) EXPECT_EQ(v, 701u);  // tag 7 on CU 1
  for (std::uint32_t v : rb) EXPECT_EQ(v, 900u);  // tag 9 on CU 0
}

// ---- launch policies by name ----

// A policy a mechanism could register: the newest kernel first.
class Lifo final : public LaunchPolicy {
 public:
  void order(std::vector<KernelState*>& k) const override { std::reverse(k.begin(), k.end()); }
  bool in_order() const override { return true; }
};
const RegisterLaunchPolicy kLifo{
    {"test-lifo", "newest kernel first (a test's policy)", [] { return std::make_unique<Lifo>(); }}};

// Three kernels that each fill the only CU, submitted together: the policy
// named by gpu.frontend.policy orders them.
std::vector<std::string> finish_order(const std::string& policy) {
  std::vector<std::string> order;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.frontend.policy=" + policy}), [&](Host& host) {
    auto& d = host.dispatcher();
    std::vector<KernelState*> ks;
    for (const char* n : {"a", "b", "c"}) {
      SubmitOptions o;
      o.on_done = [&order](KernelState& k, Tick) { order.push_back(k.launch.name); };
      ks.push_back(&d.submit({n, 64 * 40, 64, 8, 0, [](Lane& l) { return busy(l, 50); }}, o));
    }
    for (KernelState* k : ks)
      while (!k->finished) sc_core::wait(k->done);
  });
  h.run();
  return order;
}

TEST(Lifecycle, ALaunchPolicyRegisteredByNameOrdersTheQueue) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_EQ(finish_order("test-lifo"), (std::vector<std::string>{"c", "b", "a"}));
}

TEST(Lifecycle, FifoIsSubmissionOrder) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_EQ(finish_order("fifo"), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace fg
