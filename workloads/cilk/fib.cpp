// SPDX-License-Identifier: Apache-2.0
// fib: Cilk's Fibonacci (Orr et al. Fig. 8) on channel stacks (Sec. 5,
// Figs. 9-12). A pre-spawn task fib(n) at depth d with n <= 2 writes 1 to its
// result slot; otherwise it allocates its continuation {parent slot, x, y} in
// the continuation channel of depth d and two pre-spawn tasks (n - 1 into x,
// n - 2 into y) one level deeper. A continuation writes x + y into its parent
// slot (a field of the continuation one level up, or the host's result), so
// the partial results live in the channel stack (Sec. 5.2) and levelization
// runs each level's continuations after everything deeper. Two kernel nodes,
// Table 3's registers. The result is checked against the host every run.
#include <fmt/format.h>

#include <cstdint>
#include <memory>

#include "cilk/cilk.h"
#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "runtime/channel.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

// Table 3: Fibonacci's data set is 24 and its channel width 32,768.
const Param<std::uint64_t> kN{"fib.n", 24, "", "Fibonacci number to compute (Orr et al. Table 3: 24)", {{1}, {40}}};
const Param<std::uint64_t> kCapacity{"fib.capacity",
                                     32768,
                                     "CEs",
                                     "capacity of each channel of the stacks (Orr et al. Table 3: 32,768)",
                                     {{0}, {1u << 30}}};

const Param<std::string> kMechanism{"fib.mechanism", "channels", std::vector<std::string>{"channels", "forkjoin"},
                                    "channels: Cilk on channel stacks (Orr et al.); forkjoin: tasks on the fork-join "
                                    "runtime (GTaP, docs/forkjoin.md)"};

// CEs: 16 bytes each.
//   pre-spawn:     u64 result slot, i32 n
//   continuation:  u64 parent slot, i32 x, i32 y
constexpr std::uint32_t kCeBytes = 16;

Task<> fib_spawn(Lane& l, const cilk::Stack& pre, const cilk::Stack& post, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = pre.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t result = co_await l.load<std::uint64_t>(ce.addr);
  const std::int32_t n = co_await l.load<std::int32_t>(ce.addr + 8);
  if (n <= 2) {
    co_await l.store<std::int32_t>(result, 1);
  } else {
    chan::Channel& k = post.at(d);
    chan::Channel& child = pre.at(d + 1);
    const chan::Alloc ka = co_await chan::talloc(l, k, 1);  // sync: the continuation
    const std::uint64_t kaddr = ka.addr(k, 0);
    co_await l.store<std::uint64_t>(kaddr, result);
    const chan::Alloc ca = co_await chan::talloc(l, child, 2, true);  // spawn fib(n - 1), spawn fib(n - 2)
    if (ca.split) {  // the wavefront's spawns exceed the channel: in rounds, the continuation last
      co_await chan::in_rounds(l, child, 2, [&](Lane& lr, chan::Alloc a) -> Task<> {
        co_await lr.store<std::uint64_t>(a.addr(child, 0), kaddr + 8);
        co_await lr.store<std::int32_t>(a.addr(child, 0) + 8, n - 1);
        co_await lr.store<std::uint64_t>(a.addr(child, 1), kaddr + 12);
        co_await lr.store<std::int32_t>(a.addr(child, 1) + 8, n - 2);
        co_await chan::enq(lr, child, a);
      });
      co_await chan::enq(l, k, ka);
    } else {
      co_await l.store<std::uint64_t>(ca.addr(child, 0), kaddr + 8);
      co_await l.store<std::int32_t>(ca.addr(child, 0) + 8, n - 1);
      co_await l.store<std::uint64_t>(ca.addr(child, 1), kaddr + 12);
      co_await l.store<std::int32_t>(ca.addr(child, 1) + 8, n - 2);
      co_await chan::enq(l, k, ka);
      co_await chan::enq(l, child, ca);
    }
  }
  co_await chan::tfree(l, in, ce);
}

