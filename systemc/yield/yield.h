// SPDX-License-Identifier: Apache-2.0
// Wavefront yield and the save/restore engine (Orr et al., ISCA 2014, Secs.
// 6 and 7, Fig. 13), on the compute units' parking seam.
//
// A wavefront that cannot get space in a channel executes `yield` (1 in Fig.
// 13). The yield unit takes a spill block for its context (the kernel's
// context size: 856 bytes plus its s, d and c registers, Table 3), parks the
// wavefront there (2: the CU writes the context with line-sized bursts
// through its memory port, then frees the slot and registers for other
// wavefronts) and writes a restart context, {spill pointer, blocked resource,
// CEs needed}, into the restart channel in device memory (3). The aggregator
// reads the restart channel in its passes, keeps the yielded wavefronts in its
// own list (4), schedules other work into the freed slot (5), and restarts a
// wavefront when its resource has room: on the same CU (Sec. 6: the LDS
// stays there), where the restore reads the context back before the lanes
// resume past the yield.
//
//   co_await yld::yield(l, resource, need);   // park until the aggregator restarts us
//
// Resources are channel ids: a restart context says "channel r, need n free
// CEs". Spill blocks come from a pool per context size (allocated on the
// first yield that needs one, reused after a restart), the paper's "memory
// space for yield ... allocated for each CTX": only wavefronts that yield use
// one. The restart channel is a ring of `yield.restart_capacity` 32-byte
// entries with a tail the yield unit advances and a head the aggregator
// writes back; a yield into a full ring is a fault (exit 3).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/mechanism.h"
#include "gpu/op.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace fg {
class ComputeUnit;
class MemorySystem;
}  // namespace fg

namespace fg::yld {

// One restart context as the aggregator reads it: 32 bytes in the ring (20
// used). `kernel` is the dispatch the wavefront belongs to (its NDRange
// identifier, part of the saved state): the aggregator knows from it which
// channel's consumer yielded.
struct Restart {
  std::uint64_t spill = 0;
  std::uint32_t resource = 0;  // channel id
  std::uint32_t need = 0;      // free CEs the wavefront needs there
  std::uint32_t kernel = 0;    // KernelState::id
};

// The mechanism "yield" (gpu/mechanism.h), which the aggregator needs.
class Engine : public Mechanism {
 public:
  static constexpr const char* kName = "yield";
  struct Params {
    bool enabled = true;
    std::uint32_t ring = 4096;  // restart-channel entries
    static Params from(const Config& cfg);
  };
  static constexpr unsigned kEntryBytes = 32;
  static constexpr unsigned kEntryWords = 5;  // the words the aggregator reads

  Engine(const Params& p, MemorySystem& mem, std::vector<ComputeUnit*> cus);
  ~Engine() override;
  bool enabled() const { return p_.enabled; }
  // Allocate the restart channel (the aggregator, when a graph starts).
  void prepare();

  // ---- the yield unit's side (from IssueContext::issue) ----
  void yielded(IssueContext& c, std::uint32_t resource, std::uint32_t need, std::string what);

  // ---- the aggregator's side ----
  std::uint64_t ring_tail_addr() const { return tail_addr_; }
  std::uint64_t ring_head_addr() const { return head_addr_; }
  std::uint64_t entry_addr(std::uint32_t i) const { return ring_ + std::uint64_t{i % p_.ring} * kEntryBytes; }
  // Restart the wavefront whose context is at `spill` on the CU it yielded
  // on, at absolute time `at`; its spill block goes back to the pool.
  void restart(std::uint64_t spill, Tick at);
  // The yielded wavefront at `spill`, for diagnoses.
  std::string describe(std::uint64_t spill) const;

  Counter yields, restarts, save_bytes;
  Formula restore_bytes, save_ns, restore_ns;
  Average yielded_ns;
  Counter spill_blocks;
  Formula spill_bytes;

 private:
  struct Parked {
    WaveHandle h;
    std::uint64_t bytes = 0;
    Tick at = 0;
    std::string what;
  };
  Params p_;
  MemorySystem& mem_;
  std::vector<ComputeUnit*> cus_;
  std::uint64_t ring_ = 0, tail_addr_ = 0, head_addr_ = 0;
  std::uint32_t tail_ = 0;
  std::unordered_map<std::uint64_t, Parked> waves_;           // by spill address
  std::map<std::uint64_t, std::vector<std::uint64_t>> pool_;  // free spill blocks by size
  std::uint64_t blocks_ = 0, block_bytes_ = 0;
  int track_ = -1;
};

// The yield device operation: the wavefront's lanes at this site park until
// the aggregator restarts the wavefront. `need` is summed over the lanes.
OpAwaiter<void> yield(Lane& l, std::uint32_t resource, std::uint32_t need, Lane::Loc loc = Lane::Loc::current());

}  // namespace fg::yld
