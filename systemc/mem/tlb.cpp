// SPDX-License-Identifier: Apache-2.0
#include "mem/tlb.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg {

namespace {
// Off by default and in every preset: no published measurement of a modelled
// GPU's TLBs (their reach and miss costs) was found (docs/memory.md, "Address
// translation"). The page: the 2 MB entries NVIDIA's TLBs hold for device
// allocations (Jia et al. 2018, "Dissecting the NVIDIA Volta GPU Architecture
// via Microbenchmarking", Sec. 3).
const Param<std::uint64_t> kL1Entries{"gpu.tlb.l1_entries",
                                      0,
                                      "",
                                      "translations each requester's L1 TLB holds, fully associative, least recently "
                                      "used out (0: no address translation)",
                                      {{0}, {1u << 20}}};
const Param<std::uint64_t> kL1Miss{"gpu.tlb.l1_miss_latency",
                                   0,
                                   "cycles",
                                   "cycles (the requester's clock) an L1 TLB miss adds when the L2 TLB holds the page",
                                   {{0}, {100000}}};
const Param<std::uint64_t> kL2Entries{"gpu.tlb.l2_entries",
                                      0,
                                      "",
                                      "translations the L2 TLB the requesters share holds (0: every page, no walks)",
                                      {{0}, {1u << 24}}};
const Param<std::uint64_t> kWalk{"gpu.tlb.walk_latency",
                                 0,
                                 "cycles",
                                 "cycles a page walk adds to an L1 TLB miss the L2 TLB misses too",
                                 {{0}, {1000000}}};
const Param<std::uint64_t> kPage{
    "gpu.tlb.page", 2u << 20, "B", "page size a translation covers (a power of two)", {{256}, {1ull << 40}}};
}  // namespace

TlbParams TlbParams::from(const Config& cfg) {
  TlbParams p;
  p.l1_entries = static_cast<unsigned>(kL1Entries.get(cfg));
  p.l1_miss_latency = static_cast<unsigned>(kL1Miss.get(cfg));
  p.l2_entries = static_cast<unsigned>(kL2Entries.get(cfg));
  p.walk_latency = static_cast<unsigned>(kWalk.get(cfg));
  p.page = kPage.get(cfg);
  if (p.page & (p.page - 1)) throw UserError(fmt::format("gpu.tlb.page: {} is not a power of two", p.page));
  if (!p.on()) {
    // Translation's other keys describe TLBs that are not there.
    for (const auto* k : {&kL1Miss, &kL2Entries, &kWalk, &kPage})
      if (cfg.set_by_user(k->name()))
        throw UserError(fmt::format("{}: needs gpu.tlb.l1_entries (0: no address translation)", k->name()));
  }
  return p;
}

Tick* TlbSet::find(std::uint64_t page) {
  auto it = at_.find(page);
  if (it == at_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);
  return &it->second->second;
}

void TlbSet::put(std::uint64_t page, Tick ready) {
  order_.emplace_front(page, ready);
  at_[page] = order_.begin();
  if (cap_ && order_.size() > cap_) {
    at_.erase(order_.back().first);
    order_.pop_back();
  }
}

Tick SharedTlb::miss(std::uint64_t page, Tick t, const Clock& clock, bool& walked) {
  walked = false;
  if (!p_.l2_entries) return t + clock.cycles(p_.l1_miss_latency);  // it holds every page
  if (Tick* r = set_.find(page)) {
    return std::max(*r, t) + clock.cycles(p_.l1_miss_latency);
  }
  walked = true;
  const Tick ready = t + clock.cycles(std::uint64_t{p_.l1_miss_latency} + p_.walk_latency);
  set_.put(page, ready);
  return ready;
}

}  // namespace fg