Task<> fib_sync(Lane& l, const cilk::Stack& post, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = post.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t parent = co_await l.load<std::uint64_t>(ce.addr);
  const std::int32_t x = co_await l.load<std::int32_t>(ce.addr + 8);
  const std::int32_t y = co_await l.load<std::int32_t>(ce.addr + 12);
  co_await l.store<std::int32_t>(parent, x + y);
  co_await chan::tfree(l, in, ce);
}

void fib(Host& h) {
  const auto n = static_cast<std::uint32_t>(kN.get(h.config()));
  if (kMechanism.get(h.config()) == "forkjoin") {
    if (h.config().set_by_user(kCapacity.name()))
      throw UserError(fmt::format("{}: fib.mechanism=forkjoin has no channels", kCapacity.name()));
    return fj::fib_app(h, n);
  }
  if (h.config().set_by_user("fib.cutoff")) throw UserError("fib.cutoff: a fork-join setting (fib.mechanism=forkjoin)");
  const auto cap = static_cast<std::uint32_t>(kCapacity.get(h.config()));
  const std::uint64_t res = h.upload(std::vector<std::int32_t>{0});
  flow::Graph g(h, kCapacity.name());
  // fib(n) at depth 0: depth d holds values down to n - d, so pre-spawn tasks
  // reach depth n - 2 and continuations (n >= 3) depth n - 3.
  const std::uint32_t levels = n > 2 ? n - 1 : 1;
  cilk::Stack pre, post;
  post = cilk::make_stack(
      g, "fib_sync", kCeBytes, cap, n > 2 ? n - 2 : 1,
      [&post](std::uint32_t d) { return [&post, d](Lane& l, std::uint32_t off) { return fib_sync(l, post, d, off); }; },
      11, ContextSize{856, 3, 4, 1});  // Table 3: 3s/4d/1c
  pre = cilk::make_stack(
      g, "fib", kCeBytes, cap, levels,
      [&pre, &post](std::uint32_t d) {
        return [&pre, &post, d](Lane& l, std::uint32_t off) { return fib_spawn(l, pre, post, d, off); };
      },
      32, ContextSize{856, 16, 8, 2});  // Table 3: 16s/8d/2c
  g.aggregator().set_scheduler(std::make_unique<cilk::LevelScheduler>(std::vector{pre}, std::vector{post}));
  struct Root {
    std::uint64_t result;
    std::int32_t n, pad;
  };
  g.host_enq(pre.at(0), Root{res, static_cast<std::int32_t>(n), 0});
  const Tick elapsed = cilk::run(g);
  const auto got = static_cast<std::uint64_t>(h.download<std::int32_t>(res, 1)[0]);
  const std::uint64_t want = cilk::fib_reference(n);
  h.check(got == want, fmt::format("fib: device fib({}) = {} vs host {}", n, got, want));
  h.result("fib", got);
  cilk::report(h, g, elapsed);
  h.output() << got << "\n";
}

// The two channel stacks as fib() makes them, and the spill blocks of their kernels.
std::uint64_t channel_bytes(const Config& c) {
  const auto n = static_cast<std::uint32_t>(kN.get(c));
  const std::uint64_t cap = kCapacity.get(c);
  return cilk::stack_bytes(c, kCeBytes, cap, n > 2 ? n - 1 : 1) +
         cilk::stack_bytes(c, kCeBytes, cap, n > 2 ? n - 2 : 1) + flow::spill_bytes(c, ContextSize{856, 16, 8, 2});
}

const RegisterWorkload kReg{
    {"fib", "Cilk Fibonacci on channel stacks with levelized scheduling and yield (Orr et al. Sec. 5)", "", fib,
     [](const Config& c) {
       return kMechanism.get(c) == "forkjoin" ? fj::runtime_bytes(c, 16, 2, fj::fib_local_slots(c)) : channel_bytes(c);
     },
     [](const Config& c) {
       return kMechanism.get(c) == "forkjoin" ? std::vector<std::string>{fj::kName} : flow::mechanisms(c);
     }}};

}  // namespace
}  // namespace fg
