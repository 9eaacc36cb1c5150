// SPDX-License-Identifier: Apache-2.0
// elastic: the example of a mechanism (docs/architecture.md, "How a mechanism
// plugs in"; docs/compute-unit.md, "Kernel lifecycle"). The mechanism lets a
// running kernel grow and shrink itself through two device operations:
//
//   co_await elastic_grow(l, n, value);   // n more workgroups, ids after the current count,
//                                         // starting at the kernel's entry with `value` in
//                                         // their transmit block (l.transmit<std::uint32_t>(0))
//   co_await elastic_shrink(l, keep);     // the workgroup ends here if its id >= keep
//
// It is what the cooperative kernels' request_fork and offer_kill build on,
// reduced to the seams: a mechanism registered by name and built only for the
// runs that use it, units that find it through the GPU of the issuing CU, the
// front end's grow (GrowSpec) and early exit (IssueContext::exit), and the
// current workgroup count as a device operation. The workload `elastic` runs
// a kernel that starts with one workgroup, grows to elastic.groups, has every
// workgroup record its id and the value it was given, shrinks to half, and has
// the survivors count get_num_groups(); the host checks both.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "gpu/mechanism.h"
#include "gpu/op.h"
#include "gpu/wavefront.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/workload.h"

namespace fg {
namespace {

// ---- the mechanism -----------------------------------------------------------

class Elastic final : public Mechanism {
 public:
  static constexpr const char* kName = "elastic";
  explicit Elastic(Gpu& g)
      : Mechanism(kName),
        grows(StatGroup("elastic"), "grows", "kernels grown (elastic_grow)", ""),
        grown(StatGroup("elastic"), "grown_groups", "workgroups added", ""),
        shrunk(StatGroup("elastic"), "exited_groups", "workgroups that ended at elastic_shrink", ""),
        gpu_(g) {}
  std::vector<std::string> summary_lines() const override {
    return {fmt::format("{:<22}{} grows, {} workgroups added, {} ended early", "elastic", grows.value(), grown.value(),
                        shrunk.value())};
  }
  Gpu& gpu() { return gpu_; }
  Counter grows, grown, shrunk;

