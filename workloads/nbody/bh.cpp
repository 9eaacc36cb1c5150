// SPDX-License-Identifier: Apache-2.0
// bh: Barnes-Hut n-body simulation (the worklist paper, Sec. II-B; LonestarGPU's
// BH, which is Burtscher and Pingali's CUDA Barnes-Hut, "An Efficient CUDA
// Implementation of the Tree-Based Barnes Hut n-Body Algorithm", GPU Computing
// Gems Emerald Edition, 2011), in the topology-driven, shared-software-worklist
// and hardware-worklist variants of bfs, sssp and mst. docs/worklists.md, "bh".
//
// Nodes are numbered as in the CUDA code, bodies 0..n-1 and cells above them,
// but from the root up (the root is n; cells are handed out upwards by an
// atomic add, so a cell's children always have larger numbers than the cell;
// CUDA hands them out downwards from the top). Positions and masses
// of bodies and cells share four float arrays; a cell has eight child slots
// holding -1 (empty), a body, a cell, or (below kMaxDepth) kChain | body, the
// head of a list of bodies that the tree cannot separate (coincident bodies;
// the list runs through `next`). Every time step runs the same phases:
//   bbox      one work-item per body: wavefront min/max reductions, then one
//             atomic min/max per wavefront on order-preserving integer keys of
//             the six extremes;
//   root      one work-item: the root cell, a cube around the box (its half
//             side the `radius`, half the box's largest extent), centred on
//             the box's centre;
//   build     one work-item per body inserts it from the root: an empty slot
//             takes the body by a CAS; a slot holding a body is locked (CAS to
//             -2), new cells are made until the two bodies fall into different
//             octants, and the lock is released by a release store of the
//             first new cell; a locked slot is tried again after kRetry cycles;
//   summarize one work-item per cell, deepest (newest) first: once every child
//             cell has its mass (a cell's mass is -1 until then, published by
//             a release store after its centre of mass), the cell's mass,
//             centre of mass and body count;
//   sort      one work-item per cell, root first: once the cell has its start
//             (set by its parent), its children move to the front of its slots,
//             child cells get their starts, its bodies go to `sort` at theirs:
//             the bodies in tree order;
//   force     the data-driven phase (below): each body walks the tree from the
//             root with its own stack; a cell whose centre of mass is far
//             enough (softened squared distance >= (side of the cell's parent /
//             theta)^2 + eps^2, Burtscher's test) acts as one body, otherwise
//             its children are visited; the acceleration is stored and, after
//             the first step, the velocity corrected by (a_new - a_old) dt/2;
//   integrate one work-item per body: leapfrog (v += a dt/2, x += v dt,
//             v += a dt/2).
// Every phase but force is the same kernel in every variant (`bh.mechanism`):
//   topo  one work-item per body, in sorted order (work-item k takes sort[k]);
//   swwl  the sorted bodies are a shared software worklist. bh.swwl.pull=
//         share (default): the list is the step's in-list of the shared
//         runtime (runtime/swwl.h, swwl::step; DBF: no atomics on pulls):
//         bh.swwl.threads 0 (VKC) gives one work-item per body, N gives N
//         work-items with even contiguous shares of the tree order, and
//         bh.swwl.donate (WDO, with N) donates bodies by an estimate of
//         their force work: the interactions the body had in the previous
//         step (the `inter` word the force walk stores anyway; in the first
//         step, which has none, the sort kernel writes the body's depth in
//         the tree there instead: the paper's "bodies deeper in the tree
//         generally require more work"). bh.swwl.pull=atomic: persistent
//         work-items (the resident capacity) take the next body with an
//         atomic add on the list's head, until it passes the count (the
//         scheme before the runtime; threads and donate do not apply). The
//         force phase pushes nothing, so bh has no bh.swwl.push key;
//   hwwl  a push kernel (one work-item per position k pushes sort[k]) fills
//         the hardware worklist, double-buffered as bfs's hwwl; persistent
//         threads pull bodies until DONE.
// Departures from the CUDA code: no warp vote in the force walk (CUDA opens a
// cell for the whole warp when any thread needs it; here each body has its
// own criterion, so the result does not depend on which bodies share a
// wavefront, and the host reference can use the same test); a depth limit
// with chained bodies instead of an error for bodies the tree cannot
// separate; the root kernel is separate from the bounding-box kernel (CUDA's
// last block does it); new cells are cleared by the lane that makes them.
//
// Every run checks each step's tree (sort is a permutation of the bodies) and
// each step's positions against a host Barnes-Hut in double with the same
// tree rule and opening test, run from the device's state before the step
// (so the finals are checked, without the chaotic divergence of two whole
// trajectories); for generated bodies, up to kDirectMax of them and theta up
// to 0.5 also the first step's accelerations against direct O(n^2) sums.
// `--output FILE`: one line per body, "x y z vx vy vz", in input order.
#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "runtime/swwl.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"
#include "worklist/worklist.h"

