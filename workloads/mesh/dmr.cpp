// SPDX-License-Identifier: Apache-2.0
// dmr: Delaunay mesh refinement (the worklist paper, Sec. II-B; LonestarGPU's
// DMR of "Morph algorithms on GPUs") of a generated
// or read Delaunay triangulation (workloads/mesh/mesh.h), in the
// topology-driven, shared-software-worklist and hardware-worklist variants of
// bfs, sssp and mst (workloads/graph/).
//
// The mesh is LonestarGPU's layout: points (x, y: double, as its FORD),
// triangles of three point ids, counter-clockwise, with the three triangles
// across their edges (none on the boundary), a state per triangle (good,
// bad, deleted: its isbad and isdel) and an owner word per triangle. A
// triangle is bad when an angle is below 30 degrees (its MINANGLE).
// Triangles and points are appended (atomic adds on two counters) into
// slots allocated before the run and never reused: `dmr.max_factor`.
//
// The operator on a bad triangle t (Ruppert's algorithm as Chew's variant
// in LonestarGPU, the boundary treated as Triangle does): the new point is
// t's circumcentre c, found by a visibility walk from t (LonestarGPU walks
// across the edge facing an obtuse angle, the same first steps); if the walk
// leaves the domain across a boundary edge, or c lies in the diametral
// circle of a boundary edge of its cavity (c encroaches it), the new point
// is that edge's midpoint instead (the edge is split). The cavity: the
// triangles whose circumcircle holds the new point, grown from the one that
// holds it (Bowyer-Watson); it is replaced by the fan from the new point to
// its boundary edges (minus the split edge, whose halves become boundary
// edges). The triangles the operator reads (walk, cavity, the ring around
// it) are its neighbourhood.
//
// A round has two kernels (LonestarGPU's refine has global barriers at the
// same places): mark: every bad triangle's work-item builds its cavity and
// marks its neighbourhood with its key, a 64-bit atomic min (after a plain
// load) on the owner words (LonestarGPU's ExclusiveLocks: the lowest id
// wins). The key (key_of) puts first a priority hashed from the triangle's
// corners (random priorities: with the slot id, neighbouring bad triangles
// lose in chains; from the geometry, not the slot, which depends on timing,
// so every variant refines alike, docs/worklists.md);
// commit: it builds the cavity again, checking before each triangle it reads
// that it still owns it: a work-item that owns all retriangulates (the only
// writes of the round go to triangles it owns and to new slots, so the
// winners' reads are those of mark), one that does not stops at the first
// triangle it does not own (having read only triangles nobody writes) and
// retries in the next round: a conflict (an aborted cavity). The lowest key
// always wins, so every round commits.
//
// Variants (`dmr.mechanism`); all start with a check kernel, one work-item
// per input triangle, that sets each triangle's state (LonestarGPU's
// check_triangles):
//   topo  mark and commit launch one work-item per triangle slot (deleted
//         ones included); a flag set by mark says whether any triangle was
//         bad; commit computes whether each new triangle is bad.
//   swwl  a double-buffered software list of bad triangles (DBF): check
//         pushes the bad input triangles; mark and commit run over the list;
//         commit pushes every new bad triangle and every triangle that lost
//         or whose cavity did not hold it (a boundary split). Each kernel is
//         one swwl::step (runtime/swwl.h) with the Table II options that
//         apply to it (kernel_opts): `dmr.swwl.push` (atomic: one atomic add
//         on the list's count per push; chunk: one per item; aru: one per
//         workgroup) in check and commit (mark pushes nothing);
//         `dmr.swwl.threads` (0: one work-item per item, VKC; N: N
//         work-items with even shares) in all three; `dmr.swwl.donate`
//         (WDO) in mark and commit, with an estimate read from the item's
//         state and owner words (estimate_work).
//   hwwl  the same through the hardware worklist, double-buffered as mst's
//         hwwl: check pushes; mark's persistent threads pull until DONE and
//         push the triangles that marked; commit pulls those and pushes as
//         swwl's commit.
//
// Triangles and points are only ever appended, and a triangle's corners
// are written once, when it is made: they are read without its mark; its
// neighbours and state are what winners rewrite.
//
// Every run checks the result on the host: a valid triangulation of the
// same domain (reciprocal neighbours, counter-clockwise, V - E + F = 1, one
// convex boundary loop, the area), Delaunay (a grid of buckets; relative
// tolerance 1e-10) and no bad triangle left. `--output FILE` writes the
// refined mesh: Triangle's .node, then its .ele, in one file (mesh.h).
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "mesh/mesh.h"
#include "runtime/swwl.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"
#include "worklist/worklist.h"

