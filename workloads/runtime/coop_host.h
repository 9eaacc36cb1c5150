// SPDX-License-Identifier: Apache-2.0
// Running a workload's kernel the two ways the cooperative-kernel paper
// compares (Sorensen et al., FSE 2017, Sec. 5; docs/cooperative.md):
//
//   non-cooperative  a persistent kernel of `groups` workgroups (at most the
//                    resident capacity: its plain barriers need all of them
//                    resident), run by the host;
//   cooperative      the same algorithm with offer_kill / request_fork /
//                    resizing barriers, launched through the coop scheduler,
//                    optionally sharing the GPU with a periodic graphics-like
//                    kernel (coop.graphics.*): every period P the host asks
//                    the scheduler for `share` workgroup slots, which it
//                    gathers from the cooperative kernel, and runs a matrix
//                    multiply that takes E on all slots but one; achieved
//                    periods and gather times are recorded.
//
//   const auto groups = coop::groups(h, shape, key);      // <w>.groups: 0 capacity, -k capacity - k
//   coop::Run r = cooperative ? coop::run_cooperative(h, launch, groups)
//                             : coop::run_persistent(h, launch, groups);
//
// Both record the kernel's time as the workload result `kernel_ns`; the
// cooperative run also `active` (its initial M), `periods`, `gather_ns`
// (mean) and the graphics results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "coop/coop.h"
#include "gpu/dispatcher.h"
#include "sim/config.h"

namespace fg {
class Host;
}

namespace fg::coop {

struct Run {
  double kernel_ns = 0;      // the kernel's time, submit to end
  std::uint32_t groups = 0;  // workgroups it asked for (N)
  std::uint32_t active = 0;  // workgroups it started with (M)
};

// The workgroup count a `<w>.groups` value stands for: 0 the resident
// capacity of `shape` (minus the reserved slot of a cooperative run with
// coop.reserve_slot), -k that minus k, n > 0 n.
std::uint32_t groups(Host& h, const KernelLaunch& shape, std::int64_t value, bool cooperative);

// Exit 2 naming the first coop.* key the user set: `kernel` runs in its
// non-cooperative version, which neither the scheduler nor the co-runner
// touches (run_persistent calls it).
void refuse_scheduler_keys(const Host& h, const std::string& kernel);

// The non-cooperative version: `launch` with `groups` workgroups (the grid
// is set here), run to its end.
Run run_persistent(Host& h, KernelLaunch launch, std::uint32_t groups);

// The cooperative version: `make_body(kernel)` builds the kernel body once
// the scheduler has prepared the kernel's context (its barriers need the
// context's addresses); the graphics-like co-runner runs while it runs.
Run run_cooperative(Host& h, KernelLaunch launch, std::uint32_t groups,
                    const std::function<KernelBody(const Kernel&)>& make_body);

}  // namespace fg::coop