namespace fg {
namespace {

constexpr std::uint32_t kGroup = 256;             // work-items per workgroup (the CUDA force kernel's 256)
constexpr std::int32_t kEmpty = -1;               // an empty child slot
constexpr std::int32_t kLocked = -2;              // a child slot being split
constexpr std::int32_t kChain = 1 << 30;          // slot value: kChain | the first body of a chain
constexpr std::uint32_t kMaxDepth = 32;           // bodies at most this deep (CUDA's MAXDEPTH); cells above
constexpr std::uint64_t kRetry = 32;              // cycles before a lane tries a locked slot or a wait again (ours)
constexpr std::uint64_t kOctantInstr = 6;         // 3 compares, 3 adds: the octant and its centre
constexpr std::uint64_t kDistInstr = 6;           // 3 subtractions, 3 multiply-adds: the softened distance
constexpr std::uint64_t kInteractInstr = 7;       // reciprocal square root, 3 multiplies, 3 multiply-adds
constexpr std::uint64_t kSumInstr = 4;            // a child's mass and weighted position
constexpr std::uint64_t kIntegrateInstr = 12;     // the leapfrog update of one body
constexpr std::uint32_t kDirectMax = 2048;        // bodies up to which the direct-force check runs
constexpr std::uint32_t kWorkIdLimit = 1u << 24;  // hwwl: the worklist's 24-bit work IDs

// The checks' tolerances (docs/worklists.md, "bh", says why).
constexpr double kPositionTol = 1e-5;  // each step's positions against the host BH's, relative to the radius
constexpr double kForceRmsTol = 3e-3;  // step 0 against direct sums: the RMS error relative to the RMS force
constexpr double kForceMaxTol = 3e-2;  // ... and the largest error relative to the RMS force

struct Params {
  Param<std::string> mechanism{"bh.mechanism", "topo", std::vector<std::string>{"topo", "swwl", "hwwl"},
                               "how the force phase is scheduled: topo: one work-item per body in tree order; "
                               "swwl: the sorted bodies as a shared software worklist (bh.swwl.*: shares of it, "
                               "one body per work-item by default, or an atomic head); hwwl: the bodies through the "
                               "hardware worklist, double-buffered (docs/worklists.md)"};
  // The software worklist's options (Sec. II; swwl only): threads (VKC or
  // N) and donate (WDO) apply; push does not (no pushes).
  swwl::Params sw{"bh", swwl::Params::Pushes::kNo};  // the force phase pushes nothing: no bh.swwl.push
  Param<std::string> pull{"bh.swwl.pull", "share", std::vector<std::string>{"share", "atomic"},
                          "swwl pulls in the force phase: share: the sorted bodies as the double-buffered list's "
                          "in-list, each work-item its share, no atomics (bh.swwl.threads, bh.swwl.donate); atomic: "
                          "persistent work-items (the resident capacity) take the next body by an atomic add on the "
                          "list's head"};
  Param<std::string> input{"bh.input", "", "",
                           "bodies file (--input FILE; lines \"x y z [vx vy vz [m]]\"); empty: use the generator"};
  Param<std::uint64_t> bodies{
      "bh.bodies", 1024, "", "generated bodies (the paper states no input size: docs/worklists.md)", {{1}, {1u << 24}}};
  Param<std::string> distribution{"bh.distribution", "plummer", std::vector<std::string>{"plummer", "uniform"},
                                  "generated bodies: plummer: a Plummer sphere (Aarseth, Henon and Wielen's "
                                  "sampling, as LonestarGPU's BH); uniform: uniform in the unit sphere, at rest"};
  Param<std::uint64_t> steps{"bh.steps", 2, "", "time steps", {{1}, {100000}}};
  Param<double> theta{"bh.theta",
                      0.5,
                      "",
                      "opening parameter: a cell acts as one body when its distance is at least the side of its "
                      "parent cell / theta (LonestarGPU's BH: 0.5)",
                      {{0}, {100}}};
  Param<double> dtime{"bh.dtime", 0.025, "", "time step (LonestarGPU's BH: 0.025)", {{0}, {100}}};
  Param<double> epsilon{"bh.epsilon",
                        0.05,
                        "",
                        "softening length: eps^2 is added to every squared distance (LonestarGPU's BH: 0.05)",
                        {{1e-6}, {100}}};
  Param<std::int64_t> overflow{"bh.hwwl.overflow",
                               -1,
                               "entries",
                               "hwwl overflow buffer per core, given to wlinit (Sec. III-D): -1: two per body (a "
                               "step pushes every body once, so a half never fills); 0: none (a push to a full "
                               "bank is the hardware exception)",
                               {{-1}, {1ll << 32}}};
};

const Params kBh;

// ---- shared definitions -------------------------------------------------------------

bool is_cell(std::int32_t v, std::int32_t n) { return v >= n && v < kChain; }
bool is_chain(std::int32_t v) { return v >= kChain; }

// The octant of (px, py, pz) around centre (cx, cy, cz): bit 0 x, bit 1 y,
// bit 2 z, set on the + side (a coordinate equal to the centre's is on the -
// side, as in the CUDA code).
template <class T>
std::uint32_t octant(T cx, T cy, T cz, T px, T py, T pz) {
  return (cx < px ? 1u : 0u) | (cy < py ? 2u : 0u) | (cz < pz ? 4u : 0u);
}

// An order-preserving unsigned key of a float (atomic min/max of floats as
// integers).
std::uint32_t float_key(float f) {
  const auto b = std::bit_cast<std::uint32_t>(f);
  return b & 0x80000000u ? ~b : b | 0x80000000u;
}
float key_float(std::uint32_t k) { return std::bit_cast<float>(k & 0x80000000u ? k & 0x7fffffffu : ~k); }

// ---- device ----------------------------------------------------------------------------

struct Dev {
  std::uint64_t x, y, z, mass;         // float per node
  std::uint64_t child;                 // int32, 8 per cell
  std::uint64_t count, start;          // int32 per cell
  std::uint64_t next;                  // int32 per body: the rest of a chain
  std::uint64_t vx, vy, vz;            // float per body
  std::uint64_t ax, ay, az;            // float per body
  std::uint64_t sort;                  // int32 per body: the bodies in tree order
  std::uint64_t inter;                 // uint32 per body: interactions in the last force phase
  std::uint64_t box;                   // 6 uint32 keys: min x, y, z, max x, y, z
  std::uint64_t radius, cells, fault;  // float, uint32, uint32
  std::uint64_t head;                  // swwl (pull=atomic): the list's head
  std::uint64_t depth = 0;             // WDO: int32 per cell, its depth in the first step's tree (0: none)
  std::int32_t n = 0;
  std::uint32_t cap = 0;  // cells
  float itolsq = 0, epssq = 0, dtime = 0, dthf = 0;

