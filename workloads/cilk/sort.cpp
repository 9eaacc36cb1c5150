// SPDX-License-Identifier: Apache-2.0
// sort: Cilk's cilksort (Orr et al. Sec. 7.1, from the MIT Cilk
// distribution) on channel stacks (Sec. 5), four kernel nodes as in Table 3:
//
//   sort        a task sorts keys[off, off + len): with `sort.base` keys or
//               fewer it sorts them serially (the base case: load them,
//               insertion-sort, store them); otherwise it spawns one task per
//               quarter at depth d + 1 and its continuation at depth d.
//   sort_sync   the four quarters are sorted: spawn the merges of quarters
//               1+2 and 3+4 into the scratch array (merge tasks at depth
//               d + 1) and the second continuation at depth d.
//   merge_sync  both halves are merged into the scratch array: spawn the merge
//               of the two halves back into keys (merge tasks at d + 1).
//   merge       one `sort.merge_chunk`-key piece of a merge's output: a
//               binary search for where the piece starts in each input (the
//               merge path), then a serial merge of the piece.
//
// cilksort splits its merges recursively (cilkmerge); here a continuation
// cuts its merge into fixed pieces at once, so the levelized scheduler's one
// merge level per depth suffices. The sorted keys are checked against the
// host's std::sort every run; `--output` writes them, one per line. Keys come
// from `--input FILE` (one integer per line) or are drawn from the seed.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cilk/cilk.h"
#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "inputs/keys.h"
#include "runtime/channel.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

// Table 3: Sort's data set is 1,000,000 keys and its channel width 32,768.
constexpr std::uint64_t kMaxKeys = 1u << 26;
const Param<std::uint64_t> kN{
    "sort.n", 1000000, "keys", "keys to sort, drawn from the seed (Orr et al. Table 3: 1,000,000)", {{1}, {kMaxKeys}}};
const Param<std::string> kInput{"sort.input", "", "",
                                "keys to sort, one integer per line (--input FILE); empty: draw sort.n keys"};
const Param<std::uint64_t> kCapacity{"sort.capacity",
                                     32768,
                                     "CEs",
                                     "capacity of each channel of the stacks (Orr et al. Table 3: 32,768)",
                                     {{0}, {1u << 30}}};
// Sec. 7.1: "until reaching a base case (64 elements)".
const Param<std::uint64_t> kBase{
    "sort.base", 64, "keys", "largest sub-array sorted serially (Orr et al. Sec. 7.1: 64)", {{4}, {4096}}};
// No source: the paper names no merge grain; the base case's 64 keys.
const Param<std::uint64_t> kChunk{"sort.merge_chunk",
                                  64,
                                  "keys",
                                  "output keys per merge task (an assumption: the base case's 64; docs/channels.md)",
                                  {{1}, {1u << 20}}};
const Param<std::string> kMechanism{"sort.mechanism", "channels", std::vector<std::string>{"channels", "forkjoin"},
                                    "channels: Cilk on channel stacks (Orr et al.); forkjoin: tasks on the fork-join "
                                    "runtime (GTaP, docs/forkjoin.md)"};
const Param<std::string> kAlgorithm{
    "sort.algorithm", "auto", std::vector<std::string>{"auto", "pieces", "cilksort", "mergesort"},
    "pieces: the 4-way split whose merges are cut into sort.merge_chunk pieces (channels); cilksort: MIT Cilk's, "
    "merges split recursively at the larger half's median (forkjoin); mergesort: halves and a serial merge "
    "(forkjoin, GTaP Sec. 6.2); auto: pieces on channels, cilksort on forkjoin"};

// Instructions per step of the serial code (assumptions about the compiled
// loops, docs/channels.md): insertion sort, per comparison (load from the
// register copy, compare, branch, move); merge, per output key (compare,
// select, advance, branch); merge path, per search step.
constexpr std::uint64_t kInstrPerCompare = 4, kInstrPerOutput = 4, kInstrPerSearch = 6;

// CEs (16 B): a sort task or a continuation {u32 off, u32 len, u64 unused}.
// A merge task (32 B): {u32 a_off, u32 a_len, u32 b_off, u32 b_len, u32
// out_off, u32 k0, u32 k1, u32 to_keys}: output keys [k0, k1) of the merge
// of A and B into out_off, from keys to scratch or back (to_keys).
constexpr std::uint32_t kTaskBytes = 16, kMergeBytes = 32;

struct Arrays {
  std::uint64_t keys, scratch;
  std::uint32_t base, chunk;
  std::uint32_t batch;  // merge pieces per lane per talloc: the capacity / 128, at least 1
  std::uint64_t at(bool scratch_array, std::uint32_t i) const { return (scratch_array ? scratch : keys) + 4ull * i; }
};

struct Stacks {
  cilk::Stack sort, sync, msync, merge;
};

