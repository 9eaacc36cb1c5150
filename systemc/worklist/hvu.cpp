// SPDX-License-Identifier: Apache-2.0
#include "worklist/hvu.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "mem/mem_port.h"
#include "sim/error.h"

namespace fg::wl {

Hvu::Hvu(const Params& p, const Clock& clock)
    : spills(StatGroup("gpu.worklist.hvu"), "spills", "pushes to a full bank written to the overflow buffer", ""),
      spill_stores(StatGroup("gpu.worklist.hvu"), "spill_stores",
                   "coalesced stores of spilled work IDs (up to a wavefront's worth each)", ""),
      refills(StatGroup("gpu.worklist.hvu"), "refills", "work IDs written back into banks", ""),
      refill_loads(StatGroup("gpu.worklist.hvu"), "refill_loads", "coalesced loads from the overflow buffer", ""),
      bytes_written(StatGroup("gpu.worklist.hvu"), "bytes_written", "bytes stored to the overflow buffer", "B"),
      bytes_read(StatGroup("gpu.worklist.hvu"), "bytes_read", "bytes loaded from the overflow buffer", "B"),
      reservations(StatGroup("gpu.worklist.hvu"), "reservations",
                   "interval refills with an entry reserved in every bank of the core (single-buffer mode)", ""),
      refill_waits(StatGroup("gpu.worklist.hvu"), "refill_waits",
                   "lane pulls held on an empty bank while the core's overflow buffer had work (cycles x lanes)", ""),
      stall_cycles(StatGroup("gpu.worklist.hvu"), "stall_cycles",
                   "unit cycles in which a pull was held waiting for a refill", "cycles"),
      peak_loads(StatGroup("gpu.worklist.hvu"), "peak_loads",
                 "the most refill loads in flight at once on one core (worklist.hvu_refills bounds the on-demand ones)",
                 ""),
      p_(p),
      clock_(clock),
      cores_(p.cores) {
  for (Core& c : cores_) {
    c.at_bank.resize(p.lanes);
    c.incoming.assign(p.lanes, 0);
  }
}

void Hvu::init(std::uint64_t base, std::uint64_t entries) {
  if (held() != 0)
    throw SimFault(
        fmt::format("wlinit: the overflow buffer holds {} work IDs; it may be moved only when empty", held()));
  base_ = base;
  entries_ = entries;
  layout();
}

std::uint64_t Hvu::Ring::ready(Tick now) const {
  // The completed prefix only grows (the unit's `now` does not go back), and
  // load() takes from it: extend it by the stores completed since.
  while (done_i < stores.size() && stores[done_i].second <= now) done_n += stores[done_i++].first;
  return done_n;
}

std::uint64_t Hvu::waiting(const Core& c) const { return c.loaded + c.queued; }

std::uint64_t Hvu::held() const {
  std::uint64_t n = 0;
  for (const Core& c : cores_) n += c.ring[0].count + c.ring[1].count + c.spilled.size() + waiting(c);
  return n;
}

bool Hvu::busy_this_round() const {
  for (const Core& c : cores_)
    if (c.ring[c.cur].count != 0 || waiting(c) != 0 || (!double_buf_ && !c.spilled.empty())) return true;
  return false;
}

Hvu::Next Hvu::next_event(bool refills_stuck) const {
  Next n;
  for (const Core& c : cores_) {
    if (c.demand || !c.spilled.empty()) n.now = true;
    if (c.queued != 0 && !refills_stuck) n.now = true;
    if (!c.loads.empty()) n.at = std::min(n.at, c.loads.front().at);
    if (p_.refill == Refill::Interval && c.ring[c.cur].count != 0) n.interval = true;
    if (c.burst) n.now = true;
  }
  return n;
}

bool Hvu::active() const {
  for (const Core& c : cores_)
    if (!c.inflight.empty() || waiting(c) != 0 || !c.spilled.empty()) return true;
  return false;
}

std::string Hvu::where() const {
  std::string s;
  for (unsigned k = 0; k < p_.cores; ++k) {
    const Core& c = cores_[k];
    const std::uint64_t a = c.ring[c.cur].count, b = c.ring[1 - c.cur].count, w = waiting(c);
    if (a + b + w == 0) continue;
    s += fmt::format("{}core {} overflow buffer: {} this round", s.empty() ? "" : "; ", k, a);
    if (double_buf_) s += fmt::format(", {} next round", b);
    if (w) s += fmt::format(", {} loaded for its banks", w);
  }
  return s;
}

unsigned Hvu::queue_free(Core& c, Tick now) {
  while (!c.inflight.empty() && c.inflight.front() <= now) c.inflight.pop_front();
  return c.inflight.size() >= p_.requests ? 0u : p_.requests - static_cast<unsigned>(c.inflight.size());
}

// Line-sized requests (a MemPort request stays in one line), all issued at
// `now`: they overlap, as the line requests of one coalesced access do.
Tick Hvu::access(unsigned core, std::uint64_t addr, std::uint32_t* data, std::uint64_t n, bool write, Tick now) {
  MemPort* port = ports_.at(core);
  const Tick t0 = sc_core::sc_time_stamp().value();
  const sc_core::sc_time issue = sc_core::sc_time::from_value(now > t0 ? now - t0 : 0);
  Tick done = now;
  for_lines(addr, data, n, [&](std::uint64_t a, unsigned char* bytes, unsigned len) {
    // Through the load/store path: not allocated in the L1 (bypass).
    const sc_core::sc_time d =
        write ? port->write(a, bytes, len, issue, nullptr, lsu_) : port->read(a, bytes, len, issue, lsu_);
    done = std::max<Tick>(done, t0 + d.value());
  });
  (write ? bytes_written : bytes_read) += 4 * n;
  return done;
}

Tick Hvu::issue(Deferred* g, unsigned core, std::uint64_t addr, std::uint32_t* data, std::uint64_t n, bool write,
                Tick now) {
  if (!g) return access(core, addr, data, n, write, now);
  if (!write)
    for_lines(addr, data, n,
              [&](std::uint64_t a, unsigned char* bytes, unsigned len) { ports_.at(core)->peek(a, bytes, len); });
  g->parts.emplace_back(addr, std::vector<std::uint32_t>(data, data + n));
  return kNever;
}

Hvu::Deferred* Hvu::defer_group(unsigned core, bool write, Tick now) {
  if (!lsu_) return nullptr;
  deferred_.push_back(Deferred{core, write, now, nullptr, {}});
  return &deferred_.back();
}

void Hvu::flush() {
  std::vector<Deferred> all;
  all.swap(deferred_);
  for (Deferred& g : all) {
    Tick done = g.now;
    for (auto& [addr, ids] : g.parts)
      done = std::max(done, access(g.core, addr, ids.data(), ids.size(), g.write, g.now));
    *g.done = done;
    Core& c = cores_[g.core];
    // Its place in the queue was held by kNever (sorted last).
    if (c.inflight.empty() || c.inflight.back() != kNever) throw std::logic_error("hvu: a deferred request lost");
    c.inflight.pop_back();
    c.inflight.push_back(done);
    std::sort(c.inflight.begin(), c.inflight.end());
  }
}

void Hvu::swap_rounds(Tick now) {
  if (!double_buf_) return;
  for (Core& c : cores_) {
    if (!c.spilled.empty()) store_spilled(c, now);  // next-round work: into the ring that becomes current
    c.spilled_now = 0;
    c.cur = 1 - c.cur;
  }
}

void Hvu::layout() {
  for (unsigned k = 0; k < p_.cores; ++k) {
    const std::uint64_t kb = base_ + 4 * k * entries_;
    if (double_buf_) {
      cores_[k].ring[0] = Ring{kb, entries_ / 2, 0, 0, {}};
      cores_[k].ring[1] = Ring{kb + 4 * (entries_ / 2), entries_ - entries_ / 2, 0, 0, {}};
    } else {
      cores_[k].ring[0] = Ring{kb, entries_, 0, 0, {}};
      cores_[k].ring[1] = Ring{};
    }
    cores_[k].cur = 0;
  }
}

void Hvu::set_mode(bool double_buf) {
  double_buf_ = double_buf;
  layout();
}

bool Hvu::spill(unsigned core, std::uint32_t id, Tick now, const std::function<std::string()>& where) {
  Core& c = cores_[core];
  Ring& r = c.ring[double_buf_ ? 1 - c.cur : 0];  // pushes are next-round work in double mode
  if (r.count + c.spilled.size() >= r.cap)
    throw SimFault(fmt::format(
        "worklist overflow: a push of work ID {} finds its bank and core {}'s overflow buffer full ({} entries{}; the "
        "paper's hardware exception, Sec. III-A); inside: {}",
        id, core, r.cap, double_buf_ ? " per round" : "", where()));
  if (c.spilled.empty() && queue_free(c, now) == 0) return false;
  c.spilled.push_back(id);
  ++c.spilled_now;
  ++spills;
  return true;
}

void Hvu::end_cycle(Tick now) {
  for (Core& c : cores_) {
    if (c.spilled.empty()) continue;
    // Up to a warp's worth of pushes per store (Sec. III-D), across cycles:
    // a wavefront's pushes reach the banks over several cycles (lanes that
    // share a bank go in successive ones), so the buffer goes out when it
    // holds a warp's worth, or in the first cycle that brings no spill.
    const bool more = c.spilled_now != 0;
    c.spilled_now = 0;
    if (p_.coalesce_cycles && more && c.spilled.size() < p_.warp) continue;
    store_spilled(c, now);
  }
}

void Hvu::store_spilled(Core& c, Tick now) {
  Ring& r = c.ring[double_buf_ ? 1 - c.cur : 0];
  for (std::size_t i = 0; i < c.spilled.size(); i += p_.warp) {
    const std::uint64_t n = std::min<std::uint64_t>(p_.warp, c.spilled.size() - i);
    // The ring's tail; a store that wraps is two stores.
    Deferred* g = defer_group(core_of(c), true, now);
    Tick done = now;
    for (std::uint64_t k = 0; k < n;) {
      const std::uint64_t tail = (r.head + r.count + k) % r.cap;
      const std::uint64_t m = std::min(n - k, r.cap - tail);
      done = std::max(done, issue(g, core_of(c), r.base + 4 * tail, c.spilled.data() + i + k, m, true, now));
      k += m;
    }
    r.count += n;
    r.stores.emplace_back(n, done);
    if (g) g->done = &r.stores.back().second;
    c.inflight.push_back(done);
    std::sort(c.inflight.begin(), c.inflight.end());
    ++spill_stores;
  }
  c.spilled.clear();
}

void Hvu::load(unsigned core, std::uint64_t n, bool one_per_bank, unsigned first_bank, Tick now) {
  Core& c = cores_[core];
  Ring& r = c.ring[c.cur];
  std::vector<std::uint32_t> ids(n);
  Deferred* g = defer_group(core, false, now);
  Tick done = now;
  for (std::uint64_t k = 0; k < n;) {
    const std::uint64_t m = std::min(n - k, r.cap - r.head);
    done = std::max(done, issue(g, core, r.base + 4 * r.head, ids.data() + k, m, false, now));
    r.head = (r.head + m) % r.cap;
    k += m;
  }
  r.count -= n;
  // The stores the load consumed (they completed: only ready entries load).
  if (r.ready(now) < n) throw std::logic_error("hvu: a load of entries whose stores have not completed");
  r.done_n -= n;
  for (std::uint64_t left = n; left;) {
    auto& [k, at] = r.stores.front();
    const std::uint64_t m = std::min(left, k);
    k -= m, left -= m;
    if (k == 0) {
      r.stores.pop_front();
      --r.done_i;
    }
  }
  std::vector<std::pair<unsigned, std::uint32_t>> to;
  for (std::uint64_t k = 0; k < n; ++k)
    to.emplace_back(one_per_bank ? static_cast<unsigned>(k) : static_cast<unsigned>((first_bank + k) % p_.lanes),
                    ids[k]);
  if (one_per_bank)
    for (const auto& e : to) ++c.incoming[e.first];
  c.loaded += to.size();
  c.loads.push_back(Core::Load{done, std::move(to), one_per_bank});
  if (g) g->done = &c.loads.back().at;
  if (c.loads.size() > peak_loads_) {
    peak_loads += c.loads.size() - peak_loads_;
    peak_loads_ = c.loads.size();
  }
  c.inflight.push_back(done);
  std::sort(c.inflight.begin(), c.inflight.end());
  ++refill_loads;
}

bool Hvu::pull_waits(unsigned core, unsigned bank, Tick now) {
  Core& c = cores_[core];
  const Ring& r = c.ring[c.cur];
  if (r.count == 0 && waiting(c) == 0 && (double_buf_ || c.spilled.empty())) return false;
  ++refill_waits;
  if (!c.demand) c.demand_bank = bank;
  c.demand = true;
  (void)now;
  return true;
}

void Hvu::plan(std::uint64_t cycle, Tick now, bool double_buf, bool idle, const Backend& be, Backend::In& in) {
  const std::size_t n = std::size_t{p_.cores} * p_.lanes;
  in.rf_put.assign(n, false);
  in.rf_id.assign(n, 0);
  in.rsv.assign(p_.cores, false);
  bool stalled = false;
  for (unsigned k = 0; k < p_.cores; ++k) {
    Core& c = cores_[k];
    // Loads that arrived: their IDs wait at their banks.
    while (!c.loads.empty() && c.loads.front().at <= now) {
      for (const auto& [b, id] : c.loads.front().ids) {
        c.at_bank[b].push_back(id);
        if (c.loads.front().one_per_bank) --c.incoming[b];
      }
      c.loaded -= c.loads.front().ids.size();
      c.queued += c.loads.front().ids.size();
      c.loads.pop_front();
    }
    Ring& r = c.ring[c.cur];
    const std::uint64_t ready = r.ready(now);
    const bool room = !idle && queue_free(c, now) != 0;
    // On demand: a pull waited last cycle and nothing is on its way.
    const bool tail = p_.refill == Refill::OnDemand || ready < p_.lanes;
    if (c.demand) stalled = true;
    // Several loads in flight (Sec. III-D: "as many virtualization requests
    // as there is space in the load-store unit"), up to worklist.hvu_refills,
    // while fewer than a warp's worth of loaded IDs wait for their banks.
    if (c.demand && tail && room && ready != 0 && c.loads.size() < p_.refills && c.queued < p_.warp)
      load(k, std::min<std::uint64_t>(ready, p_.warp), false, c.demand_bank, now);
    c.demand = false;
    // Interval: every bank has room for one more (single mode: reserved),
    // then again each cycle while the banks and the queue have room.
    if (p_.refill == Refill::Interval) {
      if (cycle % p_.interval == 0) c.burst = true;
      if (c.burst && (idle || queue_free(c, now) == 0 || r.ready(now) < p_.lanes)) c.burst = false;
      if (c.burst) {
        if (!double_buf) {
          in.rsv[k] = true;  // granted() loads, or ends the burst on a refusal
        } else {
          bool all = true;
          for (unsigned b = 0; b < p_.lanes && all; ++b)
            all = be.pull_count(k, b, true) + c.at_bank[b].size() + c.incoming[b] < p_.depth / 2;
          if (all) load(k, p_.lanes, true, 0, now);
          if (!all || !p_.interval_burst) c.burst = false;
        }
      }
    }
    for (unsigned b = 0; b < p_.lanes && c.queued != 0; ++b)
      if (!c.at_bank[b].empty()) {
        in.rf_put[std::size_t{k} * p_.lanes + b] = true;
        in.rf_id[std::size_t{k} * p_.lanes + b] = c.at_bank[b].front();
      }
  }
  if (stalled) ++stall_cycles;
  in.hvu_busy = busy_this_round();
}

Hvu::Taken Hvu::granted(const Backend::In& in, const Backend::Out& out, Tick now) {
  Taken t;
  for (unsigned k = 0; k < p_.cores; ++k) {
    Core& c = cores_[k];
    for (unsigned b = 0; b < p_.lanes && c.queued != 0; ++b) {  // a refill is offered only from a queue
      const std::size_t i = std::size_t{k} * p_.lanes + b;
      t.offered = t.offered || in.rf_put[i];
      if (in.rf_put[i] && out.rf_gnt[i]) {
        c.at_bank[b].pop_front();
        --c.queued;
        ++refills;
        t.any = true;
      }
    }
    if (in.rsv[k] && out.rsv_gnt[k]) {
      ++reservations;
      load(k, p_.lanes, true, 0, now);
      t.any = true;
    }
    if (in.rsv[k] && (!out.rsv_gnt[k] || !p_.interval_burst)) c.burst = false;
  }
  return t;
}

}  // namespace fg::wl
