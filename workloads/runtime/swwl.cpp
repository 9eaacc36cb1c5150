// SPDX-License-Identifier: Apache-2.0
#include "runtime/swwl.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg::swwl {

namespace {

std::uint64_t at(std::uint64_t base, std::uint32_t i) { return base + 4ull * i; }

constexpr std::uint32_t kLdsAru = 0, kLdsAruStride = 20;
constexpr std::uint32_t kLds = kLdsDonations + 4 * kDonationsPerGroup;

}  // namespace

Params::Params(const std::string& w, Pushes pushes)
    : threads{w + ".swwl.threads",
              0,
              "",
              "swwl work-items per step: 0: one per item (VKC, variable kernel configuration); N: N work-items, "
              "each with an even contiguous share",
              {{0}, {1u << 24}}},
      donate{w + ".swwl.donate", false, "",
             "swwl work donating (WDO): work-items above their workgroup's average estimated work donate items to "
             "an LDS list the others pull from (needs swwl.threads > 0)"} {
  if (pushes == Pushes::kYes)
    push.emplace(w + ".swwl.push", "atomic", std::vector<std::string>{"atomic", "chunk", "aru"},
                 "swwl pushes (Sec. II): atomic: one atomic add per push; chunk (WCH): one per work-item for its "
                 "pushes; aru: one per workgroup, offsets from LDS atomics");
}

std::vector<std::string> Params::names() const {
  std::vector<std::string> n;
  if (push) n.push_back(push->name());
  n.push_back(threads.name());
  n.push_back(donate.name());
  return n;
}

Opts Params::get(const Config& c, const std::string& mechanism_key, const std::string& mechanism) const {
  for (const std::string& k : names())
    if (mechanism != "swwl" && !c.is_default(k))
      throw UserError(
          fmt::format("{} (set by {}) does not apply: {} is {}, not swwl", k, c.origin(k), mechanism_key, mechanism));
  Opts o;
  const std::string p = push ? push->get(c) : "atomic";
  o.push = p == "chunk" ? Push::kChunk : p == "aru" ? Push::kAru : Push::kAtomic;
  o.threads = static_cast<std::uint32_t>(threads.get(c));
  o.donate = donate.get(c);
  if (o.donate && o.threads == 0)
    throw UserError(fmt::format(
        "{} (set by {}): work donating needs {} > 0 (with one item per work-item there is nothing to donate)",
        donate.name(), c.origin(donate.name()), threads.name()));
  return o;
}

std::uint32_t lds_bytes(const Opts& o) { return o.push == Push::kAru || o.donate ? kLds : 0; }

Pusher::Pusher(Push mode, std::vector<List> lists) : mode_(mode), lists_(std::move(lists)), pend_(lists_.size()) {}

Task<> Pusher::push(Lane& l, std::size_t k, std::uint32_t v) {
  if (mode_ != Push::kAtomic) {
    pend_[k].push_back(v);
    co_return;
  }
  const List& w = lists_[k];
  const auto slot = co_await l.atomic_add<std::uint32_t>(w.count, 1);
  if (slot < w.capacity) co_await l.store<std::uint32_t>(at(w.base, slot), v);
}

namespace {

// Stores `pend` at list slots slot.. (past the capacity only the count grew).
Task<> store_at(Lane& l, const List& w, std::uint32_t slot, const std::vector<std::uint32_t>& pend) {
  for (std::size_t k = 0; k < pend.size(); ++k)
    if (slot + k < w.capacity)
      co_await l.store<std::uint32_t>(at(w.base, slot + static_cast<std::uint32_t>(k)), pend[k]);
}

}  // namespace