namespace fg {
namespace {

using mesh::kNone;
using mesh::Mesh;
using mesh::Tri;

constexpr std::uint32_t kGroup = 256;                    // work-items per workgroup, as bfs, sssp and mst
constexpr std::uint32_t kGood = 0, kBad = 1, kDead = 2;  // a triangle's state
constexpr std::uint64_t kFree = ~0ull;                   // an owner word never marked
constexpr std::uint64_t kMinSlots = 256;                 // the fewest triangle slots
constexpr std::uint32_t kEpoch = 256;                    // rounds between clearings of the owner words
// Compute charged for the geometry (double-precision operations, counted
// roughly; one instruction each).
constexpr std::uint64_t kAluOrient = 5, kAluIncircle = 23, kAluCircum = 20, kAluBad = 33, kAluEncroach = 8,
                        kAluKey = 30;

struct Params {
  Param<std::string> input{"dmr.input", "", "",
                           "mesh files (--input): Triangle's .ele (the .node beside it), its .node (the .ele beside "
                           "it), or one file with both (what --output writes); empty: the generator"};
  Param<std::uint64_t> points{"dmr.points",
                              300,
                              "",
                              "generator: uniform random points in the unit square, besides its four corners "
                              "(their Delaunay triangulation has 2 points + 2 triangles)",
                              {{1}, {1u << 22}}};
  Param<std::string> mechanism{"dmr.mechanism", "topo", std::vector<std::string>{"topo", "swwl", "hwwl"},
                               "how the work is scheduled: topo: topology-driven; swwl: shared software "
                               "worklists; hwwl: the hardware worklist, double-buffered (docs/worklists.md)"};
  Param<std::uint64_t> max_factor{"dmr.max_factor",
                                  24,
                                  "",
                                  "triangle slots allocated before the run, as a multiple of the input's triangles "
                                  "(at least 256; LonestarGPU's maxfactor): every retriangulation takes new slots "
                                  "and frees none; running out is exit 3",
                                  {{1}, {1000}}};
  Param<std::int64_t> overflow{"dmr.hwwl.overflow",
                               -1,
                               "entries",
                               "hwwl overflow buffer per core, given to wlinit (Sec. III-D): -1: two per triangle "
                               "slot (a kernel pushes each triangle at most once, so a round's half never fills); "
                               "0: none (a push to a full bank is the hardware exception)",
                               {{-1}, {1ll << 32}}};
  // The software worklist's options (Sec. II-D, Table II; runtime/swwl.h):
  // swwl only.
  swwl::Params sw{"dmr"};
};

const Params kDmr;

// ---- device ----------------------------------------------------------------------

// Counters, one per 128 bytes.
// kMarked: bad triangles that marked (this round); kList: the software list's pushes;
// kDonated*: WDO's donations in mark and commit (swwl with donate).
enum Counter : std::uint32_t {
  kTriangles,
  kPoints,
  kOverflow,
  kFault,
  kFaultTri,
  kMarked,
  kList,
  kDonatedMark,
  kDonatedCommit,
  kCounters
};
constexpr std::uint64_t kCounterStride = 128;

struct Dev {
  std::uint64_t xy;      // point p: x at 16 p, y at 16 p + 8
  std::uint64_t tv, tn;  // triangle t: its points, its neighbours, at 12 t + 4 k
  std::uint64_t state;   // kGood, kBad, kDead
  std::uint64_t owner;   // the lowest key that marked it
  std::uint64_t counters;
  std::uint32_t tcap, pcap;
};

struct Lists {
  std::uint64_t in = 0, out = 0, out_count = 0;
  std::uint32_t in_count = 0, capacity = 0;
};

enum class Mode { kTopo, kSwwl, kHwwl };

std::uint64_t at(std::uint64_t base, std::uint32_t i) { return base + 4ull * i; }
std::uint64_t at8(std::uint64_t base, std::uint32_t i) { return base + 8ull * i; }
std::uint64_t counter(const Dev& d, Counter c) { return d.counters + kCounterStride * c; }
// splitmix64's finalizer.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
// A triangle's mark: the round's byte (falling: an earlier round's mark
// loses to any later one; the host clears the owner words every kEpoch
// rounds), 24 bits of priority hashed from its corners' coordinates (the
// same whatever the corners' order, whatever slot it got), its slot (unique).
std::uint64_t key_of(std::uint32_t round, const double (&x)[3], const double (&y)[3], std::uint32_t t) {
  std::uint64_t h = 0;
  for (int k = 0; k < 3; ++k)
    h += mix64(std::bit_cast<std::uint64_t>(x[k]) * 0x9e3779b97f4a7c15ull ^ std::bit_cast<std::uint64_t>(y[k]));
  const std::uint64_t prio = mix64(h) >> 40;
  return std::uint64_t{kEpoch - 1 - round % kEpoch} << 56 | prio << 32 | t;
}

// A triangle as a work-item has read it.
struct TriRec {
  std::uint32_t id;
  Tri v, n;
  double x[3], y[3];
};

// A boundary edge of the cavity: from a to b (counter-clockwise around the
// cavity), the triangle outside (kNone: the domain's boundary) and its slot
// that points into the cavity; the cavity triangle (index in `seen`) and
// its edge.
struct Edge {
  std::uint32_t a, b, out, slot;
  double ax, ay, bx, by;
  std::uint32_t in, k;
};

enum class Phase { kMark, kCommit };
enum Outcome : int { kLost, kReady, kFaultWalk, kFaultStar };

// What one work-item knows of its neighbourhood: kept in its registers and
// local memory (LonestarGPU's cavity and boundary arrays), free in the model
// but for the geometry's compute.
struct Build {
  Phase phase = Phase::kMark;
  std::uint32_t round = 0;
  std::uint64_t key = 0;  // set when the first triangle (the bad one) is read
  std::uint64_t walk_limit = 0;
  std::vector<TriRec> seen;        // every triangle read, once
  std::vector<std::uint32_t> cav;  // the cavity (indices into seen)
  std::vector<Edge> bnd;
  double px = 0, py = 0;  // the new point
  bool split = false;     // the new point halves the boundary edge sa-sb
  std::uint32_t sa = kNone, sb = kNone;
};

double edge_orient(const TriRec& r, int k, double px, double py) {
  const int a = (k + 1) % 3, b = (k + 2) % 3;
  return mesh::orient(r.x[a], r.y[a], r.x[b], r.y[b], px, py);
}

int find_seen(const Build& b, std::uint32_t id) {
  for (std::size_t i = 0; i < b.seen.size(); ++i)
    if (b.seen[i].id == id) return static_cast<int>(i);
  return -1;
}

// Triangle id's index in b.seen, read the first time: its corners (written
// once, when it is made), then in mark its mark, in commit the check that
// the mark is still ours (-1: it is not), then its neighbours (which the
// round's winners rewrite).
Task<int> get(Lane& l, Dev d, Build& b, std::uint32_t id) {
  if (const int i = find_seen(b, id); i >= 0) co_return i;
  TriRec r{};
  r.id = id;
  for (std::uint32_t k = 0; k < 3; ++k) r.v[k] = co_await l.load<std::uint32_t>(d.tv + 12ull * id + 4 * k);
  for (std::uint32_t k = 0; k < 3; ++k) {
    r.x[k] = co_await l.load<double>(d.xy + 16ull * r.v[k]);
    r.y[k] = co_await l.load<double>(d.xy + 16ull * r.v[k] + 8);
  }
  if (b.seen.empty()) {
    co_await l.alu(kAluKey);
    b.key = key_of(b.round, r.x, r.y, id);
  }
  const auto owner = co_await l.load<std::uint64_t>(at8(d.owner, id));
  if (b.phase == Phase::kMark) {
    if (b.key < owner) co_await l.atomic_min<std::uint64_t>(at8(d.owner, id), b.key);
  } else if (owner != b.key) {
    co_return -1;
  }
  for (std::uint32_t k = 0; k < 3; ++k) r.n[k] = co_await l.load<std::uint32_t>(d.tn + 12ull * id + 4 * k);
  b.seen.push_back(r);
  co_return static_cast<int>(b.seen.size() - 1);
}

// The cavity of (px, py) grown from b.seen[start], and its boundary.
Task<int> cavity(Lane& l, Dev d, Build& b, int start, double px, double py) {
  std::vector<char> st(b.seen.size(), 0);  // 1: in the cavity, 2: tested, outside
  b.cav.assign(1, static_cast<std::uint32_t>(start));
  st[start] = 1;
  for (std::size_t i = 0; i < b.cav.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t nb = b.seen[b.cav[i]].n[k];
      if (nb == kNone) continue;
      const int j = co_await get(l, d, b, nb);
      if (j < 0) co_return kLost;
      st.resize(b.seen.size(), 0);
      if (st[j]) continue;
      co_await l.alu(kAluIncircle);
      const TriRec& r = b.seen[j];
      if (mesh::incircle(r.x[0], r.y[0], r.x[1], r.y[1], r.x[2], r.y[2], px, py) > 0) {
        st[j] = 1;
        b.cav.push_back(static_cast<std::uint32_t>(j));
      } else {
        st[j] = 2;
      }
    }
  b.bnd.clear();
  for (const std::uint32_t i : b.cav)
    for (std::uint32_t k = 0; k < 3; ++k) {
      const TriRec& r = b.seen[i];
      const std::uint32_t nb = r.n[k];
      std::uint32_t slot = 0;
      if (nb != kNone) {
        const int j = find_seen(b, nb);
        if (st[j] == 1) continue;
        const Tri& on = b.seen[j].n;
        slot = static_cast<std::uint32_t>(std::find(on.begin(), on.end(), r.id) - on.begin());
      }
      const std::uint32_t a = (k + 1) % 3, c = (k + 2) % 3;
      b.bnd.push_back({r.v[a], r.v[c], nb, slot, r.x[a], r.y[a], r.x[c], r.y[c], i, k});
    }
  co_return kReady;
}

// The new point of bad triangle t and its cavity (module comment).
Task<int> build(Lane& l, Dev d, Build& b, std::uint32_t t) {
  int cur = co_await get(l, d, b, t);
  if (cur < 0) co_return kLost;
  double cx = 0, cy = 0;
  {
    const TriRec& r = b.seen[cur];
    mesh::circumcentre(r.x[0], r.y[0], r.x[1], r.y[1], r.x[2], r.y[2], cx, cy);
  }
  co_await l.alu(kAluCircum);
  int hull = -1;  // the boundary edge of b.seen[cur] to split
  for (std::uint64_t steps = 0;; ++steps) {
    co_await l.alu(3 * kAluOrient);
    int k = 0;
    while (k < 3 && !(edge_orient(b.seen[cur], k, cx, cy) < 0)) ++k;
    if (k == 3) break;  // c is in (or on) b.seen[cur]
    const std::uint32_t nb = b.seen[cur].n[k];
    if (nb == kNone) {  // c is outside the domain
      hull = k;
      break;
    }
    if (steps >= b.walk_limit) co_return kFaultWalk;
    cur = co_await get(l, d, b, nb);
    if (cur < 0) co_return kLost;
  }
  if (hull < 0) {
    const int r = co_await cavity(l, d, b, cur, cx, cy);
    if (r != kReady) co_return r;
    // c in the diametral circle of a boundary edge of its cavity: split that edge.
    co_await l.alu(kAluEncroach * b.bnd.size());
    for (const Edge& e : b.bnd) {
      if (e.out != kNone) continue;
      const double mx = (e.ax + e.bx) / 2, my = (e.ay + e.by) / 2;
      const double r2 = ((e.bx - e.ax) * (e.bx - e.ax) + (e.by - e.ay) * (e.by - e.ay)) / 4;
      if ((cx - mx) * (cx - mx) + (cy - my) * (cy - my) < r2) {
        cur = static_cast<int>(e.in), hull = static_cast<int>(e.k);
        break;
      }
    }
  }
  if (hull >= 0) {
    const TriRec& r = b.seen[cur];
    const int a = (hull + 1) % 3, c = (hull + 2) % 3;
    b.split = true, b.sa = r.v[a], b.sb = r.v[c];
    b.px = (r.x[a] + r.x[c]) / 2, b.py = (r.y[a] + r.y[c]) / 2;
    const int res = co_await cavity(l, d, b, cur, b.px, b.py);
    if (res != kReady) co_return res;
  } else {
    b.px = cx, b.py = cy;
  }
  // The fan must be counter-clockwise: the cavity star-shaped around the point.
  co_await l.alu(kAluOrient * b.bnd.size());
  for (const Edge& e : b.bnd) {
    if (b.split && e.a == b.sa && e.b == b.sb) continue;
    if (!(mesh::orient(e.ax, e.ay, e.bx, e.by, b.px, b.py) > 0)) co_return kFaultStar;
  }
  co_return kReady;
}

// Push t: swwl through the step's Pusher (runtime/swwl.h: atomic, chunk or
// aru; past the list's capacity only the count grows, the host reports the
// overflow), hwwl to the hardware worklist, topo nowhere.
Task<> push_item(Lane& l, Mode m, swwl::Pusher* p, std::uint32_t t) {
  if (m == Mode::kSwwl)
    co_await p->push(l, 0, t);
  else if (m == Mode::kHwwl)
    co_await wl::wl_push(l, t);
}

// The winner's writes: the new point, the fan, the outside triangles'
// pointers into it, the cavity deleted; new bad triangles pushed, and t
// again if the cavity did not hold it.
Task<> retriangulate(Lane& l, Dev d, const Build& b, Mode m, swwl::Pusher* pu, std::uint32_t t) {
  const auto fan = static_cast<std::uint32_t>(b.bnd.size() - (b.split ? 1 : 0));
  const auto base = co_await l.atomic_add<std::uint32_t>(counter(d, kTriangles), fan);
  if (std::uint64_t{base} + fan > d.tcap) {
    co_await l.store<std::uint32_t>(counter(d, kOverflow), 1);
    co_return;
  }
  const auto p = co_await l.atomic_add<std::uint32_t>(counter(d, kPoints), 1);
  if (p >= d.pcap) {
    co_await l.store<std::uint32_t>(counter(d, kOverflow), 2);
    co_return;
  }
  co_await l.store<double>(d.xy + 16ull * p, b.px);
  co_await l.store<double>(d.xy + 16ull * p + 8, b.py);
  auto is_split = [&](const Edge& e) { return b.split && e.a == b.sa && e.b == b.sb; };
  std::vector<std::uint32_t> id(b.bnd.size(), kNone);
  for (std::uint32_t i = 0, next = base; i < b.bnd.size(); ++i)
    if (!is_split(b.bnd[i])) id[i] = next++;
  for (std::uint32_t i = 0; i < b.bnd.size(); ++i) {
    const Edge& e = b.bnd[i];
    if (is_split(e)) continue;
    // Across p-a: the fan triangle on the edge ending at a; across b-p: the one on the edge starting at b.
    std::uint32_t from_b = kNone, to_a = kNone;
    for (std::uint32_t j = 0; j < b.bnd.size(); ++j) {
      if (b.bnd[j].a == e.b) from_b = id[j];
      if (b.bnd[j].b == e.a) to_a = id[j];
    }
    co_await l.alu(kAluBad);
    const bool bad = mesh::bad_triangle(e.ax, e.ay, e.bx, e.by, b.px, b.py);
    const std::uint32_t n = id[i];
    const std::uint32_t v[3] = {e.a, e.b, p}, nb[3] = {from_b, to_a, e.out};
    for (std::uint32_t k = 0; k < 3; ++k) co_await l.store<std::uint32_t>(d.tv + 12ull * n + 4 * k, v[k]);
    for (std::uint32_t k = 0; k < 3; ++k) co_await l.store<std::uint32_t>(d.tn + 12ull * n + 4 * k, nb[k]);
    co_await l.store<std::uint32_t>(at(d.state, n), bad ? kBad : kGood);
    if (e.out != kNone) co_await l.store<std::uint32_t>(d.tn + 12ull * e.out + 4 * e.slot, n);
    if (bad) co_await push_item(l, m, pu, n);
  }
  bool gone = false;
  for (const std::uint32_t c : b.cav) {
    co_await l.store<std::uint32_t>(at(d.state, b.seen[c].id), kDead);
    gone = gone || b.seen[c].id == t;
  }
  if (!gone) co_await push_item(l, m, pu, t);  // a split whose cavity missed t: t is still bad
}

// The input's triangles' states; the bad ones pushed (swwl, hwwl).
Task<> check_visit(Lane& l, Dev d, Mode m, swwl::Pusher* p, std::uint32_t t) {
  double x[3], y[3];
  for (std::uint32_t k = 0; k < 3; ++k) {
    const auto v = co_await l.load<std::uint32_t>(d.tv + 12ull * t + 4 * k);
    x[k] = co_await l.load<double>(d.xy + 16ull * v);
    y[k] = co_await l.load<double>(d.xy + 16ull * v + 8);
  }
  co_await l.alu(kAluBad);
  const bool bad = mesh::bad_triangle(x[0], y[0], x[1], y[1], x[2], y[2]);
  co_await l.store<std::uint32_t>(at(d.state, t), bad ? kBad : kGood);
  if (bad) co_await push_item(l, m, p, t);
}

// mark: whether bad triangle t marked its neighbourhood.
Task<bool> mark_visit(Lane& l, Dev d, std::uint32_t round, std::uint32_t t) {
  const auto st = co_await l.load<std::uint32_t>(at(d.state, t));
  if (st != kBad) co_return false;
  Build b;
  b.phase = Phase::kMark, b.round = round, b.walk_limit = d.tcap;
  const int r = co_await build(l, d, b, t);
  if (r == kReady) {
    co_await l.atomic_add<std::uint32_t>(counter(d, kMarked), 1);
    co_return true;
  }
  co_await l.store<std::uint32_t>(counter(d, kFaultTri), t);
  co_await l.store<std::uint32_t>(counter(d, kFault), static_cast<std::uint32_t>(r));
  co_return false;
}

// commit: t retriangulates its cavity if it still owns its neighbourhood,
// else it is pushed again (if it was deleted meanwhile, it is dropped in the
// next mark).
Task<> commit_visit(Lane& l, Dev d, Mode m, swwl::Pusher* p, std::uint32_t round, std::uint32_t t) {
  const auto st = co_await l.load<std::uint32_t>(at(d.state, t));
  if (st != kBad) co_return;
  Build b;
  b.phase = Phase::kCommit, b.round = round, b.walk_limit = d.tcap;
  const int r = co_await build(l, d, b, t);
  if (r == kLost) {
    co_await push_item(l, m, p, t);
    co_return;
  }
  if (r == kReady) co_await retriangulate(l, d, b, m, p, t);
}

// ---- topology-driven and software worklists -------------------------------------------

Task<> check_all(Lane& l, Dev d, Mode m, std::uint32_t n) {
  const std::uint32_t t = l.global_id();
  if (t >= n) co_return;
  co_await check_visit(l, d, m, nullptr, t);
}

Task<> mark_topo(Lane& l, Dev d, std::uint32_t round, std::uint32_t n) {
  const std::uint32_t t = l.global_id();
  if (t >= n) co_return;
  co_await mark_visit(l, d, round, t);
}

Task<> commit_topo(Lane& l, Dev d, std::uint32_t round, std::uint32_t n) {
  const std::uint32_t t = l.global_id();
  if (t >= n) co_return;
  co_await commit_visit(l, d, Mode::kTopo, nullptr, round, t);
}

// swwl's three kernels, each one swwl::step (runtime/swwl.h) with the
// options that apply to it (kernel_opts).
//   check: the in-list is the input's triangles themselves (in == 0); every
//     push option, a fixed thread count; no WDO (every item is the same
//     work, and the state an estimate would read is what check computes).
//   mark: no pushes, so its Pusher has no list and runs as atomic (ARU's
//     barriers would order nothing); a fixed thread count and WDO.
//   commit: everything.
// WDO's estimate of a bad triangle's work (estimate_work): its state word,
// and in commit its owner word, plain loads that the visit repeats from the
// L1 (the corners a finer estimate would need cost nine loads and the
// geometry). A triangle no longer bad costs the state load (0); a bad one
// reads its whole neighbourhood in mark (kWorkFull); in commit a bad one
// whose own slot holds another key stops at its first read (kWorkFirst), one
// holding its own key (the owner's low word is t, its round byte this
// round's) reads on until the first triangle it lost, or retriangulates
// (kWorkFull; on the default input 1,346 of the 3,904 such commit items
// retriangulated, the other 5,862 bad items all stopped at their first
// read). Only the ratio of the two costs matters (swwl::donate compares
// with the workgroup's average exactly); 1 : 16, one read against a
// neighbourhood's, is an assumption.
enum class Kernel { kCheck, kMark, kCommit };
constexpr std::uint32_t kWorkFirst = 16, kWorkFull = 256;

swwl::Opts kernel_opts(swwl::Opts o, Kernel k) {
  if (k == Kernel::kCheck) o.donate = false;
  if (k == Kernel::kMark) o.push = swwl::Push::kAtomic;
  return o;
}

Task<std::uint32_t> estimate_work(Lane& l, Dev d, Kernel k, std::uint32_t round, std::uint32_t t) {
  const auto st = co_await l.load<std::uint32_t>(at(d.state, t));
  if (st != kBad) co_return 0;
  if (k != Kernel::kCommit) co_return kWorkFull;
  const auto owner = co_await l.load<std::uint64_t>(at8(d.owner, t));
  const bool mine = (owner & 0xffffffffu) == t && owner >> 56 == kEpoch - 1 - round % kEpoch;
  co_return mine ? kWorkFull : kWorkFirst;
}

Task<> step_swwl(Lane& l, Dev d, Lists w, swwl::Opts opts, Kernel k, std::uint32_t round) {
  const swwl::Opts o = kernel_opts(opts, k);
  swwl::Pusher p(o.push, k == Kernel::kMark ? std::vector<swwl::List>{}
                                            : std::vector<swwl::List>{swwl::List{w.out, w.out_count, w.capacity}});
  const std::uint64_t donated = !o.donate              ? 0
                                : k == Kernel::kMark   ? counter(d, kDonatedMark)
                                : k == Kernel::kCommit ? counter(d, kDonatedCommit)
                                                       : 0;
  co_await swwl::step(
      l, o, k == Kernel::kCheck ? 0 : w.in, w.in_count, donated, p,
      [&](Lane& lane, std::uint32_t t) -> Task<std::uint32_t> {
        co_return co_await estimate_work(lane, d, k, round, t);
      },
      [&](Lane& lane, std::uint32_t t, swwl::Pusher& pusher) -> Task<> {
        if (k == Kernel::kCheck)
          co_await check_visit(lane, d, Mode::kSwwl, &pusher, t);
        else if (k == Kernel::kMark)
          co_await mark_visit(lane, d, round, t);
        else
          co_await commit_visit(lane, d, Mode::kSwwl, &pusher, round, t);
      });
}

// ---- hardware worklist ----------------------------------------------------------------

Task<> hwwl_init(Lane& l, std::uint64_t overflow, std::uint64_t entries) {
  co_await wl::wl_init(l, overflow, entries);
  co_await wl::wl_cfg(l, true);
}

Task<> mark_or_drop(Lane& l, Dev d, std::uint32_t round, std::uint32_t t) {
  const bool marked = co_await mark_visit(l, d, round, t);
  if (marked) co_await wl::wl_push(l, t);
}

// Persistent threads pull until DONE (WAIT: pull again). The pull is at the
// bottom of the loop and this function after every visit function: the SIMT
// engine runs the lowest pending source site first (bfs_sssp.cpp's
// pull_loop says why).
template <class Visit>
Task<> pull_loop(Lane& l, Visit visit) {
  std::uint32_t id = co_await wl::wl_pull(l);
  for (;;) {
    if (id == wl::kDone) break;
    if (id != wl::kWait) co_await visit(id);
    id = co_await wl::wl_pull_spin(l);
  }
}

Task<> mark_hwwl(Lane& l, Dev d, std::uint32_t round) {
  return pull_loop(l, [=, &l](std::uint32_t t) { return mark_or_drop(l, d, round, t); });
}

Task<> commit_hwwl(Lane& l, Dev d, std::uint32_t round) {
  return pull_loop(l, [=, &l](std::uint32_t t) { return commit_visit(l, d, Mode::kHwwl, nullptr, round, t); });
}

// ---- host side ----------------------------------------------------------------------

// Triangles of the input before it is read (the device-memory estimate).
std::uint64_t input_triangles(const Config& c) {
  const std::string in = kDmr.input.get(c);
  if (in.empty()) return 2 * kDmr.points.get(c) + 2;  // V points, 4 on the boundary: 2 V - 4 - 2
  return mesh::announced_triangles(in);
}

std::uint64_t triangle_slots(const Config& c, std::uint64_t triangles) {
  return kDmr.max_factor.get(c) * std::max(triangles, kMinSlots);
}

// Points never run out before triangles: each new point takes at least two new slots.
std::uint64_t point_slots(std::uint64_t points, std::uint64_t triangles, std::uint64_t tcap) {
  return points + (tcap - std::min(tcap, triangles)) / 2 + 1;
}

std::uint64_t overflow_entries(const Config& c, std::uint64_t tcap) {
  const std::int64_t ov = kDmr.overflow.get(c);
  return ov < 0 ? 2 * tcap : static_cast<std::uint64_t>(ov);
}

struct Counters {
  std::uint32_t v[kCounters];
};

Counters read_counters(Host& h, const Dev& d) {
  Counters c{};
  for (std::uint32_t i = 0; i < kCounters; ++i) h.copy_out(&c.v[i], counter(d, static_cast<Counter>(i)), 4);
  return c;
}

void run(Host& h) {
  const Config& cfg = h.config();
  const std::uint64_t seed = h.rng()();
  const std::string mech = kDmr.mechanism.get(cfg);
  if (mech != "hwwl" && !cfg.is_default(kDmr.overflow.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: {} is {}, not hwwl", kDmr.overflow.name(),
                                cfg.origin(kDmr.overflow.name()), kDmr.mechanism.name(), mech));
  // The software worklist's options: swwl only; donating needs a fixed
  // thread count (exit 2 otherwise, swwl::Params::get).
  const swwl::Opts sw = kDmr.sw.get(cfg, kDmr.mechanism.name(), mech);
  const std::string input = kDmr.input.get(cfg);
  if (!input.empty() && !cfg.is_default(kDmr.points.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: the mesh is read from {}", kDmr.points.name(),
                                cfg.origin(kDmr.points.name()), kDmr.input.name()));
  const Mesh in = input.empty() ? mesh::random_square(kDmr.points.get(cfg), seed) : mesh::read_triangle(input);
  double area_in = 0;
  std::uint32_t boundary_in = 0;
  if (const mesh::Problem p = mesh::check_triangulation(in, &area_in, &boundary_in))
    throw SimFault(fmt::format("dmr: the input mesh {} is not a valid triangulation: {}", in.origin, p.what));
  const std::uint32_t tin = in.triangles(), pin = in.points();
  const std::uint64_t tcap = triangle_slots(cfg, tin);
  const std::uint64_t pcap = point_slots(pin, tin, tcap);
  if (tcap >= kNone || pcap >= kNone)
    throw UserError(fmt::format("{} = {}: {} triangle slots do not fit in 32-bit ids", kDmr.max_factor.name(),
                                kDmr.max_factor.get(cfg), tcap));
  if (mech == "hwwl" && tcap >= (1u << 24))
    throw UserError(fmt::format("{} = {}: {} triangle slots do not fit in the hardware worklist's 24-bit work IDs",
                                kDmr.max_factor.name(), kDmr.max_factor.get(cfg), tcap));
  std::uint64_t bad_in = 0;
  for (std::uint32_t t = 0; t < tin; ++t) bad_in += in.bad(t);

  // The device mesh, with every slot allocated.
  Dev d{};
  d.tcap = static_cast<std::uint32_t>(tcap), d.pcap = static_cast<std::uint32_t>(pcap);
  {
    std::vector<double> xy(2 * pcap, 0.0);
    for (std::uint32_t p = 0; p < pin; ++p) xy[2 * p] = in.x[p], xy[2 * p + 1] = in.y[p];
    d.xy = h.upload(xy);
    std::vector<std::uint32_t> tv(3 * tcap, kNone), tn(3 * tcap, kNone);
    for (std::uint32_t t = 0; t < tin; ++t)
      for (int k = 0; k < 3; ++k) tv[3 * t + k] = in.tri[t][k], tn[3 * t + k] = in.nbr[t][k];
    d.tv = h.upload(tv), d.tn = h.upload(tn);
  }
  d.state = h.upload(std::vector<std::uint32_t>(tcap, kDead));
  d.owner = h.upload(std::vector<std::uint64_t>(tcap, kFree));
  {
    std::vector<std::uint32_t> c(kCounters * kCounterStride / 4, 0);
    c[kTriangles * kCounterStride / 4] = tin, c[kPoints * kCounterStride / 4] = pin;
    d.counters = h.upload(c);
  }

  sc_core::sc_time kernel_time = sc_core::SC_ZERO_TIME;
  std::uint64_t rounds = 0, kernels = 0, items = 0, pushes = 0, marked = 0;
  auto launch = [&](const char* name, std::uint64_t count, KernelBody body, std::uint32_t lds = 0) {
    ++kernels;
    items += count;
    kernel_time += h.run_kernel({name, count, kGroup, 16, lds, std::move(body)});
  };
  auto zero = [&](Counter c) {
    const std::uint32_t z = 0;
    h.copy_in(counter(d, c), &z, 4);
  };
  // Every round commits (the lowest key wins) and takes at least two slots.
  auto next_round = [&] {
    if (++rounds > tcap)
      throw SimFault(fmt::format("dmr: {} rounds without finishing (every round commits a cavity)", rounds - 1));
  };
  // Before a round's mark: its count zeroed; the owner words cleared when the round byte wraps.
  auto begin_round = [&](std::uint32_t round) {
    zero(kMarked);
    if (round > 0 && round % kEpoch == 0) {
      const std::vector<std::uint64_t> free(tcap, kFree);
      h.copy_in(d.owner, free.data(), 8 * tcap);
    }
  };
  // Returns the triangles that marked.
  auto after_mark = [&] {
    const Counters c = read_counters(h, d);
    marked += c.v[kMarked];
    if (c.v[kFault])
      throw SimFault(fmt::format("dmr: in round {}, triangle {}: {}", rounds, c.v[kFaultTri],
                                 c.v[kFault] == kFaultWalk
                                     ? "the walk to its circumcentre does not end"
                                     : "its cavity is not star-shaped around the new point (a corrupt mesh, or a "
                                       "floating-point degeneracy)"));
    return c.v[kMarked];
  };
  auto after_commit = [&] {
    const Counters c = read_counters(h, d);
    if (c.v[kOverflow])
      throw SimFault(fmt::format(
          "dmr: the mesh outgrew its {} triangle slots in round {} ({} = {} times the input's {} triangles, at "
          "least {}; every retriangulation takes new slots and frees none): raise {}",
          tcap, rounds, kDmr.max_factor.name(), kDmr.max_factor.get(cfg), tin, kMinSlots, kDmr.max_factor.name()));
  };
  auto triangles_now = [&] { return std::min<std::uint32_t>(read_counters(h, d).v[kTriangles], d.tcap); };

  if (mech == "topo") {
    launch("dmr_check", tin, [=](Lane& l) { return check_all(l, d, Mode::kTopo, tin); });
    for (std::uint32_t round = 0;; ++round) {
      const std::uint32_t n = triangles_now();
      begin_round(round);
      launch("dmr_mark", n, [=](Lane& l) { return mark_topo(l, d, round, n); });
      if (after_mark() == 0) break;
      next_round();
      launch("dmr_commit", n, [=](Lane& l) { return commit_topo(l, d, round, n); });
      after_commit();
    }
  } else if (mech == "swwl") {
    Lists w;
    w.in = h.alloc(4 * tcap), w.out = h.alloc(4 * tcap), w.out_count = counter(d, kList);
    w.capacity = d.tcap;
    zero(kList);
    // Each kernel with the options that apply to it (kernel_opts), sized by
    // them (swwl::threads) and given their LDS (swwl::lds_bytes).
    auto step = [&](const char* name, Kernel k, std::uint32_t round) {
      const swwl::Opts o = kernel_opts(sw, k);
      launch(
          name, swwl::threads(o, w.in_count), [=](Lane& l) { return step_swwl(l, d, w, sw, k, round); },
          swwl::lds_bytes(o));
    };
    w.in_count = tin;  // check's items: the input's triangles
    step("dmr_check_swwl", Kernel::kCheck, 0);
    for (std::uint32_t round = 0;; ++round) {
      const std::uint32_t count = read_counters(h, d).v[kList];
      if (count > w.capacity)
        throw SimFault(fmt::format("dmr: software worklist overflow in round {}: {} pushes into {} entries", round,
                                   count, w.capacity));
      pushes += count;
      if (count == 0) break;
      std::swap(w.in, w.out);
      w.in_count = count;
      begin_round(round);
      step("dmr_mark_swwl", Kernel::kMark, round);
      if (after_mark() == 0) break;  // every item deleted since it was pushed
      next_round();
      zero(kList);
      step("dmr_commit_swwl", Kernel::kCommit, round);
      after_commit();
    }
  } else {
    wl::Worklist* unit = &h.gpu().get<wl::Worklist>("dmr");
    const std::uint64_t threads = h.dispatcher().resident_capacity({"hwwl", 0, kGroup, 16, 0, {}}) * kGroup;
    const std::uint64_t entries = overflow_entries(cfg, tcap);
    const std::uint64_t overflow = entries ? h.alloc(4ull * entries * h.cus()) : 0;
    h.run_kernel({"hwwl_init", 1, kGroup, 4, 0, [=](Lane& l) { return hwwl_init(l, overflow, entries); }});
    unit->kernel_done();
    launch("dmr_check_hwwl", tin, [=](Lane& l) { return check_all(l, d, Mode::kHwwl, tin); });
    unit->kernel_done();
    for (std::uint32_t round = 0; unit->work_inside() > 0; ++round) {
      begin_round(round);
      launch("dmr_mark_hwwl", threads, [=](Lane& l) { return mark_hwwl(l, d, round); });
      unit->kernel_done();
      after_mark();
      if (unit->work_inside() == 0) break;
      next_round();
      launch("dmr_commit_hwwl", threads, [=](Lane& l) { return commit_hwwl(l, d, round); });
      unit->kernel_done();
      after_commit();
    }
  }

  // The refined mesh: the live triangles, renumbered in slot order.
  const Counters c = read_counters(h, d);
  const std::uint32_t slots = std::min(c.v[kTriangles], d.tcap), npts = std::min(c.v[kPoints], d.pcap);
  const auto state = h.download<std::uint32_t>(d.state, slots);
  const auto tv = h.download<std::uint32_t>(d.tv, 3ull * slots);
  const auto tn = h.download<std::uint32_t>(d.tn, 3ull * slots);
  const auto xy = h.download<double>(d.xy, 2ull * npts);
  Mesh out;
  out.base = in.base;
  out.origin = in.origin + " refined";
  out.x.resize(npts), out.y.resize(npts);
  for (std::uint32_t p = 0; p < npts; ++p) out.x[p] = xy[2 * p], out.y[p] = xy[2 * p + 1];
  std::vector<std::uint32_t> renum(slots, kNone);
  std::uint64_t device_bad = 0;
  for (std::uint32_t t = 0; t < slots; ++t)
    if (state[t] != kDead) {
      renum[t] = out.triangles();
      out.tri.push_back({tv[3 * t], tv[3 * t + 1], tv[3 * t + 2]});
      device_bad += state[t] == kBad;
    }
  std::string dangling;
  for (std::uint32_t t = 0; t < slots; ++t) {
    if (state[t] == kDead) continue;
    Tri n{};
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t u = tn[3 * t + k];
      n[k] = u == kNone ? kNone : u < slots ? renum[u] : kNone;
      if (u != kNone && (u >= slots || renum[u] == kNone) && dangling.empty())
        dangling = fmt::format("triangle slot {} has a deleted triangle (slot {}) as a neighbour", t, u);
    }
    out.nbr.push_back(n);
  }
  double area_out = 0;
  std::uint32_t boundary_out = 0;
  std::string problem = dangling;
  if (problem.empty()) {
    if (const mesh::Problem p = mesh::check_triangulation(out, &area_out, &boundary_out))
      problem = p.triangle == kNone ? p.what : fmt::format("triangle {}: {}", p.triangle + out.base, p.what);
  }
  if (problem.empty() && !(std::abs(area_out - area_in) <= 1e-9 * area_in))
    problem = fmt::format("the triangles cover {}, the input's {}", area_out, area_in);
  h.check(problem.empty(),
          problem.empty()
              ? fmt::format("dmr: a valid triangulation of the input's domain: {} points, {} triangles, reciprocal "
                            "neighbours, V - E + F = 1, one convex boundary loop, area {} as the input's",
                            out.points(), out.triangles(), area_out)
              : fmt::format("dmr: the refined mesh ({} points, {} triangles) is not a valid triangulation: {}",
                            out.points(), out.triangles(), problem));
  const mesh::DelaunayCheck del = mesh::check_delaunay(out);
  h.check(del.violations == 0,
          del.violations == 0
              ? fmt::format("dmr: Delaunay: no point inside a triangle's circumcircle")
              : fmt::format("dmr: not Delaunay: {} triangles with a point inside their circumcircle (first: triangle "
                            "{}, point {})",
                            del.violations, del.triangle + out.base, del.point + out.base));
  std::uint64_t bad_out = 0;
  std::uint32_t first_bad = kNone;
  for (std::uint32_t t = 0; t < out.triangles(); ++t)
    if (out.bad(t) && bad_out++ == 0) first_bad = t;
  h.check(bad_out == 0 && device_bad == 0,
          bad_out == 0 && device_bad == 0
              ? fmt::format("dmr: no bad triangle left (every angle at least 30 degrees) of the input's {}", bad_in)
              : fmt::format("dmr: {} bad triangles left (an angle below 30 degrees; first: triangle {}), {} still "
                            "marked bad on the device",
                            bad_out, first_bad == kNone ? 0 : first_bad + out.base, device_bad));
  h.result("mesh", in.origin);
  if (in.flipped) h.result("flipped_triangles", in.flipped);
  h.result("points_in", pin);
  h.result("triangles_in", tin);
  h.result("bad_in", bad_in);
  h.result("points_out", out.points());
  h.result("triangles_out", out.triangles());
  h.result("bad_out", bad_out);
  h.result("insertions", npts - pin);
  h.result("boundary_splits", boundary_out - boundary_in);
  h.result("triangle_slots", slots);
  h.result("rounds", rounds);
  h.result("conflicts", marked - (npts - pin));
  h.result("kernels", kernels);
  h.result("work_items", items);
  if (mech == "swwl") h.result("pushes", pushes);
  if (sw.donate) {
    h.result("donated_mark", c.v[kDonatedMark]);
    h.result("donated_commit", c.v[kDonatedCommit]);
    h.result("donated", std::uint64_t{c.v[kDonatedMark]} + c.v[kDonatedCommit]);
  }
  h.result("kernel_ns", kernel_time.to_seconds() * 1e9);
  mesh::write_triangle(h.output(), out);
}

std::uint64_t device_bytes(const Config& c) {
  // Per triangle slot its points and neighbours (24 bytes), state (4) and
  // owner (8), the two software lists (8); per point slot 16; the counters.
  const std::uint64_t tin = input_triangles(c);
  const std::uint64_t tcap = triangle_slots(c, tin);
  const std::uint64_t pcap = point_slots(tin + 2, tin, tcap);  // a disc has at most T + 2 points
  std::uint64_t bytes = 44 * tcap + 16 * pcap + kCounters * kCounterStride + 256;
  // hwwl: the overflow buffer, as run() allocates it.
  if (kDmr.mechanism.get(c) == "hwwl")
    bytes += 4 * overflow_entries(c, tcap) * std::get<std::uint64_t>(c.value("gpu.cus"));
  return bytes;
}

std::vector<std::string> mechanisms(const Config& c) {
  if (kDmr.mechanism.get(c) == "hwwl") return {wl::Worklist::kName};
  return {};
}

const RegisterWorkload r_dmr{{"dmr",
                              "Delaunay mesh refinement (topo, swwl or hwwl) of random points in a square or a "
                              "Triangle .node/.ele mesh",
                              kDmr.input.name(), run, device_bytes, mechanisms}};

}  // namespace
}  // namespace fg
