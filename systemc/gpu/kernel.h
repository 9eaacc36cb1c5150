// SPDX-License-Identifier: Apache-2.0
// Kernel programming model: a kernel is a C++20 coroutine run once per
// work-item (lane), written as sequential code. Every device operation is a
// co_await on the Lane: memory (load/store/atomics), alu(n), wavefront
// intrinsics, the workgroup barrier, LDS. The lane suspends at the operation;
// the wavefront engine (wavefront.h) issues the lanes waiting at the same
// operation site together as one wavefront instruction and resumes them with
// their results.
//
//   fg::Task<> vecadd(fg::Lane& l, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint32_t n) {
//     std::uint32_t i = l.global_id();
//     if (i < n) {
//       float x = co_await l.load<float>(a + 4 * i);
//       float y = co_await l.load<float>(b + 4 * i);
//       co_await l.store<float>(c + 4 * i, x + y);
//     }
//   }
//
// Device helpers are Task<T> coroutines too (co_await helper(l, ...)); every
// device coroutine takes the Lane& as a parameter so its frame knows its lane.
// The operation site is the source location of the call that creates the
// awaitable (std::source_location), so co_await the operation at once.
#pragma once

#include <bit>
#include <coroutine>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mem/mem_ext.h"

namespace fg {

class Lane;

// Source position of an operation, with files numbered in order of first use
// (so ordering does not depend on where the loader put string literals).
struct Site {
  std::uint32_t file = 0, line = 0, column = 0;
  bool operator==(const Site&) const = default;
  auto operator<=>(const Site&) const = default;
};
Site make_site(const std::source_location& loc);
std::string site_name(const Site& s);
// Whether two locations are the same operation site: one pointer compare in
// the common case (each call site has its own location object), the
// file/line/column otherwise.
bool same_site(const std::source_location& a, const std::source_location& b);

class OpUnit;  // gpu/op.h: a device operation

// The built-in device operations (gpu/ops.cpp).
namespace units {
extern const OpUnit &alu, &alu_fp64, &alu_chain, &alu_sched, &load, &load_acquire, &store_release, &load_async, &wait,
    &store, &atomic, &atomic_nr, &barrier, &ballot, &scan_inclusive, &scan_exclusive, &broadcast, &shuffle, &reduce_add,
    &reduce_min, &reduce_max, &lds_load, &lds_store, &lds_atomic, &fence_release, &fence_acquire, &cu_id, &slot_id,
    &clock, &sleep, &spin, &num_groups, &group_id, &exit, &transmit, &sync_wave, &converge;
}

enum class ValType : std::uint8_t { I32, U32, I64, U64, F32, F64 };

// Comparisons of Lane::spin_until (observed value `cmp` operand), and
// whether every issuing lane's condition must hold or any one's.
enum class SpinCmp : std::uint8_t { Eq, Ne, Ge, Gt, Le, Lt };
enum class SpinMode : std::uint8_t { All, Any };

template <class T>
constexpr ValType val_type() {
  if constexpr (std::is_same_v<T, float>)
    return ValType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return ValType::F64;
  else if constexpr (std::is_signed_v<T> && sizeof(T) == 8)
    return ValType::I64;
  else if constexpr (std::is_signed_v<T>)
    return ValType::I32;
  else if constexpr (sizeof(T) == 8)
    return ValType::U64;
  else
    return ValType::U32;
}

template <class T>
std::uint64_t to_bits(T v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T from_bits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

// The operation a suspended lane waits at: its unit, its operands, and the
// result the unit writes back.
struct PendingOp {
  std::source_location loc;  // the operation site (first: the engine reads it for every lane)
  const OpUnit* unit = nullptr;
  ValType type = ValType::U32;
  AtomicOp aop = AtomicOp::None;
  std::uint8_t size = 4;
  bool bypass_l1 = false;  // loads and stores that go straight to the L2
  std::uint64_t addr = 0, value = 0, compare = 0, n = 0;
  std::uint64_t result = 0;
  std::uint64_t ready = 0;  // async loads: when the value arrives (absolute ps)
  void* data = nullptr;     // unit-specific operand
  Site site() const { return make_site(loc); }
};

// The value of a non-blocking load: usable once waited for (Lane::wait).
template <class T>
struct Async {
  T value{};
  std::uint64_t ready = 0;  // absolute ps
};
template <class T>
struct is_async : std::false_type {};
template <class T>
struct is_async<Async<T>> : std::true_type {};

template <class R>
struct OpAwaiter {
  Lane* lane;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const noexcept;
  R await_resume() const noexcept;
};

template <class T = void>
class Task;

namespace detail {
template <class X>
Lane* as_lane(X& x) {
  if constexpr (std::is_same_v<std::remove_cvref_t<X>, Lane>)
    return &x;
  else
    return nullptr;
}
template <class... A>
Lane* find_lane(A&... a) {
  Lane* r = nullptr;
  ((r = r ? r : as_lane(a)), ...);
  return r;
}

struct PromiseBase {
  Lane* lane = nullptr;
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  std::suspend_always initial_suspend() noexcept { return {}; }
  struct Final {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept;
    void await_resume() noexcept {}
  };
  Final final_suspend() noexcept { return {}; }
  void unhandled_exception() { error = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  template <class... A>
  explicit Promise(A&... a) {
    lane = find_lane(a...);
  }
  T value{};
  Task<T> get_return_object();
  void return_value(T v) { value = std::move(v); }
};
template <>
struct Promise<void> : PromiseBase {
  template <class... A>
  explicit Promise(A&... a) {
    lane = find_lane(a...);
  }
  Task<void> get_return_object();
  void return_void() {}
};
}  // namespace detail

// A device coroutine: the kernel body or a device helper.
template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using handle = std::coroutine_handle<promise_type>;
  Task() = default;
  explicit Task(handle h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~Task() {
    if (h_) h_.destroy();
  }
  handle get() const { return h_; }

  // Awaiting a helper from another device coroutine starts it right away.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept;
  T await_resume() {
    if (h_.promise().error) std::rethrow_exception(h_.promise().error);
    if constexpr (!std::is_void_v<T>) return std::move(h_.promise().value);
  }

 private:
  handle h_;
};

using KernelBody = std::function<Task<void>(Lane&)>;

struct Workgroup;
class Wavefront;

// One work-item. Ids follow OpenCL: global = group * group_size + local.
class Lane {
 public:
  std::uint32_t global_id() const { return global_id_; }
  std::uint32_t local_id() const { return local_id_; }
  std::uint32_t group_id() const { return group_id_; }
  std::uint32_t lane_id() const { return lane_id_; }  // position in the wavefront
  std::uint32_t wave_size() const { return wave_size_; }
  std::uint32_t group_size() const { return group_size_; }
  // When the lane's latest operation completed (absolute ps): a host-side
  // reading for traces and statistics of a runtime, not a device operation
  // (device code reads the time with clock()).
  std::uint64_t now() const { return clock_ ? *clock_ : 0; }
  // The kernel's workgroup count changes while it runs (workgroups that exit,
  // Dispatcher::grow): it is a device operation, get_num_groups().

  using Loc = std::source_location;

  // Any device operation: lanes wait at unit `u`; `fill` sets the operands.
  // Mechanisms define their operations this way (gpu/op.h).
  template <class R = void, class F>
  OpAwaiter<R> op(const OpUnit& u, const Loc& loc, F&& fill) {
    pending.unit = &u;
    pending.loc = loc;
    pending.bypass_l1 = false;
    fill(pending);
    return OpAwaiter<R>{this};
  }

  // n instructions of compute.
  OpAwaiter<void> alu(std::uint64_t n = 1, Loc loc = Loc::current()) {
    return op(units::alu, loc, [&](PendingOp& o) { o.n = n; });
  }
  // n FP64 instructions, each needing the previous one's result (a chain of
  // double multiply-adds): each waits gpu.cu.fp64_latency, at least its SIMD time.
  OpAwaiter<void> alu_fp64(std::uint64_t n = 1, Loc loc = Loc::current()) {
    return op(units::alu_fp64, loc, [&](PendingOp& o) { o.n = n; });
  }
  // n integer instructions known to form a chain, each needing the previous
  // one's result (an index computed through a remainder): each waits
  // gpu.cu.chain_latency, at least its SIMD time. alu(n) is for code whose
  // dependences are not modelled.
  OpAwaiter<void> alu_chain(std::uint64_t n = 1, Loc loc = Loc::current()) {
    return op(units::alu_chain, loc, [&](PendingOp& o) { o.n = n; });
  }
  // n instructions of compiled code whose static schedule takes a lone
  // wavefront `cycles` cycles to issue (the compiler's stall counts, read
  // from its machine code) where gpu.cu.static_stalls is on; else their SIMD
  // time alone, as alu(n). Other wavefronts issue in the stalls.
  OpAwaiter<void> alu_sched(std::uint64_t n, std::uint64_t cycles, Loc loc = Loc::current()) {
    return op(units::alu_sched, loc, [&](PendingOp& o) { o.n = n, o.value = cycles; });
  }
  template <class T>
  OpAwaiter<T> load(std::uint64_t addr, Loc loc = Loc::current()) {
    return op<T>(units::load, loc, [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T); });
  }
  // Acquire load / release store: the accesses of synchronisation through
  // memory (a flag one wavefront publishes and another polls). They take
  // effect in simulated-time order (docs/memory.md); plain loads and stores
  // polling each other are a data race and are ordered only within a quantum.
  template <class T>
  OpAwaiter<T> load_acquire(std::uint64_t addr, Loc loc = Loc::current()) {
    return op<T>(units::load_acquire, loc, [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T); });
  }
  template <class T>
  OpAwaiter<void> store_release(std::uint64_t addr, T v, Loc loc = Loc::current()) {
    return op(units::store_release, loc,
              [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T), o.value = to_bits(v); });
  }
  // Load that bypasses the L1 (GTaP Sec. 4.5: runtime metadata read at the L2).
  template <class T>
  OpAwaiter<T> load_bypass(std::uint64_t addr, Loc loc = Loc::current()) {
    return op<T>(units::load, loc, [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T), o.bypass_l1 = true; });
  }
  // Non-blocking load: the wavefront goes on; co_await wait(a) before using
  // a.value. Several loads in flight give a wavefront memory-level parallelism.
  template <class T>
  OpAwaiter<Async<T>> load_async(std::uint64_t addr, Loc loc = Loc::current()) {
    return op<Async<T>>(units::load_async, loc, [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T); });
  }
  // A non-blocking load that bypasses the L1.
  template <class T>
  OpAwaiter<Async<T>> load_async_bypass(std::uint64_t addr, Loc loc = Loc::current()) {
    return op<Async<T>>(units::load_async, loc,
                        [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T), o.bypass_l1 = true; });
  }
  // Wait until an async load's value has arrived; returns it.
  template <class T>
  OpAwaiter<T> wait(const Async<T>& a, Loc loc = Loc::current()) {
    return op<T>(units::wait, loc, [&](PendingOp& o) { o.ready = a.ready, o.value = to_bits(a.value); });
  }
  // Stores do not hold the wavefront; it retires after they complete.
  template <class T>
  OpAwaiter<void> store(std::uint64_t addr, T v, Loc loc = Loc::current()) {
    return op(units::store, loc, [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T), o.value = to_bits(v); });
  }
  template <class T>
  OpAwaiter<void> store_bypass(std::uint64_t addr, T v, Loc loc = Loc::current()) {
    return op(units::store, loc,
              [&](PendingOp& o) { o.addr = addr, o.size = sizeof(T), o.value = to_bits(v), o.bypass_l1 = true; });
  }
  // Atomics return the old value.
  template <class T>
  OpAwaiter<T> atomic(AtomicOp aop, std::uint64_t addr, T operand, T compare = T{}, Loc loc = Loc::current()) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    return op<T>(units::atomic, loc, [&](PendingOp& o) {
      o.aop = aop, o.addr = addr, o.size = sizeof(T), o.value = to_bits(operand), o.compare = to_bits(compare);
    });
  }
  // Non-returning atomic (a "reduction"): does not hold the wavefront.
  template <class T>
  OpAwaiter<void> atomic_nr(AtomicOp aop, std::uint64_t addr, T operand, Loc loc = Loc::current()) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    return op(units::atomic_nr, loc,
              [&](PendingOp& o) { o.aop = aop, o.addr = addr, o.size = sizeof(T), o.value = to_bits(operand); });
  }
  template <class T>
  OpAwaiter<T> atomic_add(std::uint64_t addr, T v, Loc loc = Loc::current()) {
    return atomic<T>(AtomicOp::Add, addr, v, T{}, loc);
  }
  template <class T>
  OpAwaiter<T> atomic_cas(std::uint64_t addr, T compare, T v, Loc loc = Loc::current()) {
    return atomic<T>(AtomicOp::Cas, addr, v, compare, loc);
  }
  template <class T>
  OpAwaiter<T> atomic_exch(std::uint64_t addr, T v, Loc loc = Loc::current()) {
    return atomic<T>(AtomicOp::Exch, addr, v, T{}, loc);
  }
  template <class T>
  OpAwaiter<T> atomic_min(std::uint64_t addr, T v, Loc loc = Loc::current()) {
    return atomic<T>(std::is_signed_v<T> ? AtomicOp::Min : AtomicOp::UMin, addr, v, T{}, loc);
  }
  template <class T>
  OpAwaiter<T> atomic_max(std::uint64_t addr, T v, Loc loc = Loc::current()) {
    return atomic<T>(std::is_signed_v<T> ? AtomicOp::Max : AtomicOp::UMax, addr, v, T{}, loc);
  }
  // Memory fences. Release: the wavefront waits until its earlier stores and
  // non-returning atomics have completed. Acquire: later loads see what other
  // CUs released (the L1s here are kept coherent by write-invalidation, so it
  // costs an issue slot and orders nothing else; docs/compute-unit.md).
  OpAwaiter<void> fence_release(Loc loc = Loc::current()) {
    return op(units::fence_release, loc, [](PendingOp&) {});
  }
  OpAwaiter<void> fence_acquire(Loc loc = Loc::current()) {
    return op(units::fence_acquire, loc, [](PendingOp&) {});
  }
  // Workgroup barrier: every lane of every wavefront of the workgroup.
  OpAwaiter<void> barrier(Loc loc = Loc::current()) {
    return op(units::barrier, loc, [](PendingOp&) {});
  }
  // Wavefront barrier (CUDA's __syncwarp): the lanes that reach it wait until
  // every live lane of the wavefront has, wherever the others diverged (a
  // runtime whose lanes ran different code meets here before lane 0 acts for
  // all of them). One issue slot per arriving group.
  OpAwaiter<void> sync_wave(Loc loc = Loc::current()) {
    return op(units::sync_wave, loc, [](PendingOp&) {});
  }

  // Reconvergence point (a convergence barrier's wait, BSYNC): lanes that
  // leave a construct whose body ran in a deeper frame (Lane::path's depth)
  // issue here at the construct's own depth, so they go only once no lane of
  // the wavefront is deeper, and those at it in the same frame go together.
  // One issue slot per group and no instruction (compiled rows count their
  // BSYNCs); ready the next cycle.
  OpAwaiter<void> converge(Loc loc = Loc::current()) {
    return op(units::converge, loc, [](PendingOp&) {});
  }

  // Wavefront intrinsics over the lanes that issue together (the active lanes).
  // ballot: bit i set when lane i's predicate holds.
  OpAwaiter<std::uint64_t> ballot(bool pred, Loc loc = Loc::current()) {
    return op<std::uint64_t>(units::ballot, loc, [&](PendingOp& o) { o.value = pred; });
  }
  template <class T>
  OpAwaiter<T> prefix_sum_inclusive(T v, Loc loc = Loc::current()) {
    return typed(units::scan_inclusive, v, loc);
  }
  template <class T>
  OpAwaiter<T> prefix_sum_exclusive(T v, Loc loc = Loc::current()) {
    return typed(units::scan_exclusive, v, loc);
  }
  // The value of lane `from` (which must be active).
  template <class T>
  OpAwaiter<T> broadcast(T v, std::uint32_t from, Loc loc = Loc::current()) {
    return op<T>(units::broadcast, loc,
                 [&](PendingOp& o) { o.type = val_type<T>(), o.value = to_bits(v), o.n = from; });
  }
  // Lane shuffle: each lane gets the value of lane `from` (its own choice;
  // that lane must be active).
  template <class T>
  OpAwaiter<T> shuffle(T v, std::uint32_t from, Loc loc = Loc::current()) {
    return op<T>(units::shuffle, loc, [&](PendingOp& o) { o.type = val_type<T>(), o.value = to_bits(v), o.n = from; });
  }
  template <class T>
  OpAwaiter<T> reduce_add(T v, Loc loc = Loc::current()) {
    return typed(units::reduce_add, v, loc);
  }
  template <class T>
  OpAwaiter<T> reduce_min(T v, Loc loc = Loc::current()) {
    return typed(units::reduce_min, v, loc);
  }
  template <class T>
  OpAwaiter<T> reduce_max(T v, Loc loc = Loc::current()) {
    return typed(units::reduce_max, v, loc);
  }
  // Leader election: the active-lane mask; the leader is its lowest set bit
  // (is_leader(mask)).
  OpAwaiter<std::uint64_t> active_mask(Loc loc = Loc::current()) { return ballot(true, loc); }
  bool is_leader(std::uint64_t mask) const { return mask && std::countr_zero(mask) == static_cast<int>(lane_id_); }

  // Local data store of the workgroup (byte offsets).
  template <class T>
  OpAwaiter<T> lds_load(std::uint32_t offset, Loc loc = Loc::current()) {
    return op<T>(units::lds_load, loc, [&](PendingOp& o) { o.addr = offset, o.size = sizeof(T); });
  }
  template <class T>
  OpAwaiter<void> lds_store(std::uint32_t offset, T v, Loc loc = Loc::current()) {
    return op(units::lds_store, loc, [&](PendingOp& o) { o.addr = offset, o.size = sizeof(T), o.value = to_bits(v); });
  }
  // LDS atomics (lane order within the instruction); return the old value.
  template <class T>
  OpAwaiter<T> lds_atomic(AtomicOp aop, std::uint32_t offset, T operand, T compare = T{}, Loc loc = Loc::current()) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    return op<T>(units::lds_atomic, loc, [&](PendingOp& o) {
      o.aop = aop, o.addr = offset, o.size = sizeof(T), o.value = to_bits(operand), o.compare = to_bits(compare);
    });
  }

  // Hardware identity and time: the CU and slot the wavefront runs in (a
  // restored wavefront may run elsewhere), the CU clock in cycles.
  OpAwaiter<std::uint32_t> cu_id(Loc loc = Loc::current()) {
    return op<std::uint32_t>(units::cu_id, loc, [](PendingOp&) {});
  }
  OpAwaiter<std::uint32_t> slot_id(Loc loc = Loc::current()) {
    return op<std::uint32_t>(units::slot_id, loc, [](PendingOp&) {});
  }
  OpAwaiter<std::uint64_t> clock(Loc loc = Loc::current()) {
    return op<std::uint64_t>(units::clock, loc, [](PendingOp&) {});
  }
  // Timed sleep: the wavefront issues nothing for `cycles` CU cycles (its
  // SIMD is free for others). GTaP's backoff.
  OpAwaiter<void> sleep(std::uint64_t cycles, Loc loc = Loc::current()) {
    return op(units::sleep, loc, [&](PendingOp& o) { o.n = cycles; });
  }

  // ---- the kernel lifecycle (docs/compute-unit.md, "Kernel lifecycle") ----
  // The kernel's current workgroup count and this lane's workgroup id, right
  // after any workgroup exited or the kernel grew.
  OpAwaiter<std::uint32_t> get_num_groups(Loc loc = Loc::current()) {
    return op<std::uint32_t>(units::num_groups, loc, [](PendingOp&) {});
  }
  OpAwaiter<std::uint32_t> get_group_id(Loc loc = Loc::current()) {
    return op<std::uint32_t>(units::group_id, loc, [](PendingOp&) {});
  }
  // End this wavefront now (every live lane, also lanes diverged elsewhere):
  // nothing is saved; from the first of its wavefronts to exit, the workgroup
  // has exited early and no longer counts in the kernel's workgroup count.
  // Every wavefront of the workgroup must reach it (as a workgroup barrier).
  OpAwaiter<void> exit(Loc loc = Loc::current()) {
    return op(units::exit, loc, [](PendingOp&) {});
  }
  // Poll the word at `addr` (an acquire load) until `value cmp operand` holds
  // for every issuing lane, and return the value seen. Between polls the
  // wavefront is blocked on "spin on <what>" and polls again one cycle after
  // the word is written (a wait-on-write monitor: the polls in between are
  // not issued; docs/compute-unit.md). A spin that nothing will ever write to is a
  // deadlock the simulator diagnoses, naming `what`. SpinMode::Any: the
  // wavefront goes on when any issuing lane's condition holds (lanes watching
  // different words: wait until one of them changes).
  template <class T>
  OpAwaiter<T> spin_until(std::uint64_t addr, SpinCmp cmp, T operand, const char* what, SpinMode mode = SpinMode::All,
                          Loc loc = Loc::current()) {
    static_assert(std::is_unsigned_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
    return op<T>(units::spin, loc, [&](PendingOp& o) {
      o.addr = addr, o.size = sizeof(T), o.value = to_bits(operand);
      o.n = static_cast<std::uint64_t>(cmp) | (mode == SpinMode::Any ? 0x100u : 0u);
      o.data = const_cast<char*>(what);
    });
  }
  // A value of the transmit block of a workgroup added by Dispatcher::grow
  // (read from memory before its entry ran; zero for other workgroups).
  template <class T>
  T transmit(std::size_t offset) const {
    static_assert(std::is_trivially_copyable_v<T>);
    T v{};
    if (transmit_ && offset + sizeof(T) <= transmit_->size()) std::memcpy(&v, transmit_->data() + offset, sizeof(T));
    return v;
  }
  // Whether this workgroup was added by Dispatcher::grow (with a transmit
  // block, possibly empty), not launched with its kernel.
  bool transmitted() const { return transmit_ != nullptr; }
  // The front end's read of the transmit block (Dispatcher::grow).
  OpAwaiter<void> load_transmit(std::uint64_t addr, std::uint32_t bytes, Loc loc = Loc::current()) {
    return op(units::transmit, loc, [&](PendingOp& o) { o.addr = addr, o.n = bytes; });
  }

  // Engine state (wavefront.cpp). `pending` is the operation the lane waits
  // at. The flags come first so that the engine's per-lane scan (flags and
  // site) touches one cache line.
  bool done = false;
  bool at_barrier = false;
  bool at_sync = false;    // waits at sync_wave for the rest of its wavefront
  std::uint8_t scope = 0;  // the mechanism whose runtime the lane runs (MechanismScope; 0: the work)
  // Where the lane is in control flow the operation site cannot show (0:
  // nowhere the site does not say): lanes at one site issue together only
  // with the same path (Wavefront::select), e.g. the call frame of a
  // recursion (workloads/forkjoin/serial.h). The top byte is the frame's
  // call depth: lanes in deeper frames issue first, as a reconvergence stack
  // runs its innermost entry while the lanes that left a call wait.
  std::uint32_t path = 0;
  static constexpr unsigned kDepthShift = 24;
  PendingOp pending;
  std::coroutine_handle<> current;  // innermost suspended device coroutine
  // Where the kernel called the mechanism runtime it is in (MechanismScope
  // with a caller; empty otherwise): faults name the kernel's call, not the
  // runtime's operation.
  Loc caller{};

 private:
  friend class Wavefront;
  template <class T>
  OpAwaiter<T> typed(const OpUnit& u, T v, const Loc& loc) {
    return op<T>(u, loc, [&](PendingOp& o) { o.type = val_type<T>(), o.value = to_bits(v); });
  }

  std::uint32_t global_id_ = 0, local_id_ = 0, group_id_ = 0, lane_id_ = 0, wave_size_ = 0, group_size_ = 0;
  const std::vector<unsigned char>* transmit_ = nullptr;  // the workgroup's transmit block
  const std::uint64_t* clock_ = nullptr;                  // its wavefront's ready time (now())
};

template <class R>
void OpAwaiter<R>::await_suspend(std::coroutine_handle<> h) const noexcept {
  lane->current = h;
}
template <class R>
R OpAwaiter<R>::await_resume() const noexcept {
  if constexpr (is_async<R>::value)
    return R{from_bits<decltype(R::value)>(lane->pending.result), lane->pending.ready};
  else if constexpr (!std::is_void_v<R>)
    return from_bits<R>(lane->pending.result);
}

namespace detail {
template <class P>
std::coroutine_handle<> PromiseBase::Final::await_suspend(std::coroutine_handle<P> h) noexcept {
  PromiseBase& p = h.promise();
  if (p.continuation) {
    p.lane->current = p.continuation;
    return p.continuation;
  }
  p.lane->done = true;
  return std::noop_coroutine();
}
template <class T>
Task<T> Promise<T>::get_return_object() {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail

template <class T>
std::coroutine_handle<> Task<T>::await_suspend(std::coroutine_handle<> parent) noexcept {
  h_.promise().continuation = parent;
  h_.promise().lane->current = h_;
  return h_;
}

}  // namespace fg
