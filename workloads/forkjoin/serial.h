// SPDX-License-Identifier: Apache-2.0
// Serial recursion on one lane, as a GPU runs it (docs/forkjoin.md, "Serial
// code"): the fork-join programs' cutoff code (fib's serial fib, queens'
// serial search, mergesort's serial mergesort) is recursive, and a GPU
// compiles a recursive call as an ABI call. What the code does is what
// clang -O3 and ptxas make of the paper's functions for sm_90 (counted from
// the machine code, 2026-11-29: docs/forkjoin.md): every invocation, a leaf
// too (ptxas does not shrink-wrap), saves its frame (the return address, the
// registers it keeps across its calls, the caller's convergence barrier) in
// its prologue as 4-byte stores to the lane's stack and restores it in its
// epilogue, the return waiting for every restore; the invocation arms a
// convergence barrier on entry and waits at it before returning, so the
// warp's lanes that entered it together leave it together. A lane's
// invocations are replayed as device operations: an Enter (the prologue's
// instructions and the frame's stores at its depth), Alu steps (the body's
// instructions and call sites, in the invocation's frame), an Exit (the
// restores in flight together, a wait for the last, the epilogue's
// instructions). The lanes of a warp replay their own calls, so lanes whose
// recursions differ diverge at every call and return, as they do on the GPU
// (lanes at the same operation in the same frame issue together; the stack
// words of lanes at one depth are adjacent, CUDA's local-memory layout, so
// they coalesce).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu/kernel.h"
#include "runtime/forkjoin.h"

