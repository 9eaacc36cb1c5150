// SPDX-License-Identifier: Apache-2.0
#include "channel/channel.h"

#include <fmt/format.h>

#include "sim/error.h"

namespace fg::chan {

namespace {
const Param<std::string> kVariant{"channel.variant", "amortized",
                                  std::vector<std::string>{"per-lane", "amortized", "padded"},
                                  "how producers reserve channel space (Orr et al. Sec. 3.2.2, Fig. 17): per-lane (a "
                                  "CAS per lane), amortized (one CAS per wavefront: prefix sum, CAS, broadcast; Fig. "
                                  "5), padded (amortized, one CE per cache line)"};
// Orr et al. Table 2 ("Done count 64") and Sec. 8.2.1.
const Param<std::uint64_t> kDoneCount{"channel.done_count",
                                      64,
                                      "CEs",
                                      "data-array elements that share one done count (Orr et al. Table 2: 64)",
                                      {{1}, {1u << 20}}};
}  // namespace

const char* to_string(Variant v) {
  switch (v) {
    case Variant::PerLane:
      return "per-lane";
    case Variant::Amortized:
      return "amortized";
    case Variant::Padded:
      return "padded";
  }
  return "?";
}

Variant variant(const Config& cfg) {
  const std::string v = kVariant.get(cfg);
  if (v == "per-lane") return Variant::PerLane;
  if (v == "padded") return Variant::Padded;
  return Variant::Amortized;
}

std::uint32_t done_count(const Config& cfg) { return static_cast<std::uint32_t>(kDoneCount.get(cfg)); }

void validate(const Spec& s, const std::string& key) {
  if (s.capacity == 0) throw UserError(fmt::format("{}: channel '{}' has zero capacity", key, s.name));
  if (s.ce_size == 0) throw UserError(fmt::format("{}: channel '{}' has a zero CE size", key, s.name));
  if (s.done_count == 0 || s.capacity % s.done_count != 0)
    throw UserError(
        fmt::format("{}: channel '{}': capacity {} is not a multiple of the done count {} "
                    "(channel.done_count)",
                    key, s.name, s.capacity, s.done_count));
  if (s.capacity > (1u << 30))
    throw UserError(fmt::format("{}: channel '{}': capacity {} is above 2^30 CEs", key, s.name, s.capacity));
}

namespace {
std::uint64_t round_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }
std::uint32_t stride(const Spec& s, unsigned line) {
  return s.variant == Variant::Padded ? static_cast<std::uint32_t>(round_up(s.ce_size, line)) : s.ce_size;
}
}  // namespace

std::uint64_t Layout::bytes(const Spec& s, unsigned line) {
  const std::uint64_t ptrs = 5ull * line;
  const std::uint64_t data = round_up(std::uint64_t{s.capacity} * stride(s, line), line);
  const std::uint64_t ctrl = round_up(8ull * s.capacity, line);
  const std::uint64_t done = round_up(4ull * (s.capacity / s.done_count), line);
  return ptrs + data + ctrl + done;
}

Layout Layout::at(std::uint64_t base, const Spec& s, unsigned line) {
  Layout l;
  l.base = base;
  l.capacity = s.capacity;
  l.ce_stride = stride(s, line);
  l.done_count = s.done_count;
  l.data_tail = base;
  l.ctrl_reserve = base + line;
  l.ctrl_tail = base + 2ull * line;
  l.data_head = base + 3ull * line;
  l.ctrl_head = base + 4ull * line;
  l.data = base + 5ull * line;
  l.ctrl = l.data + round_up(std::uint64_t{s.capacity} * l.ce_stride, line);
  l.done = l.ctrl + round_up(8ull * s.capacity, line);
  return l;
}

Channel::Channel(std::uint32_t id, Spec spec, Layout layout, Consumer consumer)
    : cas_attempts(StatGroup("channels." + spec.name), "cas_attempts",
                   "CAS operations on the data tail, control reserveTail and control tail", ""),
      cas_failures(StatGroup("channels." + spec.name), "cas_failures", "CAS operations that found another value", ""),
      tallocs(StatGroup("channels." + spec.name), "talloc_lanes", "lanes that allocated CEs (talloc)", ""),
      enqueued(StatGroup("channels." + spec.name), "produced", "CEs published (enq)", ""),
      dispatched(StatGroup("channels." + spec.name), "consumed", "CEs dispatched to consumer wavefronts", ""),
      dispatches(StatGroup("channels." + spec.name), "dispatches", "consumer kernels launched by the aggregator", ""),
      wavefronts(StatGroup("channels." + spec.name), "wavefronts", "consumer wavefronts launched", ""),
      freed(StatGroup("channels." + spec.name), "freed", "CEs freed in allocation order by the aggregator", ""),
      polls(StatGroup("channels." + spec.name), "polls", "control-tail reads by the aggregator", ""),
      occupancy(StatGroup("channels." + spec.name), "occupancy", "CEs in use at the aggregator's polls", "CEs", 0,
                static_cast<double>(spec.capacity), 16),
      id_(id),
      spec_(std::move(spec)),
      layout_(layout),
      consumer_(std::move(consumer)) {}

}  // namespace fg::chan