  std::uint64_t f(std::uint64_t base, std::int32_t i) const { return base + 4ull * static_cast<std::uint32_t>(i); }
  std::uint64_t slot(std::int32_t cell, std::uint32_t j) const {
    return child + 4ull * (8ull * static_cast<std::uint32_t>(cell - n) + j);
  }
  std::uint64_t cnt(std::int32_t cell) const { return count + 4ull * static_cast<std::uint32_t>(cell - n); }
  std::uint64_t st(std::int32_t cell) const { return start + 4ull * static_cast<std::uint32_t>(cell - n); }
  std::uint64_t dep(std::int32_t cell) const { return depth + 4ull * static_cast<std::uint32_t>(cell - n); }
};

// bbox: the six extremes by wavefront reductions and one atomic each per
// wavefront (lanes past n have left, so lane 0 is active).
Task<> bbox(Lane& l, Dev d) {
  const auto i = static_cast<std::int32_t>(l.global_id());
  if (i >= d.n) co_return;
  const auto x = co_await l.load<float>(d.f(d.x, i));
  const auto y = co_await l.load<float>(d.f(d.y, i));
  const auto z = co_await l.load<float>(d.f(d.z, i));
  std::array<float, 6> v{};
  v[0] = co_await l.reduce_min(x);
  v[1] = co_await l.reduce_min(y);
  v[2] = co_await l.reduce_min(z);
  v[3] = co_await l.reduce_max(x);
  v[4] = co_await l.reduce_max(y);
  v[5] = co_await l.reduce_max(z);
  if (l.lane_id() != 0) co_return;
  for (std::uint32_t k = 0; k < 3; ++k) co_await l.atomic_min<std::uint32_t>(d.box + 4 * k, float_key(v[k]));
  for (std::uint32_t k = 3; k < 6; ++k) co_await l.atomic_max<std::uint32_t>(d.box + 4 * k, float_key(v[k]));
}

// root: the root cell from the box; the box's keys reset for the next step.
Task<> root(Lane& l, Dev d) {
  std::array<float, 6> v{};
  for (std::uint32_t k = 0; k < 6; ++k) v[k] = key_float(co_await l.load<std::uint32_t>(d.box + 4 * k));
  co_await l.alu(12);
  const float radius = std::max(std::max(v[3] - v[0], v[4] - v[1]), v[5] - v[2]) * 0.5f;
  const std::int32_t r = d.n;
  co_await l.store<float>(d.radius, radius);
  co_await l.store<float>(d.f(d.x, r), (v[0] + v[3]) * 0.5f);
  co_await l.store<float>(d.f(d.y, r), (v[1] + v[4]) * 0.5f);
  co_await l.store<float>(d.f(d.z, r), (v[2] + v[5]) * 0.5f);
  co_await l.store<float>(d.f(d.mass, r), -1.0f);
  for (std::uint32_t j = 0; j < 8; ++j) co_await l.store<std::int32_t>(d.slot(r, j), kEmpty);
  co_await l.store<std::int32_t>(d.st(r), 0);
  co_await l.store<std::uint32_t>(d.cells, 1);
  for (std::uint32_t k = 0; k < 3; ++k) co_await l.store<std::uint32_t>(d.box + 4 * k, ~0u);
  for (std::uint32_t k = 3; k < 6; ++k) co_await l.store<std::uint32_t>(d.box + 4 * k, 0u);
}

// The lock holder's part of an insertion: slot `locked` (octant j of cell
// `node`, at depth `depth`, centre o, half side h) holds `ch`, a body or a
// chain; new cells until body i and ch separate, or a chain at the depth
// limit. False: out of cells (the fault word is set, the slot restored).
// Defined before insert: the SIMT engine runs the lowest pending source site
// first, so the holder finishes before a waiting lane of its wavefront
// retries (insert's retry is below).
Task<bool> split(Lane& l, Dev d, std::int32_t i, float px, float py, float pz, std::int32_t node, std::uint32_t j,
                 std::uint32_t depth, float ox, float oy, float oz, float h, std::int32_t ch) {
  const std::uint64_t locked = d.slot(node, j);
  std::int32_t patch = kEmpty, cur = node;
  std::uint32_t cj = j;
  float qx = 0, qy = 0, qz = 0;
  if (!is_chain(ch)) {
    qx = co_await l.load<float>(d.f(d.x, ch));
    qy = co_await l.load<float>(d.f(d.y, ch));
    qz = co_await l.load<float>(d.f(d.z, ch));
  }
  std::int32_t value = i;  // what slot (cur, cj) gets at the end
  for (;;) {
    // Slot (cur, cj) at depth `depth` holds ch (and will hold i).
    if (depth >= kMaxDepth || is_chain(ch)) {
      // The depth limit: i joins ch's chain.
      if (!is_chain(ch)) co_await l.store<std::int32_t>(d.f(d.next, ch), kEmpty);
      co_await l.store<std::int32_t>(d.f(d.next, i), ch & ~kChain);
      value = i | kChain;
      break;
    }
    const auto k = co_await l.atomic_add<std::uint32_t>(d.cells, 1u);
    if (k >= d.cap) {
      co_await l.store<std::uint32_t>(d.fault, 1u);
      co_await l.store_release<std::int32_t>(locked, ch);
      co_return false;
    }
    const auto c = static_cast<std::int32_t>(d.n + k);
    for (std::uint32_t s = 0; s < 8; ++s) co_await l.store<std::int32_t>(d.slot(c, s), kEmpty);
    co_await l.store<float>(d.f(d.mass, c), -1.0f);
    co_await l.store<std::int32_t>(d.st(c), -1);
    if (patch == kEmpty)
      patch = c;
    else
      co_await l.store<std::int32_t>(d.slot(cur, cj), c);
    co_await l.alu(2 * kOctantInstr);
    const std::uint32_t jo = octant(ox, oy, oz, qx, qy, qz), jn = octant(ox, oy, oz, px, py, pz);
    co_await l.store<std::int32_t>(d.slot(c, jo), ch);
    cur = c, cj = jn, ++depth, h *= 0.5f;
    if (jo != jn) break;
    ox += (jn & 1) ? h : -h, oy += (jn & 2) ? h : -h, oz += (jn & 4) ? h : -h;
  }
  if (patch == kEmpty) {
    co_await l.store_release<std::int32_t>(locked, value);
  } else {
    co_await l.store<std::int32_t>(d.slot(cur, cj), value);
    co_await l.store_release<std::int32_t>(locked, patch);
  }
  co_return true;
}

// build: body i from the root down to an empty slot (CAS) or a body's slot
// (lock and split); a locked slot, or a CAS that lost, is tried again after
// kRetry cycles from the same cell.
Task<> insert(Lane& l, Dev d) {
  const auto i = static_cast<std::int32_t>(l.global_id());
  if (i >= d.n) co_return;
  const auto px = co_await l.load<float>(d.f(d.x, i));
  const auto py = co_await l.load<float>(d.f(d.y, i));
  const auto pz = co_await l.load<float>(d.f(d.z, i));
  const auto radius = co_await l.load<float>(d.radius);
  std::int32_t node = d.n;
  float ox = co_await l.load<float>(d.f(d.x, node));
  float oy = co_await l.load<float>(d.f(d.y, node));
  float oz = co_await l.load<float>(d.f(d.z, node));
  // Octant j of `node` (depth `depth`: the slot's), its centre o, half side h.
  co_await l.alu(kOctantInstr);
  float h = radius * 0.5f;
  std::uint32_t j = octant(ox, oy, oz, px, py, pz), depth = 1;
  ox += (j & 1) ? h : -h, oy += (j & 2) ? h : -h, oz += (j & 4) ? h : -h;
  for (;;) {
    const auto ch = co_await l.load<std::int32_t>(d.slot(node, j));
    if (is_cell(ch, d.n)) {
      co_await l.alu(kOctantInstr);
      node = ch, h *= 0.5f, ++depth;
      j = octant(ox, oy, oz, px, py, pz);
      ox += (j & 1) ? h : -h, oy += (j & 2) ? h : -h, oz += (j & 4) ? h : -h;
      continue;
    }
    if (ch == kEmpty) {
      const auto old = co_await l.atomic_cas<std::int32_t>(d.slot(node, j), kEmpty, i);
      if (old == kEmpty) break;
    } else if (ch != kLocked) {
      const auto old = co_await l.atomic_cas<std::int32_t>(d.slot(node, j), ch, kLocked);
      if (old == ch) {
        co_await split(l, d, i, px, py, pz, node, j, depth, ox, oy, oz, h, ch);
        break;
      }
    }
    co_await l.sleep(kRetry);
  }
}

// summarize: cell c once its child cells have masses. The sums are inside the
// loop, above the retry: lanes whose children are ready finish before the
// waiting lanes of their wavefront sleep (the lowest site runs first).
Task<> summarize(Lane& l, Dev d, std::uint32_t cells) {
  const std::uint32_t t = l.global_id();
  if (t >= cells) co_return;
  const auto c = static_cast<std::int32_t>(d.n + cells - 1 - t);  // the newest (deepest) first
  std::array<std::int32_t, 8> ch{};
  std::array<float, 8> cm{};
  for (std::uint32_t k = 0; k < 8; ++k) ch[k] = co_await l.load<std::int32_t>(d.slot(c, k));
  std::uint32_t ready = 0;  // bit k: child k is not a cell, or its mass is known
  for (;;) {
    for (std::uint32_t k = 0; k < 8; ++k) {
      if (ready >> k & 1) continue;
      if (is_cell(ch[k], d.n)) {
        cm[k] = co_await l.load<float>(d.f(d.mass, ch[k]));
        if (cm[k] < 0) break;
      }
      ready |= 1u << k;
    }
    if (ready == 0xff) {
      float m = 0, px = 0, py = 0, pz = 0;
      std::int32_t count = 0;
      for (std::uint32_t k = 0; k < 8; ++k) {
        if (ch[k] == kEmpty) continue;
        if (is_cell(ch[k], d.n)) {
          count += co_await l.load<std::int32_t>(d.cnt(ch[k]));
          const auto x = co_await l.load<float>(d.f(d.x, ch[k]));
          const auto y = co_await l.load<float>(d.f(d.y, ch[k]));
          const auto z = co_await l.load<float>(d.f(d.z, ch[k]));
          co_await l.alu(kSumInstr);
          m += cm[k], px += x * cm[k], py += y * cm[k], pz += z * cm[k];
          continue;
        }
        for (std::int32_t b = ch[k] & ~kChain; b != kEmpty;) {
          const auto mb = co_await l.load<float>(d.f(d.mass, b));
          const auto x = co_await l.load<float>(d.f(d.x, b));
          const auto y = co_await l.load<float>(d.f(d.y, b));
          const auto z = co_await l.load<float>(d.f(d.z, b));
          co_await l.alu(kSumInstr);
          m += mb, px += x * mb, py += y * mb, pz += z * mb, ++count;
          if (!is_chain(ch[k])) break;
          b = co_await l.load<std::int32_t>(d.f(d.next, b));
        }
      }
      co_await l.alu(4);
      const float inv = 1.0f / m;
      co_await l.store<float>(d.f(d.x, c), px * inv);
      co_await l.store<float>(d.f(d.y, c), py * inv);
      co_await l.store<float>(d.f(d.z, c), pz * inv);
      co_await l.store<std::int32_t>(d.cnt(c), count);
      co_await l.store_release<float>(d.f(d.mass, c), m);
      break;
    }
    co_await l.sleep(kRetry);
  }
}

// sort: cell c once it has its start; its children to the front of its
// slots, its child cells' starts, its bodies to `sort`. With `depths` (WDO's
// first step) also each child cell's depth, stored before its start is
// released, and each body's depth into its `inter` word: the estimate of
// its force work before any step has counted its interactions.
Task<> sort_cell(Lane& l, Dev d, std::uint32_t cells, bool depths) {
  if (l.global_id() >= cells) co_return;
  const auto c = static_cast<std::int32_t>(d.n + l.global_id());  // the root first
  for (;;) {
    auto s = co_await l.load<std::int32_t>(d.st(c));
    if (s >= 0) {
      const std::int32_t depth = depths && c != d.n ? co_await l.load<std::int32_t>(d.dep(c)) : 0;
      std::uint32_t front = 0;
      for (std::uint32_t k = 0; k < 8; ++k) {
        const auto ch = co_await l.load<std::int32_t>(d.slot(c, k));
        if (ch == kEmpty) continue;
        if (k != front) {
          co_await l.store<std::int32_t>(d.slot(c, k), kEmpty);
          co_await l.store<std::int32_t>(d.slot(c, front), ch);
        }
        ++front;
        if (is_cell(ch, d.n)) {
          if (depths) {
            co_await l.store<std::int32_t>(d.dep(ch), depth + 1);
            co_await l.store_release<std::int32_t>(d.st(ch), s);
          } else {
            co_await l.store<std::int32_t>(d.st(ch), s);
          }
          s += co_await l.load<std::int32_t>(d.cnt(ch));
          continue;
        }
        for (std::int32_t b = ch & ~kChain; b != kEmpty;) {
          if (depths) co_await l.store<std::uint32_t>(d.f(d.inter, b), static_cast<std::uint32_t>(depth + 1));
          co_await l.store<std::int32_t>(d.f(d.sort, s), b);
          ++s;
          if (!is_chain(ch)) break;
          b = co_await l.load<std::int32_t>(d.f(d.next, b));
        }
      }
      break;
    }
    co_await l.sleep(kRetry);
  }
}

// The force on body i: a walk with the body's own stack (cell and next slot
// per level; level k scans the children of a cell at depth k, against
// dq[k] = (side of that cell / theta)^2, softened).
Task<> force_body(Lane& l, Dev d, std::int32_t i, bool correct) {
  const auto px = co_await l.load<float>(d.f(d.x, i));
  const auto py = co_await l.load<float>(d.f(d.y, i));
  const auto pz = co_await l.load<float>(d.f(d.z, i));
  const auto radius = co_await l.load<float>(d.radius);
  std::array<std::int32_t, kMaxDepth> node{};
  std::array<std::uint32_t, kMaxDepth> pos{};
  std::array<float, kMaxDepth> dq{};
  co_await l.alu(3);
  dq[0] = (radius * 2) * (radius * 2) * d.itolsq;
  float ax = 0, ay = 0, az = 0;
  std::uint32_t interactions = 0;
  node[0] = d.n;
  pos[0] = 0;
  for (std::int32_t depth = 0; depth >= 0; --depth) {
    std::uint32_t pd = pos[depth];
    std::int32_t nd = node[depth];
    while (pd < 8) {
      const auto ch = co_await l.load<std::int32_t>(d.slot(nd, pd));
      ++pd;
      if (ch == kEmpty) break;  // the children are at the front (sort)
      if (is_cell(ch, d.n)) {
        const auto x = co_await l.load<float>(d.f(d.x, ch));
        const auto y = co_await l.load<float>(d.f(d.y, ch));
        const auto z = co_await l.load<float>(d.f(d.z, ch));
        co_await l.alu(kDistInstr + 1);
        const float dx = x - px, dy = y - py, dz = z - pz;
        const float dsq = dx * dx + (dy * dy + (dz * dz + d.epssq));
        if (dsq >= dq[depth] + d.epssq) {  // far enough: the cell as one body
          const auto m = co_await l.load<float>(d.f(d.mass, ch));
          co_await l.alu(kInteractInstr);
          const float inv = 1.0f / std::sqrt(dsq), s = m * inv * inv * inv;
          ax += dx * s, ay += dy * s, az += dz * s;
          ++interactions;
        } else {  // open it
          pos[depth] = pd, node[depth] = nd;
          ++depth;
          co_await l.alu(1);
          dq[depth] = dq[depth - 1] * 0.25f;
          pd = 0, nd = ch;
        }
        continue;
      }
      for (std::int32_t b = ch & ~kChain; b != kEmpty;) {
        const auto x = co_await l.load<float>(d.f(d.x, b));
        const auto y = co_await l.load<float>(d.f(d.y, b));
        const auto z = co_await l.load<float>(d.f(d.z, b));
        const auto m = co_await l.load<float>(d.f(d.mass, b));
        co_await l.alu(kDistInstr + kInteractInstr);
        const float dx = x - px, dy = y - py, dz = z - pz;
        const float dsq = dx * dx + (dy * dy + (dz * dz + d.epssq));
        const float inv = 1.0f / std::sqrt(dsq), s = m * inv * inv * inv;
        ax += dx * s, ay += dy * s, az += dz * s;
        ++interactions;
        if (!is_chain(ch)) break;
        b = co_await l.load<std::int32_t>(d.f(d.next, b));
      }
    }
  }
  if (correct) {
    const auto oax = co_await l.load<float>(d.f(d.ax, i));
    const auto oay = co_await l.load<float>(d.f(d.ay, i));
    const auto oaz = co_await l.load<float>(d.f(d.az, i));
    const auto vx = co_await l.load<float>(d.f(d.vx, i));
    const auto vy = co_await l.load<float>(d.f(d.vy, i));
    const auto vz = co_await l.load<float>(d.f(d.vz, i));
    co_await l.alu(6);
    co_await l.store<float>(d.f(d.vx, i), vx + (ax - oax) * d.dthf);
    co_await l.store<float>(d.f(d.vy, i), vy + (ay - oay) * d.dthf);
    co_await l.store<float>(d.f(d.vz, i), vz + (az - oaz) * d.dthf);
  }
  co_await l.store<float>(d.f(d.ax, i), ax);
  co_await l.store<float>(d.f(d.ay, i), ay);
  co_await l.store<float>(d.f(d.az, i), az);
  co_await l.store<std::uint32_t>(d.f(d.inter, i), interactions);
}

Task<> force_topo(Lane& l, Dev d, bool correct) {
  const auto k = static_cast<std::int32_t>(l.global_id());
  if (k >= d.n) co_return;
  const auto i = co_await l.load<std::int32_t>(d.f(d.sort, k));
  co_await force_body(l, d, i, correct);
}

// swwl (bh.swwl.pull=share): the sorted bodies are the step's in-list of the
// shared runtime (runtime/swwl.h): the work-items' shares (VKC: one body
// each), WDO's donations by the estimate, no pushes. The estimate is the
// body's `inter` word: its interactions in the previous step's walk (in the
// first step its depth, written by the sort kernel), one load.
Task<> force_swwl(Lane& l, Dev d, bool correct, swwl::Opts o, std::uint64_t donated) {
  swwl::Pusher none(o.push, {});
  co_await swwl::step(
      l, o, d.sort, static_cast<std::uint32_t>(d.n), donated, none,
      [&](Lane& lane, std::uint32_t i) -> Task<std::uint32_t> {
        co_return co_await lane.load<std::uint32_t>(d.f(d.inter, static_cast<std::int32_t>(i)));
      },
      [&](Lane& lane, std::uint32_t i, swwl::Pusher&) -> Task<> {
        co_await force_body(lane, d, static_cast<std::int32_t>(i), correct);
      });
}

// swwl (bh.swwl.pull=atomic): the next body from the shared list by an
// atomic add on its head, at the bottom of the loop (below force_body: lanes
// that got a body run it before the others take the next).
Task<> force_swwl_atomic(Lane& l, Dev d, bool correct) {
  auto k = co_await l.atomic_add<std::uint32_t>(d.head, 1u);
  for (;;) {
    if (k >= static_cast<std::uint32_t>(d.n)) break;
    const auto i = co_await l.load<std::int32_t>(d.f(d.sort, static_cast<std::int32_t>(k)));
    co_await force_body(l, d, i, correct);
    k = co_await l.atomic_add<std::uint32_t>(d.head, 1u);
  }
}

// hwwl: the bodies into the unit in tree order, then persistent threads pull
// (bfs_sssp.cpp's pull_loop: the pull at the bottom, WAIT pulls again).
Task<> hwwl_init(Lane& l, std::uint64_t overflow, std::uint64_t entries) {
  co_await wl::wl_init(l, overflow, entries);
  co_await wl::wl_cfg(l, true);
}

Task<> push_bodies(Lane& l, Dev d) {
  const auto k = static_cast<std::int32_t>(l.global_id());
  if (k >= d.n) co_return;
  const auto i = co_await l.load<std::int32_t>(d.f(d.sort, k));
  co_await wl::wl_push(l, static_cast<std::uint32_t>(i));
}

Task<> force_hwwl(Lane& l, Dev d, bool correct) {
  std::uint32_t id = co_await wl::wl_pull(l);
  for (;;) {
    if (id == wl::kDone) break;
    if (id != wl::kWait) co_await force_body(l, d, static_cast<std::int32_t>(id), correct);
    id = co_await wl::wl_pull_spin(l);
  }
}

Task<> integrate(Lane& l, Dev d) {
  const auto i = static_cast<std::int32_t>(l.global_id());
  if (i >= d.n) co_return;
  std::array<float, 3> p{}, v{}, a{};
  const std::array<std::uint64_t, 3> pa{d.x, d.y, d.z}, va{d.vx, d.vy, d.vz}, aa{d.ax, d.ay, d.az};
  for (std::uint32_t k = 0; k < 3; ++k) a[k] = co_await l.load<float>(d.f(aa[k], i));
  for (std::uint32_t k = 0; k < 3; ++k) v[k] = co_await l.load<float>(d.f(va[k], i));
  for (std::uint32_t k = 0; k < 3; ++k) p[k] = co_await l.load<float>(d.f(pa[k], i));
  co_await l.alu(kIntegrateInstr);
  for (std::uint32_t k = 0; k < 3; ++k) {
    const float dv = a[k] * d.dthf, vh = v[k] + dv;
    p[k] += vh * d.dtime, v[k] = vh + dv;
  }
  for (std::uint32_t k = 0; k < 3; ++k) co_await l.store<float>(d.f(pa[k], i), p[k]);
  for (std::uint32_t k = 0; k < 3; ++k) co_await l.store<float>(d.f(va[k], i), v[k]);
}

// ---- inputs ----------------------------------------------------------------------

struct Bodies {
  std::vector<float> x, y, z, m, vx, vy, vz;
  std::string origin;  // "plummer", "uniform" or the file
  std::size_t size() const { return x.size(); }
  void add(double px, double py, double pz, double pvx, double pvy, double pvz, double pm) {
    x.push_back(static_cast<float>(px)), y.push_back(static_cast<float>(py)), z.push_back(static_cast<float>(pz));
    vx.push_back(static_cast<float>(pvx)), vy.push_back(static_cast<float>(pvy));
    vz.push_back(static_cast<float>(pvz)), m.push_back(static_cast<float>(pm));
  }
};

// Uniform in [0, 1) from the run's generator (53 bits; not the library's
// distributions, whose output may differ between standard libraries).
double uniform01(Host& h) { return static_cast<double>(h.rng()() >> 11) * 0x1.0p-53; }

// A direction: a point of the unit ball by rejection (its length kept).
std::array<double, 4> in_ball(Host& h) {
  for (;;) {
    const double x = 2 * uniform01(h) - 1, y = 2 * uniform01(h) - 1, z = 2 * uniform01(h) - 1;
    const double sq = x * x + y * y + z * z;
    if (sq <= 1.0 && sq > 0) return {x, y, z, sq};
  }
}

// The Plummer model in Henon units (total mass 1, G = 1, energy -1/4), by the
// sampling of Aarseth, Henon and Wielen (A&A 37, 183, 1974) as the CUDA code
// does it: the radius from the inverted cumulative mass (the mass fraction
// drawn below 0.999 to cut the far tail), the speed by rejection from
// g(q) = q^2 (1 - q^2)^3.5 as a fraction of the escape speed, both directions
// isotropic; lengths scaled by 3 pi / 16 and speeds by its inverse square
// root. Masses 1/n.
Bodies plummer(Host& h, std::uint32_t n) {
  Bodies b;
  b.origin = "plummer";
  const double rsc = 3 * std::numbers::pi / 16, vsc = std::sqrt(1 / rsc);
  for (std::uint32_t i = 0; i < n; ++i) {
    const double r = 1 / std::sqrt(std::pow(uniform01(h) * 0.999, -2.0 / 3.0) - 1);
    const auto p = in_ball(h);
    const double ps = rsc * r / std::sqrt(p[3]);
    double q = 0;
    for (;;) {
      q = uniform01(h);
      const double g = uniform01(h) * 0.1;
      if (g <= q * q * std::pow(1 - q * q, 3.5)) break;
    }
    const double speed = q * std::sqrt(2.0) * std::pow(1 + r * r, -0.25);
    const auto v = in_ball(h);
    const double vs = vsc * speed / std::sqrt(v[3]);
    b.add(p[0] * ps, p[1] * ps, p[2] * ps, v[0] * vs, v[1] * vs, v[2] * vs, 1.0 / n);
  }
  return b;
}

// Uniform in the unit sphere, at rest (a cold collapse); masses 1/n.
Bodies uniform_sphere(Host& h, std::uint32_t n) {
  Bodies b;
  b.origin = "uniform";
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto p = in_ball(h);
    b.add(p[0], p[1], p[2], 0, 0, 0, 1.0 / n);
  }
  return b;
}

// The bodies file: a line per body, "x y z", "x y z vx vy vz" or
// "x y z vx vy vz m" (velocities 0 and masses 1/n when left out); blank
// lines and lines starting with '#' are skipped. Numbers as strtod reads
// them, finite, masses positive.
Bodies read_bodies(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open the bodies file ({})", path, kBh.input.name()));
  Bodies b;
  b.origin = path;
  std::vector<bool> has_mass;
  std::string line;
  for (std::uint64_t no = 1; std::getline(in, line); ++no) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<double> v;
    const char* p = line.c_str();
    for (;;) {
      while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
      if (!*p) break;
      char* end = nullptr;
      errno = 0;
      const double x = std::strtod(p, &end);
      if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\r'))
        throw UserError(
            fmt::format("{}:{}: not a number: \"{}\"", path, no, std::string(p, p + std::strcspn(p, " \t\r"))));
      if (!std::isfinite(x) || errno == ERANGE)
        throw UserError(
            fmt::format("{}:{}: {} is not a finite float", path, no, std::string(p, static_cast<const char*>(end))));
      v.push_back(x);
      p = end;
    }
    if (v.size() != 3 && v.size() != 6 && v.size() != 7)
      throw UserError(
          fmt::format("{}:{}: {} numbers; a body is \"x y z\", \"x y z vx vy vz\" or "
                      "\"x y z vx vy vz m\"",
                      path, no, v.size()));
    for (const double x : v)
      if (std::abs(x) > 1e30) throw UserError(fmt::format("{}:{}: {} is beyond +-1e30", path, no, x));
    if (v.size() == 7 && !(v[6] > 0))
      throw UserError(fmt::format("{}:{}: the mass {} is not positive", path, no, v[6]));
    v.resize(7, 0.0);
    b.add(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    has_mass.push_back(v[6] > 0);
    if (b.size() > kWorkIdLimit) throw UserError(fmt::format("{}: more than {} bodies", path, kWorkIdLimit));
  }
  if (b.size() == 0) throw UserError(fmt::format("{}: no bodies ({})", path, kBh.input.name()));
  for (std::size_t i = 0; i < b.size(); ++i)
    if (!has_mass[i]) b.m[i] = static_cast<float>(1.0 / static_cast<double>(b.size()));
  return b;
}

// ---- the host reference (double) ------------------------------------------------------

// The same tree rule, opening test and integration as the device, in double.
struct Reference {
  std::int32_t n = 0;
  std::vector<double> x, y, z, m, vx, vy, vz, ax, ay, az;
  std::vector<std::int32_t> next;
  std::vector<std::array<std::int32_t, 8>> child;  // per cell
  std::vector<double> cx, cy, cz, cm;              // per cell: centre of mass and mass
  double radius = 0, theta_inv_sq = 0, epssq = 0, dtime = 0, dthf = 0;
  std::uint32_t depth = 0;  // the deepest body's depth in the last tree
  std::uint64_t interactions = 0;

