// SPDX-License-Identifier: Apache-2.0
#include "mem/l1_cache.h"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "mem/backing_store.h"
#include "mem/mem_ext.h"
#include "sim/error.h"
#include "sim/trace.h"

namespace fg {

namespace {
// Channel paper Table 2: 16 KB, 64 B lines, 16-way, 4 cycles, one line per cycle.
const Param<std::uint64_t> kSize{"gpu.l1.size", 16384, "B", "L1 data cache capacity per CU", {{1024}, {1ull << 24}}};
const Param<std::uint64_t> kWays{"gpu.l1.ways", 16, "", "L1 associativity", {{1}, {64}}};
const Param<std::uint64_t> kHit{"gpu.l1.hit_latency", 4, "cycles", "L1 hit latency (CU clock)", {{1}, {1000}}};
const Param<std::uint64_t> kOcc{
    "gpu.l1.occupancy", 1, "cycles", "cycles one line access holds the L1 port (1 = one line per cycle)", {{0}, {64}}};
// How many line accesses the port starts a cycle when they move less than a
// line: NVIDIA's L1 tag stage looks up 4 tags a cycle (gh200; docs/memory.md,
// "The L1's tag stage"). 1: every access holds the port `occupancy` cycles.
const Param<std::uint64_t> kTags{"gpu.l1.tags",
                                 1,
                                 "",
                                 "line accesses the L1 port starts a cycle: with sectors (gpu.sector) an access holds "
                                 "it its sectors' share of `occupancy` (sectors moved / sectors per line), at least "
                                 "occupancy / tags (1: a whole occupancy each)",
                                 {{1}, {16}}};
// GPGPU-Sim's GTX 480 L1 has 32 MSHRs (-gpgpu_cache:dl1 ...,A:32:8,...); the
// channel paper does not give a number, so the default is unlimited.
const Param<std::uint64_t> kMshrs{
    "gpu.l1.mshrs", 0, "", "MSHRs: read misses in flight per L1 (0 = unlimited; GPGPU-Sim Fermi: 32)", {{0}, {4096}}};
}  // namespace

// Read by the compute unit's fences (gpu_scope_fence, gpu/ops.cpp) too.
extern const Param<bool> kFenceInvalidatesL1;
const Param<bool> kFenceInvalidatesL1{
    "gpu.cu.fence_invalidates_l1", false, "",
    "a GPU-scope fence (gpu.cu.fence_latency set), and an acquire load once its value is back, invalidate the "
    "CU's L1 (every line, or with gpu.cu.ivall_keeps_local its global lines), as sm_90's MEMBAR.SC.GPU and "
    "ld.acquire.gpu's load are followed by CCTL.IVALL (docs/memory.md, \"Fences and the L1\"); needs "
    "mem.coherence=gpu"};

const Param<bool> kIvallKeepsLocal{
    "gpu.cu.ivall_keeps_local", false, "",
    "with gpu.cu.fence_invalidates_l1, an invalidation keeps local memory's lines (the per-lane stacks a runtime "
    "registers as local), as NVIDIA's SASS reference for Maxwell documents CCTL.IVALL (global lines only; CCTLL.IVALL "
    "drops local ones); false drops them too, as Accel-Sim does (docs/memory.md, \"Fences and the L1\")"};

// GPGPU-Sim's L1 write policy 'L' (LOCAL_WB_GLOBAL_WT: its Fermi to Pascal configurations, -gpgpu_cache:dl1
// ...,L:L:m:N:...; no write-allocate); NVIDIA's SASS reference for Maxwell has CCTLL.IVALL write back dirty
// local lines. Accel-Sim's Volta and H100 configurations write through ('T'): the default.
const Param<bool> kLocalWriteBack{
    "gpu.l1.local_write_back", false, "",
    "local memory's stores (the per-lane stacks a runtime registers as local) write back: one that finds its "
    "sectors in the L1 writes the line there only and marks them dirty; a dirty line goes to the L2 when it is "
    "evicted or a fence drops it; a local store that misses writes through without allocating (GPGPU-Sim's "
    "LOCAL_WB_GLOBAL_WT); needs mem.coherence=gpu (docs/memory.md, \"Local memory\")"};

extern const Param<std::uint64_t> kLineSize;    // memory_system.cpp
extern const Param<std::uint64_t> kSectorSize;  // memory_system.cpp

L1Cache::Params L1Cache::Params::from(const Config& cfg) {
  Params p;
  p.size = kSize.get(cfg);
  p.line = static_cast<unsigned>(kLineSize.get(cfg));
  p.ways = static_cast<unsigned>(kWays.get(cfg));
  p.hit_latency = static_cast<unsigned>(kHit.get(cfg));
  p.occupancy = static_cast<unsigned>(kOcc.get(cfg));
  p.tags = static_cast<unsigned>(kTags.get(cfg));
  p.mshrs = static_cast<unsigned>(kMshrs.get(cfg));
  p.sector = static_cast<unsigned>(kSectorSize.get(cfg));
  p.moesi = std::get<std::string>(cfg.value("mem.coherence")) == "moesi";
  p.magic = std::get<bool>(cfg.value("mem.magic"));
  p.fence_invalidates = kFenceInvalidatesL1.get(cfg);
  p.ivall_keeps_local = kIvallKeepsLocal.get(cfg);
  if (p.ivall_keeps_local && !p.fence_invalidates) {
    // A preset's value (gh200's) describes its fences: with the user's turning them off it has nothing to act
    // on. A user's value, or a preset's without the preset's fences, is a mistake.
    if (cfg.set_by_user(kIvallKeepsLocal.name()) || !cfg.set_by_user(kFenceInvalidatesL1.name()))
      throw UserError(
          "gpu.cu.ivall_keeps_local: needs gpu.cu.fence_invalidates_l1 (without it nothing is invalidated)");
    p.ivall_keeps_local = false;
  }
  p.local_write_back = kLocalWriteBack.get(cfg);
  p.tlb = TlbParams::from(cfg);
  if (p.local_write_back && p.moesi)
    throw UserError("gpu.l1.local_write_back: needs mem.coherence=gpu (moesi's L1s are write-back for every line)");
  if (p.fence_invalidates && p.moesi)
    throw UserError("gpu.cu.fence_invalidates_l1: needs mem.coherence=gpu (moesi's L1s are write-back and coherent)");
  if (p.size % (std::uint64_t{p.line} * p.ways))
    throw UserError(
        fmt::format("gpu.l1.size: {} is not a multiple of line size x ways ({} x {})", p.size, p.line, p.ways));
  return p;
}

L1Cache::L1Cache(sc_core::sc_module_name name, const Params& p, Clock clock, BackingStore& store,
                 const std::string& stats_path)
    : sc_module(name),
      target("target"),
      side("side"),
      to_l2("to_l2"),
      reads(StatGroup(stats_path), "reads", "read requests (one per line)", ""),
      read_hits(StatGroup(stats_path), "hits", "read hits", ""),
      read_misses(StatGroup(stats_path), "misses", "read misses", ""),
      sector_misses(StatGroup(stats_path), "sector_misses",
                    "read misses on a line held without a sector the read needs (gpu.sector; among the misses)", ""),
      coherence_misses(StatGroup(stats_path), "coherence_misses",
                       "read misses on a line another requester's write or atomic invalidated", ""),
      writes(StatGroup(stats_path), "writes", "write requests (write-through to L2)", ""),
      atomics(StatGroup(stats_path), "atomics", "atomic requests (forwarded to L2)", ""),
      invalidations(StatGroup(stats_path), "invalidations",
                    "lines invalidated by other requesters' writes and atomics (coherence)", ""),
      self_invalidations(StatGroup(stats_path), "self_invalidations",
                         "lines invalidated by this CU's own atomics (executed at the L2)", ""),
      back_invalidations(StatGroup(stats_path), "back_invalidations",
                         "lines invalidated because the L2 evicted them (inclusion)", ""),
      bypass_reads(StatGroup(stats_path), "bypass_reads", "reads that bypass the L1 (served by the L2)", ""),
      mshr_merges(StatGroup(stats_path), "mshr_merges",
                  "reads of a line whose fill was in flight (merged into its MSHR; not hits)", ""),
      mshr_stalls(StatGroup(stats_path), "mshr_stalls", "read misses that waited for a free MSHR", ""),
      local_writes(StatGroup(stats_path), "local_writes", "moesi: writes done in the L1 (line held M or E)", ""),
      local_atomics(StatGroup(stats_path), "local_atomics", "moesi: atomics done in the L1 (line held M or E)", ""),
      upgrades(StatGroup(stats_path), "upgrades", "moesi: writes and atomics to a line held S or O (GetM)", ""),
      misses_for_ownership(StatGroup(stats_path), "misses_for_ownership",
                           "moesi: writes and atomics to a line not held (read for ownership)", ""),
      stalls(StatGroup(stats_path), "stalls",
             "requests that waited because the L1 was blocked (no free MSHR, or a full L2 queue)", ""),
      stall_cycles(StatGroup(stats_path), "stall_cycles",
                   "cycles the L1 was blocked (a miss waited for an MSHR or for room in an L2 queue)", "cycles"),
      queue_delay(StatGroup(stats_path), "queue_delay", "time requests waited for the L1 port", "ns"),
      mshr_stall(StatGroup(stats_path), "mshr_stall", "time read misses waited for a free MSHR", "ns"),
      hit_rate(StatGroup(stats_path), "hit_rate", "read hits / reads", "",
               [this] { return reads.value() ? double(read_hits.value()) / double(reads.value()) : 0.0; }),
      p_(p),
      clock_(clock),
      store_(store),
      tags_(p.size / p.line, p.ways),
      line_div_(p.line),
      sectors_{p.line, p.sector},
      mshr_(p.mshrs) {
  dir_req_.set_extension(&dir_ext_);
  wb_req_.set_extension(&wb_ext_);
  if (p.local_write_back) {
    write_hits.emplace(StatGroup(stats_path), "write_hits",
                       "local stores that found their sectors held and stayed in the L1 (gpu.l1.local_write_back)", "");
    writebacks.emplace(StatGroup(stats_path), "writebacks", "dirty local lines written back to the L2", "");
    dirty_kept.emplace(StatGroup(stats_path), "dirty_kept",
                       "dirty local lines the L2 asked to invalidate, kept (local memory is this CU's own)", "");
  }
  if (p.tlb.on()) {
    tlb_ = TlbSet(p.tlb.l1_entries);
    page_shift_ = static_cast<unsigned>(std::countr_zero(p.tlb.page));  // a power of two (TlbParams::from)
    tlb_lookups.emplace(StatGroup(stats_path), "tlb_lookups",
                        "requests to the L2 whose page was translated (gpu.tlb.l1_entries)", "");
    tlb_misses.emplace(StatGroup(stats_path), "tlb_misses", "of those, L1 TLB misses", "");
    tlb_walks.emplace(StatGroup(stats_path), "tlb_walks", "of those, L2 TLB misses too: page walks", "");
  }
  if (p.fence_invalidates) {
    fence_invalidations.emplace(
        StatGroup(stats_path), "fence_invalidations",
        "GPU-scope fences and acquire loads that invalidated the L1 (gpu.cu.fence_invalidates_l1)", "");
    fence_dropped.emplace(StatGroup(stats_path), "fence_dropped", "lines those invalidations dropped", "");
    if (p.ivall_keeps_local)
      fence_kept.emplace(StatGroup(stats_path), "fence_kept", "local memory's lines those invalidations kept", "");
  }
  target.register_b_transport(this, &L1Cache::b_transport);
  target.register_transport_dbg(this, &L1Cache::transport_dbg);
  side.register_b_transport(this, &L1Cache::b_transport);
  side.register_transport_dbg(this, &L1Cache::transport_dbg);
  if (Trace::get().on()) trace_track_ = Trace::get().track("memory", stats_path);
}

void L1Cache::invalidate(std::uint64_t line, InvalidateReason why) {
  if (CacheLine* l = tags_.find(line, line)) {
    if (l->dirty_sectors) {  // the newest bytes of this CU's own local memory: kept, written back on eviction
      ++*dirty_kept;
      return;
    }
    tags_.drop(l);
    // Only another requester's write makes the next read a coherence miss.
    l->invalidated = why == InvalidateReason::OtherWrite;
    if (why == InvalidateReason::OtherWrite)
      ++invalidations;
    else if (why == InvalidateReason::OwnAtomic)
      ++self_invalidations;
    else
      ++back_invalidations;
  }
}

bool L1Cache::downgrade(std::uint64_t line) {
  CacheLine* l = tags_.find(line, line);
  if (!l) return false;
  const auto st = static_cast<MoesiState>(l->state);
  if (st == MoesiState::M || st == MoesiState::O) {
    l->state = static_cast<std::uint8_t>(MoesiState::O);
    return true;
  }
  l->state = static_cast<std::uint8_t>(MoesiState::S);
  return false;
}

bool L1Cache::holds(std::uint64_t line) { return tags_.find(line, line) != nullptr; }

Tick L1Cache::to_directory(Coh c, std::uint64_t line, Tick at, tlm::tlm_generic_payload* data, bool& exclusive) {
  const Tick now = sc_core::sc_time_stamp().value();
  tlm::tlm_generic_payload& q = data ? *data : dir_req_;
  MemExt* ext = data ? data->get_extension<MemExt>() : &dir_ext_;
  MemExt saved;
  if (data) saved = *ext;
  ext->coh = c;
  ext->exclusive = false;
  if (!data) {
    dir_buf_.resize(p_.line);
    q.set_command(tlm::TLM_READ_COMMAND);
    q.set_address(line * p_.line);
    q.set_data_ptr(dir_buf_.data());
    q.set_data_length(p_.line);
    q.set_streaming_width(p_.line);
    q.set_byte_enable_ptr(nullptr);
    q.set_byte_enable_length(0);
  }
  q.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = sc_core::sc_time::from_value(at - now);
  ext->accepted = 0;
  to_l2->b_transport(q, d);
  if (ext->accepted > at) block(at, ext->accepted);
  exclusive = ext->exclusive;
  if (data) {
    const int req = ext->requester;
    *ext = saved;
    ext->requester = req;
  }
  return now + d.value();
}

void L1Cache::evict(CacheLine* v, Tick at) {
  if (!v->valid) return;
  const auto st = static_cast<MoesiState>(v->state);
  dir_ext_.dirty = st == MoesiState::M || st == MoesiState::O;
  bool ex = false;
  to_directory(Coh::Put, v->line, at, nullptr, ex);  // write-back off the requester's path
  dir_ext_.dirty = false;
}

void L1Cache::write_back(const CacheLine& v, Tick at) {
  const Tick now = sc_core::sc_time_stamp().value();
  ++*writebacks;
  wb_buf_.resize(p_.line);
  store_.read(v.line * p_.line, wb_buf_.data(), p_.line);  // the backing store holds the line's newest bytes
  wb_req_.set_command(tlm::TLM_WRITE_COMMAND);
  wb_req_.set_address(v.line * p_.line);
  wb_req_.set_data_ptr(wb_buf_.data());
  wb_req_.set_data_length(p_.line);
  wb_req_.set_streaming_width(p_.line);
  if (v.dirty_sectors == sectors_.all()) {
    wb_req_.set_byte_enable_ptr(nullptr);
    wb_req_.set_byte_enable_length(0);
  } else {  // the dirty sectors' bytes only (sectors_.on(): a whole-line L1 has one sector)
    wb_enable_.assign(p_.line, 0);
    for (unsigned b = 0; b < p_.line; ++b)
      if (v.dirty_sectors >> (b / sectors_.size) & 1u) wb_enable_[b] = 0xff;
    wb_req_.set_byte_enable_ptr(wb_enable_.data());
    wb_req_.set_byte_enable_length(p_.line);
  }
  wb_req_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  wb_ext_ = MemExt{};
  wb_ext_.requester = dir_ext_.requester;
  wb_ext_.sectors = v.dirty_sectors;
  sc_core::sc_time d = sc_core::sc_time::from_value(at > now ? at - now : 0);
  to_l2->b_transport(wb_req_, d);  // off the requester's path: its completion is not waited for
  if (wb_ext_.accepted > at) block(at, wb_ext_.accepted);
}

// mem.coherence = moesi: a write-back L1. Reads hit in any valid state; a
// read miss gets the line from the directory (E when no other L1 has it, S
// otherwise; from the owner L1 when one holds it M, O or E). Writes and atomics
// need M: from E at once, from S or O by an upgrade, from I by a read for
// ownership; they then run here.
void L1Cache::moesi_access(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, Tick start) {
  const auto* ext = p.get_extension<MemExt>();
  const Tick now = sc_core::sc_time_stamp().value();
  const std::uint64_t addr = p.get_address(), line = line_div_.div(addr);
  const Tick tag_done = start + clock_.cycles(p_.hit_latency);
  const bool atomic = ext && ext->op != AtomicOp::None;
  CacheLine* l = tags_.find(line, line);
  Tick done = tag_done;
  if (!atomic && p.is_read()) {
    ++reads;
    if (l) {
      if (l->ready > start)
        ++mshr_merges;
      else
        ++read_hits;
      tags_.touch(l);
      done = std::max(tag_done, l->ready);
    } else {
      ++read_misses;
      if (tags_.was_invalidated(line, line)) ++coherence_misses;
      const Tick go = mshr_.earliest(tag_done);
      if (go > tag_done) ++mshr_stalls;
      mshr_stall.sample(tick_to_ns(go - tag_done));
      if (go > tag_done) block(tag_done, go);
      bool ex = false;
      done = to_directory(Coh::GetS, line, go, nullptr, ex);
      mshr_.hold(go, done);
      CacheLine* v = tags_.victim(line);
      evict(v, tag_done);
      tags_.fill(v, line);
      v->ready = done;
      v->state = static_cast<std::uint8_t>(ex ? MoesiState::E : MoesiState::S);
      tags_.touch(v);
    }
    store_.read(addr, p.get_data_ptr(), p.get_data_length());
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    delay = sc_core::sc_time::from_value(done - now);
    return;
  }
  // Write or atomic: needs M.
  if (atomic)
    ++atomics;
  else
    ++writes;
  const auto st = l ? static_cast<MoesiState>(l->state) : MoesiState::I;
  if (st == MoesiState::M || st == MoesiState::E) {
    if (atomic)
      ++local_atomics;
    else
      ++local_writes;
    done = std::max(tag_done, l->ready);
    l->state = static_cast<std::uint8_t>(MoesiState::M);
    tags_.touch(l);
  } else {
    if (l)
      ++upgrades;
    else
      ++misses_for_ownership;
    bool ex = false;
    done = to_directory(Coh::GetM, line, tag_done, &p, ex);
    if (!l) {
      l = tags_.victim(line);
      evict(l, tag_done);
      tags_.fill(l, line);
    }
    l->ready = done;
    l->state = static_cast<std::uint8_t>(MoesiState::M);
    tags_.touch(l);
  }
  if (atomic) {
    done += clock_.cycles(1);  // the read-modify-write in the L1
    store_.atomic(addr, *const_cast<MemExt*>(ext), p.get_data_ptr());
  } else {
    store_.write(addr, p.get_data_ptr(), p.get_data_length(), p.get_byte_enable_ptr(), p.get_byte_enable_length());
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = sc_core::sc_time::from_value(done - now);
}

Tick L1Cache::translate(std::uint64_t addr, Tick t) {
  ++*tlb_lookups;
  const std::uint64_t page = addr >> page_shift_;
  if (Tick* r = tlb_.find(page)) return std::max(*r, t);  // held, or on its way
  ++*tlb_misses;
  bool walked = false;
  const Tick ready = shared_tlb_->miss(page, t, clock_, walked);
  if (walked) ++*tlb_walks;
  tlb_.put(page, ready);
  return ready;
}

void L1Cache::forward(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  auto* ext = p.get_extension<MemExt>();
  Tick sent = sc_core::sc_time_stamp().value() + delay.value();
  if (shared_tlb_) {  // the request leaves once its page is translated
    const Tick ready = translate(p.get_address(), sent);
    if (ready > sent) {
      delay += sc_core::sc_time::from_value(ready - sent);
      sent = ready;
    }
  }
  if (ext) ext->accepted = 0;
  to_l2->b_transport(p, delay);
  if (ext && ext->accepted > sent) block(sent, ext->accepted);
}

Tick L1Cache::fetch(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, Tick start, Tick now) {
  if (trace_track_ >= 0) Trace::get().span(trace_track_, "read miss", start, hold_);
  // The miss needs an MSHR from its tag check until its fill completes.
  const Tick tag_done = start + clock_.cycles(p_.hit_latency);
  const Tick go = mshr_.earliest(tag_done);
  if (go > tag_done) ++mshr_stalls;
  mshr_stall.sample(tick_to_ns(go - tag_done));
  if (go > tag_done) block(tag_done, go);
  delay = sc_core::sc_time::from_value(go - now);
  forward(p, delay);
  const Tick done = now + delay.value();
  mshr_.hold(go, done);
  return done;
}

void L1Cache::add_local_window(std::uint64_t base, std::uint64_t bytes) {
  if (bytes) local_lines_.emplace_back(line_div_.div(base), line_div_.div(base + bytes - 1));
}

void L1Cache::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const auto* ext = p.get_extension<MemExt>();
  if (ext && ext->invalidate_l1) {  // CCTL.IVALL after a fence or an acquire load (gpu.cu.fence_invalidates_l1)
    ++*fence_invalidations;
    if (p_.ivall_keeps_local) {
      std::uint64_t kept = 0;
      *fence_dropped += tags_.drop_unless([&](std::uint64_t line) {
        for (const auto& [first, last] : local_lines_)
          if (line >= first && line <= last) return ++kept, true;
        return false;
      });
      *fence_kept += kept;
    } else {
      if (p_.local_write_back) {  // dirty local lines go to the L2 first (CCTLL.IVALL's write-back)
        const Tick at = sc_core::sc_time_stamp().value() + delay.value();
        tags_.for_each_valid([&](const CacheLine& l) {
          if (l.dirty_sectors) write_back(l, at);
        });
      }
      *fence_dropped += tags_.drop_all();
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const std::uint64_t addr = p.get_address();
  const std::uint64_t line = line_div_.div(addr);
  if (line_div_.div(addr + p.get_data_length() - 1) != line)
    throw std::logic_error(
        fmt::format("{}: request at 0x{:x} of {} bytes crosses a cache line", name(), addr, p.get_data_length()));
  if (p_.magic) {  // mem.magic: functional only, after the hit latency (counted as reads, writes, atomics)
    if (ext && ext->op != AtomicOp::None)
      ++atomics;
    else if (p.is_write())
      ++writes;
    else
      ++reads, ++read_hits;
    store_.apply(p, const_cast<MemExt*>(ext));
    delay += sc_core::sc_time::from_value(clock_.cycles(p_.hit_latency));
    return;
  }
  const Tick now = sc_core::sc_time_stamp().value();
  Tick arrival = now + delay.value();
  if (blocked_until_ > arrival) {
    ++stalls;
    arrival = blocked_until_;
  }
  // The sectors the access moves, found once (the port's share, a local write hit and a read need them).
  std::uint32_t need_bits = 0;
  bool need_known = false;
  const auto need_of = [&] {
    if (!need_known) need_bits = sectors_.of(p, ext), need_known = true;
    return need_bits;
  };
  // The port: a whole occupancy, or with gpu.l1.tags and sectors the share of it the sectors moved take, at least
  // a tag lookup's (occupancy / tags).
  hold_ = clock_.cycles(p_.occupancy);
  if (p_.tags > 1 && sectors_.on())
    hold_ = std::max(hold_ / p_.tags, hold_ * sectors_.number(need_of()) / sectors_.count());
  const Tick start = port_.reserve(arrival, hold_, now);
  queue_delay.sample(tick_to_ns(start - arrival));
  if (p_.moesi) {
    moesi_access(p, delay, start);
    return;
  }

  if (ext && ext->op != AtomicOp::None) {
    ++atomics;
    if (trace_track_ >= 0) Trace::get().span(trace_track_, "atomic", start, hold_);
    delay = sc_core::sc_time::from_value(start - now);
    forward(p, delay);
    return;
  }
  const bool bypass = ext && ext->bypass_l1;
  if (p.is_write()) {
    ++writes;
    if (trace_track_ >= 0) Trace::get().span(trace_track_, "write", start, hold_);
    CacheLine* held = tags_.find(line, line);
    if (p_.local_write_back && held && !bypass && is_local(line)) {
      const std::uint32_t need = need_of();
      if ((held->sectors & need) == need) {  // a write hit: the line takes the bytes, the L2 nothing
        ++*write_hits;
        held->dirty_sectors |= need;
        tags_.touch(held);
        store_.write(addr, p.get_data_ptr(), p.get_data_length(), p.get_byte_enable_ptr(), p.get_byte_enable_length());
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        const Tick ready = (held->pending & need) ? std::max(held->ready, held->pending_ready) : held->ready;
        delay = sc_core::sc_time::from_value(std::max(start, ready) + clock_.cycles(p_.hit_latency) - now);
        return;
      }
    }
    if (CacheLine* l = held)
      if (!bypass) tags_.touch(l);  // a bypassing store does not count as a use of the L1 copy
    delay = sc_core::sc_time::from_value(start - now);
    forward(p, delay);
    return;
  }
  if (bypass) {  // served by the L2, not allocated (not counted in reads or the hit rate)
    ++bypass_reads;
    if (trace_track_ >= 0) Trace::get().span(trace_track_, "read bypass", start, hold_);
    delay = sc_core::sc_time::from_value(start - now);
    forward(p, delay);
    return;
  }
  ++reads;
  Tick done;
  const std::uint32_t need = need_of();
  CacheLine* held = tags_.find(line, line);
  if (held && sectors_.on() && (held->sectors & need) != need) {
    // Present without a sector the read needs: a miss for the missing
    // sectors, which join the line as pending until their fill completes (a
    // read of them meanwhile waits for it; one of the sectors held does not).
    ++read_misses, ++sector_misses;
    auto* ext_rw = p.get_extension<MemExt>();
    const std::uint32_t asked = ext_rw ? ext_rw->sectors : 0, missing = need & ~held->sectors;
    if (ext_rw) ext_rw->sectors = missing;  // the L2 moves only the missing sectors
    done = fetch(p, delay, start, now);
    if (ext_rw) ext_rw->sectors = asked;
    // The needed sectors the line holds may still be arriving themselves.
    if (need & held->sectors) done = std::max(done, held->ready);
    if (need & held->pending) done = std::max(done, held->pending_ready);
    if (held->pending_ready <= now) held->pending = 0;
    held->sectors |= missing;
    held->pending |= missing;
    held->pending_ready = std::max(held->pending_ready, done);
    tags_.touch(held);
  } else if (CacheLine* l = held) {
    // The line's fill, or a later sector fill of a sector this read needs.
    const Tick ready = (l->pending & need) ? std::max(l->ready, l->pending_ready) : l->ready;
    if (ready > start)
      ++mshr_merges;  // its fill is still in flight
    else
      ++read_hits;
    tags_.touch(l);
    done = std::max(start, ready) + clock_.cycles(p_.hit_latency);
    store_.read(addr, p.get_data_ptr(), p.get_data_length());
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    if (trace_track_ >= 0) Trace::get().span(trace_track_, "read hit", start, hold_);
  } else {
    ++read_misses;
    if (tags_.was_invalidated(line, line)) ++coherence_misses;
    done = fetch(p, delay, start, now);
    CacheLine* v = tags_.victim(line);
    if (v->valid && v->dirty_sectors) write_back(*v, start + clock_.cycles(p_.hit_latency));
    tags_.fill(v, line);
    v->ready = done;
    v->sectors = need;
    tags_.touch(v);
  }
  delay = sc_core::sc_time::from_value(done - now);
}

unsigned L1Cache::transport_dbg(tlm::tlm_generic_payload& p) { return to_l2->transport_dbg(p); }

}  // namespace fg