 private:
  Gpu& gpu_;
};

const RegisterMechanism kMechanism{{Elastic::kName,
                                    "example: a kernel that grows and shrinks itself (docs/compute-unit.md)",
                                    {},
                                    [](Gpu& g) { return std::make_unique<Elastic>(g); },
                                    {}}};

// elastic_grow: the issuing wavefront's first lane gives n and the value.
class GrowUnit final : public OpUnit {
 public:
  GrowUnit() : OpUnit("elastic_grow", Order::Synchronising, true) {}
  void issue(IssueContext& c) const override {
    Elastic& m = c.gpu().get<Elastic>("elastic_grow");
    KernelState& k = *c.wave().workgroup().kernel;
    const Lane& f = c.first();
    const auto n = static_cast<std::uint32_t>(f.pending.n);
    const auto value = static_cast<std::uint32_t>(f.pending.value);
    // The transmit block: written through this CU's port at issue; the new
    // workgroups are requested for when the write has completed.
    const std::uint64_t block = m.gpu().memory().allocate(4);
    const sc_core::sc_time d = c.port().write(block, &value, 4, IssueContext::local(c.issue()));
    ++c.mem_requests;
    const Tick written = sc_core::sc_time_stamp().value() + d.value();
    c.complete = std::max(c.complete, written);
    GrowSpec g;
    g.count = n;
    g.first_group = k.num_groups;
    g.transmit_addr = block;
    g.transmit_bytes = 4;
    g.at = written;
    m.gpu().dispatcher().grow(k, std::move(g));
    ++m.grows;
    m.grown += n;
  }
};
const GrowUnit kGrow;

// elastic_shrink: every wavefront of the workgroup issues it.
class ShrinkUnit final : public OpUnit {
 public:
  ShrinkUnit() : OpUnit("elastic_shrink") {}
  void issue(IssueContext& c) const override {
    Elastic& m = c.gpu().get<Elastic>("elastic_shrink");
    const Workgroup& wg = c.wave().workgroup();
    if (wg.id < c.first().pending.n) return;  // kept: the lanes go on
    if (wg.members.front() == &c.wave()) ++m.shrunk;
    c.exit();
  }
};
const ShrinkUnit kShrink;

OpAwaiter<void> elastic_grow(Lane& l, std::uint32_t n, std::uint32_t value, Lane::Loc loc = Lane::Loc::current()) {
  return l.op(kGrow, loc, [&](PendingOp& o) { o.n = n, o.value = value; });
}
OpAwaiter<void> elastic_shrink(Lane& l, std::uint32_t keep, Lane::Loc loc = Lane::Loc::current()) {
  return l.op(kShrink, loc, [&](PendingOp& o) { o.n = keep; });
}

// ---- the workload --------------------------------------------------------------

const Param<std::uint64_t> kGroups{"elastic.groups", 8, "", "workgroups the kernel grows to", {{2}, {4096}}};
const Param<std::uint64_t> kGroupSize{"elastic.group_size", 128, "", "work-items per workgroup", {{1}, {1024}}};

Task<> elastic_kernel(Lane& l, std::uint64_t seen, std::uint64_t counts, std::uint32_t groups) {
  // Workgroup 0 of the launch grows the kernel; the new workgroups start here
  // too, with the value in their transmit block (0 for workgroup 0).
  const std::uint32_t id = co_await l.get_group_id();
  if (id == 0 && l.local_id() == 0) co_await elastic_grow(l, groups - 1, 1000);
  if (l.local_id() == 0) co_await l.store<std::uint32_t>(seen + 4ull * id, l.transmit<std::uint32_t>(0) + id);
  co_await l.barrier();
  co_await elastic_shrink(l, groups / 2);
  // The survivors: the count is right after every exit (others may still be
  // on their way out: poll until they are gone, sleeping long enough between
  // polls that the exiting wavefronts get issue slots under any issue policy).
  std::uint32_t m = co_await l.get_num_groups();
  while (m != groups / 2) {
    co_await l.sleep(100);
    m = co_await l.get_num_groups();
  }
  co_await l.atomic_add<std::uint32_t>(counts + 4ull * id, m);
}

void elastic(Host& h) {
  const auto groups = static_cast<std::uint32_t>(kGroups.get(h.config()));
  const auto size = static_cast<std::uint32_t>(kGroupSize.get(h.config()));
  const std::uint64_t seen = h.upload(std::vector<std::uint32_t>(groups, 0));
  const std::uint64_t counts = h.upload(std::vector<std::uint32_t>(groups, 0));
  const auto t =
      h.run_kernel({"elastic", size, size, 8, 0, [=](Lane& l) { return elastic_kernel(l, seen, counts, groups); }});
  const auto s = h.download<std::uint32_t>(seen, groups);
  const auto n = h.download<std::uint32_t>(counts, groups);
  std::uint32_t bad = 0;
  for (std::uint32_t i = 0; i < groups; ++i) {
    bad += s[i] != (i == 0 ? 0 : 1000 + i);
    bad += n[i] != (i < groups / 2 ? size * (groups / 2) : 0);
  }
  h.check(bad == 0, fmt::format("elastic: {} of {} workgroup records differ from the host's", bad, 2 * groups));
  const auto& k = *h.dispatcher().kernels_submitted().back();
  h.result("workgroups", k.dispatched);
  h.result("exited", k.groups_exited);
  h.result("kernel_ns", t.to_seconds() * 1e9);
}

const RegisterWorkload r{{"elastic", "a kernel that grows and shrinks itself (the example mechanism 'elastic')", "",
                          elastic, nullptr, [](const Config&) { return std::vector<std::string>{Elastic::kName}; }}};

}  // namespace
}  // namespace fg
