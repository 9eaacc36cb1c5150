// SPDX-License-Identifier: Apache-2.0
#include "runtime/flow.h"

#include <fmt/format.h>

#include <algorithm>

#include "aggregator/aggregator.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "mem/memory_system.h"
#include "runtime/channel.h"
#include "sim/config.h"
#include "sim/error.h"

namespace fg::flow {

std::vector<std::string> mechanisms(const Config&) { return {agg::Aggregator::kName}; }

std::uint64_t channel_bytes(const Config& cfg, std::uint32_t ce_size, std::uint64_t capacity) {
  chan::Spec s;
  s.ce_size = ce_size;
  s.capacity = static_cast<std::uint32_t>(std::min<std::uint64_t>(capacity, 1u << 30));  // more: refused
  s.done_count = chan::done_count(cfg);
  s.variant = chan::variant(cfg);
  const std::uint64_t line = std::get<std::uint64_t>(cfg.value("gpu.line"));
  const std::uint64_t align = std::max<std::uint64_t>(256, line);
  return (chan::Layout::bytes(s, static_cast<unsigned>(line)) + align - 1) / align * align;
}

std::uint64_t spill_bytes(const Config& cfg, ContextSize c) {
  const std::uint64_t w = std::get<std::uint64_t>(cfg.value("gpu.cu.wavefront_width"));
  const std::uint64_t line = std::get<std::uint64_t>(cfg.value("gpu.line"));
  const std::uint64_t slots =
      std::get<std::uint64_t>(cfg.value("gpu.cus")) * std::get<std::uint64_t>(cfg.value("gpu.cu.slots"));
  const std::uint64_t bytes = c.fixed + c.s * w * 4 + c.d * w * 8 + (c.c * w + 7) / 8;  // ComputeUnit::context_bytes
  return slots * ((bytes + line - 1) / line * line);
}

Graph::Graph(Host& h, std::string key)
    : h_(h), agg_(h.gpu().get<agg::Aggregator>("channel-flow graph")), key_(std::move(key)) {}

chan::Channel& Graph::channel(const std::string& name, std::uint32_t ce_size, std::uint32_t capacity) {
  chan::Spec s;
  s.name = name;
  s.ce_size = ce_size;
  s.capacity = capacity;
  s.done_count = chan::done_count(h_.config());
  s.variant = chan::variant(h_.config());
  return agg_.create_channel(std::move(s), {}, key_);
}

KernelNode& Graph::kernel(const std::string& name, std::function<Task<void>(Lane&, std::uint32_t)> body,
                          std::uint32_t registers, ContextSize context) {
  kernels_.push_back(std::make_unique<KernelNode>(KernelNode{name, std::move(body), registers, context}));
  return *kernels_.back();
}

void Graph::connect(chan::Channel& c, KernelNode& k) {
  if (std::find(connected_.begin(), connected_.end(), &c) != connected_.end())
    throw std::logic_error(fmt::format("channel '{}' is connected to two kernel nodes", c.spec().name));
  c.set_consumer(chan::Consumer{k.name, k.registers, k.context, k.body});
  connected_.push_back(&c);
}

void Graph::host_enq_bytes(chan::Channel& c, const void* p, std::uint32_t n, std::size_t size) {
  if (size != c.spec().ce_size)
    throw std::logic_error(
        fmt::format("channel '{}': a CE of {} bytes for a CE size of {}", c.spec().name, size, c.spec().ce_size));
  chan::host_enq(h_.memory(), c, p, n, key_);
}

void Graph::execute() {
  for (const chan::Channel* c : agg_.channels())
    if (!c->consumer().body)
      throw std::logic_error(fmt::format("channel '{}' is connected to no kernel node", c->spec().name));
  agg_.start();
}

void Graph::wait_for_done() { agg_.wait_done(); }

}  // namespace fg::flow
