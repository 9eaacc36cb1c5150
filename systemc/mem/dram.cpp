// SPDX-License-Identifier: Apache-2.0
#include "mem/dram.h"

#include <cmath>

#include <fmt/format.h>

#include "mem/mem_ext.h"
#include "sim/trace.h"

namespace fg {

namespace {
// Channel paper Table 2: 30 ns, 20 GB/s.
const Param<double> kLatency{"gpu.dram.latency", 30.0, "ns", "DRAM access latency", {{0}, {1e6}}};
const Param<double> kBandwidth{"gpu.dram.bandwidth", 20.0, "GB/s", "DRAM bandwidth (all channels)", {{0.001}, {1e5}}};
const Param<std::uint64_t> kChannels{"gpu.dram.channels", 1, "", "DRAM channels (lines interleave)", {{1}, {64}}};
// GPGPU-Sim 3.x GTX 480 config: -gpgpu_frfcfs_dram_sched_queue_size 16 (the
// channel paper gives no queue depth; we use the same value).
const Param<std::uint64_t> kQueue{"gpu.dram.queue",
                                  16,
                                  "",
                                  "requests waiting per DRAM channel; a full queue stalls the L2 (0 = unlimited)",
                                  {{0}, {1u << 20}}};
}  // namespace

extern const Param<std::uint64_t> kLineSize;

Dram::Params Dram::Params::from(const Config& cfg) {
  Params p;
  p.latency_ns = kLatency.get(cfg);
  p.bandwidth_gbps = kBandwidth.get(cfg);
  p.channels = static_cast<unsigned>(kChannels.get(cfg));
  p.line = static_cast<unsigned>(kLineSize.get(cfg));
  p.queue = static_cast<unsigned>(kQueue.get(cfg));
  p.hash = std::get<std::string>(cfg.value("mem.interleave")) == "xor";
  return p;
}

Dram::Dram(sc_core::sc_module_name name, const Params& p, const std::string& stats_path)
    : sc_module(name),
      target("target"),
      reads(StatGroup(stats_path), "reads", "line reads (L2 fills)", ""),
      writes(StatGroup(stats_path), "writes", "line writes (L2 write-backs)", ""),
      bytes(StatGroup(stats_path), "bytes", "bytes transferred", "B"),
      queue_full(StatGroup(stats_path), "queue_full", "requests that found their channel's queue full", ""),
      queue_delay(StatGroup(stats_path), "queue_delay", "time requests waited in the queue for a channel", "ns"),
      queue_full_stall(StatGroup(stats_path), "queue_full_stall",
                       "time requests waited for room in the channel's queue (the L2 stalled)", "ns"),
      bandwidth(StatGroup(stats_path), "bandwidth", "achieved bandwidth over the simulated time", "GB/s",
                [this] {
                  double t = sc_core::sc_time_stamp().to_seconds();
                  return t > 0 ? double(bytes.value()) / t / 1e9 : 0.0;
                }),
      utilization(StatGroup(stats_path), "utilization", "busy fraction of the channels over the simulated time", "",
                  [this] {
                    double t = double(sc_core::sc_time_stamp().value()) * channels_.size();
                    double busy = 0;
                    for (auto& c : channels_) busy += double(c.busy_ticks());
                    return t > 0 ? busy / t : 0.0;
                  }),
      p_(p),
      latency_(ns_to_tick(p.latency_ns)),
      // GB/s is bytes per ns; per channel the line takes line / (bw / channels) ns.
      transfer_(ns_to_tick(double(p.line) * p.channels / p.bandwidth_gbps)),
      line_div_(p.line),
      channel_div_(p.channels),
      channels_(p.channels),
      queues_(p.channels, Slots(p.queue)) {
  target.register_b_transport(this, &Dram::b_transport);
  if (Trace::get().on())
    for (unsigned c = 0; c < p.channels; ++c)
      trace_tracks_.push_back(Trace::get().track("memory", fmt::format("{}.ch{}", stats_path, c)));
}

void Dram::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const Tick now = sc_core::sc_time_stamp().value();
  const Tick arrival = now + delay.value();
  const std::uint64_t line = line_div_.div(p.get_address());
  const unsigned ch = static_cast<unsigned>(channel_div_.mod(p_.hash ? interleave_fold(line) : line));
  const Tick accept = queues_[ch].earliest(arrival);
  if (accept > arrival) ++queue_full;
  queue_full_stall.sample(tick_to_ns(accept - arrival));
  const Tick start = channels_[ch].reserve(accept, transfer_, now);
  queues_[ch].hold(accept, start);
  queue_delay.sample(tick_to_ns(start - accept));
  if (auto* ext = p.get_extension<MemExt>()) ext->accepted = accept;
  if (p.is_write())
    ++writes;
  else
    ++reads;
  bytes += p_.line;
  if (!trace_tracks_.empty()) Trace::get().span(trace_tracks_[ch], p.is_write() ? "write" : "read", start, transfer_);
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = sc_core::sc_time::from_value(start + transfer_ + latency_ - now);
}

}  // namespace fg
