// The wavefront engine: SIMT lockstep over per-lane coroutines.
//
// A wavefront holds one coroutine per lane. step() issues one wavefront
// instruction: among the lanes suspended at an operation it takes those at the
// first operation site in program order (file, line, column: the "min-PC"
// rule), executes that operation for them together, and resumes exactly those
// lanes to their next operation. Lanes at other sites are divergent groups and
// issue later; lanes meet again (reconverge) when they suspend at the same
// site. Loop bodies and branch bodies sit at lower lines than the code after
// them, so the lanes still inside go first and the others wait at the join,
// which is where a hardware reconvergence stack would join them too.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/kernel.h"
#include "sim/time.h"

namespace fg {

class MemPort;
struct KernelState;

// One resident workgroup: its LDS and barrier state.
struct Workgroup {
  KernelState* kernel = nullptr;
  std::uint32_t id = 0;
  std::uint32_t waves = 0, waves_done = 0, waves_at_barrier = 0;
  Tick end = 0;  // completion of the member that completed last
  std::vector<unsigned char> lds;
  std::vector<Wavefront*> members;
};

// What one issued instruction did, for the CU's timing and statistics.
struct IssueResult {
  OpKind kind = OpKind::Alu;
  std::uint32_t active = 0;        // lanes that issued
  std::uint64_t instructions = 1;  // wavefront instructions (alu(n) counts n)
  bool divergent = false;          // other lanes were waiting at other sites
  std::uint32_t mem_requests = 0;  // line requests (loads/stores) or lane atomics
  Tick complete = 0;               // when the results are available (absolute)
  Tick write_complete = 0;         // stores: when the write is acknowledged
  bool blocked_at_barrier = false;
  std::uint64_t lane_ops = 0;      // active lanes summed over the instructions
  // alu(n) with different n per lane: (active lanes, instructions) levels.
  const std::vector<std::pair<std::uint32_t, std::uint64_t>>* levels = nullptr;
};

class Wavefront {
 public:
  Wavefront(Workgroup& wg, std::uint32_t first_local, std::uint32_t width, std::uint32_t age);
  ~Wavefront();

  // Resume every lane to its first operation.
  void start();
  // Issue one instruction at `issue` (absolute, ps) through `port`; `cycle`
  // is the CU clock period, `issue_cycles` the SIMD cycles per instruction.
  IssueResult step(MemPort& port, Tick issue, Tick cycle, std::uint32_t issue_cycles, std::uint32_t lds_cycles,
                   unsigned line_size);
  bool finished() const { return live_ == 0; }
  bool waiting_at_barrier() const { return live_ > 0 && live_ == at_barrier_; }
  void release_barrier();
  std::uint32_t width() const { return width_; }
  Workgroup& workgroup() { return wg_; }
  std::uint32_t age() const { return age_; }
  std::string describe() const;  // for deadlock diagnosis

  // CU bookkeeping.
  Tick ready = 0;
  Tick writes_done = 0;  // completion of its latest store: the wavefront retires after it
  std::uint32_t slot = 0, simd = 0;
  Tick started = 0;
  bool draining = false;  // finished; holds its slot until `ready` (its last store)

 private:
  void resume(Lane& l);
  Tick do_load(MemPort& port, std::uint64_t mask, Tick issue, unsigned line, std::uint32_t& reqs);
  Tick do_store(MemPort& port, std::uint64_t mask, Tick issue, unsigned line, std::uint32_t& reqs);
  Tick do_atomic(MemPort& port, std::uint64_t mask, Tick issue, std::uint32_t& reqs);
  void do_intrinsic(OpKind k, std::uint64_t mask);
  void do_lds(OpKind k, std::uint64_t mask);
  void alu_levels(std::uint64_t mask, IssueResult& r);

  Workgroup& wg_;
  std::uint32_t width_, age_;
  std::vector<Lane> lanes_;
  std::vector<Task<void>> tasks_;
  std::uint32_t live_ = 0, at_barrier_ = 0;
  std::vector<unsigned char> line_buf_, be_buf_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> levels_;
  std::vector<std::uint64_t> ns_;
};

}  // namespace fg
