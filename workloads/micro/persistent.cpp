// SPDX-License-Identifier: Apache-2.0
// persistent: a non-cooperative persistent kernel whose workgroups meet at a
// grid barrier every round (runtime/grid_barrier.h): each round, every
// workgroup adds one to that round's counter, then all wait at the barrier.
// With at most Dispatcher::resident_capacity workgroups it finishes; with
// more, occupancy-bound dispatch never places the rest while the residents
// spin, and the run ends as a deadlock naming the barrier (exit 3). This is
// the observation that motivates cooperative kernels (Sorensen et al., FSE
// 2017, Sec. 2: 56 workgroups work, 57 deadlock on their GPU).
// `persistent.groups` 0 sizes the kernel at resident capacity.
//
// persistent.mechanism=coop runs the same kernel as a cooperative kernel
// (runtime/coop.h): it asks for `persistent.groups` workgroups, the scheduler
// grants what fits, and its grid barrier is a resizing barrier, so it
// finishes at any requested count (the cure the paper proposes).
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "runtime/coop.h"
#include "runtime/coop_host.h"
#include "runtime/grid_barrier.h"
#include "sim/config.h"
#include "sim/workload.h"

namespace fg {
namespace {

const Param<std::uint64_t> kGroups{"persistent.groups",
                                   0,
                                   "",
                                   "workgroups of the persistent kernel (0: resident capacity, the most that fit)",
                                   {{0}, {1u << 20}}};
const Param<std::uint64_t> kGroupSize{"persistent.group_size", 256, "", "work-items per workgroup", {{1}, {1024}}};
const Param<std::uint64_t> kRounds{"persistent.rounds", 4, "", "grid barriers the kernel passes", {{1}, {100000}}};
const Param<std::string> kMechanism{"persistent.mechanism", "plain", std::vector<std::string>{"plain", "coop"},
                                    "plain: a persistent kernel with a grid barrier (deadlocks above resident "
                                    "capacity); coop: the same as a cooperative kernel with a resizing barrier"};
const Param<std::uint64_t> kWork{
    "persistent.work", 16, "instructions", "compute per lane per round", {{0}, {1u << 20}}};

Task<> persistent_kernel(Lane& l, GridBarrier b, std::uint64_t counters, std::uint32_t groups, std::uint32_t rounds,
                         std::uint32_t work) {
  for (std::uint32_t r = 0; r < rounds; ++r) {
    co_await l.alu(work);
    if (l.local_id() == 0) co_await l.atomic_add<std::uint32_t>(counters + 4ull * r, 1u);
    co_await grid_barrier(l, b, groups);
  }
}

// The cooperative version: the round to resume at is its transmit variable.
struct Vars {
  std::uint32_t round = 0;
};

Task<> persistent_coop(Lane& l, coop::Barrier b, std::uint64_t counters, std::uint64_t seen, std::uint32_t rounds,
                       std::uint32_t work) {
  Vars v;
  if (coop::joined(l)) v = coop::transmitted<Vars>(l);
  while (v.round < rounds) {
    co_await l.alu(work);
    if (l.local_id() == 0) co_await l.atomic_add<std::uint32_t>(counters + 4ull * v.round, 1u);
    const std::uint32_t id = co_await l.get_group_id();
    const std::uint32_t m = co_await l.get_num_groups();
    if (id == 0 && l.local_id() == 0) co_await l.store<std::uint32_t>(seen + 4ull * v.round, m);
    ++v.round;  // where a workgroup forked at the barrier starts
    co_await coop::resizing_barrier(l, b, v);
  }
}

void persistent_cooperative(Host& h) {
  const Config& cfg = h.config();
  const auto size = static_cast<std::uint32_t>(kGroupSize.get(cfg));
  const auto rounds = static_cast<std::uint32_t>(kRounds.get(cfg));
  const auto work = static_cast<std::uint32_t>(kWork.get(cfg));
  KernelLaunch k{"persistent", 0, size, 16, 0, {}};
  const auto n = coop::groups(h, k, static_cast<std::int64_t>(kGroups.get(cfg)), true);
  const std::uint64_t counters = h.upload(std::vector<std::uint32_t>(rounds, 0));
  const std::uint64_t seen = h.upload(std::vector<std::uint32_t>(rounds, 0));
  const coop::Run r = coop::run_cooperative(h, std::move(k), n, [&](const coop::Kernel& ck) -> KernelBody {
    const coop::Barrier b = coop::Barrier::make(h, ck, "persistent");
    return [=](Lane& l) { return persistent_coop(l, b, counters, seen, rounds, work); };
  });
  const auto got = h.download<std::uint32_t>(counters, rounds);
  const auto m = h.download<std::uint32_t>(seen, rounds);
  std::uint32_t bad = 0;
  for (std::uint32_t i = 0; i < rounds; ++i) bad += got[i] != m[i] || m[i] == 0;
  h.check(bad == 0,
          fmt::format("persistent (coop): {} of {} rounds counted other than their active workgroups", bad, rounds));
  (void)r;
  for (std::uint32_t v : got) h.output() << v << "\n";
}

void persistent(Host& h) {
  if (kMechanism.get(h.config()) == "coop") return persistent_cooperative(h);
  const Config& cfg = h.config();
  const auto size = static_cast<std::uint32_t>(kGroupSize.get(cfg));
  const auto rounds = static_cast<std::uint32_t>(kRounds.get(cfg));
  const auto work = static_cast<std::uint32_t>(kWork.get(cfg));
  KernelLaunch k{"persistent", 0, size, 16, 0, {}};
  coop::refuse_scheduler_keys(h, k.name);
  const std::uint64_t capacity = h.dispatcher().resident_capacity(k);
  const auto groups = static_cast<std::uint32_t>(kGroups.get(cfg) ? kGroups.get(cfg) : capacity);
  const GridBarrier b = GridBarrier::make(h, "persistent");
  const std::uint64_t counters = h.upload(std::vector<std::uint32_t>(rounds, 0));
  k.grid = std::uint64_t{groups} * size;
  k.body = [=](Lane& l) { return persistent_kernel(l, b, counters, groups, rounds, work); };
  h.result("groups", groups);
  h.result("resident_capacity", capacity);
  const auto t = h.run_kernel(k);
  const auto got = h.download<std::uint32_t>(counters, rounds);
  std::uint32_t bad = 0;
  for (std::uint32_t v : got) bad += v != groups;
  h.check(bad == 0, fmt::format("persistent: {} of {} rounds counted other than {} workgroups", bad, rounds, groups));
  h.result("kernel_ns", t.to_seconds() * 1e9);
  for (std::uint32_t v : got) h.output() << v << "\n";
}

const RegisterWorkload r{{"persistent",
                          "non-cooperative persistent kernel with a grid barrier per round (deadlocks above "
                          "resident capacity)",
                          "", persistent, nullptr, [](const Config& c) {
                            return kMechanism.get(c) == "coop" ? std::vector<std::string>{coop::Scheduler::kName}
                                                               : std::vector<std::string>{};
                          }}};

}  // namespace
}  // namespace fg