  double px(std::int32_t v) const { return v < n ? x[v] : cx[v - n]; }
  double py(std::int32_t v) const { return v < n ? y[v] : cy[v - n]; }
  double pz(std::int32_t v) const { return v < n ? z[v] : cz[v - n]; }
  double pm(std::int32_t v) const { return v < n ? m[v] : cm[v - n]; }

  void build() {
    double lo[3] = {x[0], y[0], z[0]}, hi[3] = {x[0], y[0], z[0]};
    for (std::int32_t i = 0; i < n; ++i) {
      lo[0] = std::min(lo[0], x[i]), lo[1] = std::min(lo[1], y[i]), lo[2] = std::min(lo[2], z[i]);
      hi[0] = std::max(hi[0], x[i]), hi[1] = std::max(hi[1], y[i]), hi[2] = std::max(hi[2], z[i]);
    }
    radius = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}) * 0.5;
    const double rx = (lo[0] + hi[0]) * 0.5, ry = (lo[1] + hi[1]) * 0.5, rz = (lo[2] + hi[2]) * 0.5;
    child.assign(1, {kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty});
    depth = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      std::int32_t node = n;
      double ox = rx, oy = ry, oz = rz, h = radius * 0.5;
      std::uint32_t j = octant(ox, oy, oz, x[i], y[i], z[i]), d = 1;
      ox += (j & 1) ? h : -h, oy += (j & 2) ? h : -h, oz += (j & 4) ? h : -h;
      for (;;) {
        std::int32_t& slot = child[node - n][j];
        const std::int32_t ch = slot;
        if (is_cell(ch, n)) {
          node = ch, h *= 0.5, ++d;
          j = octant(ox, oy, oz, x[i], y[i], z[i]);
          ox += (j & 1) ? h : -h, oy += (j & 2) ? h : -h, oz += (j & 4) ? h : -h;
          continue;
        }
        if (ch == kEmpty) {
          slot = i;
          break;
        }
        if (d >= kMaxDepth || is_chain(ch)) {
          if (!is_chain(ch)) next[ch] = kEmpty;
          next[i] = ch & ~kChain;
          slot = i | kChain;
          break;
        }
        // A new cell in the slot; the old body in it; on with i.
        const auto c = static_cast<std::int32_t>(n + child.size());
        child.push_back({kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty});
        child[node - n][j] = c;
        child[c - n][octant(ox, oy, oz, x[ch], y[ch], z[ch])] = ch;
      }
      depth = std::max(depth, d);
    }
    cx.assign(child.size(), 0), cy.assign(child.size(), 0), cz.assign(child.size(), 0), cm.assign(child.size(), 0);
    summarize(n);
  }

  void summarize(std::int32_t c) {
    double mm = 0, sx = 0, sy = 0, sz = 0;
    for (const std::int32_t ch : child[c - n]) {
      if (ch == kEmpty) continue;
      if (is_cell(ch, n)) summarize(ch);
      for (std::int32_t b = ch & ~kChain; b != kEmpty;) {
        mm += pm(b), sx += px(b) * pm(b), sy += py(b) * pm(b), sz += pz(b) * pm(b);
        if (!is_chain(ch)) break;
        b = next[b];
      }
    }
    cm[c - n] = mm, cx[c - n] = sx / mm, cy[c - n] = sy / mm, cz[c - n] = sz / mm;
  }

  // The acceleration of body i (the device's walk, recursively).
  void walk(std::int32_t c, double dq, double qx, double qy, double qz, std::array<double, 3>& a) {
    for (const std::int32_t ch : child[c - n]) {
      if (ch == kEmpty) continue;
      if (is_cell(ch, n)) {
        const double dx = px(ch) - qx, dy = py(ch) - qy, dz = pz(ch) - qz;
        const double dsq = dx * dx + dy * dy + dz * dz + epssq;
        if (dsq >= dq + epssq) {
          const double inv = 1 / std::sqrt(dsq), s = pm(ch) * inv * inv * inv;
          a[0] += dx * s, a[1] += dy * s, a[2] += dz * s;
          ++interactions;
        } else {
          walk(ch, dq * 0.25, qx, qy, qz, a);
        }
        continue;
      }
      for (std::int32_t b = ch & ~kChain; b != kEmpty;) {
        const double dx = x[b] - qx, dy = y[b] - qy, dz = z[b] - qz;
        const double dsq = dx * dx + dy * dy + dz * dz + epssq;
        const double inv = 1 / std::sqrt(dsq), s = m[b] * inv * inv * inv;
        a[0] += dx * s, a[1] += dy * s, a[2] += dz * s;
        ++interactions;
        if (!is_chain(ch)) break;
        b = next[b];
      }
    }
  }

  void step(bool correct) {
    build();
    const double dq = 4 * radius * radius * theta_inv_sq;
    for (std::int32_t i = 0; i < n; ++i) {
      std::array<double, 3> a{};
      walk(n, dq, x[i], y[i], z[i], a);
      if (correct) {
        vx[i] += (a[0] - ax[i]) * dthf, vy[i] += (a[1] - ay[i]) * dthf, vz[i] += (a[2] - az[i]) * dthf;
      }
      ax[i] = a[0], ay[i] = a[1], az[i] = a[2];
    }
    for (std::int32_t i = 0; i < n; ++i) {
      const double dvx = ax[i] * dthf, dvy = ay[i] * dthf, dvz = az[i] * dthf;
      const double hx = vx[i] + dvx, hy = vy[i] + dvy, hz = vz[i] + dvz;
      x[i] += hx * dtime, y[i] += hy * dtime, z[i] += hz * dtime;
      vx[i] = hx + dvx, vy[i] = hy + dvy, vz[i] = hz + dvz;
    }
  }
};

