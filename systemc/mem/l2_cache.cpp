// SPDX-License-Identifier: Apache-2.0
#include "mem/l2_cache.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "mem/backing_store.h"
#include "mem/l1_cache.h"
#include "mem/mem_ext.h"
#include "sim/error.h"
#include "sim/trace.h"

namespace fg {

namespace {
// Channel paper Table 2: 1 MB, 16-way, 16 cycles. Bank count and atomic-unit
// latency are not given there: 16 banks and 4 cycles are our assumptions.
const Param<std::uint64_t> kSize{"gpu.l2.size", 1u << 20, "B", "L2 capacity (all banks)", {{4096}, {1ull << 30}}};
const Param<std::uint64_t> kWays{"gpu.l2.ways", 16, "", "L2 associativity", {{1}, {64}}};
const Param<std::uint64_t> kBanks{"gpu.l2.banks", 16, "", "L2 banks (lines interleave across banks)", {{1}, {256}}};
const Param<std::uint64_t> kHit{"gpu.l2.hit_latency", 16, "cycles", "L2 hit latency (L2 clock)", {{1}, {10000}}};
const Param<std::uint64_t> kOcc{
    "gpu.l2.occupancy", 1, "cycles", "cycles one access holds an L2 bank port", {{0}, {64}}};
const Param<std::uint64_t> kAtomic{"gpu.l2.atomic_latency",
                                   4,
                                   "cycles",
                                   "latency of one read-modify-write in a bank's atomic unit; atomics to one line "
                                   "are serialised by it (each needs the previous result)",
                                   {{1}, {1000}}};
// Assumed (neither paper gives it): the unit accepts one atomic per cycle
// (pipelined across lines), as the L2 bank's port does.
const Param<std::uint64_t> kAtomicInterval{
    "gpu.l2.atomic_interval", 1, "cycles", "initiation interval of a bank's pipelined atomic unit", {{1}, {1000}}};
// Channel paper Table 2 gives the MOESI directory but not its hop latency: we
// take half the L2 hit latency (a hit is a request hop plus a response hop).
const Param<std::uint64_t> kForward{"gpu.l2.forward_latency",
                                    8,
                                    "cycles",
                                    "moesi: one hop between the directory and an L1 (forward, invalidation, "
                                    "acknowledgement, cache-to-cache data)",
                                    {{0}, {10000}}};
// A magic memory system, as the worklist paper's Sec. V-C (Fig. 8) uses to
// take memory contention and locality out of a comparison: every access takes
// the L1's hit latency, with no misses, queues or bandwidth limits.
const Param<bool> kMagic{"mem.magic", false, "",
                         "magic memory (Kim & Batten Sec. V-C): every access completes after the L1 hit latency "
                         "(requests that reach the L2 directly, the worklist's virtualization unit: the L2 hit "
                         "latency), with no misses, queues or bandwidth limits; cache and DRAM statistics stay 0"};
const Param<std::string> kCoherence{"mem.coherence", "gpu", std::vector<std::string>{"gpu", "moesi"},
                                    "gpu: write-through L1s, atomics at the L2 (GPGPU-Sim Fermi); moesi: write-back "
                                    "L1s kept coherent by a MOESI directory with read-for-ownership (channel paper)"};
// GPGPU-Sim 3.x GTX 480 config: -gpgpu_dram_partition_queues 8:8:8:8 (the
// interconnect-to-L2 queue of a memory sub-partition holds 8 requests). The
// channel paper gives no queue depth; we use the same value.
const Param<std::uint64_t> kQueue{"gpu.l2.queue",
                                  8,
                                  "",
                                  "requests waiting per L2 bank; a full queue stalls the L1s (0 = unlimited)",
                                  {{0}, {1u << 20}}};
const Param<double> kClock{"gpu.l2.clock", 1000.0, "MHz", "L2 clock frequency", {{1}, {100000}}};
// GPGPU-Sim's -gpgpu_memory_partition_indexing: 0 (consecutive) in the GTX
// 480 config of kim2014, 2 (IPoly, a hash) in Accel-Sim's Volta-to-Hopper
// configs.
const Param<std::string> kInterleave{
    "mem.interleave", "modulo", std::vector<std::string>{"modulo", "xor"},
    "how lines spread over L2 banks and DRAM channels: modulo (line mod count, GPGPU-Sim's consecutive indexing) or "
    "xor (an XOR fold of the line's bits first, as hashed indexing: strided data meets every bank)"};
// fetch: a write that misses fetches its line from DRAM first unless it
// covers the line whole (write-allocate with fetch on write: the model's L2
// since it was written, docs/memory.md). lazy: GPGPU-Sim's
// LAZY_FETCH_ON_READ, the write-allocate policy of Accel-Sim's Volta-to-Hopper
// L2s (SM90_H100: -gpgpu_cache:dl2 S:256:128:20,L:B:m:L:X, the fourth field L).
const Param<std::string> kWriteMiss{
    "gpu.l2.write_miss", "fetch", std::vector<std::string>{"fetch", "lazy"},
    "what a write that misses the L2 does: fetch (its line from DRAM first, unless it covers the line) or lazy "
    "(allocates the line without a fetch and keeps which bytes were written; a read or atomic that needs other bytes "
    "of it fetches the line then: GPGPU-Sim's lazy fetch on read, Accel-Sim's H100 L2); lazy needs mem.coherence=gpu "
    "and gpu.line <= 128"};
// The H100's L2 is two partitions, each near half the SMs; a far request
// crosses between them (docs/memory.md, "L2 partitions"). One partition, no
// crossing, is every preset's but gh200's.
const Param<std::uint64_t> kPartitions{
    "gpu.l2.partitions",
    1,
    "",
    "L2 partitions: the banks in order and the requesters (id modulo the count) split into this many parts; a "
    "request to another part's bank adds gpu.l2.far_latency, except a read of a line its part holds a copy of (a far "
    "read leaves one; a write or atomic drops them); 1: no partitions; needs mem.coherence=gpu and at most "
    "gpu.l2.banks; mem.magic ignores it, as it ignores the banks",
    {{1}, {8}}};
const Param<std::uint64_t> kFarLatency{"gpu.l2.far_latency",
                                       0,
                                       "cycles",
                                       "what a request to another L2 partition's bank adds to its latency (L2 "
                                       "clock; gpu.l2.partitions)",
                                       {{0}, {10000}}};
// Alameldeen & Wood, "Variability in Architectural Simulations of
// Multi-threaded Workloads" (HPCA 2003): a parallel run's outcome depends on
// races that small timing differences decide, so one simulated run is one
// sample of them; they perturb the memory system's latency by a small random
// amount, different by seed, and compare statistics over several runs. A
// methodology knob, not a machine's value: no preset sets it.
const Param<std::uint64_t> kPerturb{
    "gpu.l2.perturb",
    0,
    "cycles",
    "each L2 response is delayed by a whole number of L2 cycles drawn uniformly from 0 to this, a stream per bank "
    "from sim.seed (Alameldeen & Wood's perturbation: same seed, same run; other seeds sample the races that timing "
    "decides); 0: off; not with mem.magic",
    {{0}, {1000}}};
}  // namespace

extern const Param<std::uint64_t> kLineSize;
extern const Param<std::uint64_t> kSectorSize;

L2Cache::Params L2Cache::Params::from(const Config& cfg) {
  Params p;
  p.size = kSize.get(cfg);
  p.line = static_cast<unsigned>(kLineSize.get(cfg));
  p.ways = static_cast<unsigned>(kWays.get(cfg));
  p.banks = static_cast<unsigned>(kBanks.get(cfg));
  p.hit_latency = static_cast<unsigned>(kHit.get(cfg));
  p.occupancy = static_cast<unsigned>(kOcc.get(cfg));
  p.sector = static_cast<unsigned>(kSectorSize.get(cfg));
  p.atomic_latency = static_cast<unsigned>(kAtomic.get(cfg));
  p.atomic_interval = static_cast<unsigned>(kAtomicInterval.get(cfg));
  p.forward_latency = static_cast<unsigned>(kForward.get(cfg));
  p.queue = static_cast<unsigned>(kQueue.get(cfg));
  p.moesi = kCoherence.get(cfg) == "moesi";
  p.magic = kMagic.get(cfg);
  p.clock_mhz = kClock.get(cfg);
  p.hash = kInterleave.get(cfg) == "xor";
  p.lazy = kWriteMiss.get(cfg) == "lazy";
  p.partitions = static_cast<unsigned>(kPartitions.get(cfg));
  p.far_latency = static_cast<unsigned>(kFarLatency.get(cfg));
  p.perturb = static_cast<unsigned>(kPerturb.get(cfg));
  p.seed = std::get<std::uint64_t>(cfg.value("sim.seed"));
  if (p.perturb && p.magic)
    throw UserError(
        fmt::format("gpu.l2.perturb: {} needs a timed memory (mem.magic has no latencies to perturb)", p.perturb));
  if (p.partitions > 1 && p.moesi)
    throw UserError(fmt::format("gpu.l2.partitions: {} needs mem.coherence=gpu (the moesi directory is one partition)",
                                p.partitions));
  if (p.partitions > p.banks)
    throw UserError(fmt::format("gpu.l2.partitions: {} is more than gpu.l2.banks ({})", p.partitions, p.banks));
  if (p.lazy && p.moesi)
    throw UserError("gpu.l2.write_miss: lazy needs mem.coherence=gpu (the moesi directory fetches on a write miss)");
  if (p.lazy && p.line > 128)
    throw UserError(
        fmt::format("gpu.l2.write_miss: lazy keeps a 128-byte mask of the written bytes; gpu.line is {}", p.line));
  std::uint64_t per_bank = std::uint64_t{p.line} * p.ways * p.banks;
  if (p.size % per_bank)
    throw UserError(fmt::format("gpu.l2.size: {} is not a multiple of line x ways x banks ({} x {} x {})", p.size,
                                p.line, p.ways, p.banks));
  return p;
}

L2Cache::Bank::Bank(const StatGroup& g, std::uint64_t lines, unsigned ways, unsigned queue_entries)
    : tags(lines, ways),
      queue(queue_entries),
      reads(g, "reads", "read requests (L1 fills)", ""),
      read_hits(g, "read_hits", "reads that found the line", ""),
      hits(g, "hits", "reads, writes and atomics that found the line", ""),
      misses(g, "misses", "reads, writes and atomics that missed", ""),
      writes(g, "writes", "write requests", ""),
      atomics(g, "atomics", "atomic operations executed (lanes of coalesced requests counted singly)", ""),
      writebacks(g, "writebacks", "dirty lines written back to DRAM", ""),
      invalidations_sent(g, "invalidations_sent", "invalidations sent to L1 sharers (incl. back-invalidations)", ""),
      c2c_transfers(g, "c2c_transfers", "moesi: reads served by the owner L1 (cache-to-cache)", ""),
      ownership_transfers(g, "ownership_transfers", "moesi: GetM that took the line from another L1's ownership", ""),
      puts(g, "puts", "moesi: L1 evictions reported (write-backs when dirty)", ""),
      atomic_requests(g, "atomic_requests", "atomic requests (a coalesced request carries several operations)", ""),
      queue_full(g, "queue_full", "requests that found the bank's queue full (their L1 stalled)", ""),
      write_fetches(g, "write_fetches",
                    "writes that missed and fetched their line from DRAM first (gpu.l2.write_miss=fetch)", ""),
      lazy_fetches(g, "lazy_fetches",
                   "reads and atomics that found their line written but not fetched and fetched it from DRAM "
                   "(gpu.l2.write_miss=lazy; among the hits)",
                   ""),
      dram_stall_cycles(
          g, "dram_stall_cycles",
          "cycles requests held their queue entry waiting for room in a DRAM queue (summed over requests)", "cycles"),
      queue_delay(g, "queue_delay", "time requests waited for the bank port", "ns"),
      atomic_queue_delay(g, "atomic_queue_delay", "time atomics waited for the atomic unit", "ns") {}

L2Cache::L2Cache(sc_core::sc_module_name name, const Params& p, BackingStore& store, const std::string& stats_path)
    : sc_module(name),
      target("target"),
      to_dram("to_dram"),
      p_(p),
      clock_(p.clock_mhz),
      line_div_(p.line),
      bank_div_(p.banks),
      store_(store),
      dram_buf_(p.line),
      hits_total(StatGroup(stats_path), "hits", "hits over all banks", "",
                 [this] {
                   double s = 0;
                   for (auto& b : banks_) s += double(b->hits.value());
                   return s;
                 }),
      misses_total(StatGroup(stats_path), "misses", "misses over all banks", "",
                   [this] {
                     double s = 0;
                     for (auto& b : banks_) s += double(b->misses.value());
                     return s;
                   }),
      atomics_total(StatGroup(stats_path), "atomics", "atomics over all banks", "",
                    [this] {
                      double s = 0;
                      for (auto& b : banks_) s += double(b->atomics.value());
                      return s;
                    }),
      hit_rate(StatGroup(stats_path), "hit_rate", "hits / (hits + misses), reads, writes and atomics", "",
               [this] {
                 double h = hits_total.scalar(), m = misses_total.scalar();
                 return h + m > 0 ? h / (h + m) : 0.0;
               }),
      read_hit_rate(StatGroup(stats_path), "read_hit_rate", "read hits / reads (L1 fills only)", "", [this] {
        double h = 0, r = 0;
        for (auto& b : banks_) h += double(b->read_hits.value()), r += double(b->reads.value());
        return r > 0 ? h / r : 0.0;
      }) {
  target.register_b_transport(this, &L2Cache::b_transport);
  target.register_transport_dbg(this, &L2Cache::transport_dbg);
  std::uint64_t lines_per_bank = p.size / p.line / p.banks;
  for (unsigned i = 0; i < p.banks; ++i) {
    const std::string path = fmt::format("{}.bank{}", stats_path, i);
    const StatGroup g(path);
    Bank& b = *banks_.emplace_back(std::make_unique<Bank>(g, lines_per_bank, p.ways, p.queue));
    if (p.partitions > 1) {
      b.partition = i * p.partitions / p.banks;
      b.far.emplace(g, "far",
                    "requests from another L2 partition's requesters that crossed to this bank (gpu.l2.far_latency)",
                    "");
      b.copy_hits.emplace(g, "copy_hits", "reads from another partition served by the copy their partition holds", "");
    }
    if (p.perturb) {
      // The bank's stream: splitmix64's state from the seed and the bank.
      b.perturb_rng.s = p.seed ^ (0xd1b54a32d192ed03ull * (i + 1));
      b.perturb_cycles.emplace(g, "perturb_cycles", "L2 cycles added to this bank's responses by gpu.l2.perturb",
                               "cycles");
    }
    if (Trace::get().on()) b.trace_track = Trace::get().track("memory", path);
  }
  dram_req_.set_extension(&dram_ext_);
  dram_req_.set_data_ptr(dram_buf_.data());
  dram_req_.set_data_length(p.line);
  dram_req_.set_streaming_width(p.line);
}

void L2Cache::attach_l1(int id, CoherentCache* l1) {
  if (id < 0 || id >= 64) throw std::logic_error("L2 directory supports requester ids 0..63");
  if (l1s_.size() <= static_cast<std::size_t>(id)) l1s_.resize(id + 1, nullptr);
  l1s_[id] = l1;
}

Tick L2Cache::dram_access(tlm::tlm_command cmd, std::uint64_t line, Tick at, Tick now) {
  dram_req_.set_command(cmd);
  dram_req_.set_address(line * p_.line);
  dram_req_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = sc_core::sc_time::from_value(at - now);
  dram_ext_.accepted = 0;
  to_dram->b_transport(dram_req_, d);
  if (dram_ext_.accepted > at) dram_stall_ += dram_ext_.accepted - at;
  return now + d.value();
}

void L2Cache::invalidate_sharers(CacheLine* l, int keep, int requester) {
  std::uint64_t m = l->sharers;
  if (keep >= 0) m &= ~(1ull << keep);
  while (m) {
    int s = std::countr_zero(m);
    m &= m - 1;
    if (static_cast<std::size_t>(s) < l1s_.size() && l1s_[s]) {
      l1s_[s]->invalidate(l->line, requester < 0    ? InvalidateReason::L2Eviction
                                   : s == requester ? InvalidateReason::OwnAtomic
                                                    : InvalidateReason::OtherWrite);
      ++banks_[bank_of(l->line)]->invalidations_sent;
    }
  }
  l->sharers &= keep >= 0 ? (1ull << keep) : 0;
}

bool L2Cache::covers_line(const tlm::tlm_generic_payload& p) const {
  // A write that covers the whole line needs no fetch (byte enables all set, or none given).
  bool full = p.is_write() && p.get_data_length() == p_.line;
  if (full && p.get_byte_enable_ptr())
    for (unsigned i = 0; i < p.get_byte_enable_length(); ++i) full = full && p.get_byte_enable_ptr()[i] != 0;
  return full;
}

CacheLine* L2Cache::lookup_or_fill(Bank& b, std::uint64_t line, std::uint64_t key, Tick tag_done, bool fetch, Tick now,
                                   Tick& ready, bool* hit) {
  if (hit) *hit = false;
  if (CacheLine* l = b.tags.find(line, key)) {
    if (hit) *hit = true;
    ++b.hits;
    b.tags.touch(l);
    ready = std::max(tag_done, l->ready);
    return l;
  }
  ++b.misses;
  CacheLine* v = b.tags.victim(key);
  if (v->valid) {
    invalidate_sharers(v, -1, -1);
    if (v->dirty) {
      ++b.writebacks;
      dram_access(tlm::TLM_WRITE_COMMAND, v->line, tag_done, now);
    }
  }
  b.tags.fill(v, line);
  ready = fetch ? dram_access(tlm::TLM_READ_COMMAND, line, tag_done, now) : tag_done;
  v->ready = ready;
  b.tags.touch(v);
  return v;
}

// moesi directory. The L2 keeps each line's sharers and its owner (the L1
// holding it M, O or E). One transaction per line at a time: it holds the
// line's directory entry from its start until it completes, so contended
// lines migrate between L1s one request after another.
void L2Cache::directory(Bank& b, tlm::tlm_generic_payload& p, MemExt& ext, std::uint64_t line, std::uint64_t key,
                        Tick tag_done, Tick now, sc_core::sc_time& delay) {
  const int r = ext.requester;
  const std::uint64_t me = r >= 0 ? 1ull << r : 0;
  const Tick hop = clock_.cycles(p_.forward_latency);
  if (ext.coh == Coh::Put) {
    ++b.puts;
    if (CacheLine* l = b.tags.find(line, key)) {
      if (l->owner == r) l->owner = -1;
      l->sharers &= ~me;
      if (ext.dirty) l->dirty = true;
    }
    delay = sc_core::sc_time::from_value(tag_done - now);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  // A write covering the whole line needs no data (GetM without fetch).
  const bool full = ext.coh == Coh::GetM && ext.op == AtomicOp::None && covers_line(p);
  Tick ready = 0;
  bool l2_hit = false;
  CacheLine* l = lookup_or_fill(b, line, key, tag_done, !full, now, ready, &l2_hit);
  if (l->owner >= 0 && (l->owner == r || !l1s_[l->owner] || !l1s_[l->owner]->holds(line))) l->owner = -1;
  Tick dur = 0;
  if (ext.coh == Coh::GetS) {
    ++b.reads;
    if (l->owner >= 0) {  // cache-to-cache: directory -> owner -> requester
      ++b.c2c_transfers;
      dur = 2 * hop;
      const int o = l->owner;
      l->sharers |= 1ull << o;
      if (!l1s_[o]->downgrade(line)) l->owner = -1;  // E -> S: nobody owns it now
      ext.exclusive = false;
    } else {
      if (l2_hit) ++b.read_hits;
      ext.exclusive = (l->sharers & ~me) == 0;
      if (ext.exclusive) l->owner = r;
    }
    l->sharers |= me;
  } else {  // GetM
    if (ext.op != AtomicOp::None)
      ++b.atomics;
    else
      ++b.writes;
    if (l->owner >= 0) {  // the owner supplies the line and gives it up
      ++b.ownership_transfers;
      dur = 2 * hop;
    }
    const std::uint64_t others = l->sharers & ~me;
    if (others) dur = std::max(dur, 2 * hop);  // invalidations and their acknowledgements
    for (std::uint64_t m = others | (l->owner >= 0 ? 1ull << l->owner : 0); m; m &= m - 1) {
      const int s = std::countr_zero(m);
      if (static_cast<std::size_t>(s) < l1s_.size() && l1s_[s]) {
        l1s_[s]->invalidate(line, InvalidateReason::OtherWrite);
        ++b.invalidations_sent;
      }
    }
    l->owner = r;
    l->sharers = me;
  }
  // One transaction per line at a time. One served by the L2 alone (no hops)
  // waits for the line's transactions in flight but holds the entry for no
  // time (and needs no calendar when the line has none).
  Tick t0 = ready;
  if (dur > 0) {
    Resource& entry = b.dir_lines[line];
    t0 = entry.earliest(ready, dur, now);
    entry.commit(t0, dur);
    b.dir_lines.prune(now);
  } else if (Resource* entry = b.dir_lines.find(line)) {
    t0 = entry->earliest(ready, 1, now);
  }
  delay = sc_core::sc_time::from_value(t0 + dur - now);
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void L2Cache::b_transport(int /*id*/, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  auto* ext = p.get_extension<MemExt>();
  if (p_.magic) {  // functional only, after the hit latency
    store_.apply(p, ext);
    delay += sc_core::sc_time::from_value(clock_.cycles(p_.hit_latency));
    return;
  }
  const std::uint64_t line = line_div_.div(p.get_address());
  Bank& b = *banks_[bank_of(line)];
  const Tick now = sc_core::sc_time_stamp().value();
  const Tick arrival = now + delay.value();
  // Back-pressure: the request enters the bank's queue when it has room.
  const Tick accept = b.queue.earliest(arrival);
  if (accept > arrival) ++b.queue_full;
  // The port moves the request's sectors (the whole line without gpu.sector),
  // and takes at most one request per cycle (as GPGPU-Sim's L2 sub-partition,
  // memory_sub_partition::cache_cycle: one request from its queue a cycle).
  Tick occupancy = clock_.cycles(p_.occupancy);
  if (p_.sector && occupancy) {
    const Sectors s{p_.line, p_.sector};
    occupancy = std::max<Tick>(clock_.cycles(1), occupancy * s.number(s.of(p, ext)) / s.count());
  }
  const Tick start = b.port.reserve(accept, occupancy, now);
  b.queue_delay.sample(tick_to_ns(start - arrival));
  dram_stall_ = 0;
  const Tick leave = access(b, p, ext, start, now, delay);
  if (p_.perturb) {  // the response only: the bank's port and queue keep their times
    const std::uint64_t extra = perturbation(b);
    *b.perturb_cycles += extra;
    delay += sc_core::sc_time::from_value(clock_.cycles(extra));
  }
  // A miss that waits for room in a DRAM queue keeps its entry meanwhile.
  b.dram_stall_cycles += clock_.to_cycles(dram_stall_);
  b.queue.hold(accept, std::max(leave, start + dram_stall_));
  if (ext) ext->accepted = accept;
}

// gpu.l2.perturb: the next draw of the bank's stream, uniform over
// 0..perturb (the modulo's bias is below 2^-50 for the key's range).
std::uint64_t L2Cache::perturbation(Bank& b) { return b.perturb_rng.next() % (std::uint64_t{p_.perturb} + 1); }

// gpu.l2.partitions. The H100's L2 is two partitions, each near half the
// SMs; a request to a line whose bank (its home) is in the other partition
// crosses to it and back, gpu.l2.far_latency more (added to the response,
// the bank serving it as a near one). Reads of far lines are copied into the
// near partition (NVIDIA at GTC 2021, S33322, for the A100; a one-SM pointer
// chase on the GH200 sees the near latency up to one partition's capacity,
// RRZE-HPC/gpu-benches gpu-latency/gh200.txt): a far read leaves a copy in
// its partition, and the next read from there is a near one. Writes and
// atomics go to the home and drop every copy. The copies take no capacity
// here and live as long as the home line.
Tick L2Cache::far_cost(Bank& b, CacheLine* l, int requester, bool read) {
  if (p_.partitions < 2) return 0;
  if (!read) l->copies = 0;
  if (requester < 0) return 0;
  const unsigned mine = static_cast<unsigned>(requester) % p_.partitions;
  if (mine == b.partition) return 0;
  if (read) {
    if ((l->copies >> mine) & 1) {
      ++*b.copy_hits;
      return 0;
    }
    l->copies |= static_cast<std::uint8_t>(1u << mine);
  }
  ++*b.far;
  return clock_.cycles(p_.far_latency);
}

Tick L2Cache::access(Bank& b, tlm::tlm_generic_payload& p, MemExt* ext, Tick start, Tick now, sc_core::sc_time& delay) {
  const int requester = ext ? ext->requester : -1;
  const std::uint64_t addr = p.get_address();
  const std::uint64_t line = line_div_.div(addr);
  const std::uint64_t key = p_.hash ? line : bank_div_.div(line);  // hashed: the whole line is the bank's key
  const Tick tag_done = start + clock_.cycles(p_.hit_latency);
  Tick ready = 0, done = 0, leave = start;

  if (ext && ext->coh != Coh::None) {
    directory(b, p, *ext, line, key, tag_done, now, delay);
    return leave;
  }
  if (ext && ext->op != AtomicOp::None) {
    b.atomics += std::max(1u, ext->n_lanes);
    ++b.atomic_requests;
    CacheLine* l = lookup_or_fill(b, line, key, tag_done, true, now, ready);
    if (l->partial) lazy_fetch(b, l, nullptr, tag_done, now, ready);
    // The unit starts one atomic per interval (pipelined); an atomic starts
    // only after the previous one to the same line completed.
    const Tick ii = clock_.cycles(p_.atomic_interval), lat = clock_.cycles(p_.atomic_latency);
    Resource& same_line = b.atomic_lines[line];
    Tick au = ready;
    for (;;) {
      const Tick u = b.atomic_unit.earliest(au, ii, now);
      const Tick s = same_line.earliest(u, lat, now);
      au = s;
      if (s == u) break;  // both free from au
    }
    b.atomic_unit.commit(au, ii);
    same_line.commit(au, lat);
    b.atomic_lines.prune(now);
    b.atomic_queue_delay.sample(tick_to_ns(au - ready));
    // Waiting beyond the bank's pipeline (for a fill or for the atomic unit)
    // keeps the request in the bank's queue.
    leave = start + (au - tag_done);
    done = au + lat + far_cost(b, l, requester, false);
    if (b.trace_track >= 0) Trace::get().span(b.trace_track, to_string(ext->op), au, lat);
    store_.atomic(addr, *ext, p.get_data_ptr());
    l->dirty = true;
    invalidate_sharers(l, -1, requester);
  } else if (p.is_write()) {
    ++b.writes;
    bool hit = false;
    const bool fetch = !p_.lazy && !covers_line(p);
    CacheLine* l = lookup_or_fill(b, line, key, tag_done, fetch, now, ready, &hit);
    if (!hit && fetch) ++b.write_fetches;
    if (p_.lazy && !hit) l->partial = true;  // allocated by this write, not fetched
    if (l->partial) mark_written(l, p);
    done = ready + far_cost(b, l, requester, false);
    if (b.trace_track >= 0) Trace::get().span(b.trace_track, "write", start, clock_.cycles(std::max(1u, p_.occupancy)));
    store_.write(addr, p.get_data_ptr(), p.get_data_length(), p.get_byte_enable_ptr(), p.get_byte_enable_length());
    l->dirty = true;
    invalidate_sharers(l, requester, requester);
  } else {
    ++b.reads;
    bool hit = false;
    CacheLine* l = lookup_or_fill(b, line, key, tag_done, true, now, ready, &hit);
    if (l->partial) hit = !lazy_fetch(b, l, &p, tag_done, now, ready);
    if (hit) ++b.read_hits;
    done = ready + far_cost(b, l, requester, true);
    if (b.trace_track >= 0) Trace::get().span(b.trace_track, "read", start, clock_.cycles(std::max(1u, p_.occupancy)));
    store_.read(addr, p.get_data_ptr(), p.get_data_length());
    if (requester >= 0 && requester < 64) l->sharers |= 1ull << requester;
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = sc_core::sc_time::from_value(done - now);
  return leave;
}

// gpu.l2.write_miss=lazy: the bytes of p's line that p writes (its byte
// enables honoured) join the line's written bytes; a line written whole holds
// its data as a fetched one does.
void L2Cache::mark_written(CacheLine* l, const tlm::tlm_generic_payload& p) {
  const std::uint64_t off = p.get_address() % p_.line;
  const unsigned char* be = p.get_byte_enable_ptr();
  const unsigned be_len = p.get_byte_enable_length();
  const std::uint64_t end = std::min<std::uint64_t>(p_.line, off + p.get_data_length());
  // Bit b of the line's written bytes, for b in [off, end), where the byte's enable is set: a
  // whole word of bits at a time where no enables are given or a word's eight enables agree.
  unsigned j = 0;  // p's byte (b - off) has enable be[j]
  for (std::uint64_t b = off; b < end;) {
    const std::uint64_t w = b / 64, s = b % 64;
    if (!be || !be_len) {
      const std::uint64_t k = std::min<std::uint64_t>(end - b, 64 - s);
      l->written[w] |= (k == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << k) - 1)) << s;
      b += k;
      continue;
    }
    if (j + 8 <= be_len && end - b >= 8 && s <= 56) {
      std::uint64_t m;
      std::memcpy(&m, be + j, 8);
      if (m == ~std::uint64_t{0} || m == 0) {
        if (m) l->written[w] |= std::uint64_t{0xff} << s;
        b += 8, j += 8;
        if (j == be_len) j = 0;
        continue;
      }
    }
    if (be[j] == TLM_BYTE_ENABLED) l->written[w] |= std::uint64_t{1} << s;
    ++b;
    if (++j == be_len) j = 0;
  }
  const std::uint64_t full_lo = p_.line >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p_.line) - 1;
  const std::uint64_t full_hi = p_.line >= 128 ? ~std::uint64_t{0}
                                : p_.line > 64 ? (std::uint64_t{1} << (p_.line - 64)) - 1
                                               : 0;
  if (l->written[0] == full_lo && l->written[1] == full_hi) l->partial = false, l->written[0] = l->written[1] = 0;
}

// gpu.l2.write_miss=lazy: a read (p) or an atomic (nullptr: a coalesced
// atomic's lanes are not one byte range, so it always fetches) of a line
// allocated by writes and not fetched; if it needs a byte not written, the
// line is fetched from DRAM now (after the tag check) and holds its data from
// then on. Returns whether it fetched.
bool L2Cache::lazy_fetch(Bank& b, CacheLine* l, const tlm::tlm_generic_payload* p, Tick tag_done, Tick now,
                         Tick& ready) {
  bool covered = p != nullptr;
  const std::uint64_t off = p ? p->get_address() % p_.line : 0;
  for (std::uint64_t i = 0; covered && i < p->get_data_length() && off + i < p_.line; ++i)
    covered = (l->written[(off + i) / 64] >> ((off + i) % 64)) & 1;
  if (covered) return false;
  ++b.lazy_fetches;
  ready = std::max(ready, dram_access(tlm::TLM_READ_COMMAND, l->line, tag_done, now));
  l->ready = std::max(l->ready, ready);
  l->partial = false;
  l->written[0] = l->written[1] = 0;
  return true;
}

unsigned L2Cache::transport_dbg(int, tlm::tlm_generic_payload& p) {
  if (p.is_read())
    store_.read(p.get_address(), p.get_data_ptr(), p.get_data_length());
  else
    store_.write(p.get_address(), p.get_data_ptr(), p.get_data_length());
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  return p.get_data_length();
}

}  // namespace fg
