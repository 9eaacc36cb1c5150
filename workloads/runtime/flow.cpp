// SPDX-License-Identifier: Apache-2.0
#include "runtime/flow.h"

#include <fmt/format.h>

#include <algorithm>

#include "aggregator/aggregator.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "mem/memory_system.h"
#include "runtime/channel.h"
#include "sim/error.h"

namespace fg::flow {

std::vector<std::string> mechanisms(const Config&) { return {agg::Aggregator::kName}; }

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
