// SPDX-License-Identifier: Apache-2.0
// Fork-join tasks on a persistent kernel: GTaP (Maeda & Taura, 2026) as
// device software (docs/forkjoin.md).
//
// A task function is a C++20 coroutine of type fj::Fn<R> whose first
// parameter is its fj::Ctx; it reaches the lane that runs it through the
// context (the lane changes: a task resumed after a taskwait may run on
// another lane, warp or CU), spawns children and waits for them:
//
//   fj::Fn<std::uint64_t> fib(fj::Ctx& t, std::uint32_t n) {
//     if (n < 2) co_return n;
//     const fj::Child x = co_await t.spawn(fib, n - 1);   // arguments copied into the child
//     const fj::Child y = co_await t.spawn(fib, n - 2);
//     co_await t.taskwait();                              // the children spawned since the last taskwait
//     const std::uint64_t a = co_await t.result<std::uint64_t>(x);
//     const std::uint64_t b = co_await t.result<std::uint64_t>(y);
//     co_return a + b;
//   }
//
// Device operations go through the lane: co_await t.lane().load<T>(a). Hold
// no Lane& across a taskwait. spawn_on (spawn with a queue) and taskwait take
// a queue hint (execution-path-aware queues, forkjoin.queues > 1).
//
// Thread-level tasks (forkjoin.workers=thread) run one per lane; block-level
// tasks (workers=block) one per workgroup: every lane of the workgroup runs
// its own copy of the coroutine (t.lane().local_id() tells them apart), may
// use the workgroup barrier and LDS, and spawns from one lane (the workloads
// guard it with local_id() == 0); LDS does not survive a taskwait.
//
// The runtime (forkjoin.cpp) keeps GTaP's task records in device memory: a
// header (function, generation, state, queue, parent and its generation,
// total and waiting child counts, the ids of its children) and a payload of
// `payload` bytes, the locals GTaP's compiler spills. The coroutine frame
// holds what the payload stands for; the runtime charges the payload's
// stores at every spawn and its loads at every start, and at a taskwait and
// its resumption what the taskwait names (Ctx::Live; the whole payload if
// it names nothing).
// A child's result is stored into its payload and read from there.
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu/kernel.h"

namespace fg {
class Host;
class Config;
}  // namespace fg

namespace fg::fj {

class Runtime;
struct Record;
class Ctx;

// The handle of a spawned child: its place in its parent's child ids.
struct Child {
  std::uint32_t index = 0;
};

namespace detail {
struct FnPromiseBase {
  Lane* lane = nullptr;
  Ctx* ctx = nullptr;
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  std::uint64_t result = 0;  // the returned value's bits
  bool finished = false;
  bool returns = false;  // the task function returns a value (GTaP's compiler stores it; a void one stores nothing)
  // The co_return it left by (its file, line and column; line 0 where it ran
  // off its end, with GCC): GTaP's thread runtime inlines __gtap_finish_task
  // at each return, so lanes that leave by different returns run different
  // copies of it.
  std::source_location ret{};
  static std::size_t last_frame_bytes;  // the size of the last frame allocated (stat)
  static void* operator new(std::size_t n) {
    last_frame_bytes = n;
    return ::operator new(n);
  }
  static void operator delete(void* p) { ::operator delete(p); }
  std::suspend_always initial_suspend() noexcept { return {}; }
  struct Final {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      FnPromiseBase& p = h.promise();
      p.finished = true;
      p.lane->current = p.continuation;
      return p.continuation;
    }
    void await_resume() noexcept {}
  };
  Final final_suspend() noexcept { return {}; }
  void unhandled_exception() { error = std::current_exception(); }
};
}  // namespace detail

template <class R = void>
class [[nodiscard]] Fn {
 public:
  struct promise_type : detail::FnPromiseBase {
    template <class... A>
    explicit promise_type(Ctx& c, A&...) {
      ctx = &c;
    }
    Fn get_return_object() { return Fn(std::coroutine_handle<promise_type>::from_promise(*this)); }
    void return_value(R v, std::source_location at = std::source_location::current()) {
      static_assert(std::is_trivially_copyable_v<R> && sizeof(R) <= 8, "a task's result is at most 8 bytes");
      result = to_bits(v);
      returns = true;
      ret = at;
    }
  };
  explicit Fn(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<detail::FnPromiseBase> release() {
    auto h = std::coroutine_handle<detail::FnPromiseBase>::from_address(h_.address());
    h_ = {};
    return h;
  }

 private:
  std::coroutine_handle<promise_type> h_;
};

template <>
struct Fn<void>::promise_type : detail::FnPromiseBase {
  template <class... A>
  explicit promise_type(Ctx& c, A&...) {
    ctx = &c;
  }
  Fn get_return_object() { return Fn(std::coroutine_handle<promise_type>::from_promise(*this)); }
  void return_void(std::source_location at = std::source_location::current()) { ret = at; }
};

// A task's view of the runtime (one per lane of a block-level task).
class Ctx {
 public:
  Lane& lane() const { return *lane_; }
  std::uint32_t id() const;  // its task id (record)
  bool block() const;        // a block-level task
  // Where the task's own LDS starts (Program::task_lds bytes; block tasks).
  std::uint32_t lds() const;
  // The device address of 8-byte slot `slot` (< Program::local_slots) of the
  // running lane's local memory: the stack of its serial code. CUDA's layout:
  // a slot of the lanes of one warp is one stretch of memory, so lanes at the
  // same depth coalesce.
  std::uint64_t local(std::uint32_t slot) const;
  // The device address of 4-byte word `word` (< 2 x Program::local_slots) of
  // the running lane's local memory, in CUDA's layout: a word of the lanes of
  // one warp (block) is one stretch of memory, 4 bytes per lane (a compiled
  // stack's STL.32 and LDL.32).
  std::uint64_t local_word(std::uint32_t word) const;

