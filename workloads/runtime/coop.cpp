// SPDX-License-Identifier: Apache-2.0
#include "runtime/coop.h"

#include <deque>

#include <fmt/format.h>

#include "gpu/host.h"
#include "gpu/task_metrics.h"
#include "mem/memory_system.h"
#include "sim/config.h"

namespace fg::coop {

namespace {

// The paper's two implementations of the resizing barrier (Sec. 4.2). The
// plain one is the first it describes; the query one gathers in one barrier.
const Param<std::string> kBarrier{"coop.barrier", "plain", std::vector<std::string>{"plain", "query"},
                                  "resizing barrier (Sorensen et al. Sec. 4.2): plain (slaves offer_kill on "
                                  "arrival, the master forks) or query (the master asks how many to give back and "
                                  "releases them together)"};

std::uint8_t tag() {
  static const std::uint8_t t = mechanism_tag(Scheduler::kName);
  return t;
}

// The operations themselves, for code whose workgroup is already together.
OpAwaiter<void> kill_now(Lane& l, Lane::Loc loc = Lane::Loc::current()) {
  return l.op(kill_unit(), loc, [](PendingOp&) {});
}
// release: a resizing barrier's generation word and its value before the
// release (the new workgroups wait for it to change); 0: none.
OpAwaiter<std::uint32_t> fork_now(Lane& l, const void* transmit, std::uint32_t bytes, std::uint64_t release = 0,
                                  std::uint32_t generation = 0, Lane::Loc loc = Lane::Loc::current()) {
  return l.op<std::uint32_t>(fork_unit(), loc, [&](PendingOp& o) {
    o.data = const_cast<void*>(transmit);
    o.n = bytes;
    o.addr = release;
    o.value = generation;
  });
}

}  // namespace

Barrier Barrier::make(Host& h, const Kernel& k, const std::string& name) {
  static std::deque<std::string> names;  // diagnoses may name it at any time
  names.push_back(fmt::format("resizing barrier '{}'", name));
  const unsigned line = h.memory().line_size();
  Barrier b;
  for (std::uint64_t* w : {&b.arrived, &b.generation, &b.size, &b.count}) {
    *w = h.memory().allocate(line, line);
    const std::uint32_t zero = 0;
    h.copy_in(*w, &zero, 4);
  }
  b.m = k.m;
  b.query = kBarrier.get(h.config()) == "query";
  b.what = names.back().c_str();
  return b;
}

Task<void> offer_kill(Lane& l, Lane::Loc loc) {
  const MechanismScope scope(l, tag(), loc);
  co_await l.barrier();
  co_await kill_now(l);
}

Task<std::uint32_t> request_fork(Lane& l, const void* transmit, std::uint32_t bytes, Lane::Loc loc) {
  const MechanismScope scope(l, tag(), loc);
  co_await l.barrier();
  const std::uint32_t k = co_await fork_now(l, transmit, bytes);
  co_return k;
}

OpAwaiter<std::uint32_t> query(Lane& l, Lane::Loc loc) {
  return l.op<std::uint32_t>(query_unit(), loc, [](PendingOp&) {});
}

Task<void> global_barrier(Lane& l, const Barrier& b, Lane::Loc loc) {
  const MechanismScope scope(l, tag(), loc);
  co_await l.barrier();
  if (l.local_id() == 0) {
    const std::uint32_t m = co_await l.get_num_groups();
    const std::uint32_t gen = co_await l.load_acquire<std::uint32_t>(b.generation);
    const std::uint32_t before = co_await l.atomic_add<std::uint32_t>(b.count, 1u);
    if (before + 1 == m) {
      co_await l.atomic_exch<std::uint32_t>(b.count, 0u);
      co_await l.store_release<std::uint32_t>(b.generation, gen + 1);
    } else {
      co_await l.spin_until<std::uint32_t>(b.generation, SpinCmp::Ne, gen, b.what);
    }
  }
  co_await l.barrier();
}

Task<std::uint32_t> resizing_barrier(Lane& l, const Barrier& b, const void* transmit, std::uint32_t bytes,
                                     Lane::Loc loc) {
  const MechanismScope scope(l, tag(), loc);
  co_await l.barrier();
  const std::uint32_t id = co_await l.get_group_id();
  if (id != 0) {
    // A slave: the plain barrier offers to die on arrival.
    if (!b.query) co_await kill_now(l);
    if (l.local_id() == 0) {
      const std::uint32_t gen = co_await l.load_acquire<std::uint32_t>(b.generation);
      co_await l.atomic_add<std::uint32_t>(b.arrived, 1u);
      co_await l.spin_until<std::uint32_t>(b.generation, SpinCmp::Ne, gen, b.what);
    }
    co_await l.barrier();
    const std::uint32_t size = co_await l.load_acquire<std::uint32_t>(b.size);
    // The query barrier's slaves the scheduler claimed: each gives itself up
    // once it is the highest (only M-1 may die), highest first.
    if (b.query && id >= size) {
      for (;;) {
        if (l.local_id() == 0) co_await l.spin_until<std::uint32_t>(b.m, SpinCmp::Le, id + 1, b.what);
        co_await l.barrier();
        co_await kill_now(l);
      }
    }
    co_return size;
  }
  // The master: wait until every slave still active has arrived. Slaves
  // that die on arrival lower M instead, so two lanes watch the arrivals
  // and M and wake when either changes.
  std::uint32_t gen = 0;
  if (l.local_id() < 2) {
    const std::uint64_t word = l.local_id() == 0 ? b.arrived : b.m;
    gen = co_await l.load_acquire<std::uint32_t>(b.generation);
    for (;;) {
      const std::uint32_t v = co_await l.load_acquire<std::uint32_t>(word);
      const std::uint32_t arrived = co_await l.broadcast<std::uint32_t>(v, 0);
      const std::uint32_t m = co_await l.broadcast<std::uint32_t>(v, 1);
      if (arrived + 1 >= m) break;
      co_await l.spin_until<std::uint32_t>(word, SpinCmp::Ne, v, b.what, SpinMode::Any);
    }
  }
  co_await l.barrier();
  std::uint32_t give_back = 0;
  if (b.query) give_back = co_await query(l);
  // The new workgroups join the slaves: they wait for this barrier's release
  // (thread 0 holds its generation), so none reaches the next barrier before
  // the master has reset this one.
  if (give_back == 0) co_await fork_now(l, transmit, bytes, b.generation, gen);
  const std::uint32_t m = co_await l.get_num_groups();
  const std::uint32_t size = m - give_back;
  if (l.local_id() == 0) {
    co_await l.store<std::uint32_t>(b.size, size);
    co_await l.store<std::uint32_t>(b.arrived, 0u);
    co_await l.store_release<std::uint32_t>(b.generation, gen + 1);
  }
  co_await l.barrier();
  co_return size;
}

}  // namespace fg::coop
