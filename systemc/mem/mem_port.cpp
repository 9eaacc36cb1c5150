// SPDX-License-Identifier: Apache-2.0
#include "mem/mem_port.h"

#include <fmt/format.h>

#include "sim/error.h"

namespace fg {

MemPort::MemPort(sc_core::sc_module_name name, int requester) : sc_module(name), socket("socket") {
  ext_.requester = requester;
  p_.set_extension(&ext_);
}

// The extension is a member, not heap-owned: detach it before the payload's
// destructor would free it.
MemPort::~MemPort() { p_.clear_extension(&ext_); }

sc_core::sc_time MemPort::transport(const sc_core::sc_time& issue) {
  const std::uint64_t at = sc_core::sc_time_stamp().value() + issue.value();
  if (at < last_issue_)
    throw std::logic_error(fmt::format("{}: request at {} ps issued after one at {} ps: initiator time went backwards",
                                       name(), at, last_issue_));
  last_issue_ = at;
  p_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = issue;
  socket->b_transport(p_, d);
  if (p_.is_response_error())
    throw SimFault(
        fmt::format("{}: memory request at 0x{:x} failed: {}", name(), p_.get_address(), p_.get_response_string()));
  return d;
}

void MemPort::setup(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len,
                    const unsigned char* byte_enable) {
  p_.set_command(cmd);
  p_.set_address(addr);
  p_.set_data_ptr(data);
  p_.set_data_length(len);
  p_.set_streaming_width(len);
  p_.set_byte_enable_ptr(const_cast<unsigned char*>(byte_enable));
  p_.set_byte_enable_length(byte_enable ? len : 0);
}

sc_core::sc_time MemPort::read(std::uint64_t addr, void* dst, unsigned len, const sc_core::sc_time& issue,
                               bool bypass_l1, std::uint32_t sectors) {
  ext_.op = AtomicOp::None;
  ext_.bypass_l1 = bypass_l1;
  ext_.sectors = sectors;
  setup(tlm::TLM_READ_COMMAND, addr, static_cast<unsigned char*>(dst), len, nullptr);
  sc_core::sc_time d = transport(issue);
  ext_.sectors = 0;
  return d;
}

void MemPort::peek(std::uint64_t addr, void* dst, unsigned len) {
  ext_.op = AtomicOp::None;
  ext_.bypass_l1 = false;
  setup(tlm::TLM_READ_COMMAND, addr, static_cast<unsigned char*>(dst), len, nullptr);
  socket->transport_dbg(p_);
}

sc_core::sc_time MemPort::write(std::uint64_t addr, const void* src, unsigned len, const sc_core::sc_time& issue,
                                const unsigned char* byte_enable, bool bypass_l1) {
  ext_.op = AtomicOp::None;
  ext_.bypass_l1 = bypass_l1;
  setup(tlm::TLM_WRITE_COMMAND, addr, const_cast<unsigned char*>(static_cast<const unsigned char*>(src)), len,
        byte_enable);
  return transport(issue);
}

sc_core::sc_time MemPort::atomic(std::uint64_t addr, AtomicOp op, unsigned size, std::uint64_t operand,
                                 std::uint64_t compare, std::uint64_t& old, const sc_core::sc_time& issue) {
  ext_.op = op;
  ext_.bypass_l1 = false;
  ext_.size = static_cast<std::uint8_t>(size);
  ext_.operand = operand;
  ext_.compare = compare;
  old = 0;
  setup(tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<unsigned char*>(&old), size, nullptr);
  sc_core::sc_time d = transport(issue);
  ext_.op = AtomicOp::None;
  return d;
}

void MemPort::invalidate_l1(const sc_core::sc_time& issue) {
  ext_.op = AtomicOp::None;
  ext_.bypass_l1 = false;
  ext_.invalidate_l1 = true;
  scratch_.resize(1);
  setup(tlm::TLM_READ_COMMAND, 0, scratch_.data(), 1, nullptr);
  transport(issue);
  ext_.invalidate_l1 = false;
}

sc_core::sc_time MemPort::atomic_lanes(std::uint64_t line_addr, LaneAtomic* lanes, unsigned n, unsigned line,
                                       const sc_core::sc_time& issue) {
  ext_.op = lanes[0].op;
  ext_.bypass_l1 = false;
  ext_.lanes = lanes;
  ext_.n_lanes = n;
  scratch_.resize(line);
  setup(tlm::TLM_WRITE_COMMAND, line_addr, scratch_.data(), line, nullptr);
  sc_core::sc_time d = transport(issue);
  ext_.op = AtomicOp::None;
  ext_.lanes = nullptr;
  ext_.n_lanes = 0;
  return d;
}

}  // namespace fg
