// SPDX-License-Identifier: Apache-2.0
// The initiator side of the memory system: one per requester (a CU, the
// aggregator, a test agent). It owns the TLM initiator socket bound to the
// requester's L1 and reusable payloads; the caller supplies its local time
// (from its tlm_quantumkeeper) and gets the completion time back, so several
// requests issued at the same local time overlap, as the line requests of one
// coalesced wavefront access do.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "mem/mem_ext.h"

namespace fg {

class MemPort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<MemPort> socket;

  MemPort(sc_core::sc_module_name name, int requester);
  ~MemPort() override;
  int requester() const { return ext_.requester; }

  // Each call issues one request at local time `issue` (offset from
  // sc_time_stamp()) and returns its completion offset. Issue times of one
  // port never decrease (checked: a violation is an internal error). Reads and writes stay
  // within one cache line.
  // bypass_l1: served by the L2; the L1 neither hits nor allocates.
  // sectors: the sectors of the line the lanes need (gpu.sector; 0: all of [addr, addr + len)).
  sc_core::sc_time read(std::uint64_t addr, void* dst, unsigned len, const sc_core::sc_time& issue,
                        bool bypass_l1 = false, std::uint32_t sectors = 0);
  sc_core::sc_time write(std::uint64_t addr, const void* src, unsigned len, const sc_core::sc_time& issue,
                         const unsigned char* byte_enable = nullptr, bool bypass_l1 = false);
  // A functional read (TLM debug transport): no time, no cache state.
  void peek(std::uint64_t addr, void* dst, unsigned len);
  sc_core::sc_time atomic(std::uint64_t addr, AtomicOp op, unsigned size, std::uint64_t operand, std::uint64_t compare,
                          std::uint64_t& old, const sc_core::sc_time& issue);
  // A coalesced atomic: the lanes' ops on one line (at line_addr + offset, no
  // two overlapping) in one request; each lane's `old` receives its result.
  sc_core::sc_time atomic_lanes(std::uint64_t line_addr, LaneAtomic* lanes, unsigned n, unsigned line,
                                const sc_core::sc_time& issue);
  // The L1 drops its lines, local memory's kept with gpu.cu.ivall_keeps_local (a fence's CCTL.IVALL,
  // gpu.cu.fence_invalidates_l1); no time.
  void invalidate_l1(const sc_core::sc_time& issue);

 private:
  sc_core::sc_time transport(const sc_core::sc_time& issue);
  // The payload fields every request sets (byte enables: nullptr = all).
  void setup(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len,
             const unsigned char* byte_enable);
  tlm::tlm_generic_payload p_;
  std::uint64_t last_issue_ = 0;  // absolute (ps): an initiator's time never goes backwards
  MemExt ext_;
  std::vector<unsigned char> scratch_;
};

}  // namespace fg
