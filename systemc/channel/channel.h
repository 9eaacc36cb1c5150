// SPDX-License-Identifier: Apache-2.0
// Channel memory (Orr et al., ISCA 2014, Sec. 3.2, Fig. 4): a lock-free,
// non-blocking, array-based multi-producer/multi-consumer queue of channel
// elements (CEs) in modelled device memory.
//
//   data array       capacity CEs of ce_size bytes (padded: one CE per cache line)
//   control array    2 x capacity data-array indices, in publication order
//   done-count array one 32-bit count per done_count CEs
//   pointers         each on its own cache line: data tail (producers' CAS),
//                    control reserveTail (producers' CAS), control tail
//                    (producers publish; the aggregator polls), data head
//                    (the aggregator frees; producers read it for the full
//                    check), control head (the aggregator's dispatch point)
//
// Pointers are free-running 32-bit counts of CEs (an index is count mod the
// array size), so "in use" is tail - head in unsigned arithmetic. Element
// states: available (data head <= i, not yet reserved), reserved (below the
// data tail, not published), ready (published: below the control tail, not
// dispatched), dispatched (below the control head, done count not yet
// counted), done (counted; freed when its whole done-count block is done and
// every older block has been freed). A wavefront that reserved later may
// publish earlier: the control array is in publication order, the data
// array in allocation order, and space is freed strictly in allocation order.
//
// The device API (talloc / enq / deq / tfree, Table 1) is device code on
// atomics in workloads/runtime/channel.h; the aggregator (systemc/aggregator/)
// polls, dispatches and frees. This file is the layout both agree on, the
// per-channel statistics and the consumer kernel the aggregator launches.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gpu/dispatcher.h"
#include "sim/config.h"
#include "sim/stats.h"

namespace fg::chan {

// How producers reserve space (Sec. 3.2.2, Fig. 17): every lane with its own
// CAS; one CAS per wavefront (prefix sum, CAS by one lane, broadcast, Fig. 5);
// the wavefront-amortized channel with one CE per cache line (the paper's
// stand-in for a linked list).
enum class Variant : std::uint8_t { PerLane, Amortized, Padded };
const char* to_string(Variant v);
// The configured variant (channel.variant).
Variant variant(const Config& cfg);
// The configured done-count granularity (channel.done_count).
std::uint32_t done_count(const Config& cfg);

struct Spec {
  std::string name;               // for stats ("channels.<name>") and diagnostics
  std::uint32_t ce_size = 4;      // bytes per CE
  std::uint32_t capacity = 0;     // CEs in the data array
  std::uint32_t done_count = 64;  // CEs per done count
  Variant variant = Variant::Amortized;
};

// Addresses of one channel's structures. All pointer words are 32-bit.
struct Layout {
  std::uint64_t base = 0;
  std::uint64_t data_tail = 0, ctrl_reserve = 0, ctrl_tail = 0, data_head = 0, ctrl_head = 0;
  std::uint64_t data = 0, ctrl = 0, done = 0;
  std::uint32_t capacity = 0, ce_stride = 0, done_count = 0;

  std::uint64_t ce_addr(std::uint32_t index) const { return data + std::uint64_t{index % capacity} * ce_stride; }
  std::uint64_t ctrl_addr(std::uint32_t pos) const { return ctrl + 4ull * (pos % (2ull * capacity)); }
  std::uint64_t done_addr(std::uint32_t index) const { return done + 4ull * ((index % capacity) / done_count); }
  // Bytes of device memory for `s` with cache lines of `line` bytes.
  static std::uint64_t bytes(const Spec& s, unsigned line);
  static Layout at(std::uint64_t base, const Spec& s, unsigned line);
};

// Throws UserError naming `key` when the spec is invalid (zero capacity, a
// capacity that is not a multiple of the done count, a zero CE size).
void validate(const Spec& s, const std::string& key);

class Channel;

// The consumer the aggregator launches for a channel: a kernel whose lane i
// consumes the CE at control position `first + i` (deq(id, first + i)).
struct Consumer {
  std::string kernel = "consumer";
  std::uint32_t registers = 32;  // vector registers per lane
  ContextSize context = {};      // bytes saved when one of its wavefronts yields (Table 3)
  std::function<Task<void>(Lane&, std::uint32_t first)> body;
};

// One channel: spec, layout, consumer and statistics. Created by the
// aggregator (Aggregator::create_channel), which owns it.
class Channel {
 public:
  Channel(std::uint32_t id, Spec spec, Layout layout, Consumer consumer);
  std::uint32_t id() const { return id_; }
  const Spec& spec() const { return spec_; }
  const Layout& layout() const { return layout_; }
  const Consumer& consumer() const { return consumer_; }
  void set_consumer(Consumer c) { consumer_ = std::move(c); }

  // Device API bookkeeping (counted by the device code, not timed).
  Counter cas_attempts, cas_failures, tallocs, enqueued;
  // The aggregator's side.
  Counter dispatched, dispatches, wavefronts, freed, polls;
  Distribution occupancy;  // CEs in use (data tail - data head) at each of the aggregator's polls

  // The aggregator's private copies (it is the only writer of the heads).
  std::uint32_t ctrl_head = 0, data_head = 0;
  std::uint32_t last_tail = 0;  // control tail at the last poll
  // Data-array CEs never allocated: skipped when the aggregator closed a
  // partly allocated block (Aggregator::close_block). The data tail counts
  // them, the control array does not: data tail = published + skipped once
  // every reservation is published.
  std::uint32_t skipped = 0;
  // Consumer wavefronts of this channel launched and not finished, yielded
  // ones included (as the aggregator knows at its time).
  std::uint64_t running = 0;
  std::uint64_t yielded = 0;  // of those, yielded and not restarted
  // The GPU has wavefront yield (set by the aggregator): a producer that finds
  // the channel full yields instead of faulting.
  bool yields = false;

 private:
  std::uint32_t id_;
  Spec spec_;
  Layout layout_;
  Consumer consumer_;
};

}  // namespace fg::chan
