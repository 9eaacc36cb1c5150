// SPDX-License-Identifier: Apache-2.0
// The shared software worklist's step and its software optimizations (the
// worklist paper, Sec. II-D and Table II), for every data-driven workload
// (bfs, sssp, mst, bh, dmr, sp): a double-buffered list in memory (DBF: the
// host swaps the in- and out-lists between steps), and
//   <w>.swwl.push     atomic: one atomic add on the out-list's count per push;
//                     chunk (WCH): one per work-item for its pushes, once
//                     their number is known (at the end of its step: "once
//                     the number of pushes for a thread are known", Sec.
//                     II-D); aru (ARU): one per workgroup, offsets from LDS
//                     atomics;
//   <w>.swwl.threads  0 (VKC, variable kernel configuration): one work-item
//                     per item; N: N work-items with even contiguous shares;
//   <w>.swwl.donate   (WDO) work-items whose estimated work is above their
//                     workgroup's average (over its live work-items, compared
//                     exactly) donate items, from the end of their share, to
//                     an LDS list the others pull from, while their own
//                     estimate stays at or above the average.
//
//   swwl::Pusher p(opts.push, {out_list, ...});
//   co_await swwl::step(l, opts, in, in_count, donated, p, estimate, visit);
//
// `visit(l, item, p)` does one item's work and pushes through p.push(l, k, v)
// (list k of the Pusher's); `estimate(l, item)` is WDO's estimate of an
// item's work. Every work-item of a workgroup reaches the barriers that ARU
// and WDO use, also those without items.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu/kernel.h"
#include "sim/config.h"

namespace fg::swwl {

enum class Push { kAtomic, kChunk, kAru };

struct Opts {
  Push push = Push::kAtomic;
  std::uint32_t threads = 0;  // 0: one per item (VKC)
  bool donate = false;
};

// A list in device memory: 4-byte entries and a 4-byte count word; past the
// capacity only the count grows (the host reports the overflow).
struct List {
  std::uint64_t base = 0, count = 0;
  std::uint32_t capacity = 0;
};

// The keys of workload `w` (constructed at static initialization, as every
// Param); a workload whose swwl kernels push nothing (bh) has no push key.
struct Params {
  enum class Pushes { kYes, kNo };
  explicit Params(const std::string& w, Pushes pushes = Pushes::kYes);
  std::optional<Param<std::string>> push;
  Param<std::uint64_t> threads;
  Param<bool> donate;
  // The options; exit 2 (UserError) when one is set and `mechanism` (the
  // value of the key `mechanism_key`) is not swwl, or donating is asked
  // with one item per work-item.
  Opts get(const Config& c, const std::string& mechanism_key, const std::string& mechanism) const;
  std::vector<std::string> names() const;
};

// Work-items per workgroup the step assumes for WDO's donation list.
constexpr std::uint32_t kGroup = 256;
// LDS bytes a step kernel needs (0: neither ARU nor WDO).
std::uint32_t lds_bytes(const Opts& o);
// Work-items of a step over `in_count` items.
inline std::uint32_t threads(const Opts& o, std::uint32_t in_count) { return o.threads ? o.threads : in_count; }

// A work-item's pushes in one step, to up to kMaxLists lists.
class Pusher {
 public:
  static constexpr std::size_t kMaxLists = 2;
  Pusher(Push mode, std::vector<List> lists);
  // Pushes v on list k: at once (atomic) or collected (chunk, aru).
  Task<> push(Lane& l, std::size_t k, std::uint32_t v);
  // At the step's end, every work-item of the workgroup: WCH's one atomic
  // add per list with pushes; ARU's LDS offsets, barriers and one atomic add
  // per list per workgroup.
  Task<> end_step(Lane& l);

 private:
  Push mode_;
  std::vector<List> lists_;
  std::vector<std::vector<std::uint32_t>> pend_;
};

// LDS layout of a workgroup (zeroed at dispatch): WDO's estimate total,
// donation count and pull head, then the donations; ARU's count and base
// per list at kLdsAru + 20 * k (list 0: 0 and 4; list 1: 20 and 24).
constexpr std::uint32_t kLdsEstimate = 8, kLdsDonated = 12, kLdsTaken = 16, kLdsDonations = 32;
constexpr std::uint32_t kDonationsPerGroup = 4 * kGroup;

// The shares of a work-item: items first..last of the in-list (in == 0:
// the items are the indices themselves).
Task<std::vector<std::uint32_t>> share(Lane& l, const Opts& o, std::uint64_t in, std::uint32_t in_count);
// WDO, every work-item: donates from the end of `items` to the workgroup's
// LDS list while its estimate stays at or above the workgroup's average
// (the total over its `live` work-items; compared as mine * live against
// the total, without rounding).
Task<> donate(Lane& l, std::vector<std::uint32_t>& items, const std::vector<std::uint32_t>& work, std::uint32_t live);
// The work-items of this workgroup that exist (the last one of a grid of
// `threads` may be partial).
inline std::uint32_t live_items(const Lane& l, std::uint32_t threads) {
  const std::uint64_t first = std::uint64_t{l.group_id()} * l.group_size();
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(l.group_size(), threads - first));
}
// WDO: the donations this workgroup made (counted once, into `donated` when
// it is not 0), and the next one to take (false: none left).
Task<std::uint32_t> donations(Lane& l, std::uint64_t donated);
Task<bool> take(Lane& l, std::uint32_t donations, std::uint32_t& item);

// One step over the in-list.
template <class Estimate, class Visit>
Task<> step(Lane& l, Opts o, std::uint64_t in, std::uint32_t in_count, std::uint64_t donated, Pusher& p,
            Estimate estimate, Visit visit) {
  std::vector<std::uint32_t> items = co_await share(l, o, in, in_count);
  if (o.donate) {
    std::vector<std::uint32_t> work;
    for (const std::uint32_t u : items) work.push_back(co_await estimate(l, u));
    co_await donate(l, items, work, live_items(l, threads(o, in_count)));
  }
  for (const std::uint32_t u : items) co_await visit(l, u, p);
  if (o.donate) {
    const std::uint32_t n = co_await donations(l, donated);
    for (;;) {
      std::uint32_t u = 0;
      const bool more = co_await take(l, n, u);
      if (!more) break;
      co_await visit(l, u, p);
    }
  }
  co_await p.end_step(l);
}

}  // namespace fg::swwl