  // Spawn f(args...) as a child (arguments copied into its frame); `queue`
  // is the child's queue hint.
  template <class F, class... A>
  Task<Child> spawn(F f, A... args) {
    return spawn_on(0, f, args...);
  }
  template <class F, class... A>
  Task<Child> spawn_on(std::uint32_t queue, F f, A... args) {
    auto make = [f, args...](Ctx& c) { return f(c, args...).release(); };
    return spawn_frames(*lane_, queue, make, Lane::Loc::current());
  }
  // What a taskwait stores into the task's record and what its resumption
  // loads back (bytes, as 8-byte accesses): by default the whole payload,
  // the coroutine frame's live bytes at their largest. GTaP's compiler keeps
  // a task's parameters and the locals live across a taskwait in the record
  // and stores each where it is assigned; a program that knows its fields
  // names them (docs/forkjoin.md, "Task records"): `spill`, the captured
  // locals assigned in the segment that ends at this taskwait (or from the
  // children's results after it); `reload`, the fields the next segment
  // uses.
  static constexpr std::uint32_t kWhole = ~0u;
  struct Live {
    std::uint32_t spill = kWhole, reload = kWhole;
  };
  // Wait for the children spawned since the last taskwait: the task returns
  // to the worker loop and resumes (maybe elsewhere) when the last finishes,
  // in queue `queue` of the warp that ran it. With no children it goes on.
  struct TaskWait {
    Ctx* c;
    std::uint32_t queue;
    Live live;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> h) const noexcept;
    void await_resume() const noexcept {}
  };
  TaskWait taskwait(std::uint32_t queue = 0) { return TaskWait{this, queue, Live{kWhole, kWhole}}; }
  TaskWait taskwait(std::uint32_t queue, Live live) { return TaskWait{this, queue, live}; }
  // A joined child's result (read from its payload).
  template <class R>
  Task<R> result(Child c, Lane::Loc loc = Lane::Loc::current()) {
    return result_as<R>(*lane_, c, loc);
  }

 private:
  friend class Runtime;
  friend struct Record;
  template <class R>
  Task<R> result_as(Lane& l, Child c, Lane::Loc loc) {
    const std::uint64_t bits = co_await result_bits(l, c, loc);
    co_return from_bits<R>(bits);
  }
  Task<Child> spawn_frames(Lane& l, std::uint32_t queue,
                           std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)> make, Lane::Loc loc);
  Task<std::uint64_t> result_bits(Lane& l, Child c, Lane::Loc loc);

  Lane* lane_ = nullptr;
  Record* rec_ = nullptr;
  std::coroutine_handle<detail::FnPromiseBase> frame_;
  bool waiting_ = false;  // suspended at a taskwait
  std::uint32_t wait_queue_ = 0;
  Live live_;  // the last taskwait's record traffic
};

// What a program declares about its tasks (GTaP's compile-time parameters,
// Table 1), per workload: its defaults come from the paper's evaluation
// sources (docs/forkjoin.md), the user's forkjoin.* keys override them.
struct Program {
  std::string name;                // the kernel's name
  std::uint32_t payload = 16;      // GTAP_MAX_TASK_DATA_SIZE: bytes of a record's payload
  std::uint32_t max_children = 2;  // GTAP_MAX_CHILD_TASKS: children over a task's whole life
  bool spawn_only = false;         // GTAP_ASSUME_NO_TASKWAIT: no joins, no parent notification
  bool first_finish = false;       // terminate when the root finishes (else: no worker active)
  bool block = false;              // block-level tasks (forkjoin.workers=block overrides)
  bool block_ok = false;           // the task functions are written for block workers too
  std::uint32_t task_lds = 0;      // LDS bytes per workgroup the tasks use (block tasks; Ctx::lds())
  std::uint32_t local_slots = 0;   // 8-byte slots of local memory per lane (Ctx::local: serial code's stack)
};

