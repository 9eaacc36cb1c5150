// SPDX-License-Identifier: Apache-2.0
// TLM-2.0 generic-payload extension carried by every FineGrain memory request:
// the requester (which L1 / agent issued it, for the L2 directory) and, for
// atomics, the operation executed at the L2 bank.
//
// An atomic is a payload with op != None: its data pointer holds `size` bytes
// (4 or 8) that receive the old value; `operand` (and `compare` for CAS) carry
// the arguments. Reads and writes use TLM_READ/WRITE_COMMAND with op == None.
#pragma once

#include <cstdint>

#include <tlm.h>

namespace fg {

enum class AtomicOp : std::uint8_t { None, Add, Cas, Exch, Min, Max, UMin, UMax, Or, And };
const char* to_string(AtomicOp op);

// The new value of an atomic on `size` bytes (4 or 8) holding `old`.
inline std::uint64_t atomic_apply(AtomicOp op, unsigned size, std::uint64_t old, std::uint64_t operand,
                                  std::uint64_t compare) {
  const std::uint64_t mask = size == 8 ? ~0ull : 0xffffffffull;
  auto sext = [&](std::uint64_t v) -> std::int64_t {
    return size == 8 ? static_cast<std::int64_t>(v) : static_cast<std::int64_t>(static_cast<std::int32_t>(v));
  };
  const std::uint64_t a = old & mask, b = operand & mask;
  std::uint64_t nv = a;
  switch (op) {
    case AtomicOp::Add:
      nv = a + b;
      break;
    case AtomicOp::Cas:
      nv = (a == (compare & mask)) ? b : a;
      break;
    case AtomicOp::Exch:
      nv = b;
      break;
    case AtomicOp::Min:
      nv = sext(b) < sext(a) ? b : a;
      break;
    case AtomicOp::Max:
      nv = sext(b) > sext(a) ? b : a;
      break;
    case AtomicOp::UMin:
      nv = a < b ? a : b;
      break;
    case AtomicOp::UMax:
      nv = a > b ? a : b;
      break;
    case AtomicOp::Or:
      nv = a | b;
      break;
    case AtomicOp::And:
      nv = a & b;
      break;
    case AtomicOp::None:
      break;
  }
  return nv & mask;
}

// MOESI requests from an L1 to the L2 directory (mem.coherence = moesi).
enum class Coh : std::uint8_t { None, GetS, GetM, Put };
enum class MoesiState : std::uint8_t { I, S, E, O, M };

// One lane's part of a coalesced atomic request (MemExt::lanes): the ops run
// in order at the line's address + offset; `old` receives the previous value.
struct LaneAtomic {
  std::uint32_t offset = 0;
  AtomicOp op = AtomicOp::None;
  std::uint8_t size = 4;
  std::uint64_t operand = 0, compare = 0, old = 0;
};

struct MemExt : tlm::tlm_extension<MemExt> {
  int requester = -1;
  Coh coh = Coh::None;
  bool exclusive = false;  // response to GetS: granted E (no other copy)
  bool dirty = false;      // Put: the evicted line was M or O
  bool bypass_l1 = false;  // loads and stores served by the L2 (the L1 neither hits nor allocates)
  // A GPU-scope fence's L1 invalidation (gpu.cu.fence_invalidates_l1: the
  // H100's CCTL.IVALL): the L1 drops its global lines (every line unless gpu.cu.ivall_keeps_local); the payload's
  // address and data are not used.
  bool invalidate_l1 = false;
  // A read's sectors of the line (gpu.sector; bit i: sector i) when it asks
  // for the whole line but its lanes need only these; 0: the payload's span.
  std::uint32_t sectors = 0;
  AtomicOp op = AtomicOp::None;
  std::uint8_t size = 4;  // atomic width in bytes: 4 or 8
  std::uint64_t operand = 0;
  std::uint64_t compare = 0;  // CAS only
  // A coalesced atomic: op != None and n_lanes > 0; the payload's address is
  // the line's, and the lanes' ops replace op/size/operand/compare.
  LaneAtomic* lanes = nullptr;
  unsigned n_lanes = 0;
  // Set by the target: when the request entered its bounded queue (absolute
  // ps). Later than the arrival when the queue was full: the initiator is
  // blocked until then (back-pressure). 0 = not reported.
  std::uint64_t accepted = 0;

  tlm::tlm_extension_base* clone() const override { return new MemExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const MemExt&>(other); }
};

}  // namespace fg