namespace fg::fj {

// A stretch of compiled code: its instructions and its static schedule, the
// cycles a lone warp takes to issue it (docs/forkjoin.md, "Compiled
// schedules"), charged by sched() at the caller's site.
struct Code {
  std::uint32_t n = 0, cycles = 0;
};
inline OpAwaiter<void> sched(Lane& l, const Code& c, Lane::Loc loc = Lane::Loc::current()) {
  return l.alu_sched(c.n, c.cycles, loc);
}

// A compiled recursive function: its prologue's instructions besides the
// frame's stores, its epilogue's besides the restores (the stack pointer's
// add and the return two of them), its frame in 4-byte words (all of them
// saved and restored by every invocation); and their static schedule
// (Lane::alu_sched; docs/forkjoin.md, "Compiled schedules"): the prologue's
// cycles less one per store (the model issues each), the epilogue's up to
// its last restore's issue less one per earlier restore (the restores issue
// 4 cycles apart, the convergence barrier's wait and its register's restore
// among them), the stack pointer's add after it, the return's own after its
// wait for the restores.
struct CallShape {
  std::uint32_t prologue, epilogue, frame;
  std::uint32_t prologue_cycles, epilogue_cycles, tail_cycles, ret_cycles;
};

// A lane's invocations in order: Enter (an invocation, one level deeper),
// Alu (`n` instructions of the current invocation's body and call sites,
// `cycles` their static schedule), Exit (the end of the innermost
// invocation).
enum class Ev : std::uint8_t { Enter, Alu, Exit };
struct Step {
  Ev e;
  std::uint32_t n = 0, cycles = 0;
};

// The deepest invocation of `steps` (the stack it needs, in frames).
inline std::uint32_t depth_of(const std::vector<Step>& steps) {
  std::uint32_t d = 0, most = 0;
  for (const Step& s : steps) {
    if (s.e == Ev::Enter) most = std::max(most, ++d);
    if (s.e == Ev::Exit) --d;
  }
  return most;
}

// A prologue's saves of the frame at `depth`: one 4-byte store per word.
inline Task<void> save_frame(Lane& l, const Ctx& t, std::uint32_t depth, std::uint32_t words,
                             Lane::Loc loc = Lane::Loc::current()) {
  for (std::uint32_t w = 0; w < words; ++w) co_await l.store<std::uint32_t>(t.local_word(depth * words + w), w, loc);
}

// An epilogue of function `f` restoring the frame at `depth`: its words'
// loads in flight together, the last issued once the epilogue's schedule up
// to it has passed, the stack pointer's add, the return waiting once (RET
// waits on the one scoreboard every restore sets) for the one that arrives
// last.
inline Task<void> epilogue(Lane& l, const Ctx& t, std::uint32_t depth, const CallShape& f) {
  const std::uint32_t words = f.frame;
  Async<std::uint32_t> last = co_await l.load_async<std::uint32_t>(t.local_word(depth * words));
  for (std::uint32_t w = 1; w + 1 < words; ++w) {
    const Async<std::uint32_t> a = co_await l.load_async<std::uint32_t>(t.local_word(depth * words + w));
    if (a.ready > last.ready) last = a;
  }
  co_await l.alu_sched(f.epilogue - 2, f.epilogue_cycles);
  const Async<std::uint32_t> a = co_await l.load_async<std::uint32_t>(t.local_word(depth * words + words - 1));
  if (a.ready > last.ready) last = a;
  co_await l.alu_sched(1, f.tail_cycles);
  co_await l.wait(last);
  co_await l.alu_sched(1, f.ret_cycles);
}

// A prologue of function `f` saving the frame at `depth`.
inline Task<void> prologue(Lane& l, const Ctx& t, std::uint32_t depth, const CallShape& f) {
  co_await l.alu_sched(f.prologue, f.prologue_cycles);
  co_await save_frame(l, t, depth, f.frame);
}

// The frame (Lane::path) of the k-th call (from 1) that code at path
// `caller` makes: its prologue's and epilogue's level, one deeper than the
// caller, and a hash of its path. Its body runs at deeper(frame).
constexpr std::uint32_t frame_path(std::uint32_t caller, std::uint32_t k) {
  return at_depth(caller * 0x9E3779B1u + k, path_depth(caller) + 1);
}

// A compiled region's own sites. A warp's lanes issue together at the same
// operation site in the same frame (Lane::path); a helper serving regions
// that are different code on the GPU (a merge's two leftover loops and
// mergesort's copy back; one merge inlined in two functions) runs with the
// region's tag in the frame's low bits (its depth kept), so that its lanes
// issue together only from the same region. Returns the frame to restore.
inline std::uint32_t enter_region(Lane& l, std::uint32_t tag) {
  const std::uint32_t saved = l.path;
  l.path = tagged(saved, tag);
  return saved;
}

// Replay `steps` of function `f` on lane l of task t, its stack words
// depth x f.frame on (Program::local_slots, 8 bytes each, holds two). Each
// invocation runs in its own frame (Lane::path: its depth and the path of
// invocations from the lane's first, the k-th call of an invocation being
// its k-th child), its prologue and epilogue at the frame's level and its
// body one deeper: lanes at the same operation issue together only in the
// same invocation of the same path, and the deepest go first, so lanes that
// leave a call early wait in their invocation for the others and make their
// next call with them, and lanes whose body ends early (fewer trips of its
// loop) run the epilogue with the rest, as a warp's lanes reconverge at the
// convergence barrier each invocation arms, never across call depths or
// sibling calls.
inline Task<void> replay(Lane& l, const Ctx& t, const std::vector<Step>& steps, const CallShape& f) {
  const std::uint32_t caller = l.path;
  std::uint32_t depth = 0;
  struct Frame {
    std::uint32_t path, calls;
  };
  std::vector<Frame> frames{{caller, 0}};  // the caller's frame (its body), and the calls it has made
  const auto callee = [&frames] {          // the frame of the body's next call
    Frame& fr = frames.back();
    return frame_path(fr.path, ++fr.calls);
  };
  for (const Step& s : steps) {
    if (s.e == Ev::Alu) {
      l.path = frames.back().path;
      co_await l.alu_sched(s.n, s.cycles);
    } else if (s.e == Ev::Enter) {
      l.path = callee();
      co_await prologue(l, t, depth, f);
      frames.push_back({deeper(l.path), 0});  // the body, where the lanes that leave it early wait
      ++depth;
    } else {
      --depth;
      frames.pop_back();
      l.path = frame_path(frames.back().path, frames.back().calls);  // the frame being left
      co_await epilogue(l, t, depth, f);
    }
  }
  l.path = caller;
}

// 8-byte local slots for a stack of `depth` frames of `words` 4-byte words.
constexpr std::uint32_t stack_slots(std::uint32_t depth, std::uint32_t words) { return (depth * words + 1) / 2; }

}  // namespace fg::fj