std::uint64_t pack(std::uint32_t lo, std::uint32_t hi) { return lo | std::uint64_t{hi} << 32; }
std::uint32_t lo32(std::uint64_t w) { return static_cast<std::uint32_t>(w); }
std::uint32_t hi32(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }

Task<> sort_task(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.sort.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint32_t lo = lo32(w), len = hi32(w);
  if (len <= a.base) {
    std::vector<std::int32_t> v(len);
    for (std::uint32_t i = 0; i < len; ++i) v[i] = co_await l.load<std::int32_t>(a.at(false, lo + i));
    std::uint64_t compares = 0;
    for (std::uint32_t i = 1; i < len; ++i) {
      const std::int32_t x = v[i];
      std::uint32_t j = i;
      for (; j > 0; --j) {
        ++compares;
        if (v[j - 1] <= x) break;
        v[j] = v[j - 1];
      }
      v[j] = x;
    }
    co_await l.alu(compares * kInstrPerCompare + len);
    for (std::uint32_t i = 0; i < len; ++i) co_await l.store<std::int32_t>(a.at(false, lo + i), v[i]);
  } else {
    chan::Channel& cont = s.sync.at(d);
    chan::Channel& child = s.sort.at(d + 1);
    const chan::Alloc ka = co_await chan::talloc(l, cont, 1);   // sync
    const chan::Alloc ca = co_await chan::talloc(l, child, 4);  // spawn the quarters
    co_await l.store<std::uint64_t>(ka.addr(cont, 0), w);
    const std::uint32_t q = len / 4;
    for (std::uint32_t i = 0; i < 4; ++i)
      co_await l.store<std::uint64_t>(ca.addr(child, i), pack(lo + i * q, i < 3 ? q : len - 3 * q));
    co_await chan::enq(l, cont, ka);
    co_await chan::enq(l, child, ca);
  }
  co_await chan::tfree(l, in, ce);
}

// The pieces of the merge of [a_off, a_off + a_len) and [b_off, b_off +
// b_len) into out_off.
struct Merge {
  std::uint32_t a_off, a_len, b_off, b_len, out_off;
  std::uint32_t pieces(std::uint32_t chunk) const { return (a_len + b_len + chunk - 1) / chunk; }
};

// Both continuations: spawn the pieces of the merges `m` (one or two) and,
// for sort_sync, the next continuation: its talloc first, its enq last, so
// it is published after all its merges. The pieces go out in batches of at
// most `batch` per lane, so that a wavefront's request fits the channel
// (a top-level merge of 1,000,000 keys has 15,625 pieces); a lane short of
// room yields between batches while the merges it published run.
Task<> spawn_merges(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint64_t w, const Merge* m,
                    std::uint32_t count, bool to_keys, chan::Channel* next) {
  chan::Channel& child = s.merge.at(d + 1);
  chan::Alloc ka;
  if (next) ka = co_await chan::talloc(l, *next, 1);
  const std::uint32_t first = m[0].pieces(a.chunk);  // pieces of the first merge, then of the second
  const std::uint32_t total = count == 2 ? first + m[1].pieces(a.chunk) : first;
  for (std::uint32_t done = 0; done < total;) {
    const std::uint32_t n = std::min(total - done, a.batch);
    const chan::Alloc ma = co_await chan::talloc(l, child, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Merge& mm = done + i < first ? m[0] : m[1];
      const std::uint32_t piece = done + i < first ? done + i : done + i - first;
      const std::uint32_t len = mm.a_len + mm.b_len;
      const std::uint64_t p = ma.addr(child, i);
      co_await l.store<std::uint64_t>(p, pack(mm.a_off, mm.a_len));
      co_await l.store<std::uint64_t>(p + 8, pack(mm.b_off, mm.b_len));
      co_await l.store<std::uint64_t>(p + 16, pack(mm.out_off, piece * a.chunk));
      co_await l.store<std::uint64_t>(p + 24, pack(std::min(len, (piece + 1) * a.chunk), to_keys ? 1 : 0));
    }
    co_await l.alu(4);
    co_await chan::enq(l, child, ma);
    done += n;
  }
  if (next) {
    co_await l.store<std::uint64_t>(ka.addr(*next, 0), w);
    co_await chan::enq(l, *next, ka);
  }
}

Task<> sort_sync(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.sync.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint32_t lo = lo32(w), len = hi32(w), q = len / 4;
  // Quarters 1+2 and 3+4 into the scratch array at the same offsets.
  const Merge m[2] = {{lo, q, lo + q, q, lo}, {lo + 2 * q, q, lo + 3 * q, len - 3 * q, lo + 2 * q}};
  co_await l.alu(12);
  co_await spawn_merges(l, a, s, d, w, m, 2, false, &s.msync.at(d));
  co_await chan::tfree(l, in, ce);
}