// Direct sums (double) with the same softening.
std::vector<std::array<double, 3>> direct_forces(const Bodies& b, double epssq) {
  const std::size_t n = b.size();
  std::vector<std::array<double, 3>> a(n, {0, 0, 0});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double dx = double{b.x[j]} - b.x[i], dy = double{b.y[j]} - b.y[i], dz = double{b.z[j]} - b.z[i];
      const double dsq = dx * dx + dy * dy + dz * dz + epssq;
      const double inv = 1 / std::sqrt(dsq), s = b.m[j] * inv * inv * inv;
      a[i][0] += dx * s, a[i][1] += dy * s, a[i][2] += dz * s;
    }
  return a;
}

// ---- host side ----------------------------------------------------------------------

std::uint64_t cell_capacity(std::uint64_t n) { return 2 * n + 64; }

std::uint64_t overflow_entries(const Config& c, std::uint64_t n) {
  const std::int64_t ov = kBh.overflow.get(c);
  return ov < 0 ? 2 * n : static_cast<std::uint64_t>(ov);
}

// The bodies a configuration runs: bh.bodies, or a bound from the file's size
// (a body line has at least 6 bytes).
std::uint64_t estimate_bodies(const Config& c) {
  const std::string path = kBh.input.get(c);
  if (path.empty()) return kBh.bodies.get(c);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size / 6 + 1;  // a missing file is reported when it is read
}

