// SPDX-License-Identifier: Apache-2.0
// Serial recursion on one lane, as a GPU runs it (docs/forkjoin.md, "Serial
// code"): the fork-join programs' cutoff code (fib's serial fib, queens'
// serial search, mergesort's serial mergesort) is recursive, and a GPU
// compiles a recursive call as an ABI call whose frame (the return address
// and the registers live across the call) is saved to the thread's stack in
// local memory and restored on return. A lane's calls are replayed as device
// operations: a call with a frame is its prologue's instructions and the
// frame's stores to the lane's stack at its depth (one 8-byte store per word:
// the return address, then the live registers in pairs), its return the
// loads of those words (in flight together; the return waits for the last)
// and the epilogue's instructions; a leaf
// call (returning before any frame is saved) only its instructions. The
// lanes of a warp replay their own calls, so lanes whose recursions differ
// diverge at every call and return, as they do on the GPU (SIMT: lanes at the
// same operation in the same frame issue together; the stack slots of lanes
// at one depth are adjacent, CUDA's local-memory layout, so they coalesce).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu/kernel.h"
#include "runtime/forkjoin.h"

namespace fg::fj {

// Instructions of the compiled call sequence (assumed: an sm_90 call is the
// argument setup, CALL, the stack-pointer adjustment, the test that ends the
// recursion and its branch; a return the stack-pointer adjustment, the
// result's move and RET; a leaf the test, the branch, the result and RET).
inline constexpr std::uint64_t kCallInstr = 6, kReturnInstr = 4, kLeafInstr = 4;

// A lane's calls in order: Call (a call that saves a frame, one level
// deeper), Leaf (a call that returns at once), Return (the end of the
// innermost Call).
enum class Ev : std::uint8_t { Call, Leaf, Return };

// The deepest frame of `ev` (the local-memory slots it needs).
inline std::uint32_t depth_of(const std::vector<Ev>& ev) {
  std::uint32_t d = 0, most = 0;
  for (const Ev e : ev) {
    if (e == Ev::Call) most = std::max(most, ++d);
    if (e == Ev::Return) --d;
  }
  return most;
}

// A call's save of its frame at `depth`: one 8-byte store per word, issued
// at the caller's site (`loc`: where the call saves, as before this helper).
inline Task<void> save_frame(Lane& l, const Ctx& t, std::uint32_t depth, std::uint32_t frame_words,
                             Lane::Loc loc = Lane::Loc::current()) {
  for (std::uint32_t w = 0; w < frame_words; ++w)
    co_await l.store<std::uint64_t>(t.local(depth * frame_words + w), w, loc);
}

// A return's restore of the frame at `depth`: its words' loads in flight
// together, the return waiting once (one `wait`, the registers' first use),
// for the one that arrives last.
inline Task<void> restore_frame(Lane& l, const Ctx& t, std::uint32_t depth, std::uint32_t frame_words) {
  Async<std::uint64_t> last = co_await l.load_async<std::uint64_t>(t.local(depth * frame_words));
  for (std::uint32_t w = 1; w < frame_words; ++w) {
    const Async<std::uint64_t> a = co_await l.load_async<std::uint64_t>(t.local(depth * frame_words + w));
    if (a.ready > last.ready) last = a;
  }
  co_await l.wait(last);
}

// Replay `ev` on lane l of task t; `per_call` more instructions at every
// call (the function's own work per invocation); a frame of `frame_words`
// 8-byte words (the return address and the registers live across the call,
// two to a word), stack slots depth x frame_words on (Program::local_slots). Each call runs in its own
// frame (Lane::path: its depth and the path of calls from the lane's first,
// the k-th call of a frame being its k-th child): lanes at the same operation
// issue together only in the same frame of the same path, and the deepest
// frames go first, so lanes that leave a call early wait in their frame for
// the others and make their next call with them, as a warp's lanes reconverge
// at the end of a branch or a loop iteration within a frame (a reconvergence
// stack), never across call depths or sibling calls.
inline Task<void> replay(Lane& l, const Ctx& t, const std::vector<Ev>& ev, std::uint64_t per_call,
                         std::uint32_t frame_words) {
  std::uint32_t depth = 0;
  struct Frame {
    std::uint32_t path, calls;
  };
  std::vector<Frame> frames{{1, 0}};  // the caller's frame, and the calls it has made
  const auto callee = [&frames] {     // the frame of the caller's next call: its depth, a hash of its path
    Frame& f = frames.back();
    const std::uint32_t d = std::min<std::uint32_t>(static_cast<std::uint32_t>(frames.size()), 255);
    return (d << Lane::kDepthShift) | ((f.path * 0x9E3779B1u + ++f.calls) & ((1u << Lane::kDepthShift) - 1));
  };
  for (const Ev e : ev) {
    if (e == Ev::Leaf) {
      l.path = callee();
      co_await l.alu(kLeafInstr + per_call);
    } else if (e == Ev::Call) {
      l.path = callee();
      frames.push_back({l.path, 0});
      co_await l.alu(kCallInstr + per_call);
      co_await save_frame(l, t, depth, frame_words);
      ++depth;
    } else {
      --depth;
      l.path = frames.back().path;
      frames.pop_back();
      co_await restore_frame(l, t, depth, frame_words);
      co_await l.alu(kReturnInstr);
    }
  }
  l.path = 0;
}

}  // namespace fg::fj
