// SPDX-License-Identifier: Apache-2.0
#include "mem/memory_system.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg {

extern const Param<std::uint64_t> kLineSize;
const Param<std::uint64_t> kLineSize{"gpu.line", 64, "B", "cache line size of every level", {{16}, {1024}}};
extern const Param<std::uint64_t> kSectorSize;
const Param<std::uint64_t> kSectorSize{"gpu.sector",
                                       0,
                                       "B",
                                       "sector size: lines move between the L1 and the L2 a sector at a time, an L1 "
                                       "line holding some of its sectors (0: whole lines; mem/sector.h)",
                                       {{0}, {1024}}};
namespace {
const Param<std::uint64_t> kMemSize{
    "gpu.mem.size", 1ull << 30, "B", "device memory capacity", {{1 << 20}, {1ull << 40}}};
}  // namespace

MemorySystem::MemorySystem(sc_core::sc_module_name name, const Config& cfg, const std::vector<L1Spec>& l1s)
    : sc_module(name), line_(static_cast<unsigned>(kLineSize.get(cfg))), store_(kMemSize.get(cfg)), host_("host") {
  if (line_ & (line_ - 1)) throw UserError(fmt::format("gpu.line: {} is not a power of two", line_));
  if (const std::uint64_t s = kSectorSize.get(cfg); s) {
    if (s & (s - 1)) throw UserError(fmt::format("gpu.sector: {} is not a power of two (or 0: whole lines)", s));
    if (s > line_ || line_ / s > 32)
      throw UserError(fmt::format("gpu.sector: {} B sectors of {} B lines: a line holds 1 to 32 sectors", s, line_));
    if (std::get<std::string>(cfg.value("mem.coherence")) == "moesi")
      throw UserError("gpu.sector: sectored lines are modelled with mem.coherence=gpu only, and this run has moesi");
  }
  l2_ = std::make_unique<L2Cache>("l2", L2Cache::Params::from(cfg), store_, "gpu.l2");
  dram_ = std::make_unique<Dram>("dram", Dram::Params::from(cfg), "gpu.dram");
  l2_->to_dram.bind(dram_->target);
  if (const TlbParams t = TlbParams::from(cfg); t.on()) {
    if (std::get<std::string>(cfg.value("mem.coherence")) == "moesi")
      throw UserError(
          "gpu.tlb.l1_entries: address translation is modelled with mem.coherence=gpu only, and this run "
          "has moesi");
    tlb_ = std::make_unique<SharedTlb>(t);
  }
  for (const auto& s : l1s) add_l1(s);
  host_.bind(l2_->target);
}

int MemorySystem::add_l1(const L1Spec& s) {
  if (l1s_.size() >= 64) throw UserError("gpu.cus: at most 63 CUs plus agents share the L2 directory");
  const int i = static_cast<int>(l1s_.size());
  l1s_.push_back(std::make_unique<L1Cache>(s.module_name.c_str(), s.params, s.clock, store_, s.stats_path));
  l1s_.back()->to_l2.bind(l2_->target);
  l1s_.back()->set_requester(i);
  if (tlb_ && s.params.tlb.on()) l1s_.back()->set_shared_tlb(tlb_.get());
  l2_->attach_l1(i, l1s_.back().get());
  return i;
}

std::uint64_t MemorySystem::allocate(std::uint64_t bytes, std::uint64_t align) {
  if (bytes == 0) bytes = 1;
  align = std::max<std::uint64_t>(align, line_);
  std::uint64_t cursor = align;  // keep address 0 unused: it reads as a null pointer in kernels
  for (const auto& [a, s] : allocations_) {
    std::uint64_t base = (cursor + align - 1) / align * align;
    if (base + bytes <= a) break;
    cursor = a + s;
  }
  std::uint64_t base = (cursor + align - 1) / align * align;
  if (base + bytes > store_.capacity())
    throw SimFault(fmt::format("device out of memory: {} bytes requested, {} of {} in use", bytes, bytes_allocated(),
                               store_.capacity()));
  allocations_[base] = bytes;
  high_water_ = std::max(high_water_, base + bytes);
  return base;
}

void MemorySystem::free(std::uint64_t addr) {
  if (!allocations_.erase(addr)) throw SimFault(fmt::format("free of 0x{:x}, which is not an allocation", addr));
}

std::uint64_t MemorySystem::bytes_allocated() const {
  std::uint64_t s = 0;
  for (const auto& [a, n] : allocations_) s += n;
  return s;
}

void MemorySystem::copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes) {
  tlm::tlm_generic_payload p;
  p.set_command(tlm::TLM_WRITE_COMMAND);
  p.set_address(dst);
  p.set_data_ptr(const_cast<unsigned char*>(static_cast<const unsigned char*>(src)));
  p.set_data_length(static_cast<unsigned>(bytes));
  host_->transport_dbg(p);
}

void MemorySystem::copy_out(void* dst, std::uint64_t src, std::uint64_t bytes) {
  tlm::tlm_generic_payload p;
  p.set_command(tlm::TLM_READ_COMMAND);
  p.set_address(src);
  p.set_data_ptr(static_cast<unsigned char*>(dst));
  p.set_data_length(static_cast<unsigned>(bytes));
  host_->transport_dbg(p);
}

}  // namespace fg
