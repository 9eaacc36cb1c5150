#include "gpu/wavefront.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <systemc>

#include "gpu/dispatcher.h"
#include "mem/mem_port.h"
#include "sim/error.h"

namespace fg {

namespace {
std::vector<const char*>& site_files() {
  static std::vector<const char*> f;
  return f;
}
}  // namespace

Site make_site(const std::source_location& loc) {
  // Interned by pointer, numbered in order of first use (deterministic).
  static const char* last = nullptr;
  static std::uint32_t last_id = 0;
  const char* f = loc.file_name();
  if (f != last) {
    auto& files = site_files();
    auto it = std::find(files.begin(), files.end(), f);
    if (it == files.end()) {
      files.push_back(f);
      it = files.end() - 1;
    }
    last = f;
    last_id = static_cast<std::uint32_t>(it - files.begin());
  }
  return Site{last_id, loc.line(), loc.column()};
}

std::string site_name(const Site& s) {
  const auto& files = site_files();
  std::string f = s.file < files.size() ? files[s.file] : "?";
  if (auto slash = f.rfind('/'); slash != std::string::npos) f = f.substr(slash + 1);
  return fmt::format("{}:{}", f, s.line);
}

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::Alu: return "alu";
    case OpKind::Load: return "load";
    case OpKind::Store: return "store";
    case OpKind::Atomic: return "atomic";
    case OpKind::Barrier: return "barrier";
    case OpKind::Ballot: return "ballot";
    case OpKind::ScanInclusive: return "scan";
    case OpKind::ScanExclusive: return "scan_excl";
    case OpKind::Broadcast: return "broadcast";
    case OpKind::ReduceAdd: return "reduce_add";
    case OpKind::ReduceMin: return "reduce_min";
    case OpKind::ReduceMax: return "reduce_max";
    case OpKind::LdsLoad: return "lds_load";
    case OpKind::LdsStore: return "lds_store";
  }
  return "?";
}

Wavefront::Wavefront(Workgroup& wg, std::uint32_t first_local, std::uint32_t width, std::uint32_t age)
    : wg_(wg), width_(width), age_(age), lanes_(width), tasks_(width) {
  const KernelLaunch& k = wg.kernel->launch;
  for (std::uint32_t i = 0; i < width; ++i) {
    Lane& l = lanes_[i];
    l.local_id_ = first_local + i;
    l.group_id_ = wg.id;
    l.lane_id_ = i;
    l.wave_size_ = width;
    l.group_size_ = k.group_size;
    l.num_groups_ = wg.kernel->num_groups;
    l.grid_size_ = k.grid;
    l.global_id_ = wg.id * k.group_size + l.local_id_;
    // Lanes past the workgroup or the grid exist in hardware but stay inactive.
    if (l.local_id_ >= k.group_size || l.global_id_ >= k.grid) l.done = true;
  }
}

Wavefront::~Wavefront() = default;

void Wavefront::resume(Lane& l) {
  l.current.resume();
  if (l.done) {
    --live_;
    auto h = tasks_[l.lane_id_].get();
    if (h.promise().error) std::rethrow_exception(h.promise().error);
  }
}

void Wavefront::start() {
  const KernelBody& body = wg_.kernel->launch.body;
  for (Lane& l : lanes_) {
    if (l.done) continue;
    tasks_[l.lane_id_] = body(l);
    l.current = tasks_[l.lane_id_].get();
    ++live_;
  }
  for (Lane& l : lanes_)
    if (!l.done && l.current) resume(l);
}

void Wavefront::release_barrier() {
  at_barrier_ = 0;
  for (Lane& l : lanes_)
    if (l.at_barrier) {
      l.at_barrier = false;
      resume(l);
    }
}

std::string Wavefront::describe() const {
  std::map<std::string, int> where;
  for (const Lane& l : lanes_)
    if (!l.done) where[fmt::format("{} at {}", to_string(l.op.kind), site_name(l.op.site))]++;
  std::string s;
  for (const auto& [w, n] : where) s += fmt::format("{}{} lanes {}", s.empty() ? "" : ", ", n, w);
  return s;
}