Task<> merge_sync(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.msync.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint32_t lo = lo32(w), len = hi32(w), h = len / 4 * 2;
  const Merge m{lo, h, lo + h, len - h, lo};  // the halves, back into the keys
  co_await l.alu(8);
  co_await spawn_merges(l, a, s, d, w, &m, 1, true, nullptr);
  co_await chan::tfree(l, in, ce);
}

Task<> merge_task(Lane& l, const Arrays& a, const Stacks& s, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = s.merge.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w0 = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint64_t w1 = co_await l.load<std::uint64_t>(ce.addr + 8);
  const std::uint64_t w2 = co_await l.load<std::uint64_t>(ce.addr + 16);
  const std::uint64_t w3 = co_await l.load<std::uint64_t>(ce.addr + 24);
  const std::uint32_t a_off = lo32(w0), na = hi32(w0), b_off = lo32(w1), nb = hi32(w1);
  const std::uint32_t out = lo32(w2), k0 = hi32(w2), k1 = lo32(w3);
  const bool to_keys = hi32(w3) != 0;
  const bool from_scratch = to_keys;  // merges into scratch read keys, and back
  // Merge path: i keys of A and k0 - i of B precede output k0 (A first on ties).
  std::uint32_t lo = k0 > nb ? k0 - nb : 0, hi = std::min(k0, na);
  for (; lo < hi;) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::int32_t x = co_await l.load<std::int32_t>(a.at(from_scratch, a_off + mid));
    const std::int32_t y = co_await l.load<std::int32_t>(a.at(from_scratch, b_off + (k0 - mid - 1)));
    co_await l.alu(kInstrPerSearch);
    if (x <= y)
      lo = mid + 1;
    else
      hi = mid;
  }
  std::uint32_t i = lo, j = k0 - lo;
  std::int32_t x = 0, y = 0;
  if (i < na) x = co_await l.load<std::int32_t>(a.at(from_scratch, a_off + i));
  if (j < nb) y = co_await l.load<std::int32_t>(a.at(from_scratch, b_off + j));
  for (std::uint32_t k = k0; k < k1; ++k) {
    const bool take_a = j >= nb || (i < na && x <= y);
    co_await l.alu(kInstrPerOutput);
    co_await l.store<std::int32_t>(a.at(!from_scratch, out + k), take_a ? x : y);
    if (take_a) {
      if (++i < na) x = co_await l.load<std::int32_t>(a.at(from_scratch, a_off + i));
    } else {
      if (++j < nb) y = co_await l.load<std::int32_t>(a.at(from_scratch, b_off + j));
    }
  }
  co_await chan::tfree(l, in, ce);
}

