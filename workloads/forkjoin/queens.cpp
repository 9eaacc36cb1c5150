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

// The serial search (the paper's recursive bitmask backtracking), its calls
// recorded for the replay on the lane (forkjoin/serial.h): a position with a
// free square is a call that recurses, one without (a solution or a dead end)
// a leaf. Per position, the function's own work: the free-square mask, the
// lowest bit, the updates and the loop (an assumption, as the channel
// version's per-square cost).
constexpr std::uint64_t kInstrPerNode = 8;
// The search's frame (GTaP's serial_search): the return address and the six
// registers live across its calls (row, column, left, down, right and the
// free squares left): 32 B.
constexpr std::uint32_t kFrameWords = 4;

std::uint64_t search(std::uint32_t full, std::uint32_t cols, std::uint32_t left, std::uint32_t right,
                     std::vector<Ev>& ev) {
  if (cols == full) {
    ev.push_back(Ev::Leaf);
    return 1;
  }
  const std::uint32_t free0 = full & ~(cols | left | right);
  if (!free0) {
    ev.push_back(Ev::Leaf);
    return 0;
  }
  ev.push_back(Ev::Call);
  std::uint64_t n = 0;
  for (std::uint32_t free = free0; free; free &= free - 1) {
    const std::uint32_t p = free & (~free + 1);
    n += search(full, cols | p, (left | p) << 1 & full, (right | p) >> 1, ev);
  }
  ev.push_back(Ev::Return);
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
    std::vector<Ev> ev;
    const std::uint64_t found = search(full, cols, left, right, ev);
    co_await replay(t.lane(), t, ev, kInstrPerNode, kFrameWords);
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

std::uint32_t queens_local_slots(std::uint32_t n) { return n * kFrameWords; }

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
