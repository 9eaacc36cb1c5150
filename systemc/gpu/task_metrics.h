// SPDX-License-Identifier: Apache-2.0
// Task metrics every mechanism reports alike, under tasks.<mechanism>.*, with
// one definition each (docs/architecture.md, "Task metrics"):
//
//   created              tasks made available to the mechanism (CEs enqueued, work IDs pushed, ...)
//   run                  tasks a worker took (CEs dispatched to consumers, IDs pulled, ...)
//   sched_instructions   GPU wavefront instructions spent on the mechanism rather than the work: its
//                        device operations (wlpull, yield, ...) and the instructions of its device
//                        runtime (talloc/enq/deq/tfree, ...), attributed by MechanismScope
//   sched_atomics        global-memory atomic lane operations among those
//   control_instructions instructions of the mechanism's firmware on the control core
//   state_bytes          bytes of task state moved through memory (task payloads written and read,
//                        contexts saved and restored, overflow spills and refills)
//   wait_ns              wavefront time (summed over wavefronts) spent blocked in the mechanism
//                        waiting for a task; time a CU had no wavefront at all for want of work is
//                        the CU's cycles_idle, for every mechanism alike
//   peak_storage_bytes   the most task storage in use at once (queue entries, spilled contexts)
//
// A mechanism builds one TaskMetrics from functions that derive each value
// from its own counters; a test checks them against those counters.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "gpu/kernel.h"
#include "sim/stats.h"

namespace fg {

class Gpu;

// A mechanism's tag: instructions issued by its units or inside its device
// runtime are counted to it on every CU (0: the work itself).
inline constexpr std::size_t kMaxMechanismTags = 16;
std::uint8_t mechanism_tag(std::string_view mechanism);

// Marks device code as the mechanism's runtime for as long as it lives (a
// local of the runtime's coroutine): the instructions its lane issues in the
// meantime are the mechanism's.
class MechanismScope {
 public:
  MechanismScope(Lane& l, std::uint8_t tag) : l_(l), prev_(l.scope), prev_caller_(l.caller) { l.scope = tag; }
  // A runtime entry point called by the kernel at `caller` (the outermost
  // call is kept: a runtime calling itself is not the kernel's site).
  MechanismScope(Lane& l, std::uint8_t tag, Lane::Loc caller) : MechanismScope(l, tag) {
    if (prev_ == 0) l.caller = caller;
  }
  ~MechanismScope() {
    l_.scope = prev_;
    l_.caller = prev_caller_;
  }
  MechanismScope(const MechanismScope&) = delete;
  MechanismScope& operator=(const MechanismScope&) = delete;

 private:
  Lane& l_;
  std::uint8_t prev_;
  Lane::Loc prev_caller_;
};

class TaskMetrics {
 public:
  struct Sources {
    std::function<double()> created, run, control_instructions, state_bytes, wait_ns, peak_storage_bytes;
  };
  // `gpu`: the instructions and atomics of tag `mechanism_tag(mechanism)`
  // are summed over its CUs.
  TaskMetrics(Gpu& gpu, const std::string& mechanism, Sources s);
  Formula created, run, sched_instructions, sched_atomics, control_instructions, state_bytes, wait_ns,
      peak_storage_bytes;
};

}  // namespace fg
