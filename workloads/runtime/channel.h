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

#include <algorithm>
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
  // Nothing reserved: the wavefront's request exceeds the channel's capacity
  // (only from talloc(..., may_split = true)); spawn with in_rounds.
  bool split = false;
  std::uint64_t addr(const Channel& c, std::uint32_t i) const { return c.layout().ce_addr(first + i); }
};

// A consumer's CE: its address and data-array index.
struct Ce {
  std::uint64_t addr = 0;
  std::uint32_t index = 0;
};

// With `may_split`, a wavefront-amortized request larger than the whole
// channel (which no room could ever satisfy) returns an Alloc with `split`
// set and nothing reserved, instead of a fault, when yield is on: the caller
// then spawns through in_rounds. Without it, or with yield off, it is a
// fault (exit 3).
Task<Alloc> talloc(Lane& l, Channel& c, std::uint32_t count, bool may_split = false);
Task<void> enq(Lane& l, Channel& c, Alloc a);
Task<Ce> deq(Lane& l, Channel& c, std::uint32_t off);
Task<void> tfree(Lane& l, Channel& c, Ce ce);

// A spawn of `count` CEs per lane that talloc refused as one request
// (Alloc::split): the lanes, in lane order, go in rounds whose requests fit
// the channel (a round's total is at most its capacity). Each round
// reserves (yielding for room as any talloc) and runs `body(l, alloc)`, which
// writes its CEs and enqueues them; the next round starts once every live
// lane of the wavefront has come round (sync_wave). A round's CEs are thus
// published before a later round can yield: no lane keeps room it has not
// published while its wavefront is parked (which would deadlock: space is
// freed in allocation order). Every lane in the spawn leaves together.
template <class Body>
Task<> in_rounds(Lane& l, Channel& c, std::uint32_t count, Body body) {
  const std::uint32_t most = co_await l.reduce_max<std::uint32_t>(count);
  const std::uint32_t before = co_await l.prefix_sum_exclusive<std::uint32_t>(count);
  const std::uint32_t per = c.spec().capacity - std::min(most, c.spec().capacity) + 1;
  const std::uint32_t mine = before / per;
  const std::uint32_t rounds = co_await l.reduce_max<std::uint32_t>(mine) + 1;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    co_await l.sync_wave();
    if (r != mine) continue;
    const Alloc a = co_await talloc(l, c, count);
    co_await body(l, a);
  }
  co_await l.sync_wave();
}

// Host side (outside simulated time, before the graph runs): put `count` CEs
// of the channel's CE size into it as a producer would (the paper's host
// talloc/enq of initial CEs). A full channel is a UserError naming `key`.
void host_enq(MemorySystem& mem, Channel& c, const void* ces, std::uint32_t count, const std::string& key);

}  // namespace fg::chan