IssueResult Wavefront::step(MemPort& port, Tick issue, Tick cycle, std::uint32_t issue_cycles,
                            std::uint32_t lds_cycles, unsigned line_size) {
  IssueResult r;
  // The first site in program order among lanes waiting at an operation.
  const Site* best = nullptr;
  bool several = false;
  for (const Lane& l : lanes_) {
    if (l.done || l.at_barrier) continue;
    if (!best) best = &l.op.site;
    else if (l.op.site != *best) {
      several = true;
      if (l.op.site < *best) best = &l.op.site;
    }
  }
  if (!best) {  // nothing to issue: every live lane waits at the barrier
    r.blocked_at_barrier = true;
    return r;
  }
  const Site site = *best;
  std::uint64_t mask = 0;
  for (const Lane& l : lanes_)
    if (!l.done && !l.at_barrier && l.op.site == site) mask |= 1ull << l.lane_id_;
  const Lane& first = lanes_[std::countr_zero(mask)];
  r.kind = first.op.kind;
  r.active = static_cast<std::uint32_t>(std::popcount(mask));
  r.divergent = several;
  const Tick busy = cycle * issue_cycles;
  r.complete = issue + busy;

  switch (r.kind) {
    case OpKind::Alu:
      alu_levels(mask, r);
      r.complete = issue + busy * r.instructions;
      break;
    case OpKind::Load:
      r.complete = std::max(r.complete, do_load(port, mask, issue, line_size, r.mem_requests));
      break;
    case OpKind::Store:
      r.write_complete = do_store(port, mask, issue, line_size, r.mem_requests);  // does not block the wavefront
      break;
    case OpKind::Atomic:
      r.complete = std::max(r.complete, do_atomic(port, mask, issue, r.mem_requests));
      break;
    case OpKind::LdsLoad:
    case OpKind::LdsStore:
      do_lds(r.kind, mask);
      r.complete = issue + busy + cycle * lds_cycles;
      break;
    case OpKind::Barrier:
      for (std::uint64_t m = mask; m; m &= m - 1) {
        lanes_[std::countr_zero(m)].at_barrier = true;
        ++at_barrier_;
      }
      // Lanes stay suspended until the workgroup releases them.
      return r;
    default:
      do_intrinsic(r.kind, mask);
      break;
  }
  if (r.kind != OpKind::Alu) r.lane_ops = r.active;
  for (std::uint64_t m = mask; m; m &= m - 1) resume(lanes_[std::countr_zero(m)]);
  return r;
}

// Lanes at one alu site with different n form a divergent loop: the
// instruction takes max(n) issue slots, and issue slot k has the lanes whose n
// is at least k active.
void Wavefront::alu_levels(std::uint64_t mask, IssueResult& r) {
  const std::uint64_t n0 = std::max<std::uint64_t>(1, lanes_[std::countr_zero(mask)].op.n);
  bool same = true;
  for (std::uint64_t m = mask; m; m &= m - 1)
    if (std::max<std::uint64_t>(1, lanes_[std::countr_zero(m)].op.n) != n0) {
      same = false;
      break;
    }
  if (same) {
    r.instructions = n0;
    r.lane_ops = n0 * r.active;
    return;
  }
  ns_.clear();
  for (std::uint64_t m = mask; m; m &= m - 1) ns_.push_back(std::max<std::uint64_t>(1, lanes_[std::countr_zero(m)].op.n));
  std::sort(ns_.begin(), ns_.end());
  levels_.clear();
  std::uint64_t done = 0, lane_ops = 0;
  for (std::size_t i = 0; i < ns_.size(); ++i) {
    if (ns_[i] == done) continue;
    const auto active = static_cast<std::uint32_t>(ns_.size() - i);
    levels_.emplace_back(active, ns_[i] - done);
    lane_ops += std::uint64_t{active} * (ns_[i] - done);
    done = ns_[i];
  }
  r.instructions = done;
  r.lane_ops = lane_ops;
  r.levels = &levels_;
}

namespace {
// The lane's byte offset in its cache line; an access may not cross the line.
std::uint64_t line_offset(const Lane& l, unsigned line, const char* what) {
  const std::uint64_t off = l.op.addr % line;
  if (off + l.op.size > line)
    throw SimFault(fmt::format("{} of {} bytes at 0x{:x} ({}) crosses a cache line", what, l.op.size, l.op.addr,
                               site_name(l.op.site)));
  return off;
}
sc_core::sc_time to_local(Tick issue) {
  return sc_core::sc_time::from_value(issue - sc_core::sc_time_stamp().value());
}
}  // namespace

Tick Wavefront::do_load(MemPort& port, std::uint64_t mask, Tick issue, unsigned line, std::uint32_t& reqs) {
  line_buf_.resize(line);
  const sc_core::sc_time local = to_local(issue);
  Tick done = issue;
  // Coalesce: one request per distinct line, lanes served from it in lane order.
  std::uint64_t todo = mask;
  while (todo) {
    const Lane& lead = lanes_[std::countr_zero(todo)];
    const std::uint64_t ln = lead.op.addr / line;
    const sc_core::sc_time t = port.read(ln * line, line_buf_.data(), line, local);
    done = std::max<Tick>(done, sc_core::sc_time_stamp().value() + t.value());
    ++reqs;
    for (std::uint64_t m = todo; m; m &= m - 1) {
      Lane& l = lanes_[std::countr_zero(m)];
      if (l.op.addr / line != ln) continue;
      const std::uint64_t off = line_offset(l, line, "load");
      l.op.result = 0;
      std::memcpy(&l.op.result, line_buf_.data() + off, l.op.size);
      todo &= ~(1ull << l.lane_id_);
    }
  }
  return done;
}

