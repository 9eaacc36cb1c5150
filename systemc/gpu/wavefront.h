// SPDX-License-Identifier: Apache-2.0
// The wavefront engine: SIMT lockstep over per-lane coroutines.
//
// A wavefront holds one coroutine per lane. select() finds the next wavefront
// instruction: among the lanes suspended at an operation it takes those at the
// first operation site in program order (file, line, column: the "min-PC"
// rule) with the same Lane::path, lanes in a deeper call frame (the path's top
// byte) before all others, so lanes at one site in different frames do not
// merge; the CU issues that operation for them together through its unit
// (gpu/op.h) and resumes exactly those lanes to their next operation. Lanes at
// other sites are divergent groups and issue later; lanes meet again
// (reconverge) when they suspend at the same site. Loop bodies and branch
// bodies sit at lower lines than the code after them, so the lanes still
// inside go first and the others wait at the join, which is where a hardware
// reconvergence stack would join them too.
//
// States (docs/compute-unit.md): Ready (issues when its ready time and SIMD
// allow; "waiting for memory" is Ready with a later ready time), Barrier,
// Blocked (on a condition another module wakes), Parking / Parked (context
// being written / slot freed, coroutines kept), Restoring (waiting for a
// slot), Draining (finished, holding
// its slot until its last store completes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/kernel.h"
#include "sim/time.h"

namespace fg {

struct KernelState;
struct GrowSpec;
class Wavefront;
class ComputeUnit;

enum class WaveState : std::uint8_t { Ready, Barrier, Blocked, Parking, Parked, Restoring, Draining };
const char* to_string(WaveState s);

// One resident workgroup: its LDS and barrier state.
struct Workgroup {
  KernelState* kernel = nullptr;
  std::uint32_t id = 0;
  std::uint32_t waves = 0, waves_done = 0, waves_at_barrier = 0;
  Tick end = 0;  // completion of the member that completed last
  std::vector<unsigned char> lds;
  std::vector<Wavefront*> members;
  bool lds_held = true;  // its LDS is allocated on its CU (a parked one-wavefront workgroup saves and frees it)
  bool exited = false;   // a wavefront of it ended early (IssueContext::exit)
  // Added by Dispatcher::grow: where it starts and its transmit block (read
  // from memory by its wavefronts before the entry runs).
  std::shared_ptr<const GrowSpec> grow;
  std::vector<unsigned char> transmit;
};

class Wavefront {
 public:
  Wavefront(Workgroup& wg, std::uint32_t first_local, std::uint32_t width, std::uint32_t age);
  ~Wavefront();

  // Resume every lane to its first operation.
  void start();
  // The lanes of the next instruction (0: every live lane waits at the
  // barrier or is held); `divergent` when other lanes wait at other sites.
  std::uint64_t select(bool& divergent) const;
  // Resume the given lanes past their operation.
  void resume(std::uint64_t mask);
  // The given lanes, selected together, stay at their operation to issue it
  // again (ComputeUnit::wake without resume): while no lane resumes and they
  // are the live lanes select() looks at, select() returns them without
  // reading the lanes.
  void hold_at_one_site(std::uint64_t mask) { one_site_ = mask; }
  // End every live lane now (IssueContext::exit): the wavefront is finished.
  void end();
  // The given lanes wait at the workgroup barrier.
  void arrive_at_barrier(std::uint64_t mask);
  void release_barrier();
  // The given lanes wait at a wavefront barrier (Lane::sync_wave); when every
  // live lane waits there, all resume.
  void arrive_at_sync(std::uint64_t mask);
  bool finished() const { return live_ == 0; }
  std::uint32_t live() const { return live_; }  // lanes that have not finished
  bool waiting_at_barrier() const { return live_ > 0 && live_ == at_barrier_; }
  std::uint32_t width() const { return width_; }
  Workgroup& workgroup() { return *wg_; }
  const Workgroup& workgroup() const { return *wg_; }
  std::uint32_t age() const { return age_; }
  std::vector<Lane>& lanes() { return lanes_; }
  const Lane& lane(std::uint32_t i) const { return lanes_[i]; }
  // Where the live lanes wait ("64 lanes load at vecadd.cpp:12"), for diagnosis.
  std::string describe() const;

  // CU bookkeeping.
  WaveState state = WaveState::Ready;
  Tick ready = 0;
  Tick writes_done = 0;       // completion of its latest store: the wavefront retires after it
  bool waits_memory = false;  // its latest instruction was a memory operation (stall breakdown)
  std::uint32_t slot = 0, simd = 0;
  int cu = -1;
  Tick started = 0;
  std::uint64_t held = 0;             // lanes held at a blocking or parking operation
  std::string what;                   // what it is blocked or parked on
  bool tight = false;                 // blocked with a wake-up that may come in any cycle (IssueContext::block)
  std::uint8_t block_tag = 0;         // blocked in a mechanism's operation or runtime (its tag), or 0
  Tick blocked_at = 0;                // when it blocked (for ComputeUnit::mechanism_wait)
  std::uint64_t spill = 0;            // where its context is saved while parked
  ComputeUnit* restore_to = nullptr;  // restore requested while still parking
  Tick restore_at = 0;

 private:
  void resume_lane(Lane& l);

  Workgroup* wg_;
  std::uint32_t width_, age_;
  std::vector<Lane> lanes_;
  std::vector<Task<void>> tasks_;
  void release_sync_if_complete();
  std::uint32_t live_ = 0, at_barrier_ = 0, at_sync_ = 0;
  std::uint64_t avail_ = 0;     // live lanes not waiting at a barrier (what select() looks at)
  std::uint64_t one_site_ = 0;  // lanes known to wait at one site (hold_at_one_site), until a lane resumes
};

}  // namespace fg
