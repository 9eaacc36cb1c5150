// SPDX-License-Identifier: Apache-2.0
// Channel-flow graphs (Orr et al., ISCA 2014, Sec. 4.2, Figs. 6 and 7): the
// host API that builds a graph of channel nodes and kernel nodes, puts the
// initial CEs in, runs it on the aggregator and waits until it is done.
//
//   flow::Graph g(h);
//   chan::Channel& ch = g.channel("fib", sizeof(std::int32_t), 32768);
//   flow::KernelNode& k = g.kernel("fib_kernel", [&ch, res](Lane& l, std::uint32_t off) {
//     return fib_kernel(l, ch, res, off);       // constant arguments: the lambda's captures
//   });
//   g.connect(ch, k);                             // ch's CEs are consumed by k
//   g.host_enq(ch, std::int32_t{n});              // the initial CE
//   g.execute();
//   g.wait_for_done();
//
// A kernel node's body gets the control-array position of its CE (deq's
// `off`). Registers and the yield context size of the kernel are node
// properties (Table 3). The channel's done count and variant come from the
// configuration (channel.done_count, channel.variant).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "channel/channel.h"
#include "gpu/kernel.h"

namespace fg {
class Config;
class Host;
namespace agg {
class Aggregator;
}
}  // namespace fg

namespace fg::flow {

struct KernelNode {
  std::string name;
  std::function<Task<void>(Lane&, std::uint32_t off)> body;
  std::uint32_t registers = 32;
  ContextSize context = {};
};

// What a workload built on channel-flow graphs uses (WorkloadInfo::mechanisms):
// the aggregator (and, through it, the yield engine).
std::vector<std::string> mechanisms(const Config&);

// Device memory of one channel of `capacity` CEs of `ce_size` bytes as the
// aggregator allocates it (chan::Layout::bytes with the configuration's
// channel.done_count, channel.variant and gpu.line, aligned as the device
// allocator aligns): for WorkloadInfo::device_bytes, checked before the run.
std::uint64_t channel_bytes(const Config& cfg, std::uint32_t ce_size, std::uint64_t capacity);
// Device memory of the yield engine's spill blocks for kernels of context
// `largest` (the largest of the workload's): one per wavefront slot of the
// GPU (gpu.cus x gpu.cu.slots), every resident wavefront parked at once.
std::uint64_t spill_bytes(const Config& cfg, ContextSize largest);

class Graph {
 public:
  // `key`: the parameter the channel sizes come from, for error messages.
  explicit Graph(Host& h, std::string key = "channel");
  chan::Channel& channel(const std::string& name, std::uint32_t ce_size, std::uint32_t capacity);
  KernelNode& kernel(const std::string& name, std::function<Task<void>(Lane&, std::uint32_t)> body,
                     std::uint32_t registers = 32, ContextSize context = {});
  void connect(chan::Channel& c, KernelNode& k);
  template <class T>
  void host_enq(chan::Channel& c, const T& ce) {
    static_assert(std::is_trivially_copyable_v<T>);
    host_enq_bytes(c, &ce, 1, sizeof(T));
  }
  template <class T>
  void host_enq(chan::Channel& c, const std::vector<T>& ces) {
    host_enq_bytes(c, ces.data(), static_cast<std::uint32_t>(ces.size()), sizeof(T));
  }
  void execute();
  void wait_for_done();
  agg::Aggregator& aggregator() { return agg_; }

 private:
  void host_enq_bytes(chan::Channel& c, const void* p, std::uint32_t n, std::size_t size);
  Host& h_;
  agg::Aggregator& agg_;
  std::string key_;
  std::vector<std::unique_ptr<KernelNode>> kernels_;
  std::vector<chan::Channel*> connected_;
};

}  // namespace fg::flow
