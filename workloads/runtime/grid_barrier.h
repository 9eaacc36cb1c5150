// SPDX-License-Identifier: Apache-2.0
// A grid barrier for persistent kernels (every workgroup of the kernel waits
// until all have arrived), as device code on atomics, in the style of the
// global barriers that blocking GPU algorithms use (Sorensen et al., FSE 2017,
// Sec. 2): a counter and a generation in device memory; the workgroup's first
// lane adds itself to the counter, the last to arrive resets it and bumps the
// generation, the others spin on the generation.
//
//   const GridBarrier b = GridBarrier::make(h, "phase");   // on the host
//   co_await grid_barrier(l, b, groups);                   // in the kernel, every lane
//
// It is correct only while every workgroup of the kernel is resident: under
// the GPU's occupancy-bound dispatch a kernel with more workgroups than fit
// (Dispatcher::resident_capacity) never completes it; the simulator reports
// that as a deadlock naming the barrier (the spinning workgroups wait on
// "spin on grid barrier '<name>'", the rest are not dispatched).
#pragma once

#include <cstdint>
#include <string>

#include "gpu/kernel.h"

namespace fg {

class Host;

struct GridBarrier {
  std::uint64_t count = 0;       // arrivals in this generation (its own cache line)
  std::uint64_t generation = 0;  // completed barriers (its own cache line)
  const char* what = nullptr;    // "grid barrier '<name>'", for diagnoses
  // Allocates and zeroes the two words; `name` names it in diagnoses.
  static GridBarrier make(Host& h, const std::string& name);
};

// Every lane of every workgroup of the kernel calls it; `groups` is the
// number of workgroups that must arrive.
Task<void> grid_barrier(Lane& l, GridBarrier b, std::uint32_t groups);

}  // namespace fg
