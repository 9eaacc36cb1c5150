// SPDX-License-Identifier: Apache-2.0
#include "hwwl/hwwl_model.h"

#include <algorithm>
#include <stdexcept>

namespace fg::hwwl {

unsigned clog2(unsigned x) {
  unsigned r = 0;
  while ((1u << r) < x) ++r;
  return r;
}

void global_greedy(const std::vector<unsigned>& counts, std::vector<unsigned>& sorted, Bits& out) {
  sorted = counts;
  out.assign(counts.size(), 0);
  if (sorted.empty()) return;
  const std::size_t lo = sorted.size() / 2 - (sorted.size() >= 2 ? 1 : 0);
  std::nth_element(sorted.begin(), sorted.begin() + lo, sorted.end());
  const unsigned m = sorted[lo];
  for (std::size_t b = 0; b < counts.size(); ++b) out[b] = counts[b] > m;
}

// ---------------------------------------------------------------- Bank

Bank::Bank(unsigned depth, unsigned threshold) : depth_(depth), threshold_(threshold), mem_(depth, 0) {
  if (depth < 2 || (depth & (depth - 1))) throw std::invalid_argument("bank depth must be a power of two >= 2");
}

void Bank::reset() {
  head_[0] = head_[1] = cnt_[0] = cnt_[1] = rsv_ = 0;
  sel_ = false;
}

Bank::Lane Bank::lane(bool dbl, bool pull, bool push, bool swap) const {
  Lane o;
  const unsigned pp = pull_part(dbl), sp = push_part(dbl);
  o.pull_gnt = pull && cnt_[pp] != 0;
  o.push_gnt = push && !pull && occ(sp, dbl) != cap(dbl);
  // Only a granted lane access uses the port (a pull answered WAIT/DONE and a
  // stalled push leave it to the WRU): hwwl_bank, docs "Liveness".
  const bool port_free = !o.pull_gnt && !o.push_gnt;
  // In a swap cycle a reception goes to the side that becomes the pull side.
  const bool swapping = dbl && swap && cnt_[pp] == 0;
  o.ri_ok = port_free && occ(swapping ? sp : pp, dbl) != cap(dbl);
  o.rd_ok = port_free && cnt_[pp] != 0;
  // The head is read only when there is one (an empty bank's entry is not
  // looked at: a cache miss per bank and cycle in the simulator).
  const std::uint32_t head = cnt_[pp] != 0 ? mem_[addr(pp, dbl, head_[pp])] : 0;
  o.pull_id = o.pull_gnt ? head : 0;
  o.rd_id = head;
  return o;
}

Bank::Virt Bank::virt(bool dbl, bool swap, const Lane& l, bool rd_take, bool ri_put, bool rf_put) const {
  // Lowest priority: the port free of lane and WRU accesses, and a reserved
  // entry or room (in a swap cycle: room on the side becoming the pull side).
  const bool swapping = dbl && swap && cnt_[pull_part(dbl)] == 0;
  Virt v;
  v.rf_gnt = rf_put && !l.pull_gnt && !l.push_gnt && !(ri_put && l.ri_ok) && !(rd_take && l.rd_ok) &&
             (swapping ? !push_full(dbl) : (rsv_ != 0 || !full(dbl)));
  v.rsv_ok = !dbl && !full(dbl) && !l.push_gnt && !(ri_put && l.ri_ok) && !(v.rf_gnt && rsv_ == 0);
  return v;
}

void Bank::tick(bool dbl, bool swap, bool pull, bool push, std::uint32_t push_id, bool rd_take, bool ri_put,
                std::uint32_t ri_id, bool rf_put, std::uint32_t rf_id, bool rsv) {
  tick(lane(dbl, pull, push, swap), dbl, swap, push_id, rd_take, ri_put, ri_id, rf_put, rf_id, rsv);
}

void Bank::tick(const Lane& l, bool dbl, bool swap, std::uint32_t push_id, bool rd_take, bool ri_put,
                std::uint32_t ri_id, bool rf_put, std::uint32_t rf_id, bool rsv) {
  const Virt v = virt(dbl, swap, l, rd_take, ri_put, rf_put);
  if (rsv && !v.rsv_ok) throw std::logic_error("bank: reservation not granted");
  const unsigned pp = pull_part(dbl), sp = push_part(dbl);
  const bool rin = ri_put && l.ri_ok, rout = rd_take && l.rd_ok;
  if (rd_take && ri_put) throw std::logic_error("bank: redistribution-in and -out in one cycle");
  const bool swap_now = dbl && swap && cnt_[pp] == 0;
  const unsigned rin_part = swap_now ? sp : pp;  // a reception in a swap cycle: the side becoming the pull side
  const unsigned push_addr = addr(sp, dbl, head_[sp] + cnt_[sp]);
  const unsigned rin_addr = addr(rin_part, dbl, head_[rin_part] + cnt_[rin_part]);
  if (l.push_gnt)
    mem_[push_addr] = push_id;
  else if (rin)
    mem_[rin_addr] = ri_id;
  else if (v.rf_gnt)
    mem_[rin_addr] = rf_id;  // the same side as a reception
  if (v.rf_gnt) {
    ++cnt_[rin_part];
    if (rsv_ != 0) --rsv_;  // into a reserved entry
  }
  if (rsv) ++rsv_;
  if (l.pull_gnt || rout) {
    head_[pp] = (head_[pp] + 1) & (cap(dbl) - 1);
    --cnt_[pp];
  }
  if (rin) ++cnt_[rin_part];
  if (l.push_gnt) ++cnt_[sp];
  if (swap_now) sel_ = !sel_;
}

std::vector<std::uint32_t> Bank::contents(bool dbl, bool pull_side) const {
  const unsigned p = pull_side ? pull_part(dbl) : push_part(dbl);
  std::vector<std::uint32_t> v;
  if (!dbl && !pull_side) return v;
  for (unsigned i = 0; i < cnt_[p]; ++i) v.push_back(mem_[addr(p, dbl, head_[p] + i)]);
  return v;
}

// ---------------------------------------------------------------- SortNet

SortNet::SortNet(unsigned n, unsigned key_width, unsigned stages) : n_(n), key_width_(key_width), idx_width_(clog2(n)) {
  if (n < 2 || (n & (n - 1))) throw std::invalid_argument("sort net N must be a power of two >= 2");
  const unsigned logn = clog2(n);
  for (unsigned p = 0; p < logn; ++p)
    for (unsigned q = 0; q <= p; ++q) layers_.push_back({p, 1u << (p - q)});
  const unsigned L = layers();
  if (stages > L) throw std::invalid_argument("sort net: more stages than layers");
  for (unsigned l = 0; l < L; ++l) reg_after_.push_back(((l + 1) * stages / L) != (l * stages / L));
  reset();
}

void SortNet::reset() {
  regs_.clear();
  valid_.clear();
  for (unsigned l = 0; l < layers(); ++l)
    if (reg_after_[l]) {
      regs_.emplace_back(n_, 0);
      valid_.push_back(false);
    }
}

SortNet::Vec SortNet::pack(const std::vector<unsigned>& keys) const {
  Vec v(n_);
  for (unsigned i = 0; i < n_; ++i) v[i] = (std::uint64_t{keys[i]} << idx_width_) | i;
  return v;
}

void SortNet::apply(const Layer& l, Vec& v) const {
  for (unsigned i = 0; i < n_; ++i) {
    if (i & l.d) continue;
    const bool asc = ((i >> (l.p + 1)) & 1) == 0;
    std::uint64_t& a = v[i];
    std::uint64_t& b = v[i + l.d];
    if (asc ? a > b : a < b) std::swap(a, b);
  }
}

SortNet::Out SortNet::eval(const std::vector<unsigned>& keys, bool en) const {
  Out o;
  eval(keys, en, o);
  return o;
}

void SortNet::eval(const std::vector<unsigned>& keys, bool en, Out& o) const {
  // Output = the layers after the last register applied to its content; zero
  // while the last segment's input is not valid.
  const bool piped = !regs_.empty();
  const bool valid = piped ? valid_.back() : en;
  unsigned start = 0;
  for (unsigned l = 0; l < layers(); ++l)
    if (reg_after_[l]) start = l + 1;
  o.valid = valid;
  o.keys.assign(n_, 0);
  o.perm.assign(n_, 0);
  if (!valid) return;
  Vec& v = v_;
  if (piped) {
    v = regs_.back();
  } else {
    v.resize(n_);
    for (unsigned i = 0; i < n_; ++i) v[i] = (std::uint64_t{keys[i]} << idx_width_) | i;  // pack()
  }
  for (unsigned l = start; l < layers(); ++l) apply(layers_[l], v);
  const std::uint64_t idx_mask = (1ull << idx_width_) - 1;
  for (unsigned i = 0; i < n_; ++i) {
    o.keys[i] = static_cast<unsigned>(v[i] >> idx_width_);
    o.perm[i] = static_cast<unsigned>(v[i] & idx_mask);
  }
}

void SortNet::tick(const std::vector<unsigned>& keys, bool en) {
  if (regs_.empty()) return;  // not pipelined: no state
  Vec v = pack(keys);
  bool valid = en;
  std::vector<Vec> next;
  Bits next_valid;
  unsigned r = 0;
  for (unsigned l = 0; l < layers(); ++l) {
    if (valid) apply(layers_[l], v);  // an invalid segment's result is zeros anyway
    if (reg_after_[l]) {
      next.push_back(valid ? v : Vec(n_, 0));
      next_valid.push_back(valid);
      valid = valid_[r];
      v = regs_[r++];  // the next segment starts from the current register
    }
  }
  regs_ = std::move(next);
  valid_ = std::move(next_valid);
}

// ---------------------------------------------------------------- Wru

Wru::Wru(const Params& p) : p_(p), sort_(p.lanes, p.cnt_width(), p.sort_stages) { reset(); }

void Wru::reset() {
  tick_ = rr_ = 0;
  sort_.reset();
}

void Wru::plan(const std::vector<unsigned>& counts, const Bits& rd_ok, const Bits& ri_ok, const Bits* global_greedy) {
  const unsigned L = p_.lanes, T = p_.threshold, half = L / 2;
  cnt_ = counts;
  rd_ok_ = rd_ok;
  Bits& greedy = greedy_b_;
  Bits& needy = needy_b_;
  greedy.resize(L);
  needy.resize(L);
  unsigned n_greedy = 0, n_needy = 0;
  core_empty_ = true;
  for (unsigned b = 0; b < L; ++b) {
    greedy[b] = counts[b] > T;
    needy[b] = counts[b] < T;
    n_greedy += greedy[b];
    n_needy += needy[b];
    if (counts[b]) core_empty_ = false;
  }
  const bool gsort = p_.scheme == Scheme::Gsorting;
  if (gsort && !global_greedy) throw std::logic_error("hwwl::Wru: gsorting needs the global ranking (hwwl::System)");
  if (gsort) {
    // The core's greedy bit (which the tree reads): more of its banks in the
    // global upper half than in the lower half.
    unsigned g = 0;
    for (unsigned b = 0; b < L; ++b) g += (*global_greedy)[b];
    greedy_ = g > L - g;
  } else {
    greedy_ = n_greedy > n_needy;
  }
  const bool tick = tick_ == p_.interval - 1;

  Bits& pair_v = pair_v_;
  std::vector<unsigned>& pair_d = pair_d_;
  pair_v.assign(L, false);
  pair_d.assign(L, 0);
  cand_v_ = false;
  cand_ = 0;
  // Pairing only on a tick (the RTL's outputs are zero in between).
  if (p_.scheme == Scheme::Lsorting && tick) {
    SortNet::Out& s = sorted_;
    sort_.eval(counts, sort_en(), s);
    bool still = true;
    unsigned m = 0;
    for (unsigned k = 0; k < half; ++k) {
      const unsigned kr = s.keys[k], kd = s.keys[L - 1 - k];
      if (still && kr < T && kd > kr + 1) {
        pair_v[s.perm[k]] = tick;
        pair_d[s.perm[k]] = s.perm[L - 1 - k];
        ++m;
      } else {
        still = false;
      }
    }
    cand_ = s.perm[L - 1 - m];
    cand_v_ = tick && greedy_ && m < half && s.keys[L - 1 - m] > T;
  } else if (gsort && tick) {
    // gsorting (Sec. III-C; hwwl_wru gen_gsorting): the local ranking pairs the core's
    // emptiest banks with its fullest, as in lsorting, but a donor must be in
    // the global upper half and a receiver in the global lower half, or below
    // the threshold ("still prioritized even if globally greedy"). A donor
    // holds at least two more IDs than its receiver (after the move it holds
    // at least as many). The excess donors of a
    // globally greedy core send work to another core; any globally greedy
    // bank with more than one ID may (not only those above the threshold, as
    // in lsorting: the global ranking, not the threshold, says who has too
    // much).
    const Bits& gg = *global_greedy;
    SortNet::Out& s = sorted_;
    sort_.eval(counts, sort_en(), s);
    bool still = true;
    unsigned m = 0;
    for (unsigned k = 0; k < half; ++k) {
      const unsigned r = s.perm[k], d = s.perm[L - 1 - k];
      const unsigned kr = s.keys[k], kd = s.keys[L - 1 - k];
      if (still && (kr < T || !gg[r]) && gg[d] && kd > kr + 1) {
        pair_v[r] = true;
        pair_d[r] = d;
        ++m;
      } else {
        still = false;
      }
    }
    cand_ = s.perm[L - 1 - m];
    cand_v_ = greedy_ && m < half && gg[cand_] && s.keys[L - 1 - m] > 1;
  } else if (p_.scheme == Scheme::Threshold && tick) {
    std::vector<unsigned> pos(L), grank(L, 0), nrank(L, 0);
    for (unsigned b = 0; b < L; ++b) pos[b] = (b - rr_) & (L - 1);
    for (unsigned b = 0; b < L; ++b)
      for (unsigned d = 0; d < L; ++d)
        if (pos[d] < pos[b]) {
          grank[b] += greedy[d];
          nrank[b] += needy[d];
        }
    for (unsigned r = 0; r < L; ++r)
      for (unsigned d = 0; d < L; ++d)
        if (needy[r] && greedy[d] && grank[d] == nrank[r]) {
          pair_v[r] = tick;
          pair_d[r] = d;
        }
    for (unsigned d = 0; d < L; ++d)
      if (greedy[d] && grank[d] == n_needy) {
        cand_v_ = tick && greedy_;
        cand_ = d;
      }
  }

  pair_take_.assign(L, false);
  pair_put_.assign(L, false);
  pair_src_.assign(L, 0);
  for (unsigned r = 0; r < L; ++r)
    if (pair_v[r] && rd_ok[pair_d[r]] && ri_ok[r]) {
      pair_take_[pair_d[r]] = true;
      pair_put_[r] = true;
      pair_src_[r] = pair_d[r];
    }
  Bits& busy = busy_;
  busy.resize(L);
  for (unsigned b = 0; b < L; ++b) busy[b] = pair_take_[b] || pair_put_[b];
  if (cand_v_) busy[cand_] = true;
  eject_ready_ = false;
  best_ = 0;
  for (unsigned b = 0; b < L; ++b)
    if (ri_ok[b] && !busy[b] && (!eject_ready_ || counts[b] < counts[best_])) {
      eject_ready_ = true;
      best_ = b;
    }
}

Wru::Decision Wru::finish(bool inject_ready, bool eject_valid) const {
  Decision d;
  finish(inject_ready, eject_valid, d);
  return d;
}

void Wru::finish(bool inject_ready, bool eject_valid, Decision& d) const {
  d.rd_take = pair_take_;
  d.ri_put = pair_put_;
  d.ri_src = pair_src_;
  d.ri_net.assign(p_.lanes, false);
  d.inject_sel = cand_;
  d.inject_valid = cand_v_ && rd_ok_[cand_] && inject_ready;
  if (d.inject_valid) d.rd_take[cand_] = true;
  if (eject_ready_ && eject_valid) {
    d.ri_put[best_] = true;
    d.ri_net[best_] = true;
  }
}

bool Wru::plan_void() const {
  if (cand_v_) return false;
  for (unsigned b = 0; b < p_.lanes; ++b)
    if (pair_v_[b]) return false;
  return true;
}

void Wru::regreedy(const Bits& global_greedy) {
  const unsigned L = p_.lanes;
  unsigned g = 0;
  for (unsigned b = 0; b < L; ++b) g += global_greedy[b];
  greedy_ = g > L - g;
}

void Wru::tick(const std::vector<unsigned>& counts) {
  const bool tick = tick_ == p_.interval - 1;
  if (p_.scheme == Scheme::Lsorting || p_.scheme == Scheme::Gsorting) sort_.tick(counts, sort_en());
  tick_ = tick ? 0 : tick_ + 1;
  if (tick) rr_ = (rr_ + 1) & (p_.lanes - 1);
}

bool Wru::sort_en() const {
  // Start the sort so that its result is ready on the tick (hwwl_wru gen_en_*).
  const unsigned s = p_.sort_stages, iv = p_.interval;
  if (s == 0) return tick_ == iv - 1;
  if (s < iv) return tick_ == iv - 1 - s;
  return true;
}

// ---------------------------------------------------------------- Icrn

Icrn::Icrn(unsigned cores) : n_(cores) { reset(); }

void Icrn::reset() {
  rr_ = orr_ = 0;
  in_v_.assign(n_, false);
  out_v_.assign(n_, false);
  taken_.assign(n_, false);
  moved_.assign(n_, false);
  in_id_.assign(n_, 0);
  out_id_.assign(n_, 0);
  src_.assign(n_, 0);
}

bool Icrn::busy() const {
  for (unsigned c = 0; c < n_; ++c)
    if (in_v_[c] || out_v_[c]) return true;
  return false;
}

unsigned Icrn::held() const {
  unsigned h = 0;
  for (unsigned c = 0; c < n_; ++c) h += in_v_[c] + out_v_[c];
  return h;
}

std::vector<std::uint32_t> Icrn::contents() const {
  std::vector<std::uint32_t> v;
  for (unsigned c = 0; c < n_; ++c) {
    if (in_v_[c]) v.push_back(in_id_[c]);
    if (out_v_[c]) v.push_back(out_id_[c]);
  }
  return v;
}

std::string Icrn::where() const {
  std::string s;
  auto add = [&](const std::string& what, std::uint32_t id) {
    s += (s.empty() ? "" : "; ") + what + ": " + std::to_string(id);
  };
  for (unsigned c = 0; c < n_; ++c) {
    if (in_v_[c]) add("hub input from core " + std::to_string(c), in_id_[c]);
    if (out_v_[c]) add("hub output to core " + std::to_string(c), out_id_[c]);
  }
  return s;
}

void Icrn::plan(const Bits& greedy, const Bits& eject_ready) {
  taken_.assign(n_, false);
  moved_.assign(n_, false);
  src_.assign(n_, 0);
  orr_next_ = orr_;
  bool any = false;  // no hub input holds an ID: nothing moves
  for (unsigned i = 0; i < n_ && !any; ++i) any = in_v_[i];
  for (unsigned oo = 0; oo < n_ && any; ++oo) {
    const unsigned o = (orr_ + oo) % n_;
    for (unsigned ii = 0; ii < n_; ++ii) {
      const unsigned i = (rr_ + ii) % n_;
      if ((!out_v_[o] || eject_ready[o]) && !greedy[o] && !moved_[o] && in_v_[i] && !taken_[i] && i != o) {
        moved_[o] = true;
        taken_[i] = true;
        src_[o] = i;
        orr_next_ = (o + 1) % n_;
      }
    }
  }
}

void Icrn::tick(const Bits& inject_valid, const std::vector<std::uint32_t>& inject_id, const Bits& eject_ready) {
  Bits in_v(n_), out_v(n_);
  std::vector<std::uint32_t> in_id(n_), out_id(n_);
  for (unsigned c = 0; c < n_; ++c) {
    const bool accept = inject_valid[c] && inject_ready(c);
    in_v[c] = (in_v_[c] && !taken_[c]) || accept;
    in_id[c] = accept ? inject_id[c] : in_id_[c];
    out_v[c] = moved_[c] || (out_v_[c] && !eject_ready[c]);
    out_id[c] = moved_[c] ? in_id_[src_[c]] : out_id_[c];
  }
  in_v_ = in_v, out_v_ = out_v, in_id_ = in_id, out_id_ = out_id;
  rr_ = (rr_ + 1) % n_;
  orr_ = orr_next_;
}

// ---------------------------------------------------------------- Core

Core::Core(const Params& p) : p_(p), wru_(p) {
  for (unsigned b = 0; b < p.lanes; ++b) banks_.emplace_back(p.depth, p.threshold);
}

void Core::reset() {
  for (auto& b : banks_) b.reset();
  wru_.reset();
  idle_ = idle_done_ = plan_kept_ = tick_void_ = mode_ = false;
}

bool Core::try_idle(bool double_buf, const Bits* global_greedy) {
  if (!plan_kept_ || double_buf != in_.double_buf || (wru_.on_tick() && !tick_void_) || p_.sort_stages != 0)
    return false;
  if (p_.scheme == Scheme::Gsorting) wru_.regreedy(*global_greedy);
  idle_ = true;
  idle_done_ = false;
  return true;
}

void Core::finish_idle(SysOut& o, bool sys_empty, std::size_t off) {
  // The kept plan pairs nothing and injects nothing (off the tick; on a tick
  // only when void), so without the network's ID no bank is accessed. Pulls
  // find their banks empty.
  for (unsigned b = 0; b < p_.lanes; ++b) {
    o.pull_status[off + b] = !in_.pull[b] ? kPullNone : sys_empty ? kPullDone : kPullWait;
    o.pull_id[off + b] = lane_[b].rd_id;
    o.push_gnt[off + b] = false;
    o.rf_gnt[off + b] = false;
  }
  idle_done_ = true;
}

void Core::begin(const LaneIn& in, const Bits* global_greedy) {
  in_ = in;
  begin_input(global_greedy);
}

void Core::begin_input(const Bits* global_greedy) {
  const LaneIn& in = in_;
  if (in.double_buf != mode_) {
    // The partition mode may change only while every bank holds neither work
    // nor reserved entries (hwwl_bank; its a_rsv_mode assertion): the two
    // modes lay the entries out differently, so work inside would be lost or
    // read from the wrong address.
    for (unsigned b = 0; b < p_.lanes; ++b)
      if (banks_[b].total() != 0 || banks_[b].reserved() != 0)
        throw std::logic_error("core: worklist mode changed while bank " + std::to_string(b) + " holds " +
                               std::to_string(banks_[b].total()) + " work IDs and " +
                               std::to_string(banks_[b].reserved()) + " reserved entries");
    mode_ = in.double_buf;
  }
  idle_ = idle_done_ = false;
  const unsigned L = p_.lanes;
  lane_.resize(L);
  counts_.resize(L);
  Bits& rd_ok = rd_ok_;
  Bits& ri_ok = ri_ok_;
  rd_ok.resize(L);
  ri_ok.resize(L);
  for (unsigned b = 0; b < L; ++b) {
    lane_[b] = banks_[b].lane(in.double_buf, in.pull[b], in.push[b], in.swap);
    counts_[b] = banks_[b].count(in.double_buf);
    rd_ok[b] = lane_[b].rd_ok;
    ri_ok[b] = lane_[b].ri_ok;
  }
  wru_.plan(counts_, rd_ok, ri_ok, global_greedy);
}

CoreOut Core::finish(bool sys_empty, bool inject_ready, bool eject_valid, std::uint32_t eject_id) {
  CoreOut o;
  finish(sys_empty, inject_ready, eject_valid, eject_id, o);
  return o;
}

void Core::finish(bool sys_empty, bool inject_ready, bool eject_valid, std::uint32_t eject_id, CoreOut& o) {
  const unsigned L = p_.lanes;
  wru_.finish(inject_ready, eject_valid, dec_);
  eject_id_ = eject_id;
  o.pull_status.resize(L);
  o.pull_id.resize(L);
  o.push_gnt.resize(L);
  // The HVU's accesses, after the WRU's.
  const bool hvu = !in_.rf_put.empty();
  rf_gnt_.assign(L, false);
  bool rsv_all = hvu && in_.rsv[0];
  for (unsigned b = 0; b < L && hvu; ++b) {
    const Bank::Virt v =
        banks_[b].virt(in_.double_buf, in_.swap, lane_[b], dec_.rd_take[b], dec_.ri_put[b], in_.rf_put[b]);
    rf_gnt_[b] = v.rf_gnt;
    rsv_all = rsv_all && v.rsv_ok;
  }
  rsv_gnt_ = rsv_all;
  o.rf_gnt = rf_gnt_;
  o.rsv_gnt = rsv_gnt_;
  for (unsigned b = 0; b < L; ++b) {
    o.pull_status[b] = !in_.pull[b] ? kPullNone : lane_[b].pull_gnt ? kPullId : sys_empty ? kPullDone : kPullWait;
    o.pull_id[b] = lane_[b].rd_id;  // the bank's head: the work ID when the status is PullId
    o.push_gnt[b] = lane_[b].push_gnt;
  }
  o.core_empty = wru_.core_empty();
  o.greedy = wru_.greedy();
  o.inject_valid = dec_.inject_valid;
  o.inject_id = lane_[dec_.inject_sel].rd_id;
  o.eject_ready = eject_ready(eject_valid);
}

void Core::tick() {
  const unsigned L = p_.lanes;
  if (idle_done_) {
    // Nothing arrived (finish_idle): the banks keep their state.
    if (wru_.on_tick()) tick_void_ = true;
    wru_.tick(counts_);
    return;
  }
  // Did a bank change at this edge? (Bank::tick changes nothing without an
  // access: lane, WRU, network or virtualization, or a swap.)
  // Lsorting and none decide on a tick from the counts alone: a tick that
  // paired nothing and injects nothing plans as an ordinary cycle, and a later
  // tick on the same banks does the same.
  const bool tick_reusable = (p_.scheme == Scheme::Lsorting || p_.scheme == Scheme::None) && wru_.plan_void();
  const bool on_tick = wru_.on_tick();
  bool quiet = !in_.swap && (!on_tick || tick_reusable) && !rsv_gnt_;
  // A pull that is not granted (its bank is empty) changes nothing either.
  for (unsigned b = 0; b < L && quiet; ++b)
    quiet = !(in_.pull[b] && lane_[b].pull_gnt) && !in_.push[b] && !dec_.rd_take[b] && !dec_.ri_put[b] && !rf_gnt_[b] &&
            (in_.rf_put.empty() || !in_.rf_put[b]) && (in_.rsv.empty() || !in_.rsv[0]);
  if (idle_ && quiet) {
    // Nothing arrived: the banks keep their state (their ticks would change nothing).
    wru_.tick(counts_);
    if (on_tick) tick_void_ = true;
    return;
  }
  for (unsigned b = 0; b < L; ++b) {
    const std::uint32_t ri_id = dec_.ri_net[b] ? eject_id_ : lane_[dec_.ri_src[b]].rd_id;
    const bool hvu = !in_.rf_put.empty();
    banks_[b].tick(lane_[b], in_.double_buf, in_.swap, in_.push_id[b], dec_.rd_take[b], dec_.ri_put[b], ri_id,
                   hvu && in_.rf_put[b], hvu ? in_.rf_id[b] : 0, rsv_gnt_);
  }
  wru_.tick(counts_);
  // Unchanged banks after an input-free cycle off the tick: the next such
  // cycle may reuse this plan.
  plan_kept_ = quiet;
  tick_void_ = quiet && (tick_void_ || on_tick);
}

CoreOut Core::step(const LaneIn& in, bool sys_empty, bool inject_ready, bool eject_valid, std::uint32_t eject_id) {
  begin(in);
  CoreOut o = finish(sys_empty, inject_ready, eject_valid, eject_id);
  tick();
  return o;
}

unsigned Core::pull_total() const {
  unsigned t = 0;
  for (const auto& b : banks_) t += b.count(in_.double_buf);
  return t;
}

unsigned Core::total() const {
  unsigned t = 0;
  for (const auto& b : banks_) t += b.total();
  return t;
}

// ---------------------------------------------------------------- System

System::System(const Params& p) : p_(p), icrn_(p.cores) {
  for (unsigned c = 0; c < p.cores; ++c) cores_.emplace_back(p);
}

void System::reset() {
  for (auto& c : cores_) c.reset();
  icrn_.reset();
}

SysOut System::step(const LaneIn& in) {
  SysOut o;
  step(in, o);
  return o;
}

void System::step(const LaneIn& in, SysOut& o) {
  const unsigned C = p_.cores, L = p_.lanes;
  if (p_.scheme == Scheme::Gsorting) {
    // The monolithic WRU ranks all banks (pull-side counts before this
    // cycle's accesses, as every WRU sees them) in one cycle: the upper half
    // is globally greedy. m is the largest count of the lower half; ties at
    // m go to the lower half, so equally empty banks are never greedy.
    all_counts_.resize(std::size_t{C} * L);
    for (unsigned c = 0; c < C; ++c)
      for (unsigned l = 0; l < L; ++l) all_counts_[c * L + l] = cores_[c].bank(l).count(in.double_buf);
    global_greedy(all_counts_, sorted_, all_greedy_);
    global_greedy_.resize(C);
    for (unsigned c = 0; c < C; ++c)
      global_greedy_[c].assign(all_greedy_.begin() + c * L, all_greedy_.begin() + (c + 1) * L);
  }
  for (unsigned c = 0; c < C; ++c) {
    // Inputs that may change a bank: a pull of an empty bank does not (a
    // spinning waiter's), it is answered WAIT or DONE from the kept plan.
    bool inputs = in.swap || (!in.rsv.empty() && in.rsv[c]);
    for (unsigned l = c * L; l < (c + 1) * L && !inputs; ++l)
      inputs = (in.pull[l] && cores_[c].bank(l - c * L).count(in.double_buf) != 0) || in.push[l] ||
               (!in.rf_put.empty() && in.rf_put[l]);
    LaneIn& li = cores_[c].input();
    li.pull.assign(in.pull.begin() + c * L, in.pull.begin() + (c + 1) * L);  // also idle: finish() answers them
    if (!inputs && cores_[c].try_idle(in.double_buf, p_.scheme == Scheme::Gsorting ? &global_greedy_[c] : nullptr))
      continue;
    li.double_buf = in.double_buf;
    li.swap = in.swap;
    li.push.assign(in.push.begin() + c * L, in.push.begin() + (c + 1) * L);
    li.push_id.assign(in.push_id.begin() + c * L, in.push_id.begin() + (c + 1) * L);
    if (!in.rf_put.empty()) {
      li.rf_put.assign(in.rf_put.begin() + c * L, in.rf_put.begin() + (c + 1) * L);
      li.rf_id.assign(in.rf_id.begin() + c * L, in.rf_id.begin() + (c + 1) * L);
      li.rsv.assign(1, in.rsv[c]);
    } else {
      li.rf_put.clear();
    }
    cores_[c].begin_input(p_.scheme == Scheme::Gsorting ? &global_greedy_[c] : nullptr);
  }
  o.sys_empty = !icrn_.busy() && !in.hvu_busy;
  Bits& greedy = greedy_;
  Bits& eject_ready = eject_ready_;
  Bits& inject_valid = inject_valid_;
  std::vector<std::uint32_t>& inject_id = inject_id_;
  greedy.resize(C);
  eject_ready.resize(C);
  inject_valid.resize(C);
  inject_id.resize(C);
  core_out_.resize(C);
  o.pull_status.resize(std::size_t{C} * L);
  o.pull_id.resize(std::size_t{C} * L);
  o.push_gnt.resize(std::size_t{C} * L);
  o.rf_gnt.resize(std::size_t{C} * L);
  o.rsv_gnt.resize(C);
  for (unsigned c = 0; c < C; ++c) {
    o.sys_empty = o.sys_empty && cores_[c].core_empty();
    greedy[c] = cores_[c].greedy();
    eject_ready[c] = cores_[c].eject_ready(icrn_.eject_valid(c));
  }
  icrn_.plan(greedy, eject_ready);
  for (unsigned c = 0; c < C; ++c) {
    const std::size_t off = std::size_t{c} * L;
    if (cores_[c].idle() && !eject_ready[c]) {
      cores_[c].finish_idle(o, o.sys_empty, off);
      o.rsv_gnt[c] = false;
      inject_valid[c] = false;
      inject_id[c] = 0;
      continue;
    }
    CoreOut& co = core_out_[c];
    cores_[c].finish(o.sys_empty, icrn_.inject_ready(c), icrn_.eject_valid(c), icrn_.eject_id(c), co);
    std::copy(co.pull_status.begin(), co.pull_status.end(), o.pull_status.begin() + off);
    std::copy(co.pull_id.begin(), co.pull_id.end(), o.pull_id.begin() + off);
    std::copy(co.push_gnt.begin(), co.push_gnt.end(), o.push_gnt.begin() + off);
    std::copy(co.rf_gnt.begin(), co.rf_gnt.end(), o.rf_gnt.begin() + off);
    o.rsv_gnt[c] = co.rsv_gnt;
    inject_valid[c] = co.inject_valid;
    inject_id[c] = co.inject_id;
  }
  o.greedy = greedy;
  icrn_.tick(inject_valid, inject_id, eject_ready);
  for (auto& c : cores_) c.tick();
}

void System::skip(std::uint64_t n, bool double_buf) {
  if (p_.sort_stages != 0) {
    LaneIn in;
    in.double_buf = double_buf;
    in.pull.assign(std::size_t{p_.cores} * p_.lanes, false);
    in.push.assign(in.pull.size(), false);
    in.push_id.assign(in.pull.size(), 0);
    for (std::uint64_t i = 0; i < n; ++i) step(in);
    return;
  }
  for (auto& c : cores_) c.skip(n);
  icrn_.skip(n);
}

unsigned System::pull_total() const {
  unsigned t = icrn_.held();
  for (const auto& c : cores_) t += c.pull_total();
  return t;
}

unsigned System::total() const {
  unsigned t = icrn_.held();
  for (const auto& c : cores_) t += c.total();
  return t;
}

std::string Core::where(bool double_buf, const std::string& prefix) const {
  std::string s;
  for (unsigned l = 0; l < p_.lanes; ++l)
    for (bool pull_side : {true, false}) {
      const auto v = banks_[l].contents(double_buf, pull_side);
      if (v.empty()) continue;
      std::string ids;
      for (std::size_t i = 0; i < v.size() && i < 8; ++i) ids += (i ? ", " : "") + std::to_string(v[i]);
      if (v.size() > 8) ids += ", ... (" + std::to_string(v.size()) + ")";
      s += (s.empty() ? "" : "; ") +
           (prefix + "lane " + std::to_string(l) + (pull_side ? " pull side: " : " push side: ")) + ids;
    }
  return s;
}

std::string System::where(bool double_buf) const {
  std::string s;
  for (unsigned c = 0; c < p_.cores; ++c) {
    const std::string core = cores_[c].where(double_buf, "core " + std::to_string(c) + " ");
    if (!core.empty()) s += (s.empty() ? "" : "; ") + core;
  }
  const std::string net = icrn_.where();
  if (!net.empty()) s += (s.empty() ? "" : "; ") + net;
  return s;
}

}  // namespace fg::hwwl
