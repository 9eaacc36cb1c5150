// SPDX-License-Identifier: Apache-2.0
// fib on the fork-join runtime (GTaP Sec. 6.2, Figs. 3, 4 and 10): fib(n)
// spawns fib(n-1) and fib(n-2), waits for both and returns their sum, with no
// cutoff (forkjoin.fib_cutoff > 0: GTaP's Fig. 10 program, whose tasks below
// the cutoff compute serially and whose spawns pick queue 1 for them and
// taskwaits queue 2). The paper's record: a 16-byte payload, 2 children
// (evaluation/*/fib/*.cu at b611dde).
#include <fmt/format.h>

#include "cilk/cilk.h"
#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"

namespace fg::fj {
namespace {

const Param<std::uint64_t> kCutoff{"fib.cutoff",
                                   0,
                                   "",
                                   "fork-join fib: tasks with n below it compute serially (GTaP Fig. 10's cutoff; 0: "
                                   "none, as Figs. 3 and 4)",
                                   {{0}, {40}}};

// The serial fib of a task below the cutoff: one add per call (a simple
// core's cost model: 4 instructions per call, assumed).
std::uint64_t serial_fib(std::uint32_t n, std::uint64_t& calls) {
  ++calls;
  return n < 2 ? n : serial_fib(n - 1, calls) + serial_fib(n - 2, calls);
}

Fn<std::uint64_t> fib_task(Ctx& t, std::uint32_t n, std::uint32_t cutoff, bool epaq) {
  if (n < 2) co_return n;
  if (n < cutoff) {
    std::uint64_t calls = 0;
    const std::uint64_t v = serial_fib(n, calls);
    co_await t.lane().alu(4 * calls);
    co_return v;
  }
  const std::uint32_t q1 = epaq && n - 1 < cutoff ? 1 : 0, q2 = epaq && n - 2 < cutoff ? 1 : 0;
  const Child x = co_await t.spawn_on(q1, fib_task, n - 1, cutoff, epaq);
  const Child y = co_await t.spawn_on(q2, fib_task, n - 2, cutoff, epaq);
  co_await t.taskwait(epaq ? 2 : 0);
  const std::uint64_t a = co_await t.result<std::uint64_t>(x);
  const std::uint64_t b = co_await t.result<std::uint64_t>(y);
  co_return a + b;
}

}  // namespace

void fib_app(Host& h, std::uint32_t n) {
  const auto cutoff = static_cast<std::uint32_t>(kCutoff.get(h.config()));
  const bool epaq = std::get<std::uint64_t>(h.config().value("forkjoin.queues")) >= 3;
  Program p;
  p.name = "fib";
  p.payload = 16;          // GTAP_MAX_TASK_DATA_SIZE in the paper's fib
  p.max_children = 2;      // GTAP_MAX_CHILD_TASKS
  p.first_finish = false;  // Figs. 3-4 and Sec. 6.2 ran fib with ALL_TASKS_FINISH
  const RunInfo r = run(h, p, fib_task, n, cutoff, epaq);
  const std::uint64_t want = cilk::fib_reference(n);
  h.check(r.root_result == want, fmt::format("fib (forkjoin): device fib({}) = {} vs host {}", n, r.root_result, want));
  h.result("fib", r.root_result);
  h.output() << r.root_result << "\n";
}

}  // namespace fg::fj
