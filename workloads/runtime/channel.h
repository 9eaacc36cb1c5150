// SPDX-License-Identifier: Apache-2.0
// The channel device API (Orr et al., ISCA 2014, Table 1) as device code on
// atomics, for kernels running on the GPU model:
//
//   const chan::Alloc a = co_await chan::talloc(l, ch, 2);   // reserve 2 CEs
//   co_await l.store<std::int32_t>(a.addr(ch, 0), n - 1);     // write them in place
//   co_await l.store<std::int32_t>(a.addr(ch, 1), n - 2);
//   co_await chan::enq(l, ch, a);                             // publish them
//   const chan::Ce ce = co_await chan::deq(l, ch, off);       // a consumer's CE
//   co_await chan::tfree(l, ch, ce);                          // done with it
//
// talloc reserves data-array space by CAS on the data tail after checking the
// data head (a full channel is a simulated fault: exit 3); enq reserves
// control-array entries by CAS on reserveTail, writes the CEs' data-array
// indices there, fences, and publishes by CAS on the control tail from its
// reservation's start to its end (so publications follow reservation order in
// the control array, while data-array space may have been reserved in any
// order: Fig. 4). deq reads the CE's data index from the control array; tfree
// adds one to the CE's done count. The variant (channel.variant, fixed per
// channel) decides whether each lane CASes for itself (per-lane) or one lane
// CASes for the wavefront after a prefix sum and broadcasts (amortized,
// padded; Fig. 5). Every CAS and every failed CAS is counted on the channel.
#pragma once

#include <cstdint>
#include <string>

#include "channel/channel.h"
#include "gpu/kernel.h"

namespace fg {
class MemorySystem;
}

namespace fg::chan {

// CEs reserved by talloc: `count` consecutive data-array elements from `first`.
struct Alloc {
  std::uint32_t channel = ~0u;  // the channel they were reserved in
  std::uint32_t first = 0, count = 0;
  std::uint64_t addr(const Channel& c, std::uint32_t i) const { return c.layout().ce_addr(first + i); }
};

// A consumer's CE: its address and data-array index.
struct Ce {
  std::uint64_t addr = 0;
  std::uint32_t index = 0;
};

Task<Alloc> talloc(Lane& l, Channel& c, std::uint32_t count);
Task<void> enq(Lane& l, Channel& c, Alloc a);
Task<Ce> deq(Lane& l, Channel& c, std::uint32_t off);
Task<void> tfree(Lane& l, Channel& c, Ce ce);

// Host side (outside simulated time, before the graph runs): put `count` CEs
// of the channel's CE size into it as a producer would (the paper's host
// talloc/enq of initial CEs). A full channel is a UserError naming `key`.
void host_enq(MemorySystem& mem, Channel& c, const void* ces, std::uint32_t count, const std::string& key);

}  // namespace fg::chan
