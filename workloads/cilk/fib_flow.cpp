// SPDX-License-Identifier: Apache-2.0
// fib-flow: the naive Fibonacci channel-flow graph of Orr et al., Figs. 6 and
// 7 (Sec. 4.2): one channel of FibObj CEs and one kernel node that consumes
// them. A CE with val <= 2 adds one to the result; any other spawns two CEs
// (val - 1, val - 2) into the same channel. The result is checked against the
// host's Fibonacci number every run.
#include <fmt/format.h>

#include <cstdint>

#include "aggregator/aggregator.h"
#include "cilk/cilk.h"
#include "gpu/host.h"
#include "runtime/channel.h"
#include "runtime/flow.h"
#include "sim/config.h"
#include "sim/workload.h"

namespace fg {
namespace {

// n: a demonstration size (the paper gives fib-flow no input; its Cilk fib
// runs n = 24, Table 3). Capacity: Fig. 6's LEN.
const Param<std::uint64_t> kN{"fib_flow.n", 20, "", "Fibonacci number to compute", {{1}, {40}}};
const Param<std::uint64_t> kCapacity{
    "fib_flow.capacity", 32768, "CEs", "channel capacity (Orr et al. Fig. 6: LEN = 32768)", {{0}, {1u << 30}}};

struct FibObj {
  std::int32_t val;
};

Task<> fib_kernel(Lane& l, chan::Channel& ch, std::uint64_t result, std::uint32_t off) {
  const chan::Ce src = co_await chan::deq(l, ch, off);
  const std::int32_t val = co_await l.load<std::int32_t>(src.addr);
  if (val <= 2) {
    co_await l.atomic_nr<std::uint64_t>(AtomicOp::Add, result, 1);
  } else {
    const chan::Alloc ob = co_await chan::talloc(l, ch, 2);
    co_await l.store<std::int32_t>(ob.addr(ch, 0), val - 1);
    co_await l.store<std::int32_t>(ob.addr(ch, 1), val - 2);
    co_await chan::enq(l, ch, ob);
  }
  co_await chan::tfree(l, ch, src);
}

void fib_flow(Host& h) {
  const auto n = static_cast<std::int32_t>(kN.get(h.config()));
  const std::uint64_t res = h.upload(std::vector<std::uint64_t>{0});
  flow::Graph g(h, kCapacity.name());
  chan::Channel& ch = g.channel("fib", sizeof(FibObj), static_cast<std::uint32_t>(kCapacity.get(h.config())));
  // Registers: Table 3's Fibonacci kernel, 16 s + 8 d (two 4-byte slots
  // each) + 2 c registers per lane.
  flow::KernelNode& k = g.kernel(
      "fib_kernel", [&ch, res](Lane& l, std::uint32_t off) { return fib_kernel(l, ch, res, off); }, 32,
      ContextSize{856, 16, 8, 2});
  g.connect(ch, k);
  g.host_enq(ch, FibObj{n});
  const Tick elapsed = cilk::run(g);
  const std::uint64_t got = h.download<std::uint64_t>(res, 1)[0];
  const std::uint64_t want = cilk::fib_reference(static_cast<std::uint64_t>(n));
  h.check(got == want, fmt::format("fib_flow: device fib({}) = {} vs host {}", n, got, want));
  h.result("fib", got);
  cilk::report(h, g, elapsed);
  h.output() << got << "\n";
}

const RegisterWorkload kReg{{"fib-flow", "naive Fibonacci as a channel-flow graph (Orr et al. Figs. 6, 7)", "",
                             fib_flow,
                             [](const Config& c) {
                               return flow::channel_bytes(c, sizeof(FibObj), kCapacity.get(c)) +
                                      flow::spill_bytes(c, ContextSize{856, 16, 8, 2});
                             },
                             flow::mechanisms}};

}  // namespace
}  // namespace fg
