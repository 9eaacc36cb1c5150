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
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
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

void persistent(Host& h) {
  const Config& cfg = h.config();
  const auto size = static_cast<std::uint32_t>(kGroupSize.get(cfg));
  const auto rounds = static_cast<std::uint32_t>(kRounds.get(cfg));
  const auto work = static_cast<std::uint32_t>(kWork.get(cfg));
  KernelLaunch k{"persistent", 0, size, 16, 0, {}};
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
                          "", persistent, nullptr}};

}  // namespace
}  // namespace fg