Task<> Pusher::end_step(Lane& l) {
  if (mode_ == Push::kAtomic) co_return;
  if (mode_ == Push::kChunk) {
    // WCH: the work-item's pushes to each list with one atomic add.
    for (std::size_t k = 0; k < lists_.size(); ++k) {
      if (pend_[k].empty()) continue;
      const auto slot =
          co_await l.atomic_add<std::uint32_t>(lists_[k].count, static_cast<std::uint32_t>(pend_[k].size()));
      co_await store_at(l, lists_[k], slot, pend_[k]);
      pend_[k].clear();
    }
    co_return;
  }
  // Offsets in the workgroup from an LDS atomic per list, one global atomic
  // add per list for the workgroup's pushes.
  std::vector<std::uint32_t> off(lists_.size());
  for (std::size_t k = 0; k < lists_.size(); ++k) {
    const std::uint32_t lds = kLdsAru + kLdsAruStride * static_cast<std::uint32_t>(k);
    off[k] = co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, lds, static_cast<std::uint32_t>(pend_[k].size()));
  }
  co_await l.barrier();
  if (l.local_id() == 0) {
    for (std::size_t k = 0; k < lists_.size(); ++k) {
      const std::uint32_t lds = kLdsAru + kLdsAruStride * static_cast<std::uint32_t>(k);
      const auto n = co_await l.lds_load<std::uint32_t>(lds);
      const auto base = n ? co_await l.atomic_add<std::uint32_t>(lists_[k].count, n) : 0u;
      co_await l.lds_store<std::uint32_t>(lds + 4, base);
    }
  }
  co_await l.barrier();
  for (std::size_t k = 0; k < lists_.size(); ++k) {
    const std::uint32_t lds = kLdsAru + kLdsAruStride * static_cast<std::uint32_t>(k);
    const auto base = co_await l.lds_load<std::uint32_t>(lds + 4);
    co_await store_at(l, lists_[k], base + off[k], pend_[k]);
    pend_[k].clear();
  }
}

Task<std::vector<std::uint32_t>> share(Lane& l, const Opts& o, std::uint64_t in, std::uint32_t in_count) {
  const std::uint64_t tid = l.global_id();
  std::uint32_t first = 0, last = 0;
  if (o.threads == 0) {
    first = static_cast<std::uint32_t>(tid), last = tid < in_count ? first + 1 : first;
  } else {
    first = static_cast<std::uint32_t>(tid * in_count / o.threads);
    last = static_cast<std::uint32_t>((tid + 1) * in_count / o.threads);
  }
  std::vector<std::uint32_t> items;
  for (std::uint32_t i = first; i < last; ++i) {
    if (in == 0) {
      items.push_back(i);
      continue;
    }
    items.push_back(co_await l.load<std::uint32_t>(at(in, i)));
  }
  co_return items;
}

Task<> donate(Lane& l, std::vector<std::uint32_t>& items, const std::vector<std::uint32_t>& work, std::uint32_t live) {
  std::vector<std::uint32_t> deg = work;
  std::uint32_t mine = 0;
  for (const std::uint32_t w : deg) mine += w;
  co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, kLdsEstimate, mine);
  co_await l.barrier();
  const std::uint64_t total = co_await l.lds_load<std::uint32_t>(kLdsEstimate);
  // Donate from the end of my share while above the average (total / live),
  // compared without rounding: a workgroup whose estimates add up to less
  // than its work-items has an average below 1, not 0.
  const std::uint64_t n = std::max<std::uint32_t>(live, 1);
  while (!items.empty() && std::uint64_t{mine} * n > total && std::uint64_t{mine - deg.back()} * n >= total) {
    const auto slot = co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, kLdsDonated, 1u);
    if (slot >= kDonationsPerGroup) break;  // the list is full: keep the rest
    co_await l.lds_store<std::uint32_t>(kLdsDonations + 4 * slot, items.back());
    mine -= deg.back();
    items.pop_back();
    deg.pop_back();
  }
  co_await l.barrier();
}

Task<std::uint32_t> donations(Lane& l, std::uint64_t donated) {
  const auto n = std::min(co_await l.lds_load<std::uint32_t>(kLdsDonated), kDonationsPerGroup);
  if (donated != 0 && l.local_id() == 0 && n) co_await l.atomic_add<std::uint32_t>(donated, n);
  co_return n;
}

Task<bool> take(Lane& l, std::uint32_t donations, std::uint32_t& item) {
  const auto k = co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, kLdsTaken, 1u);
  if (k >= donations) co_return false;
  item = co_await l.lds_load<std::uint32_t>(kLdsDonations + 4 * k);
  co_return true;
}

}  // namespace fg::swwl