// Keys from `path`: one integer per line (blank lines skipped); anything else
// is a UserError naming file:line.
void sort(Host& h) {
  const Config& cfg = h.config();
  std::vector<std::int32_t> keys;
  if (const std::string path = kInput.get(cfg); !path.empty()) {
    if (!cfg.is_default(kN.name()))
      throw UserError(
          fmt::format("{} (set by {}) does not apply: the keys come from {}", kN.name(), cfg.origin(kN.name()), path));
    keys = keys::read_file(path, kMaxKeys);
  } else {
    keys.resize(kN.get(cfg));
    std::uniform_int_distribution<std::int32_t> dist(std::numeric_limits<std::int32_t>::min(),
                                                     std::numeric_limits<std::int32_t>::max());
    for (auto& k : keys) k = dist(h.rng());
  }
  const auto n = static_cast<std::uint32_t>(keys.size());
  const bool forkjoin = kMechanism.get(cfg) == "forkjoin";
  std::string algorithm = kAlgorithm.get(cfg);
  if (algorithm == "auto") algorithm = forkjoin ? "cilksort" : "pieces";
  if (forkjoin == (algorithm == "pieces"))
    throw UserError(fmt::format("sort.algorithm={}: not a sort of sort.mechanism={} ({})", algorithm,
                                kMechanism.get(cfg), forkjoin ? "cilksort or mergesort" : "pieces"));
  auto check = [&](const std::vector<std::int32_t>& got) {
    std::vector<std::int32_t> want = keys;
    std::sort(want.begin(), want.end());
    std::uint64_t wrong = 0, first_wrong = n;
    for (std::uint32_t i = 0; i < n; ++i)
      if (got[i] != want[i]) {
        ++wrong;
        first_wrong = std::min<std::uint64_t>(first_wrong, i);
      }
    h.check(wrong == 0, fmt::format("sort: {} of {} keys out of place, the first at index {}", wrong, n, first_wrong));
    h.result("keys", std::uint64_t{n});
  };
  if (forkjoin) {
    for (const std::string& key : {kCapacity.name(), kBase.name(), kChunk.name()})
      if (cfg.set_by_user(key))
        throw UserError(
            fmt::format("{}: sort.mechanism=forkjoin has no channels (its cutoffs are sort.cutoff, "
                        "sort.cutoff_sort and sort.cutoff_merge)",
                        key));
    const std::vector<std::int32_t> got = fj::sort_app(h, keys, algorithm == "cilksort");
    check(got);
    for (const std::int32_t k : got) h.output() << k << "\n";
    return;
  }
  for (const std::string& key : fj::sort_keys())
    if (cfg.set_by_user(key)) throw UserError(fmt::format("{}: a fork-join setting (sort.mechanism=forkjoin)", key));
  const auto cap = static_cast<std::uint32_t>(kCapacity.get(cfg));
  Arrays a{h.upload(keys), h.upload(std::vector<std::int32_t>(n)), static_cast<std::uint32_t>(kBase.get(cfg)),
           static_cast<std::uint32_t>(kChunk.get(cfg)), std::max<std::uint32_t>(1, cap / 128)};
  // Depth of the base cases: quarter until `base` keys or fewer.
  std::uint32_t depth = 0;
  for (std::uint64_t len = n; len > a.base; len -= 3 * (len / 4)) ++depth;  // the largest quarter
  flow::Graph g(h, kCapacity.name());
  Stacks s;
  auto body = [&a, &s](auto fn) {
    return [&a, &s, fn](std::uint32_t d) {
      return [&a, &s, fn, d](Lane& l, std::uint32_t off) { return fn(l, a, s, d, off); };
    };
  };
  // Table 3: four kernel nodes, 16s/8d/2c each.
  const ContextSize ctx{856, 16, 8, 2};
  const std::uint32_t conts = std::max<std::uint32_t>(depth, 1);
  s.sync = cilk::make_stack(g, "sort_sync", kTaskBytes, cap, conts, body(sort_sync), 32, ctx);
  s.msync = cilk::make_stack(g, "merge_sync", kTaskBytes, cap, conts, body(merge_sync), 32, ctx);
  s.sort = cilk::make_stack(g, "sort", kTaskBytes, cap, depth + 1, body(sort_task), 32, ctx);
  s.merge = cilk::make_stack(g, "merge", kMergeBytes, cap, depth + 1, body(merge_task), 32, ctx);
  // Continuation stacks in production order: sort_sync publishes merge_sync.
  g.aggregator().set_scheduler(
      std::make_unique<cilk::LevelScheduler>(std::vector{s.sort, s.merge}, std::vector{s.sync, s.msync}));
  struct Root {
    std::uint64_t w, pad;
  };
  static_assert(sizeof(Root) == kTaskBytes);
  g.host_enq(s.sort.at(0), Root{pack(0, n), 0});
  const Tick elapsed = cilk::run(g);
  const std::vector<std::int32_t> got = h.download<std::int32_t>(a.keys, n);
  check(got);
  h.result("base_depth", std::uint64_t{depth});
  cilk::report(h, g, elapsed);
  for (const std::int32_t k : got) h.output() << k << "\n";
}

// Keys a run sorts: sort.n, or at most one per two bytes of sort.input (a
// digit and a newline each).
std::uint64_t keys_bound(const Config& c) {
  const std::string path = kInput.get(c);
  if (path.empty()) return kN.get(c);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : std::min<std::uint64_t>(size / 2 + 1, kMaxKeys);  // a missing file is reported when it is read
}

// The keys and their output, and the four channel stacks as sort() makes
// them with the spill blocks of their kernels (or the fork-join runtime's).
std::uint64_t device_bytes(const Config& c) {
  const std::uint64_t n = keys_bound(c);
  if (kMechanism.get(c) == "forkjoin") return 8 * n + fj::runtime_bytes(c, 48, 7, 32);
  const std::uint64_t base = kBase.get(c), cap = kCapacity.get(c);
  std::uint32_t depth = 0;
  for (std::uint64_t len = n; len > base; len -= 3 * (len / 4)) ++depth;  // as sort()
  const std::uint32_t conts = std::max<std::uint32_t>(depth, 1);
  return 8 * n + 2 * cilk::stack_bytes(c, kTaskBytes, cap, conts) + cilk::stack_bytes(c, kTaskBytes, cap, depth + 1) +
         cilk::stack_bytes(c, kMergeBytes, cap, depth + 1) + flow::spill_bytes(c, ContextSize{856, 16, 8, 2});
}

const RegisterWorkload kReg{
    {"sort", "Cilk sort (4-way split, 64-key base cases, merges) on channel stacks (Orr et al. Sec. 7.1)",
     kInput.name(), sort, device_bytes, [](const Config& c) {
       return kMechanism.get(c) == "forkjoin" ? std::vector<std::string>{fj::kName} : flow::mechanisms(c);
     }}};

}  // namespace
}  // namespace fg