// The outcome of one run.
struct RunInfo {
  double kernel_ns = 0;
  std::uint32_t groups = 0, warps = 0;
  std::uint64_t root_result = 0;  // the root task's result bits
};

// Run `root` (a task function made for the root's context) as the root task
// of a persistent kernel; returns when every worker has ended. Records the
// workload results kernel_ns, workers, and the runtime's statistics.
RunInfo run_root(Host& h, const Program& p, std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)> root);
template <class F, class... A>
RunInfo run(Host& h, const Program& p, F f, A... args) {
  return run_root(h, p, [f, args...](Ctx& c) { return f(c, args...).release(); });
}

// Reconvergence (docs/forkjoin.md, "Reconvergence"). A warp's lanes issue
// together only at the same operation site with the same Lane::path, and the
// lanes with the deepest path go first (Wavefront::select). The fork-join
// programs (workloads/forkjoin/serial.h) and this runtime use the path's depth as the nesting of the
// compiled code's constructs, so that lanes reconverge where the compiled
// code's convergence barriers make them (BSSY/BSYNC, at a construct's
// immediate post-dominator): the body of a loop whose lanes leave it at
// different trips, or of a call, runs one level deeper than the construct,
// and the lanes that leave it meet at the construct's level (Lane::converge)
// before going on, once no lane is still inside. A call takes two levels:
// its prologue and epilogue at the first, its body at the second. A task:
// the worker loop at 0; the task function's frame at 1 (its prologue and
// state dispatch tagged with its function; its join or finish, inlined in
// GTaP at each taskwait and return, with its function, state and the return
// it left by; its epilogue with its function), its body at 2 (tagged with
// its function and the state it was called in: the cases of GTaP's state
// machine are different code), the runtime's spawn at 3.
inline constexpr std::uint32_t kPathLow = (1u << Lane::kDepthShift) - 1;
constexpr std::uint32_t path_depth(std::uint32_t path) { return path >> Lane::kDepthShift; }
constexpr std::uint32_t at_depth(std::uint32_t path, std::uint32_t depth) {
  return (std::min<std::uint32_t>(depth, 255) << Lane::kDepthShift) | (path & kPathLow);
}
// The path one level deeper (a construct's body).
constexpr std::uint32_t deeper(std::uint32_t path) { return at_depth(path, path_depth(path) + 1); }
// `path` with `tag` mixed into its low bits, its depth kept: code that is
// different code on the GPU (another copy of an inlined function, another
// branch) though it runs the same operation sites here.
constexpr std::uint32_t tagged(std::uint32_t path, std::uint32_t tag) {
  return (path & ~kPathLow) | ((path * 0x85EBCA6Bu + tag * 0x9E3779B1u + 0x27D4EB2Fu) & kPathLow);
}
// Enter a construct's body: the lane's path one level deeper; returns the
// path to leave() with.
inline std::uint32_t enter_body(Lane& l) {
  const std::uint32_t saved = l.path;
  l.path = deeper(saved);
  return saved;
}
// Leave a construct's body: back at `saved`, the lanes meet (co_await it).
inline OpAwaiter<void> leave(Lane& l, std::uint32_t saved, Lane::Loc loc = Lane::Loc::current()) {
  l.path = saved;
  return l.converge(loc);
}

// GTaP's struct TaskHeader (84591ae: jan2026, 14669e9: feb2026,
// runtime/{thread,block}/gtap_runtime_*.cuh) as C lays it out: each field's
// byte offset after the 8-byte function pointer at 0, kHeaderNoField for a
// field the struct does not have, and the struct's size. `max_children` is
// GTAP_MAX_CHILD_TASKS; `spawn_only` is GTAP_ASSUME_NO_TASKWAIT; `queues`
// is GTAP_NUM_QUEUES (feb2026's spawn-only thread header keeps the queue only
// with several).
inline constexpr std::uint32_t kHeaderNoField = ~0u;
struct HeaderLayout {
  std::uint32_t gen, state, queue, parent, pgen, total, waiting, children, bytes;
};
HeaderLayout header_layout(bool feb2026, bool block, bool spawn_only, std::uint32_t max_children, std::uint32_t queues);

// GTaP's victim choice (forkjoin.victim=clock; runtime/common/
// gtap_runtime_common.cuh at 84591ae): xorshift32 of the clock's low 32 bits
// plus the worker's index times 2654435761 (thread workers) or 1234 (block
// workers), modulo the workers; the next worker when it is the thief itself.
std::uint32_t clock_victim(std::uint64_t clock, std::uint32_t worker, std::uint32_t workers, bool block);

// The forkjoin mechanism's name (WorkloadInfo::mechanisms) and whether the
// forkjoin.* keys are the runtime's (for a workload's `mechanism` key).
inline constexpr const char* kName = "forkjoin";
// The block-level setting the user chose, else the program's.
bool block_workers(const Config& c, bool program_default);

}  // namespace fg::fj
