// SPDX-License-Identifier: Apache-2.0
// fib on the fork-join runtime (GTaP Sec. 6.2, Figs. 3, 4 and 10): fib(n)
// spawns fib(n-1) and fib(n-2), waits for both and returns their sum, with no
// cutoff (fib.cutoff > 0: GTaP's Fig. 10 program, whose tasks below the
// cutoff compute serially, a recursion replayed on the lane as
// forkjoin/serial.h describes, and whose spawns pick queue 1 for them and
// taskwaits queue 2). The paper's record: a 16-byte payload, 2 children
// (evaluation/*/fib/*.cu at b611dde).
#include <fmt/format.h>

#include "cilk/cilk.h"
#include "forkjoin/apps.h"
#include "forkjoin/serial.h"
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

// fib_sequential (GTaP 84591ae, evaluation/3-epaq/fib/fib_queue_1.cu) as
// clang -O3 and ptxas compile it for sm_90 (counted from the machine code,
// clang 14 and ptxas 13.0, 2026-11-29; GTaP's own clang is LLVM 21):
// accumulator tail-recursion elimination leaves one call in a loop,
// `acc = 0; while (n >= 2) { acc += fib(n - 1); n -= 2; } return acc + n`,
// so fib(n) makes F(n+1) invocations. Prologue 13 instructions, 6 of them
// the frame's stores (24 B: the return address, n, acc, the loop's n, the
// caller's convergence barrier), epilogue 11 with its 6 restores; 2 at the
// loop's entry, 5 at a call (n - 1, n - 2, the return address, CALL) and 4
// after it (acc +=, the loop's test and branch). Their static schedule
// (ptxas's stall counts, docs/forkjoin.md "Compiled schedules"): prologue
// 46 cycles, the loop's entry 8,
// a call 15, after it 18 (its test's 13 cycles to the branch), the
// epilogue 27 up to its last restore's issue, 3 more to the return and 6
// for it; a leaf 82 cycles for 24 instructions.
constexpr CallShape kFib{13 - 6, 11 - 6, 6, 46 - 6, 27 - 5, 2, 6};

// The serial fib of a task below the cutoff (the paper's fib_sequential: a
// plain recursive function), its invocations recorded for the replay.
std::uint64_t serial_fib(std::uint32_t n, std::vector<Step>& steps) {
  steps.push_back({Ev::Enter});
  std::uint64_t acc = 0;
  if (n >= 2) {
    steps.push_back({Ev::Alu, 2, 8});
    while (n >= 2) {
      steps.push_back({Ev::Alu, 5, 15});
      acc += serial_fib(n - 1, steps);
      steps.push_back({Ev::Alu, 4, 18});
      n -= 2;
    }
  }
  steps.push_back({Ev::Exit});
  return acc + n;
}

// The paper's fib's record (GTaP's compiler, Sec. 4.3): the parameter n and
// the captured locals a and b, which are assigned from the children's
// results after the taskwait (two 4-byte stores, charged at the taskwait);
// what follows the taskwait uses neither n nor a field loaded back.
constexpr Ctx::Live kFibLive{8, 0};

Fn<std::uint64_t> fib_task(Ctx& t, std::uint32_t n, std::uint32_t cutoff, bool epaq) {
  if (n < 2) co_return n;
  if (n < cutoff) {
    std::vector<Step> steps;
    const std::uint64_t v = serial_fib(n, steps);
    co_await replay(t.lane(), t, steps, kFib);
    co_return v;
  }
  const std::uint32_t q1 = epaq && n - 1 < cutoff ? 1 : 0, q2 = epaq && n - 2 < cutoff ? 1 : 0;
  const Child x = co_await t.spawn_on(q1, fib_task, n - 1, cutoff, epaq);
  const Child y = co_await t.spawn_on(q2, fib_task, n - 2, cutoff, epaq);
  co_await t.taskwait(epaq ? 2 : 0, kFibLive);
  const std::uint64_t a = co_await t.result<std::uint64_t>(x);
  const std::uint64_t b = co_await t.result<std::uint64_t>(y);
  co_return a + b;
}

}  // namespace

std::uint32_t fib_local_slots(const Config& c) {
  return stack_slots(static_cast<std::uint32_t>(kCutoff.get(c)), kFib.frame);
}

void fib_app(Host& h, std::uint32_t n) {
  const auto cutoff = static_cast<std::uint32_t>(kCutoff.get(h.config()));
  const bool epaq = std::get<std::uint64_t>(h.config().value("forkjoin.queues")) >= 3;
  Program p;
  p.name = "fib";
  p.payload = 16;                                   // GTAP_MAX_TASK_DATA_SIZE in the paper's fib
  p.max_children = 2;                               // GTAP_MAX_CHILD_TASKS
  p.first_finish = false;                           // Figs. 3-4 and Sec. 6.2 ran fib with ALL_TASKS_FINISH
  p.local_slots = stack_slots(cutoff, kFib.frame);  // the serial recursion's stack: a frame per level below the cutoff
  const RunInfo r = run(h, p, fib_task, n, cutoff, epaq);
  const std::uint64_t want = cilk::fib_reference(n);
  h.check(r.root_result == want, fmt::format("fib (forkjoin): device fib({}) = {} vs host {}", n, r.root_result, want));
  h.result("fib", r.root_result);
  h.output() << r.root_result << "\n";
}

}  // namespace fg::fj
