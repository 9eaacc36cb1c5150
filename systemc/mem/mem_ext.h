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

struct MemExt : tlm::tlm_extension<MemExt> {
  int requester = -1;
  AtomicOp op = AtomicOp::None;
  std::uint8_t size = 4;  // atomic width in bytes: 4 or 8
  std::uint64_t operand = 0;
  std::uint64_t compare = 0;  // CAS only

  tlm::tlm_extension_base* clone() const override { return new MemExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const MemExt&>(other); }
};

}  // namespace fg
