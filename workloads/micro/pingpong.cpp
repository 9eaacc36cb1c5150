// SPDX-License-Identifier: Apache-2.0
// pingpong: two wavefronts (one lane each, workgroups 0 and 1, so on two CUs
// when gpu.cus >= 2) pass a token back and forth `pingpong.rounds` times
// through one word of memory. Player 0 writes 1, waits for 2, writes 3, ...;
// player 1 waits for 1, writes 2, ... The token goes
//   via=store   by a release store, polled with acquire loads
//   via=atomic  by an atomic exchange, polled with atomic reads (add 0)
// Result `handoff_ns`: the mean one-way hand-off time, from player 0's first
// write to its observing the last value, over 2 x rounds hand-offs (clock()
// reads on player 0's CU, so no launch cost is included). Each player logs
// the values it observed; the host checks both logs and the final value.
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "sim/config.h"
#include "sim/workload.h"

namespace fg {
namespace {

const Param<std::uint64_t> kRounds{"pingpong.rounds", 100, "", "round trips of the token", {{1}, {1000000}}};
const Param<std::string> kVia{"pingpong.via", "store", std::vector<std::string>{"store", "atomic"},
                              "how the token travels: release store + acquire polling, or atomics"};

Task<std::uint32_t> read_token(Lane& l, std::uint64_t flag, bool atomic) {
  if (atomic) co_return co_await l.atomic_add<std::uint32_t>(flag, 0u);
  co_return co_await l.load_acquire<std::uint32_t>(flag);
}

Task<> write_token(Lane& l, std::uint64_t flag, std::uint32_t v, bool atomic) {
  if (atomic)
    co_await l.atomic_exch<std::uint32_t>(flag, v);
  else
    co_await l.store_release<std::uint32_t>(flag, v);
}

// log: rounds words per player; times: start and end cycle of player 0.
Task<> pingpong_kernel(Lane& l, std::uint64_t flag, std::uint64_t log, std::uint64_t times, std::uint32_t rounds,
                       bool atomic) {
  const std::uint32_t me = l.group_id();
  if (me == 0) {
    const std::uint64_t t0 = co_await l.clock();
    co_await l.store<std::uint64_t>(times, t0);
  }
  for (std::uint32_t r = 0; r < rounds; ++r) {
    if (me == 0) co_await write_token(l, flag, 2 * r + 1, atomic);
    const std::uint32_t want = me == 0 ? 2 * r + 2 : 2 * r + 1;
    std::uint32_t seen = 0;
    for (;;) {  // poll (no backoff); the await stays in the loop body (g++ 12)
      seen = co_await read_token(l, flag, atomic);
      if (seen >= want) break;
    }
    co_await l.store<std::uint32_t>(log + 4ull * (me * rounds + r), seen);
    if (me == 1) co_await write_token(l, flag, 2 * r + 2, atomic);
  }
  if (me == 0) {
    const std::uint64_t t1 = co_await l.clock();
    co_await l.store<std::uint64_t>(times + 8, t1);
  }
}

void pingpong(Host& h) {
  const auto rounds = static_cast<std::uint32_t>(kRounds.get(h.config()));
  const bool atomic = kVia.get(h.config()) == "atomic";
  const double mhz = std::get<double>(h.config().value("gpu.clock"));
  const std::uint64_t flag = h.upload(std::vector<std::uint32_t>(16, 0));  // its own line
  const std::uint64_t log = h.alloc(8ull * rounds), times = h.upload(std::vector<std::uint64_t>{0, 0});
  h.run_kernel({"pingpong", 2, 1, 8, 0, [=](Lane& l) { return pingpong_kernel(l, flag, log, times, rounds, atomic); }});
  const auto seen = h.download<std::uint32_t>(log, 2ull * rounds);
  std::size_t bad = 0;
  for (std::uint32_t r = 0; r < rounds; ++r) bad += (seen[r] != 2 * r + 2) + (seen[rounds + r] != 2 * r + 1);
  h.check(bad == 0, fmt::format("pingpong: {} of {} observed tokens differ from the exchange order", bad, 2 * rounds));
  const std::uint32_t last = h.download<std::uint32_t>(flag, 1)[0];
  h.check(last == 2 * rounds, fmt::format("pingpong: final token {} (want {})", last, 2 * rounds));
  const auto t = h.download<std::uint64_t>(times, 2);
  const double ns = double(t[1] - t[0]) * 1000.0 / mhz / (2.0 * rounds);
  h.result("handoff_ns", ns);
  h.output() << ns << "\n";
}

const RegisterWorkload r{{"pingpong",
                          "two wavefronts on two CUs pass a token (pingpong.via): mean hand-off time",
                          "",
                          pingpong,
                          {}}};  // a few bytes of device memory

}  // namespace
}  // namespace fg