Tick Wavefront::do_store(MemPort& port, std::uint64_t mask, Tick issue, unsigned line, std::uint32_t& reqs) {
  line_buf_.assign(line, 0);
  be_buf_.assign(line, 0);
  const sc_core::sc_time local = to_local(issue);
  Tick done = issue;
  std::uint64_t todo = mask;
  while (todo) {
    const std::uint64_t ln = lanes_[std::countr_zero(todo)].op.addr / line;
    std::fill(be_buf_.begin(), be_buf_.end(), 0);
    for (std::uint64_t m = todo; m; m &= m - 1) {
      Lane& l = lanes_[std::countr_zero(m)];
      if (l.op.addr / line != ln) continue;
      const std::uint64_t off = line_offset(l, line, "store");
      std::memcpy(line_buf_.data() + off, &l.op.value, l.op.size);  // later lanes win, as on GPUs
      std::fill_n(be_buf_.begin() + static_cast<std::ptrdiff_t>(off), l.op.size, 0xff);
      todo &= ~(1ull << l.lane_id_);
    }
    const sc_core::sc_time t = port.write(ln * line, line_buf_.data(), line, local, be_buf_.data());
    done = std::max<Tick>(done, sc_core::sc_time_stamp().value() + t.value());
    ++reqs;
  }
  return done;
}

Tick Wavefront::do_atomic(MemPort& port, std::uint64_t mask, Tick issue, std::uint32_t& reqs) {
  const sc_core::sc_time local = to_local(issue);
  Tick done = issue;
  for (std::uint64_t m = mask; m; m &= m - 1) {  // lane order
    Lane& l = lanes_[std::countr_zero(m)];
    std::uint64_t old = 0;
    const sc_core::sc_time t = port.atomic(l.op.addr, l.op.aop, l.op.size, l.op.value, l.op.compare, old, local);
    l.op.result = old;
    done = std::max<Tick>(done, sc_core::sc_time_stamp().value() + t.value());
    ++reqs;
  }
  return done;
}

namespace {
template <class T>
void scan_reduce(OpKind k, std::vector<Lane>& lanes, std::uint64_t mask) {
  T acc{};
  bool first = true;
  for (std::uint64_t m = mask; m; m &= m - 1) {
    Lane& l = lanes[std::countr_zero(m)];
    const T v = from_bits<T>(l.op.value);
    if (k == OpKind::ScanExclusive) l.op.result = to_bits(acc);
    if (k == OpKind::ReduceMin) acc = first ? v : std::min(acc, v);
    else if (k == OpKind::ReduceMax) acc = first ? v : std::max(acc, v);
    else acc = static_cast<T>(acc + v);
    first = false;
    if (k == OpKind::ScanInclusive) l.op.result = to_bits(acc);
  }
  if (k == OpKind::ReduceAdd || k == OpKind::ReduceMin || k == OpKind::ReduceMax)
    for (std::uint64_t m = mask; m; m &= m - 1) lanes[std::countr_zero(m)].op.result = to_bits(acc);
}
}  // namespace

void Wavefront::do_intrinsic(OpKind k, std::uint64_t mask) {
  if (k == OpKind::Ballot) {
    std::uint64_t bits = 0;
    for (std::uint64_t m = mask; m; m &= m - 1)
      if (lanes_[std::countr_zero(m)].op.value) bits |= 1ull << std::countr_zero(m);
    for (std::uint64_t m = mask; m; m &= m - 1) lanes_[std::countr_zero(m)].op.result = bits;
    return;
  }
  if (k == OpKind::Broadcast) {
    const std::uint64_t from = lanes_[std::countr_zero(mask)].op.n;
    if (from >= width_ || !(mask >> from & 1))
      throw SimFault(fmt::format("broadcast from lane {} which is not active ({})", from,
                                 site_name(lanes_[std::countr_zero(mask)].op.site)));
    const std::uint64_t v = lanes_[from].op.value;
    for (std::uint64_t m = mask; m; m &= m - 1) lanes_[std::countr_zero(m)].op.result = v;
    return;
  }
  switch (lanes_[std::countr_zero(mask)].op.type) {
    case ValType::I32: scan_reduce<std::int32_t>(k, lanes_, mask); break;
    case ValType::U32: scan_reduce<std::uint32_t>(k, lanes_, mask); break;
    case ValType::I64: scan_reduce<std::int64_t>(k, lanes_, mask); break;
    case ValType::U64: scan_reduce<std::uint64_t>(k, lanes_, mask); break;
    case ValType::F32: scan_reduce<float>(k, lanes_, mask); break;
    case ValType::F64: scan_reduce<double>(k, lanes_, mask); break;
  }
}

void Wavefront::do_lds(OpKind k, std::uint64_t mask) {
  for (std::uint64_t m = mask; m; m &= m - 1) {
    Lane& l = lanes_[std::countr_zero(m)];
    if (l.op.addr + l.op.size > wg_.lds.size())
      throw SimFault(fmt::format("LDS access at byte {} beyond the workgroup's {} bytes ({})", l.op.addr,
                                 wg_.lds.size(), site_name(l.op.site)));
    if (k == OpKind::LdsLoad) {
      l.op.result = 0;
      std::memcpy(&l.op.result, wg_.lds.data() + l.op.addr, l.op.size);
    } else {
      std::memcpy(wg_.lds.data() + l.op.addr, &l.op.value, l.op.size);
    }
  }
}

}  // namespace fg