void refuse(const Config& cfg, const std::string& key, const std::string& why) {
  if (!cfg.is_default(key))
    throw UserError(fmt::format("{} (set by {}) does not apply: {}", key, cfg.origin(key), why));
}

void run(Host& h) {
  const Config& cfg = h.config();
  const std::string mech = kBh.mechanism.get(cfg);
  if (mech != "hwwl") refuse(cfg, kBh.overflow.name(), fmt::format("{} is {}, not hwwl", kBh.mechanism.name(), mech));
  // The software worklist's options: swwl only (the runtime refuses them
  // otherwise, and donating with one body per work-item); bh pushes nothing.
  const swwl::Opts sw = kBh.sw.get(cfg, kBh.mechanism.name(), mech);
  if (mech != "swwl") refuse(cfg, kBh.pull.name(), fmt::format("{} is {}, not swwl", kBh.mechanism.name(), mech));
  const bool pull_atomic = kBh.pull.get(cfg) == "atomic";
  if (pull_atomic)
    for (const std::string& k : {kBh.sw.threads.name(), kBh.sw.donate.name()})
      refuse(cfg, k,
             fmt::format("{} is atomic (persistent work-items, the resident capacity, take bodies by an atomic add "
                         "on the list's head: no shares)",
                         kBh.pull.name()));
  const std::string path = kBh.input.get(cfg);
  Bodies in;
  if (!path.empty()) {
    for (const std::string& k : {kBh.bodies.name(), kBh.distribution.name()})
      refuse(cfg, k, fmt::format("the bodies are read from {}", kBh.input.name()));
    in = read_bodies(path);
  } else {
    const auto n = static_cast<std::uint32_t>(kBh.bodies.get(cfg));
    in = kBh.distribution.get(cfg) == "plummer" ? plummer(h, n) : uniform_sphere(h, n);
  }
  const auto n = static_cast<std::int32_t>(in.size());
  if (mech == "hwwl" && static_cast<std::uint32_t>(n) > kWorkIdLimit)
    throw UserError(fmt::format("{}: {} bodies do not fit in the worklist's 24-bit work IDs", in.origin, n));
  const auto steps = static_cast<std::uint32_t>(kBh.steps.get(cfg));
  const double theta = kBh.theta.get(cfg), dtime = kBh.dtime.get(cfg), eps = kBh.epsilon.get(cfg);

  Reference ref;
  ref.n = n;
  ref.x.assign(in.x.begin(), in.x.end()), ref.y.assign(in.y.begin(), in.y.end());
  ref.z.assign(in.z.begin(), in.z.end()), ref.m.assign(in.m.begin(), in.m.end());
  ref.vx.assign(in.vx.begin(), in.vx.end()), ref.vy.assign(in.vy.begin(), in.vy.end());
  ref.vz.assign(in.vz.begin(), in.vz.end());
  ref.ax.assign(n, 0), ref.ay.assign(n, 0), ref.az.assign(n, 0), ref.next.assign(n, kEmpty);
  // The device's float constants, in double for the reference.
  const float itolsq = static_cast<float>(1.0 / (theta * theta)), epssq = static_cast<float>(eps * eps);
  const auto dt = static_cast<float>(dtime), dthf = static_cast<float>(dtime * 0.5);
  ref.theta_inv_sq = itolsq, ref.epssq = epssq, ref.dtime = dt, ref.dthf = dthf;

  const auto cap = static_cast<std::uint32_t>(cell_capacity(n));
  const std::uint64_t nodes = n + std::uint64_t{cap};
  auto node_array = [&](const std::vector<float>& v) {
    std::vector<float> a(nodes, 0.0f);
    std::copy(v.begin(), v.end(), a.begin());
    return h.upload(a);
  };
  Dev d{};
  d.x = node_array(in.x), d.y = node_array(in.y), d.z = node_array(in.z), d.mass = node_array(in.m);
  d.child = h.upload(std::vector<std::int32_t>(8ull * cap, kEmpty));
  d.count = h.upload(std::vector<std::int32_t>(cap, 0));
  d.start = h.upload(std::vector<std::int32_t>(cap, -1));
  d.next = h.upload(std::vector<std::int32_t>(n, kEmpty));
  d.vx = h.upload(in.vx), d.vy = h.upload(in.vy), d.vz = h.upload(in.vz);
  d.ax = h.upload(std::vector<float>(n, 0)), d.ay = h.upload(std::vector<float>(n, 0));
  d.az = h.upload(std::vector<float>(n, 0));
  d.sort = h.upload(std::vector<std::int32_t>(n, 0));
  d.inter = h.upload(std::vector<std::uint32_t>(n, 0));
  d.box = h.upload(std::vector<std::uint32_t>{~0u, ~0u, ~0u, 0u, 0u, 0u});
  d.radius = h.upload(std::vector<std::uint32_t>{0, 0, 0, 0});  // radius, cells, fault, head
  d.cells = d.radius + 4, d.fault = d.radius + 8, d.head = d.radius + 12;
  d.n = n, d.cap = cap;
  d.itolsq = itolsq, d.epssq = epssq, d.dtime = dt, d.dthf = dthf;

  sc_core::sc_time kernel_time = sc_core::SC_ZERO_TIME, force_time = sc_core::SC_ZERO_TIME;
  std::uint64_t kernels = 0, interactions = 0, max_cells = 0;
  std::uint32_t max_depth = 0;
  auto launch = [&](const char* name, std::uint64_t count, KernelBody body, std::uint32_t lds = 0) {
    ++kernels;
    const auto t = h.run_kernel({name, count, kGroup, 16, lds, std::move(body)});
    kernel_time += t;
    return t;
  };
  wl::Worklist* unit = nullptr;
  std::uint64_t threads = 0;
  if (mech == "hwwl" || (mech == "swwl" && pull_atomic))
    threads = h.dispatcher().resident_capacity({"bh_force", 0, kGroup, 16, 0, {}}) * kGroup;
  else if (mech == "swwl")
    threads = swwl::threads(sw, static_cast<std::uint32_t>(n));
  // WDO: the bodies donated (the runtime's one atomic add per workgroup that
  // donated) and each cell's depth for the first step's estimate.
  std::uint64_t donated = 0;
  if (mech == "swwl" && sw.donate) {
    donated = h.upload(std::vector<std::uint32_t>(1, 0));
    d.depth = h.upload(std::vector<std::int32_t>(cap, 0));
  }
  if (mech == "hwwl") {
    unit = &h.gpu().get<wl::Worklist>("bh");
    const std::uint64_t entries = overflow_entries(cfg, n);
    const std::uint64_t overflow = entries ? h.alloc(4ull * entries * h.cus()) : 0;
    h.run_kernel({"hwwl_init", 1, kGroup, 4, 0, [=](Lane& l) { return hwwl_init(l, overflow, entries); }});
    unit->kernel_done();
  }

  std::vector<std::array<double, 3>> direct;
  if (n <= static_cast<std::int32_t>(kDirectMax)) direct = direct_forces(in, epssq);
  double force_rms = 0, force_max = 0;  // step 0 against the direct sums, relative to the RMS force
  std::uint64_t tree_errors = 0;
  double pos_err = 0;  // the largest position error of any step, relative to the step's radius
  std::string worst;
  std::string first_tree_error;
  for (std::uint32_t s = 0; s < steps; ++s) {
    const bool correct = s > 0;
    // The host's step starts from the device's state (so the check compares
    // one step's arithmetic, not trajectories that diverge chaotically).
    if (s > 0) {
      const std::array<std::pair<std::uint64_t, std::vector<double>*>, 9> state{{{d.x, &ref.x},
                                                                                 {d.y, &ref.y},
                                                                                 {d.z, &ref.z},
                                                                                 {d.vx, &ref.vx},
                                                                                 {d.vy, &ref.vy},
                                                                                 {d.vz, &ref.vz},
                                                                                 {d.ax, &ref.ax},
                                                                                 {d.ay, &ref.ay},
                                                                                 {d.az, &ref.az}}};
      for (const auto& [addr, v] : state) {
        const auto g = h.download<float>(addr, n);
        v->assign(g.begin(), g.end());
      }
    }
    ref.step(correct);
    launch("bh_bbox", n, [=](Lane& l) { return bbox(l, d); });
    launch("bh_root", 1, [=](Lane& l) { return root(l, d); });
    launch("bh_build", n, [=](Lane& l) { return insert(l, d); });
    const auto meta = h.download<std::uint32_t>(d.radius, 3);
    if (meta[2] != 0)
      throw SimFault(
          fmt::format("bh: step {}: the octree needs more than the {} cells allocated (2 per body + "
                      "64; the host's tree has {})",
                      s, cap, ref.child.size()));
    const std::uint32_t cells = meta[1];
    max_cells = std::max<std::uint64_t>(max_cells, cells);
    launch("bh_summarize", cells, [=](Lane& l) { return summarize(l, d, cells); });
    const bool depths = s == 0 && d.depth != 0;
    launch("bh_sort", cells, [=](Lane& l) { return sort_cell(l, d, cells, depths); });
    if (mech == "topo") {
      force_time += launch("bh_force", n, [=](Lane& l) { return force_topo(l, d, correct); });
    } else if (mech == "swwl" && pull_atomic) {
      const std::uint32_t zero = 0;
      h.copy_in(d.head, &zero, 4);
      force_time += launch("bh_force_swwl", threads, [=](Lane& l) { return force_swwl_atomic(l, d, correct); });
    } else if (mech == "swwl") {
      force_time += launch(
          "bh_force_swwl", threads, [=](Lane& l) { return force_swwl(l, d, correct, sw, donated); },
          swwl::lds_bytes(sw));
    } else {
      launch("bh_push", n, [=](Lane& l) { return push_bodies(l, d); });
      unit->kernel_done();
      force_time += launch("bh_force_hwwl", threads, [=](Lane& l) { return force_hwwl(l, d, correct); });
      unit->kernel_done();
      if (unit->work_inside() != 0)
        throw SimFault(fmt::format("bh: step {}: the force kernel ended with {} bodies in the worklist ({})", s,
                                   unit->work_inside(), unit->where()));
    }
    launch("bh_integrate", n, [=](Lane& l) { return integrate(l, d); });

    // The step's tree: sort holds every body once; the depth of the deepest.
    const auto order = h.download<std::int32_t>(d.sort, n);
    std::vector<std::uint8_t> seen(n, 0);
    std::uint64_t bad = 0;
    for (const std::int32_t b : order)
      if (b < 0 || b >= n || seen[b]++) ++bad;
    if (bad && tree_errors++ == 0)
      first_tree_error = fmt::format(
          "step {}: {} of the {} entries of the sorted order are not a body or repeat "
          "one",
          s, bad, n);
    const auto child = h.download<std::int32_t>(d.child, 8ull * cells);
    std::vector<std::pair<std::int32_t, std::uint32_t>> stack{{n, 0}};
    while (!stack.empty()) {
      const auto [c, depth] = stack.back();
      stack.pop_back();
      for (std::uint32_t k = 0; k < 8; ++k) {
        const std::int32_t ch = child[8ull * (c - n) + k];
        if (is_cell(ch, n) && ch - n < static_cast<std::int32_t>(cells) && depth + 1 < kMaxDepth)
          stack.push_back({ch, depth + 1});
        else if (ch != kEmpty)
          max_depth = std::max(max_depth, depth + 1);
      }
    }
    const auto inter = h.download<std::uint32_t>(d.inter, n);
    for (const std::uint32_t k : inter) interactions += k;
    // The step's positions against the host's, relative to the system's size
    // (the step's bounding radius; 1 when the bodies are at one point) plus
    // the body's distance from the origin (float's resolution there).
    {
      const auto gx = h.download<float>(d.x, n), gy = h.download<float>(d.y, n), gz = h.download<float>(d.z, n);
      const double size = ref.radius > 0 ? ref.radius : 1.0;
      for (std::int32_t i = 0; i < n; ++i) {
        const double ex = gx[i] - ref.x[i], ey = gy[i] - ref.y[i], ez = gz[i] - ref.z[i];
        const double r = std::sqrt(ref.x[i] * ref.x[i] + ref.y[i] * ref.y[i] + ref.z[i] * ref.z[i]);
        const double e = std::sqrt(ex * ex + ey * ey + ez * ez) / (size + r);
        if (e <= pos_err) continue;
        pos_err = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
        worst = fmt::format(
            "step {}: body {} is at ({}, {}, {}), the host Barnes-Hut's at ({:.7g}, {:.7g}, {:.7g}): "
            "{:.2e} of the radius {:.4g} plus its distance {:.4g}",
            s, i, gx[i], gy[i], gz[i], ref.x[i], ref.y[i], ref.z[i], e, size, r);
      }
    }
    if (s == 0 && !direct.empty()) {
      const auto gx = h.download<float>(d.ax, n), gy = h.download<float>(d.ay, n), gz = h.download<float>(d.az, n);
      double sum_err = 0, sum_a = 0, max_err = 0;
      for (std::int32_t i = 0; i < n; ++i) {
        const double ex = gx[i] - direct[i][0], ey = gy[i] - direct[i][1], ez = gz[i] - direct[i][2];
        const double e2 = ex * ex + ey * ey + ez * ez;
        sum_err += e2, max_err = std::max(max_err, e2);
        sum_a += direct[i][0] * direct[i][0] + direct[i][1] * direct[i][1] + direct[i][2] * direct[i][2];
      }
      const double rms_a = std::sqrt(sum_a / n);
      force_rms = rms_a > 0 ? std::sqrt(sum_err / n) / rms_a : std::sqrt(sum_err / n);
      force_max = rms_a > 0 ? std::sqrt(max_err) / rms_a : std::sqrt(max_err);
    }
  }

  h.check(tree_errors == 0, tree_errors == 0 ? fmt::format("bh: every step's tree holds each of the {} bodies once", n)
                                             : fmt::format("bh: {} steps with a broken tree; the first: {}",
                                                           tree_errors, first_tree_error));
  const auto gx = h.download<float>(d.x, n), gy = h.download<float>(d.y, n), gz = h.download<float>(d.z, n);
  const auto gvx = h.download<float>(d.vx, n), gvy = h.download<float>(d.vy, n), gvz = h.download<float>(d.vz, n);
  // The direct check holds for generated bodies at theta up to 0.5 (the
  // tolerances are BH's error there); otherwise its numbers are results only.
  const bool check_direct = !direct.empty() && path.empty() && theta <= 0.5;
  if (check_direct) {
    const bool ok = force_rms <= kForceRmsTol && force_max <= kForceMaxTol;
    h.check(ok, fmt::format("bh: the first step's accelerations against direct sums: RMS error {:.2e} and largest "
                            "{:.2e} of the RMS acceleration ({} {:.0e} and {:.0e})",
                            force_rms, force_max, ok ? "within" : "NOT within", kForceRmsTol, kForceMaxTol));
  }
  const bool pos_ok = pos_err <= kPositionTol;
  h.check(pos_ok, pos_ok
                      ? fmt::format("bh: in each of the {} steps every position is within {:.1e} of the host "
                                    "Barnes-Hut's step from the same state (relative to the radius plus the distance "
                                    "from the origin; largest "
                                    "{:.2e})",
                                    steps, kPositionTol, pos_err)
                      : fmt::format("bh: {}, more than {:.1e}", worst, kPositionTol));
  h.result("input", in.origin);
  h.result("bodies", n);
  h.result("steps", steps);
  h.result("theta", theta);
  h.result("depth", max_depth);
  h.result("cells", max_cells);
  h.result("host_cells", ref.child.size());
  h.result("interactions_per_body", static_cast<double>(interactions) / (static_cast<double>(n) * steps));
  h.result("position_error", pos_err);
  if (!direct.empty()) {
    h.result("force_error_rms", force_rms);
    h.result("force_error_max", force_max);
  }
  h.result("kernels", kernels);
  if (mech != "topo") h.result("force_threads", threads);
  if (donated) h.result("donated", h.download<std::uint32_t>(donated, 1)[0]);
  h.result("kernel_ns", kernel_time.to_seconds() * 1e9);
  h.result("force_ns", force_time.to_seconds() * 1e9);
  for (std::int32_t i = 0; i < n; ++i)
    h.output() << fmt::format("{} {} {} {} {} {}\n", gx[i], gy[i], gz[i], gvx[i], gvy[i], gvz[i]);
}

std::uint64_t device_bytes(const Config& c) {
  // Per node (bodies and cells) 4 floats; per cell 8 child slots, count and
  // start; per body velocity, acceleration, next, sort and interactions.
  const std::uint64_t n = estimate_bodies(c), cap = cell_capacity(n);
  std::uint64_t bytes = 16 * (n + cap) + 40 * cap + 36 * n + 256;
  if (kBh.mechanism.get(c) == "hwwl") bytes += 4 * overflow_entries(c, n) * std::get<std::uint64_t>(c.value("gpu.cus"));
  if (kBh.mechanism.get(c) == "swwl" && kBh.sw.donate.get(c)) bytes += 4 * cap + 4;  // WDO: cell depths, the count
  return bytes;
}

std::vector<std::string> mechanisms(const Config& c) {
  if (kBh.mechanism.get(c) == "hwwl") return {wl::Worklist::kName};
  return {};
}

const RegisterWorkload r_bh{{"bh",
                             "Barnes-Hut n-body simulation (topo, swwl or hwwl force phase) on a Plummer or uniform "
                             "sphere or a bodies file",
                             kBh.input.name(), run, device_bytes, mechanisms}};

}  // namespace
}  // namespace fg
