// SPDX-License-Identifier: Apache-2.0
#include "runtime/channel.h"

#include <fmt/format.h>

#include <bit>
#include <vector>

#include "aggregator/aggregator.h"
#include "gpu/task_metrics.h"
#include "mem/memory_system.h"
#include "sim/error.h"
#include "yield/yield.h"

namespace fg::chan {

namespace {

[[noreturn]] void full(const Channel& c, std::uint32_t tail, std::uint32_t head, std::uint32_t n) {
  throw SimFault(
      fmt::format("channel '{}' is full: {} CEs requested with {} of {} in use (data tail {}, head {}); "
                  "raise its capacity{}",
                  c.spec().name, n, tail - head, c.spec().capacity, tail, head,
                  n > c.spec().capacity ? " (the request alone exceeds it)" : " or turn yield on (yield.enabled)"));
}

// What cas_reserve returns when the channel lacks room and the wavefront is
// to yield, and what reserve returns for a wavefront's request above the
// capacity that may be split: not 32-bit counts.
constexpr std::uint64_t kFull = std::uint64_t{1} << 32;
constexpr std::uint64_t kOver = std::uint64_t{1} << 33;

// One lane's CAS loop: moves the 32-bit count at `ptr` from its current value
// v to v + n and returns v. With `check`, the move must leave at most the
// capacity in use against the data head; if it would not, the result is
// kFull when yield is on (a request larger than the whole channel never
// fits: a fault either way) and a fault when it is off.
Task<std::uint64_t> cas_reserve(Lane& l, Channel& c, std::uint64_t ptr, std::uint32_t n, bool check) {
  std::uint32_t expected = co_await l.load_acquire<std::uint32_t>(ptr);
  for (;;) {
    if (check) {
      const std::uint32_t head = co_await l.load_acquire<std::uint32_t>(c.layout().data_head);
      if (expected + n - head > c.spec().capacity) {
        if (n <= c.spec().capacity && c.yields) co_return kFull;
        full(c, expected, head, n);
      }
    }
    ++c.cas_attempts;
    const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(ptr, expected, expected + n);
    if (old == expected) break;
    ++c.cas_failures;
    expected = old;
  }
  co_return expected;
}

// Reserve n counts for this lane: by itself (per-lane) or as its share of
// one reservation for the wavefront's active lanes (Fig. 5: prefix sum, one
// lane's CAS, broadcast). kFull: no room (see cas_reserve). kOver (only
// with `may_split`, yield on): the wavefront's total exceeds the capacity,
// nothing reserved.
Task<std::uint64_t> reserve(Lane& l, Channel& c, std::uint64_t ptr, std::uint32_t n, bool check,
                            bool may_split = false) {
  if (c.spec().variant == Variant::PerLane) {
    const std::uint64_t mine = co_await cas_reserve(l, c, ptr, n, check);
    co_return mine;
  }
  const std::uint32_t offset = co_await l.prefix_sum_exclusive<std::uint32_t>(n);
  const std::uint32_t total = co_await l.reduce_add<std::uint32_t>(n);
  const std::uint64_t mask = co_await l.active_mask();
  if (may_split && check && c.yields && total > c.spec().capacity) co_return kOver;  // uniform: no CAS
  std::uint64_t base = 0;
  if (l.is_leader(mask)) base = co_await cas_reserve(l, c, ptr, total, check);
  base = co_await l.broadcast<std::uint64_t>(base, static_cast<std::uint32_t>(std::countr_zero(mask)));
  if (base == kFull) co_return kFull;
  co_return static_cast<std::uint32_t>(base + offset);
}

// Publish control positions [from, from + n): the control tail moves from
// `from` once every earlier reservation has published.
Task<void> publish(Lane& l, Channel& c, std::uint32_t from, std::uint32_t n) {
  for (;;) {
    ++c.cas_attempts;
    const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(c.layout().ctrl_tail, from, from + n);
    if (old == from) break;
    ++c.cas_failures;
  }
}

}  // namespace

// The channel API's instructions are the mechanism's (tasks.channels.sched_instructions).
std::uint8_t tag() {
  static const std::uint8_t t = mechanism_tag(agg::Aggregator::kName);
  return t;
}

Task<Alloc> talloc(Lane& l, Channel& c, std::uint32_t count, bool may_split) {
  const MechanismScope scope(l, tag());
  // Without room the wavefront yields (Sec. 5.3) and tries again once the
  // aggregator restarts it. Per-lane, lanes that got their room wait at the
  // yield with the others (need 0): the wavefront parks as a whole at one
  // site, never with a lane between its reservation and its enq.
  std::uint64_t got = kFull;
  for (;;) {
    if (got == kFull) got = co_await reserve(l, c, c.layout().data_tail, count, true, may_split);
    if (got == kOver) co_return Alloc{c.id(), 0, count, true};  // counted by the round that reserves
    const bool short_of_room = got == kFull;
    std::uint32_t waiting = short_of_room;
    if (c.spec().variant == Variant::PerLane) waiting = co_await l.reduce_add<std::uint32_t>(waiting);
    if (waiting == 0) break;
    co_await yld::yield(l, c.id(), short_of_room ? count : 0);
  }
  ++c.tallocs;
  co_return Alloc{c.id(), static_cast<std::uint32_t>(got), count};
}

Task<void> enq(Lane& l, Channel& c, Alloc a) {
  const MechanismScope scope(l, tag());
  if (a.channel != c.id())
    throw SimFault(
        fmt::format("enq to channel '{}' of {} CEs allocated from channel {} (a CE must be enqueued to the "
                    "channel it was allocated from)",
                    c.spec().name, a.count, a.channel));
  const std::uint32_t pos = static_cast<std::uint32_t>(co_await reserve(l, c, c.layout().ctrl_reserve, a.count, false));
  for (std::uint32_t i = 0; i < a.count; ++i)
    co_await l.store<std::uint32_t>(c.layout().ctrl_addr(pos + i), a.first + i);
  co_await l.fence_release();
  c.enqueued += a.count;
  if (c.spec().variant == Variant::PerLane) {
    co_await publish(l, c, pos, a.count);
    co_return;
  }
  // One lane publishes the wavefront's whole reservation: [pos of the
  // first lane, its end).
  const std::uint32_t total = co_await l.reduce_add<std::uint32_t>(a.count);
  const std::uint64_t mask = co_await l.active_mask();
  const std::uint32_t from =
      co_await l.broadcast<std::uint32_t>(pos, static_cast<std::uint32_t>(std::countr_zero(mask)));
  if (l.is_leader(mask)) co_await publish(l, c, from, total);
  // The join (a real GPU restores its exec mask here): the other lanes wait
  // for the leader's publish. Without it they would run ahead into the next
  // talloc/enq (its sites come first in program order) while the leader
  // spins, and that call's collectives would see only part of the wavefront.
  (void)co_await l.active_mask();
}

Task<Ce> deq(Lane& l, Channel& c, std::uint32_t off) {
  const MechanismScope scope(l, tag());
  const std::uint32_t index = co_await l.load<std::uint32_t>(c.layout().ctrl_addr(off));
  co_return Ce{c.layout().ce_addr(index), index};
}

Task<void> tfree(Lane& l, Channel& c, Ce ce) {
  const MechanismScope scope(l, tag());
  co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, c.layout().done_addr(ce.index), 1);
}

