// SPDX-License-Identifier: Apache-2.0
// The cooperative-kernel programming model (Sorensen, Evrard, Donaldson, FSE
// 2017, Sec. 3.1 and App. A) as device code on the coop mechanism's
// operations (systemc/coop/coop.h); docs/cooperative.md.
//
//   co_await coop::offer_kill(l);                  // workgroup-level: may end the workgroup here
//   const std::uint32_t k = co_await coop::request_fork(l, vars);   // k new workgroups, ids M..M+k-1
//   if (coop::joined(l)) vars = coop::transmitted<Vars>(l);         // a forked workgroup's start
//   co_await coop::global_barrier(l, b);           // kernel-level
//   const std::uint32_t m = co_await coop::resizing_barrier(l, b, vars);  // M may change here
//   const std::uint32_t n = co_await l.get_num_groups();  const std::uint32_t id = co_await l.get_group_id();
//
// offer_kill and request_fork are workgroup-level (every thread of the
// workgroup reaches the same call); the barriers kernel-level (every thread
// of every active workgroup). request_fork's new workgroups start at the
// kernel's entry with the forking workgroup's thread 0's transmit variables
// (`vars`, trivially copyable; the kernel puts the point to resume at in
// them, as the prototype's restoration context does) and run the code after
// the call from there; their other variables are undefined.
//
// resizing_barrier is the paper's resizing_global_barrier: at it the
// workgroup count may change to any M' in (0, N], workgroups [0, min(M, M'))
// survive, and the new ones behave as if forked by workgroup 0 (App. A's
// rewrite). It returns the workgroup count of the interval after it. Two
// implementations (coop.barrier): plain, the paper's single master/slave
// barrier whose slaves offer to die on arrival (Sec. 4.2), and query, whose
// master asks the scheduler how many it needs and releases them all at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "coop/coop.h"
#include "gpu/kernel.h"

namespace fg {
class Host;
}

namespace fg::coop {

// The words of one cooperative kernel's barriers in device memory (each on
// its own line), and its channel's M (the master watches it).
struct Barrier {
  std::uint64_t arrived = 0, generation = 0, size = 0, count = 0;
  std::uint64_t m = 0;  // the kernel's M (coop::Kernel::m)
  bool query = false;   // the query-based resizing barrier
  const char* what = nullptr;
  // For kernel `k` (Scheduler::prepare); coop.barrier picks plain or query.
  static Barrier make(Host& h, const Kernel& k, const std::string& name);
};

// Every call takes its caller's source location: the faults and the
// diagnoses name the kernel's call site, not the runtime's.

// Workgroup-level: the scheduler may take this workgroup (it then ends
// here). It starts with a workgroup barrier (as the prototype's does), which
// also reconverges lanes that diverged before the call.
Task<void> offer_kill(Lane& l, Lane::Loc loc = Lane::Loc::current());
// Workgroup-level: new workgroups granted (0 when none); a workgroup barrier
// first, as offer_kill.
Task<std::uint32_t> request_fork(Lane& l, const void* transmit, std::uint32_t bytes,
                                 Lane::Loc loc = Lane::Loc::current());
template <class T>
Task<std::uint32_t> request_fork(Lane& l, const T& transmit, Lane::Loc loc = Lane::Loc::current()) {
  static_assert(std::is_trivially_copyable_v<T>);
  return request_fork(l, &transmit, sizeof(T), loc);
}
// A kernel with no transmit variables (Table 1's game): the new workgroups
// start at the entry with nothing; coop::joined still tells them apart.
inline Task<std::uint32_t> request_fork(Lane& l, Lane::Loc loc = Lane::Loc::current()) {
  return request_fork(l, nullptr, 0, loc);
}
// The workgroups the scheduler still needs back (Sec. 4.2's query).
OpAwaiter<std::uint32_t> query(Lane& l, Lane::Loc loc = Lane::Loc::current());

// A workgroup started by request_fork or by a resizing barrier's growth,
// not by the launch (its transmit block may be empty).
inline bool joined(const Lane& l) { return l.transmitted(); }
template <class T>
T transmitted(const Lane& l) {
  return l.transmit<T>(0);
}

// Kernel-level barrier of the active workgroups (M does not change here).
Task<void> global_barrier(Lane& l, const Barrier& b, Lane::Loc loc = Lane::Loc::current());
// Kernel-level resizing barrier; returns the workgroups of the next interval.
Task<std::uint32_t> resizing_barrier(Lane& l, const Barrier& b, const void* transmit, std::uint32_t bytes,
                                     Lane::Loc loc = Lane::Loc::current());
template <class T>
Task<std::uint32_t> resizing_barrier(Lane& l, const Barrier& b, const T& transmit,
                                     Lane::Loc loc = Lane::Loc::current()) {
  static_assert(std::is_trivially_copyable_v<T>);
  return resizing_barrier(l, b, &transmit, sizeof(T), loc);
}

}  // namespace fg::coop
