// SPDX-License-Identifier: Apache-2.0
// N-Queens on the fork-join runtime (GTaP Sec. 6.2, Figs. 3, 4 and 10): a
// task nq(row, cols, left, right) spawns one child per free square of its
// row, with no taskwait (spawn-only, GTAP_ASSUME_NO_TASKWAIT); below the
// cutoff depth a task completes its board with a serial bitmask search (a
// recursion replayed on the lane, forkjoin/serial.h) and counts each
// solution with an atomic add. The paper's record: 20-byte
// payload (5 ints), N children (evaluation/*/nqueens/*.cu at b611dde).
#include <fmt/format.h>

#include "forkjoin/apps.h"
#include "forkjoin/serial.h"
#include "gpu/host.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"

namespace fg::fj {
namespace {

const Param<std::uint64_t> kCutoff{"queens.cutoff",
                                   7,
                                   "rows",
                                   "fork-join queens: tasks for rows up to it, a serial search below (GTaP Sec. 6.2 "
                                   "and Figs. 3-4: 7)",
                                   {{0}, {16}}};

// The serial search (the paper's recursive bitmask backtracking,
// serial_search in GTaP 84591ae evaluation/3-epaq/nq/nq_queue_1.cu, the same
// in its Figs. 3-4 programs) as clang -O3 and ptxas compile it for sm_90
// (counted from the machine code, clang 14 and ptxas 13.0, 2026-11-29):
// prologue 22 instructions, 10 of them the frame's stores (40 B: the return
// address, column, left, down, right, the free squares, row + 1, two saved
// convergence barriers), the test for a solution; then a solution's 9
// (ptxas aggregates its atomic add over the warp: the model's task adds the
// count after the search) or the free-square mask and the dead-end test, 9;
// 2 at the loop's entry, 13 per call (the lowest free square, its removal,
// five arguments, the return address, CALL), 2 per back-edge, 1 at the
// loop's exit; epilogue 15 with its 10 restores. Their static schedule
// (ptxas's stall counts, docs/forkjoin.md "Compiled schedules"): prologue
// 73 cycles, a solution 29, the mask and dead-end test 35, the loop's entry
// 8, a call 29, a back-edge 18, the loop's exit 5, the epilogue 45 up to
// its last restore's issue, 3 more to the return and 6 for it; a leaf
// 156-162 cycles for 46 instructions.
constexpr CallShape kSearch{22 - 10, 15 - 10, 10, 73 - 10, 45 - 9, 2, 6};

std::uint64_t search(std::uint32_t full, std::uint32_t cols, std::uint32_t left, std::uint32_t right,
                     std::vector<Step>& steps) {
  steps.push_back({Ev::Enter});
  std::uint64_t n = 0;
  if (cols == full) {
    steps.push_back({Ev::Alu, 9, 29});
    n = 1;
  } else {
    steps.push_back({Ev::Alu, 9, 35});
    if (const std::uint32_t free0 = full & ~(cols | left | right)) {
      steps.push_back({Ev::Alu, 2, 8});
      for (std::uint32_t free = free0; free; free &= free - 1) {
        const std::uint32_t p = free & (~free + 1);
        steps.push_back({Ev::Alu, 13, 29});
        n += search(full, cols | p, (left | p) << 1 & full, (right | p) >> 1, steps);
        steps.push_back({Ev::Alu, 2, 18});
      }
      steps.push_back({Ev::Alu, 1, 5});
    }
  }
  steps.push_back({Ev::Exit});
  return n;
}

Fn<void> nq_task(Ctx& t, std::uint64_t answer, std::uint32_t n, std::uint32_t cutoff, bool epaq, std::uint32_t row,
                 std::uint32_t cols, std::uint32_t left, std::uint32_t right) {
  const std::uint32_t full = n >= 32 ? ~0u : (1u << n) - 1;
  if (row == n) {
    co_await t.lane().atomic_nr<std::uint32_t>(AtomicOp::Add, answer, 1u);
    co_return;
  }
  if (row > cutoff) {
    std::vector<Step> steps;
    const std::uint64_t found = search(full, cols, left, right, steps);
    co_await replay(t.lane(), t, steps, kSearch);
    for (std::uint64_t i = 0; i < found; ++i) co_await t.lane().atomic_nr<std::uint32_t>(AtomicOp::Add, answer, 1u);
    co_return;
  }
  co_await t.lane().alu(3);  // the free-square mask
  for (std::uint32_t free = full & ~(cols | left | right); free; free &= free - 1) {
    const std::uint32_t p = free & (~free + 1);
    const std::uint32_t q = epaq && row + 1 > cutoff ? 1 : 0;
    co_await t.spawn_on(q, nq_task, answer, n, cutoff, epaq, row + 1, cols | p, (left | p) << 1 & full,
                        (right | p) >> 1);
  }
}

}  // namespace

std::uint32_t queens_local_slots(std::uint32_t n) { return stack_slots(n + 1, kSearch.frame); }

void queens_app(Host& h, std::uint32_t n, std::uint64_t want) {
  const auto cutoff = static_cast<std::uint32_t>(kCutoff.get(h.config()));
  const bool epaq = std::get<std::uint64_t>(h.config().value("forkjoin.queues")) >= 2;
  Program p;
  p.name = "queens";
  p.payload = 20;                         // GTAP_MAX_TASK_DATA_SIZE in the paper's nqueens: 5 ints
  p.max_children = n;                     // GTAP_MAX_CHILD_TASKS = N
  p.spawn_only = true;                    // GTAP_ASSUME_NO_TASKWAIT
  p.first_finish = false;                 // spawn-only: ALL_TASKS_FINISH
  p.local_slots = queens_local_slots(n);  // the serial search's stack: a frame per row
  const std::uint64_t answer = h.upload(std::vector<std::uint32_t>{0});
  run(h, p, nq_task, answer, n, cutoff, epaq, 0u, 0u, 0u, 0u);
  const std::uint64_t got = h.download<std::uint32_t>(answer, 1)[0];
  h.check(got == want, fmt::format("queens (forkjoin): device count for {}x{} = {} vs host {}", n, n, got, want));
  h.result("solutions", got);
  h.output() << got << "\n";
}

}  // namespace fg::fj
