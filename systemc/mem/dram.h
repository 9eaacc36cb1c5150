// SPDX-License-Identifier: Apache-2.0
// DRAM: fixed access latency plus a bandwidth limit per channel.
//
// Timing contract: loosely timed; b_transport never waits. Lines interleave
// across channels; each channel is a reservation calendar in which a line
// transfer occupies line_bytes / (bandwidth / channels). A request completes at
// transfer start + transfer time + latency. Each channel's request queue
// holds `queue` requests (accepted, waiting for the channel); a request that
// finds it full is accepted only when an entry frees, and the requester learns
// that time from MemExt::accepted (back-pressure). DRAM is a timing target only; data
// lives in the BackingStore (see docs/memory.md). Row buffers, banks and
// refresh are not modelled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "mem/resource.h"
#include "mem/tag_array.h"
#include "sim/config.h"
#include "sim/stats.h"

namespace fg {

class Dram : public sc_core::sc_module {
 public:
  struct Params {
    double latency_ns = 30;
    double bandwidth_gbps = 20;
    unsigned channels = 1;
    unsigned line = 64;
    unsigned queue = 16;  // requests waiting per channel (0 = unlimited)
    bool hash = false;    // mem.interleave=xor: channels by a fold of the line's bits
    static Params from(const Config& cfg);
  };

  tlm_utils::simple_target_socket<Dram> target;

  Dram(sc_core::sc_module_name name, const Params& p, const std::string& stats_path);
  const Params& params() const { return p_; }
  Tick transfer_time() const { return transfer_; }

  Counter reads, writes, bytes, queue_full;
  Average queue_delay, queue_full_stall;
  Formula bandwidth, utilization;

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);

  Params p_;
  Tick latency_, transfer_;
  FastDiv line_div_, channel_div_;
  std::vector<Resource> channels_;
  std::vector<Slots> queues_;  // per channel: requests accepted and waiting for the channel
  std::vector<int> trace_tracks_;
};

}  // namespace fg