void host_enq(MemorySystem& mem, Channel& c, const void* ces, std::uint32_t count, const std::string& key) {
  const Layout& L = c.layout();
  std::uint32_t tail = 0, head = 0, ctail = 0;
  mem.copy_out(&tail, L.data_tail, 4);
  mem.copy_out(&head, L.data_head, 4);
  mem.copy_out(&ctail, L.ctrl_tail, 4);
  if (tail + count - head > c.spec().capacity)
    throw UserError(fmt::format("{}: {} initial CEs do not fit channel '{}' ({} of {} in use)", key, count,
                                c.spec().name, tail - head, c.spec().capacity));
  const auto* p = static_cast<const unsigned char*>(ces);
  for (std::uint32_t i = 0; i < count; ++i) {
    mem.copy_in(L.ce_addr(tail + i), p + std::size_t{i} * c.spec().ce_size, c.spec().ce_size);
    const std::uint32_t idx = tail + i;
    mem.copy_in(L.ctrl_addr(ctail + i), &idx, 4);
  }
  tail += count, ctail += count;
  mem.copy_in(L.data_tail, &tail, 4);
  mem.copy_in(L.ctrl_reserve, &ctail, 4);
  mem.copy_in(L.ctrl_tail, &ctail, 4);
  c.enqueued += count;
}

}  // namespace fg::chan
