// SPDX-License-Identifier: Apache-2.0
// The memory hierarchy assembled from configuration: one L1 per requester
// (the CUs, then any extra agents such as the aggregator), the shared banked
// L2, DRAM, the functional backing store and the device allocator. The host
// reaches memory through debug transport (no simulated time).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "mem/backing_store.h"
#include "mem/dram.h"
#include "mem/l1_cache.h"
#include "mem/l2_cache.h"
#include "sim/config.h"

namespace fg {

struct L1Spec {
  std::string module_name;  // e.g. "cu3_l1"
  std::string stats_path;   // e.g. "gpu.cu3.l1"
  Clock clock;
  L1Cache::Params params;
};

class MemorySystem : public sc_core::sc_module {
 public:
  // One L1 per spec; requester id = index in `l1s`.
  MemorySystem(sc_core::sc_module_name name, const Config& cfg, const std::vector<L1Spec>& l1s);

  // One more L1 (an agent's, while the GPU is being built); returns its requester id.
  int add_l1(const L1Spec& spec);
  L1Cache& l1(int requester) { return *l1s_[requester]; }
  // Device memory that is local memory (gpu.cu.ivall_keeps_local), in every L1.
  void add_local_window(std::uint64_t base, std::uint64_t bytes) {
    for (auto& l : l1s_) l->add_local_window(base, bytes);
  }
  int requesters() const { return static_cast<int>(l1s_.size()); }
  L2Cache& l2() { return *l2_; }
  Dram& dram() { return *dram_; }
  BackingStore& store() { return store_; }
  unsigned line_size() const { return line_; }

  // Device allocator (first fit, `align`-byte aligned). Throws SimFault when full.
  // Aligned to `align` and never less than a cache line (a line-sized access
  // to an allocation then never crosses a line, whatever gpu.line is).
  std::uint64_t allocate(std::uint64_t bytes, std::uint64_t align = 256);
  void free(std::uint64_t addr);
  std::uint64_t bytes_allocated() const;
  // The highest device address any allocation of the run reached (what the
  // run needed of gpu.mem.size; compared with the estimate checked before
  // the run, sim.device_bytes in the stats).
  std::uint64_t high_water() const { return high_water_; }

  // Host copies through debug transport (no simulated time).
  void copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes);
  void copy_out(void* dst, std::uint64_t src, std::uint64_t bytes);

 private:
  unsigned line_;
  BackingStore store_;
  std::vector<std::unique_ptr<L1Cache>> l1s_;
  std::unique_ptr<L2Cache> l2_;
  std::unique_ptr<Dram> dram_;
  std::unique_ptr<SharedTlb> tlb_;  // gpu.tlb.*: the L2 TLB the L1s share (none without translation)
  tlm_utils::simple_initiator_socket<MemorySystem> host_;
  std::map<std::uint64_t, std::uint64_t> allocations_;  // addr -> size
  std::uint64_t high_water_ = 0;
};

}  // namespace fg
