// SPDX-License-Identifier: Apache-2.0
#include "worklist/worklist.h"

#include <ostream>

#include <algorithm>
#include <array>
#include <bit>

#include <fmt/format.h>

#include "gpu/compute_unit.h"
#include "gpu/gpu.h"
#include "gpu/wavefront.h"
#include "hwwl/hwwl_model.h"
#include "sim/error.h"
#include "sim/guard.h"
#include "worklist/ideal_backend.h"

namespace fg::wl {

namespace {

// PendingOp::n of a wl_pull_spin (0: wl_pull).
constexpr std::uint64_t kSpinPull = 1;

// Defaults: the paper's design point (Kim & Batten, ../shared/papers/001):
// 16 lanes per core (Sec. IV-A), 32 entries per bank (Sec. IV-E: "32 entries
// per bank achieves most of the performance"), work threshold 5 and a
// 10-cycle redistribution interval (Sec. IV-D), 24-bit work IDs (Sec. III-B).
const Param<std::string> kBackend{"worklist.backend", "model", std::vector<std::string>{"model", "rtl"},
                                  "model: the golden model of models/hwwl; rtl: the Verilated RTL of rtl/hwwl "
                                  "(configurations built into fgsim: fgsim list)"};
const Param<std::uint64_t> kVcdFrom{
    "worklist.vcd_from", 0, "cycles", "first unit cycle in the --vcd waveform", {{0}, {}}};
const Param<std::uint64_t> kVcdTo{
    "worklist.vcd_to", 0, "cycles", "last unit cycle in the --vcd waveform (0: to the end)", {{0}, {}}};
const Param<std::uint64_t> kLanes{"worklist.lanes",
                                  0,
                                  "",
                                  "banks per core, a power of two from 2 (0: gpu.cu.simd_width; paper: 16, Sec. IV-A)",
                                  {{0}, {64}}};
const Param<std::uint64_t> kDepth{
    "worklist.depth", 32, "entries", "entries per bank, a power of two (paper: 32, Sec. IV-E)", {{2}, {1u << 16}}};
const Param<std::string> kScheme{
    "worklist.scheme", "lsorting",
    std::vector<std::string>{"none", "threshold", "lsorting", "gsorting", "magic", "ideal_fifo", "ideal_sorted"},
    "work redistribution (Sec. III-C; paper's choice: lsorting); gsorting: one ranking of every bank of every core "
    "(a monolithic WRU, Fig. 6); model only: magic (Fig. 6: banks levelled every "
    "cycle across cores, no bandwidth limit), ideal_fifo / ideal_sorted (Fig. 5: one infinite worklist with unlimited "
    "bandwidth, FIFO or smallest work ID first)"};
const Param<std::uint64_t> kThreshold{
    "worklist.threshold", 5, "", "work threshold (paper: 5, Sec. IV-D)", {{0}, {1u << 16}}};
const Param<std::uint64_t> kInterval{
    "worklist.interval", 10, "cycles", "redistribution interval (paper: 10, Sec. IV-D)", {{1}, {1u << 20}}};
// The virtualization unit (Sec. III-D). The paper finds interval refills never
// worse and essential where multithreading cannot hide the refill latency
// (Sec. IV-E), so it is the default; the HVU samples at the redistribution
// interval (its period is not given). Requests in flight per core: the load/
// store unit's queue, taken as the miss queue of GPGPU-Sim's GTX 480 L1 data
// cache (-gpgpu_cache:dl1 ...,8: 8 entries).
const Param<std::string> kRefill{"worklist.refill", "interval", std::vector<std::string>{"interval", "on_demand"},
                                 "overflow-buffer refills (Sec. III-D): interval (every worklist.interval cycles, "
                                 "when every bank of the core has room) or on_demand (on a pull from an empty bank)"};
const Param<std::uint64_t> kHvuRequests{"worklist.hvu_requests",
                                        8,
                                        "",
                                        "virtualization loads and stores in flight per core (GTX 480 L1 miss queue)",
                                        {{1}, {1024}}};
// On-demand refills in flight (Sec. III-D: "as many virtualization requests as
// there is space in the load-store unit can be sent out"): the queue's depth,
// worklist.hvu_requests, unless set; 1 is the model before 2026-11-27 (an
// ablation: a load started only when nothing was on its way).
const Param<std::uint64_t> kHvuRefills{"worklist.hvu_refills",
                                       0,
                                       "",
                                       "on-demand refill loads in flight per core (0: worklist.hvu_requests, the "
                                       "load/store queue; 1: one at a time, an ablation)",
                                       {{0}, {1024}}};
// The virtualization unit's memory path (Sec. III-D: "The HVU tags and
// injects virtualization requests into the load-store unit of the GPGPU lanes
// to be issued just like any other memory access ... normal memory requests
// are given priority").
const Param<std::string> kHvuPath{
    "worklist.hvu_path", "lsu", std::vector<std::string>{"lsu", "l2"},
    "virtualization requests' path: lsu (through each core's load/store unit and L1 port behind the CU's own "
    "requests, not allocated in the L1; Sec. III-D) or l2 (one port straight to the L2 beside the cores; the model "
    "before 2026-11-27, an ablation)"};
// Interval refills per check (Sec. III-D: "As many virtualization requests
// can be injected as there are free entries in the load-store unit's internal
// queue").
const Param<std::string> kHvuIntervalLoads{
    "worklist.hvu_interval_loads", "queue", std::vector<std::string>{"queue", "one"},
    "interval refills per check: queue (one a cycle from the check on while every bank has room and the load/store "
    "queue a free entry, Sec. III-D) or one (one per interval; the model before 2026-11-27, an ablation)"};
// Spills per store: "coalesces up to a warp's worth of pushes" (Sec. III-D).
const Param<std::string> kHvuCoalesce{
    "worklist.hvu_coalesce", "warp", std::vector<std::string>{"warp", "cycle"},
    "spills per coalesced store: warp (buffered across cycles up to a warp's worth, Sec. III-D) or cycle (one "
    "cycle's spills only; the model before 2026-11-27, an ablation)"};
// Exact by construction (docs/worklists.md, "Fast-forward"); off only to
// check that (the fast-forward test compares whole statistics).
const Param<bool> kFastForward{"worklist.fast_forward", true, "",
                               "skip idle unit cycles in a fixpoint (nothing can move until the next request) instead "
                               "of stepping them; exact: false steps every cycle, for checking"};
const Param<std::uint64_t> kLatency{"worklist.latency",
                                    1,
                                    "cycles",
                                    "from a pull's bank read to its register write (one GRF write, Sec. III-B)",
                                    {{0}, {1000}}};

// What a pull that returns WAIT to every lane of its wavefront does (Sec.
// III-C, IV-B). The paper's waiting threads pull again: its kernels spin on
// WAIT, and "without work redistribution, the dynamic instruction counts
// increase by an order of magnitude for BFS and SSSP" (Sec. IV-B), which only
// spinning produces. `block` (the wavefront parked in the unit until a bank
// of its lanes has work) is kept as an ablation: it hides those instructions.
const Param<std::string> kWaiters{
    "worklist.waiters", "spin", std::vector<std::string>{"spin", "block"},
    "a wavefront whose pull returned WAIT to every lane: spin (the lanes run the kernel's wait path and pull again, "
    "as the paper's kernels do, Sec. IV-B) or block (parked in the unit until one of its banks has work; an "
    "ablation)"};

// Fig. 8's time series (Sec. V-C): off by default (it costs a map update per pull).
const Param<std::uint64_t> kActivityInterval{
    "worklist.activity_interval",
    0,
    "cycles",
    "sample the hardware threads that hold a work ID, wait or are done every this many unit cycles "
    "(gpu.worklist.active_threads / waiting_threads / done_threads; Fig. 8); 0: off",
    {{0}, {1u << 30}}};

class ModelBackend final : public Backend {
 public:
  explicit ModelBackend(const hwwl::Params& p) : sys_(p) { sys_.reset(); }
  void step(const In& in, Out& out) override { sys_.step(in, out); }
  void skip(std::uint64_t n, const In& idle) override { sys_.skip(n, idle.double_buf); }
  std::uint64_t fixpoint_window() const override { return sys_.params().interval + 4; }
  bool net_busy() const override { return sys_.icrn().busy(); }
  unsigned pull_count(unsigned core, unsigned lane, bool dbl) const override {
    return sys_.core(core).bank(lane).count(dbl);
  }
  void pull_counts(bool dbl, unsigned, std::vector<unsigned>& counts) const override {
    const unsigned L = sys_.params().lanes;
    for (unsigned c = 0; c < sys_.params().cores; ++c)
      for (unsigned b = 0; b < L; ++b) counts[std::size_t{c} * L + b] = sys_.core(c).bank(b).count(dbl);
  }
  std::string where(bool dbl) const override { return sys_.where(dbl); }

 private:
  hwwl::System sys_;
};

std::string scheme_name(hwwl::Scheme s) {
  return s == hwwl::Scheme::None        ? "none"
         : s == hwwl::Scheme::Threshold ? "threshold"
         : s == hwwl::Scheme::Gsorting  ? "gsorting"
                                        : "lsorting";
}
std::string describe(const hwwl::Params& p) {
  return fmt::format("cores {}, lanes {}, depth {}, scheme {}, threshold {}, interval {}", p.cores, p.lanes, p.depth,
                     scheme_name(p.scheme), p.threshold, p.interval);
}
bool same(const hwwl::Params& a, const hwwl::Params& b) {
  return a.cores == b.cores && a.lanes == b.lanes && a.depth == b.depth && a.id_width == b.id_width &&
         a.threshold == b.threshold && a.interval == b.interval && a.scheme == b.scheme &&
         a.sort_stages == b.sort_stages;
}

}  // namespace

struct Worklist::Request {
  WaveHandle h;
  unsigned core = 0;
  bool push = false;
  // Lanes as masks over the wavefront's lanes (at most 64; lane i's bank in
  // its core is i & lane_mask_): visited in lane order, without a vector per
  // request (a spinning wavefront submits one every few cycles).
  Lane* lanes = nullptr;                // the wavefront's lanes, by lane id
  std::uint64_t mask = 0;               // the lanes of the request
  std::uint64_t waiting = 0;            // those not yet answered
  std::array<std::uint32_t, 64> ids{};  // push: each lane's work ID
  // Pull: each lane's answer, written to the lane when the wavefront resumes
  // it (an all-WAIT wl_pull_spin is not resumed: writing 32 lanes' WAITs was
  // a fifth of the unit's host time, one cache miss per lane).
  std::array<std::uint32_t, 64> result{};
  // The banks of the lanes not yet answered (worklist.lanes <= 64): a
  // request none of whose banks has a free port this cycle is passed over
  // without visiting its lanes. Recomputed after a lane is answered.
  std::uint64_t need = 0;
  bool stale = false;
  std::size_t left() const { return static_cast<std::size_t>(std::popcount(waiting)); }  // lanes not yet answered
  bool all_wait = true;
  bool whole_wave = false;
  const void* wave = nullptr;  // the wavefront (spinning waiters' wait time)
  Tick at = 0;                 // submitted (SystemC time)
  std::uint64_t seq = 0;       // submission order
};

Worklist::CoreCounters::CoreCounters(unsigned core)
    : pushes(StatGroup(fmt::format("gpu.worklist.core{}", core)), "pushes",
             "work IDs this core's lanes pushed (taken into its banks or spilled)", ""),
      spills(StatGroup(fmt::format("gpu.worklist.core{}", core)), "spills",
             "of them, those the virtualization unit spilled to this core's overflow buffer", ""),
      pull_ids(StatGroup(fmt::format("gpu.worklist.core{}", core)), "pull_ids",
               "work IDs this core's lanes pulled (from its banks, wherever the IDs were pushed)", ""),
      greedy_cycles(StatGroup(fmt::format("gpu.worklist.core{}", core)), "greedy_cycles",
                    "unit cycles with this core's global greedy bit set (it offers work to the other cores, Sec. "
                    "III-C; the network gives it none)",
                    "cycles") {}

Worklist::Worklist(sc_core::sc_module_name name, const Config& cfg, unsigned cores, const Clock& clock,
                   const std::string& wave_file)
    : sc_module(name),
      Mechanism(kName),
      cores_(cores),
      lanes_(static_cast<unsigned>(kLanes.get(cfg) ? kLanes.get(cfg)
                                                   : std::get<std::uint64_t>(cfg.value("gpu.cu.simd_width")))),
      id_limit_(1u << 24),
      latency_(kLatency.get(cfg)),
      clock_(clock),
      pulls(StatGroup("gpu.worklist"), "pulls", "wlpull lane accesses", ""),
      pull_ids(StatGroup("gpu.worklist"), "pull_ids", "pulls that returned a work ID", ""),
      pull_waits(StatGroup("gpu.worklist"), "pull_waits", "pulls that returned WAIT", ""),
      pull_dones(StatGroup("gpu.worklist"), "pull_dones", "pulls that returned DONE", ""),
      pushes(StatGroup("gpu.worklist"), "pushes", "wlpush lane accesses", ""),
      port_retries(StatGroup("gpu.worklist"), "port_retries",
                   "lane accesses deferred a cycle: another lane of the wavefront had the bank's port", ""),
      wait_blocks(StatGroup("gpu.worklist"), "wait_blocks",
                  "pulls whose lanes all got WAIT: the wavefront blocked until a bank had work (worklist.waiters = "
                  "block)",
                  ""),
      wait_spins(StatGroup("gpu.worklist"), "wait_spins",
                 "pulls whose lanes all got WAIT, answered: the wavefront pulls again (worklist.waiters = spin)", ""),
      cycles(StatGroup("gpu.worklist"), "cycles", "cycles the unit stepped", "cycles"),
      idle_cycles(StatGroup("gpu.worklist"), "idle_cycles", "stepped cycles without lane requests", "cycles"),
      skipped_cycles(StatGroup("gpu.worklist"), "skipped_cycles",
                     "of the cycles, those fast-forwarded without stepping the backend (worklist.fast_forward)",
                     "cycles"),
      done_holds(StatGroup("gpu.worklist"), "done_holds",
                 "single-buffer mode: pulls answered WAIT instead of DONE because other threads were still active "
                 "(they may push)",
                 ""),
      hvu_(Hvu::Params{cores, lanes_, static_cast<unsigned>(kDepth.get(cfg)),
                       static_cast<unsigned>(std::get<std::uint64_t>(cfg.value("gpu.cu.wavefront_width"))),
                       static_cast<unsigned>(kInterval.get(cfg)), static_cast<unsigned>(kHvuRequests.get(cfg)),
                       static_cast<unsigned>(std::get<std::uint64_t>(cfg.value("gpu.line"))),
                       kRefill.get(cfg) == "on_demand" ? Hvu::Refill::OnDemand : Hvu::Refill::Interval,
                       static_cast<unsigned>(kHvuRefills.get(cfg) ? kHvuRefills.get(cfg) : kHvuRequests.get(cfg)),
                       kHvuCoalesce.get(cfg) == "warp", kHvuIntervalLoads.get(cfg) == "queue"},
           clock) {
  for (unsigned c = 0; c < cores_; ++c) per_core.push_back(std::make_unique<CoreCounters>(c));
  if (const auto every = kActivityInterval.get(cfg)) {
    const StatGroup g("gpu.worklist");
    hw_threads = std::make_unique<Counter>(
        g, "hw_threads", "hardware threads of the GPU: gpu.cus x gpu.cu.slots x gpu.cu.wavefront_width", "");
    *hw_threads += std::uint64_t{cores} * std::get<std::uint64_t>(cfg.value("gpu.cu.slots")) *
                   std::get<std::uint64_t>(cfg.value("gpu.cu.wavefront_width"));
    active_threads = std::make_unique<Series>(
        g, "active_threads", "threads holding a work ID (their last pull returned one), sampled every interval cycles",
        "threads", every);
    waiting_threads = std::make_unique<Series>(
        g, "waiting_threads", "threads at a pull that has not returned an ID or DONE (WAIT, blocked or in the unit)",
        "threads", every);
    done_threads =
        std::make_unique<Series>(g, "done_threads", "threads whose last pull returned DONE", "threads", every);
  }
  const auto depth = kDepth.get(cfg);
  if (!std::has_single_bit(depth)) throw UserError(fmt::format("worklist.depth: {} is not a power of two", depth));
  hwwl::Params p;
  p.cores = cores;
  p.lanes = lanes_;
  p.depth = depth_ = static_cast<unsigned>(depth);
  settle_ = 4ull * kInterval.get(cfg) + depth_ + cores + 8;
  spin_ = kWaiters.get(cfg) == "spin";
  // Spinning waiters never block, so a run whose work no pull can reach
  // spins for ever: the unit ends it (a fault, exit 3) once every lane of
  // the worklist's kernels has been waiting, with nothing moving inside, for
  // far longer than any redistribution or network hop takes (and longer
  // than a dispatch of the kernel's last wavefronts).
  livelock_ = std::max<std::uint64_t>(64 * settle_, 1u << 16);
  p.id_width = 24;
  p.threshold = static_cast<unsigned>(kThreshold.get(cfg));
  p.interval = static_cast<unsigned>(kInterval.get(cfg));
  const std::string s = kScheme.get(cfg);
  p.scheme = s == "none"        ? hwwl::Scheme::None
             : s == "threshold" ? hwwl::Scheme::Threshold
             : s == "gsorting"  ? hwwl::Scheme::Gsorting
                                : hwwl::Scheme::Lsorting;
  const bool ideal = s == "ideal_fifo" || s == "ideal_sorted", magic = s == "magic";
  // Banks per core: a power of two from 2. The redistribution unit sorts a
  // core's banks (rtl/hwwl/hwwl_sort_net.sv: N >= 2, and the golden model
  // mirrors it); 0 takes gpu.cu.simd_width, which may be 1. The limit studies
  // with one infinite worklist have no banks to sort.
  if (!std::has_single_bit(lanes_) || (lanes_ < 2 && !ideal))
    throw UserError(
        kLanes.get(cfg) != 0
            ? fmt::format("worklist.lanes = {}: the worklist needs a power of two from 2 banks per core", lanes_)
            : fmt::format("worklist.lanes: 0 takes gpu.cu.simd_width = {}: the worklist needs a power of "
                          "two from 2 banks per core (set worklist.lanes)",
                          lanes_));
  lane_mask_ = lanes_ - 1;
  masks_ = lanes_ <= 64;
  // What the limit-study worklists do not have must not be set.
  auto refuse = [&](const Param<std::uint64_t>& k, const char* why) {
    if (!cfg.is_default(k.name()))
      throw UserError(
          fmt::format("{} (set by {}) does not apply: worklist.scheme {} {}", k.name(), cfg.origin(k.name()), s, why));
  };
  if (ideal) {
    for (const auto* k : {&kLanes, &kDepth}) refuse(*k, "is one infinite worklist with a port per lane");
  }
  if (ideal) {
    for (const auto* k : {&kThreshold, &kInterval, &kHvuRequests, &kHvuRefills})
      refuse(*k, "has no redistribution or virtualization unit");
    for (const auto* k : {&kRefill, &kHvuCoalesce, &kHvuPath, &kHvuIntervalLoads})
      if (!cfg.is_default(k->name()))
        throw UserError(fmt::format("{} (set by {}) does not apply: worklist.scheme {} has no virtualization unit",
                                    k->name(), cfg.origin(k->name()), s));
    hvu_allowed_ = false;
  }
  // Each refill scheme's own key: refused under the other one.
  const bool on_demand = kRefill.get(cfg) == "on_demand";
  if (!ideal && on_demand && !cfg.is_default(kHvuIntervalLoads.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: worklist.refill is on_demand", kHvuIntervalLoads.name(),
                                cfg.origin(kHvuIntervalLoads.name())));
  if (!ideal && !on_demand && !cfg.is_default(kHvuRefills.name()))
    throw UserError(
        fmt::format("{} (set by {}) does not apply: worklist.refill is interval (it bounds on-demand "
                    "refills; worklist.hvu_interval_loads sets the interval ones)",
                    kHvuRefills.name(), cfg.origin(kHvuRefills.name())));
  // magic redistributes every cycle without a threshold; its banks spill to
  // the virtualization unit, which refills at worklist.interval.
  if (magic) refuse(kThreshold, "levels the banks every cycle (no work threshold)");
  const std::uint64_t vcd_from = kVcdFrom.get(cfg), vcd_to = kVcdTo.get(cfg);
  if ((vcd_from != 0 || vcd_to != 0) && wave_file.empty())
    throw UserError(fmt::format("worklist.{}: a waveform window without a waveform: give --vcd FILE",
                                vcd_from != 0 ? "vcd_from" : "vcd_to"));
  if (vcd_to != 0 && vcd_to < vcd_from)
    throw UserError(fmt::format("worklist.vcd_to: cycle {} is before worklist.vcd_from ({})", vcd_to, vcd_from));
  if (kBackend.get(cfg) == "rtl" && (ideal || magic))
    throw UserError(
        fmt::format("worklist.backend: rtl: worklist.scheme {} is a limit study of the model only (the "
                    "RTL has none, threshold, lsorting and gsorting)",
                    s));
  if (kBackend.get(cfg) == "rtl") {
    const auto& builds = rtl_builds();
    auto it = std::find_if(builds.begin(), builds.end(), [&](const RtlBuild& b) { return same(b.params, p); });
    if (it == builds.end()) {
      std::string have;
      for (const RtlBuild& b : builds) have += fmt::format("{}{}", have.empty() ? "" : ", ", b.name);
      throw UserError(fmt::format(
          "worklist.backend: rtl: this fgsim has no Verilated worklist for {} (gpu.cus and worklist.*); {}",
          describe(p),
          builds.empty() ? "it was built with -DFG_RTL_BACKEND=OFF"
                         : fmt::format("it has {} (`fgsim list` shows their settings; add one to the CMake cache "
                                       "variable FG_HWWL_RTL_CONFIGS)",
                                       have)));
    }
    WaveSpec w;
    w.path = wave_file;
    w.from = vcd_from;
    w.to = vcd_to ? vcd_to : ~0ull;
    w.cycle_ps = clock.period() / (sc_core::sc_time(1, sc_core::SC_PS).value());
    backend_ = it->make(p, w);
    wave_ = !wave_file.empty();
  } else {
    if (!wave_file.empty()) throw UserError("--vcd: the waveform is the RTL backend's: set worklist.backend=rtl");
    if (ideal)
      backend_ = std::make_unique<IdealBackend>(cores * lanes_, s == "ideal_sorted");
    else if (magic)
      backend_ = std::make_unique<MagicBackend>(cores, lanes_, depth_);
    else
      backend_ = std::make_unique<ModelBackend>(p);
  }
  in_.pull.assign(std::size_t{cores} * lanes_, false);
  in_.push.assign(in_.pull.size(), false);
  in_.push_id.assign(in_.pull.size(), 0);
  window_ = kFastForward.get(cfg) ? backend_->fixpoint_window() : 0;
  interval_ = p.interval;
  redistributes_ = p.scheme != hwwl::Scheme::None;
  last_counts_.assign(in_.pull.size(), 0);
  counts_.assign(in_.pull.size(), 0);
  core_has_work_.assign(cores, false);
  queue_.resize(cores);
  queue_left_.assign(cores, 0);
  SC_HAS_PROCESS(Worklist);
  SC_THREAD(run);
}

Worklist::~Worklist() = default;

std::string Worklist::diagnose() const { return in_use() ? "worklist: " + where() : std::string(); }

void Worklist::report_tasks(Gpu& g) {
  TaskMetrics::Sources src;
  src.created = [this] { return static_cast<double>(pushes.value()); };
  src.run = [this] { return static_cast<double>(pull_ids.value()); };
  src.state_bytes = [this] { return static_cast<double>(hvu_.bytes_written.value() + hvu_.bytes_read.value()); };
  src.wait_ns = [this] { return tick_to_ns(wait_ticks_); };
  src.peak_storage_bytes = [this] { return 4.0 * static_cast<double>(peak_inside_); };  // 24-bit IDs in 32-bit words
  tasks_ = std::make_unique<TaskMetrics>(g, kName, std::move(src));
}

void Worklist::end_of_run() {
  if (inside_ != 0 || hvu_.held() != 0)
    throw SimFault(fmt::format("worklist: the run ended with work left: {}{}", where(),
                               hvu_.held() ? fmt::format(" ({} in the overflow buffer)", hvu_.held()) : ""));
}

void Worklist::close_outputs() {
  if (std::string e = backend_->close_output(); !e.empty()) throw UserError(e);
}

void Worklist::configure(bool double_buf) {
  if (double_buf == double_buf_) return;
  if (inside_ != 0)
    throw SimFault(fmt::format("wlcfg: changing to {}-buffer mode with {} work IDs inside ({})",
                               double_buf ? "double" : "single", inside_, where()));
  if (hvu_.held() != 0)
    throw SimFault(fmt::format("wlcfg: changing to {}-buffer mode with {} work IDs in the overflow buffer ({})",
                               double_buf ? "double" : "single", hvu_.held(), hvu_.where()));
  double_buf_ = double_buf;
  hvu_.set_mode(double_buf);
}

void Worklist::init_overflow(std::uint64_t base, std::uint64_t entries) {
  // The limit studies have no banks to spill from (their capacity is their
  // own): wlinit leaves them as they are.
  if (!hvu_allowed_) return;
  if (entries != 0 && double_buf_ && entries < 2)
    throw SimFault(fmt::format("wlinit: {} entry per core cannot hold two rounds (double-buffer mode)", entries));
  hvu_.init(base, entries);
}

std::unique_ptr<Worklist::Request> Worklist::new_request() {
  if (free_.empty()) return std::make_unique<Request>();
  std::unique_ptr<Request> r = std::move(free_.back());
  free_.pop_back();
  r->need = 0;
  r->stale = false;
  r->all_wait = true;
  return r;
}

void Worklist::recycle(std::unique_ptr<Request> r) { free_.push_back(std::move(r)); }

void Worklist::submit(IssueContext& c, bool push) {
  std::unique_ptr<Request> r = new_request();
  r->core = static_cast<unsigned>(c.cu().index());
  r->push = push;
  r->lanes = c.lanes().data();
  r->mask = r->waiting = c.mask();
  if (masks_) r->need = bank_mask(r->mask);
  if (push || active_threads)
    c.for_each([&](Lane& l) {
      if (!push) set_activity(l, Activity::Waiting, first_cycle_at(sc_core::sc_time_stamp().value()));
      if (push) {
        const auto id = static_cast<std::uint32_t>(l.pending.value);
        if (id >= id_limit_)
          throw SimFault(fmt::format("wlpush: work ID {} does not fit in the worklist's 24 bits", l.pending.value));
        r->ids[l.lane_id()] = id;
      }
    });
  if (!push && active_lanes_ != 0) {
    // Its lanes are back at the pull: no longer active.
    if (auto it = active_waves_.find(&c.wave()); it != active_waves_.end()) {
      const std::uint64_t back = it->second & c.mask();
      active_lanes_ -= static_cast<std::size_t>(std::popcount(back));
      if ((it->second &= ~back) == 0) active_waves_.erase(it);
    }
  }
  // Only a wavefront whose every live lane is at this pull may block on WAIT:
  // diverged lanes elsewhere may hold the work the others wait for.
  r->whole_wave = c.active() == c.wave().live();
  r->wave = &c.wave();
  // Answered at the end of a unit cycle, or (WAIT) in any later cycle: the
  // CU must not run ahead of the wake-up (tight).
  r->h = c.block(push ? "wlpush" : "wlpull", true);
  r->at = sc_core::sc_time_stamp().value();
  r->seq = next_seq_++;
  queue_left_[r->core] += r->left();
  queue_[r->core].push_back(std::move(r));
  ++pending_;
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void Worklist::activate(const void* wave, const Lane& l) {
  std::uint64_t& m = active_waves_[wave];
  const std::uint64_t bit = std::uint64_t{1} << l.lane_id();
  if (m & bit) return;
  m |= bit;
  ++active_lanes_;
}

void Worklist::set_activity(const Lane& l, Activity a, std::uint64_t cycle) {
  auto [it, added] = activity_.try_emplace(&l, a);
  if (!added) {
    if (it->second == a) return;
    --n_activity_[static_cast<unsigned>(it->second)];
    it->second = a;
  }
  ++n_activity_[static_cast<unsigned>(a)];
  record_activity(cycle);
}

void Worklist::record_activity(std::uint64_t cycle) {
  activity_cycle_ = std::max(activity_cycle_, cycle);
  active_threads->set(activity_cycle_, n_activity_[0]);
  waiting_threads->set(activity_cycle_, n_activity_[1]);
  done_threads->set(activity_cycle_, n_activity_[2]);
}

void Worklist::kernel_done() {
  active_waves_.clear();  // the kernel's threads have ended
  active_lanes_ = 0;
  spin_since_.clear();
  if (active_threads) {
    activity_.clear();
    n_activity_[0] = n_activity_[1] = n_activity_[2] = 0;
    record_activity(first_cycle_at(sc_core::sc_time_stamp().value()));
  }
  if (!double_buf_) return;
  swap_ = true;
  wake_.notify(sc_core::SC_ZERO_TIME);
}

unsigned Worklist::work_inside() const { return static_cast<unsigned>(inside_); }

bool Worklist::in_use() const {
  return inside_ != 0 || hvu_.held() != 0 || pending_ != 0 || !waiting_.empty() || active_lanes_ != 0;
}

std::string Worklist::where() const {
  std::string w = backend_->where(double_buf_);
  const std::string v = hvu_.where();
  if (!v.empty()) w += (w.empty() ? "" : "; ") + v;
  const std::string act =
      double_buf_ ? "" : fmt::format("; single-buffer mode, {} lanes active since their last pull", active_lanes_);
  if (inside_ == 0) return "nothing inside" + act;
  return fmt::format("{} work IDs{}{}{}", inside_, w.empty() ? "" : ": ", w, act);
}

void Worklist::deliver(Request& r, Tick at) {
  // A wl_pull_spin that got WAIT on every lane: the lanes would only issue
  // it again, so they do so without being resumed (their results are not
  // written: nothing reads them).
  const bool again = !r.push && r.all_wait && r.lanes[std::countr_zero(r.mask)].pending.n == kSpinPull;
  if (!again && !r.push)
    for (std::uint64_t m = r.mask; m; m &= m - 1) {
      const int i = std::countr_zero(m);
      r.lanes[i].pending.result = r.result[i];
    }
  r.h.cu->wake(r.h, at, !again);
}

void Worklist::step_cycle(bool idle) {
  const std::size_t n = in_.pull.size();
  std::fill(in_.pull.begin(), in_.pull.end(), false);
  std::fill(in_.push.begin(), in_.push.end(), false);
  in_.double_buf = double_buf_;
  // A request belongs to the first cycle whose sample time is after its
  // submission. At the sample time itself it belongs to the next cycle,
  // whether the unit's thread runs before or after the CU in that
  // picosecond (host order, which differs with the fast-forward: a unit
  // that slept is woken by the request and runs after it). CU times are not
  // tied to cycle edges, so such ties happen.
  const Tick now = sample_time(cycle_);
  in_.swap = swap_;
  std::vector<Presented>& presented = presented_;
  presented.clear();
  // The swap cycle (kernel boundary) takes no lane request: a pull of the
  // next kernel must see the swapped partitions.
  if (!idle && !swap_) {
    std::vector<bool>& used = used_;
    used.assign(n, false);
    ports_taken_.assign(cores_, 0);
    core_used_.assign(cores_, 0);
    // Requests of different cores never compete for a port: each core's
    // queue in submission order, then the presented lanes in the order of
    // all requests (the answers' order: pushes and pulls of several cores
    // move the occupancy peak and the virtualization unit's queues).
    blocks_.clear();
    for (unsigned c = 0; c < cores_; ++c) {
      std::vector<std::unique_ptr<Request>>& q = queue_[c];
      std::size_t k = 0, seen = 0;  // requests visited, their lanes left
      for (; k < q.size(); ++k) {
        Request& r = *q[k];
        // Arrives after this cycle's sample, and so do the later ones
        // (submission order is SystemC time order).
        if (r.at >= now) break;
        if (ports_taken_[c] == lanes_) break;
        seen += r.left();
        if (masks_) {
          if (r.stale) {
            r.need = bank_mask(r.waiting);
            r.stale = false;
          }
          if ((r.need & ~core_used_[c]) == 0) {
            // Every bank it needs has been taken this cycle (a spinning core
            // has many such requests): each lane left tries again.
            port_retries += r.left();
            continue;
          }
        }
        const std::size_t first = presented.size();
        for (std::uint64_t m = r.waiting; m; m &= m - 1) {
          const auto i = static_cast<std::size_t>(std::countr_zero(m));
          const unsigned lb = static_cast<unsigned>(i) & lane_mask_;
          const std::size_t bank = std::size_t{c} * lanes_ + lb;
          if (used[bank]) {
            ++port_retries;
            continue;
          }
          used[bank] = true;
          if (masks_) core_used_[c] |= std::uint64_t{1} << lb;
          ++ports_taken_[c];
          (r.push ? in_.push : in_.pull)[bank] = true;
          if (r.push) in_.push_id[bank] = r.ids[i];
          presented.push_back({&r, i, bank});
        }
        if (presented.size() != first) blocks_.push_back({r.seq, first, presented.size()});
      }
      if (k < q.size() && ports_taken_[c] == lanes_) {
        // Every bank port of the core is taken: each lane left of the
        // requests that have arrived tries again.
        std::size_t late = 0;
        for (std::size_t j = q.size(); j > k && q[j - 1]->at >= now; --j) late += q[j - 1]->left();
        port_retries += queue_left_[c] - seen - late;
      }
    }
    if (blocks_.size() > 1 && cores_ > 1) {
      std::sort(blocks_.begin(), blocks_.end(), [](const Block& a, const Block& b) { return a.seq < b.seq; });
      ordered_.clear();
      for (const Block& b : blocks_)
        ordered_.insert(ordered_.end(), presented.begin() + b.begin, presented.begin() + b.end);
      presented.swap(ordered_);
    }
  }
  const bool hvu = hvu_.enabled();
  if (hvu) hvu_.plan(cycle_, now, double_buf_, idle, *backend_, in_);
  const bool swapped = swap_;
  backend_->step(in_, out_);
  const Backend::Out& out = out_;
  // This cycle's greedy bits, and those of the cycles skipped since the last
  // step: nothing moved in them, so they had this cycle's bank counts and bits.
  for (std::size_t c = 0; c < out.greedy.size() && c < per_core.size(); ++c)
    if (out.greedy[c]) per_core[c]->greedy_cycles += 1 + greedy_skipped_;
  greedy_skipped_ = 0;
  // The virtualization unit's granted accesses are inputs too: a cycle with
  // one is not quiet (a reservation changes a bank's occupancy, not its
  // count). A refill offered and refused changes nothing.
  Hvu::Taken hvu_taken;
  if (hvu) {
    hvu_taken = hvu_.granted(in_, out, now);
    if (swap_) hvu_.swap_rounds(now);
  }
  swap_ = false;
  ++cycles;
  if (presented.empty()) ++idle_cycles;
  const Tick end = now + clock_.period() / 2;
  ++cycle_;
  finished_.clear();  // requests whose last lane was answered this cycle, in submission order
  for (const Presented& p : presented) {
    Request& r = *p.r;
    Lane& l = r.lanes[p.i];
    if (r.push) {
      if (!out.push_gnt[p.bank] && hvu) {
        // The virtualization unit takes it, or (its queue full) the lane tries again.
        if (!hvu_.spill(r.core, r.ids[p.i], now, [this] { return where(); })) continue;
        ++per_core[r.core]->spills;
      } else if (!out.push_gnt[p.bank]) {
        throw SimFault(fmt::format(
            "worklist overflow: a push of work ID {} to the full bank {} of core {} ({} entries per side in {}-buffer "
            "mode; no overflow buffer: the paper's hardware exception, Sec. III-A); inside: {}",
            r.ids[p.i], p.bank % lanes_, r.core, double_buf_ ? depth_ / 2 : depth_, double_buf_ ? "double" : "single",
            where()));
      }
      ++pushes;
      ++per_core[r.core]->pushes;
      peak_inside_ = std::max(peak_inside_, ++inside_);
    } else {
      ++pulls;
      const auto st = out.pull_status[p.bank];
      if (st == hwwl::kPullId) {
        ++pull_ids;
        ++per_core[r.core]->pull_ids;
        --inside_;
        r.result[p.i] = out.pull_id[p.bank];
        r.all_wait = false;
        activate(r.wave, l);
        if (active_threads) set_activity(l, Activity::Active, cycle_ - 1);
      } else if (st == hwwl::kPullWait && hvu && hvu_.pull_waits(r.core, static_cast<unsigned>(p.bank % lanes_), now)) {
        continue;  // the core's overflow buffer has work: the pull waits for the refill (the lane tries again)
      } else if (st == hwwl::kPullWait || (!double_buf_ && active_lanes_ != 0)) {
        // Single-buffer mode: the system is empty, but active threads may
        // still push (Sec. III-C): WAIT, not DONE.
        if (st != hwwl::kPullWait) ++done_holds;
        ++pull_waits;
        r.result[p.i] = kWait;
      } else {
        ++pull_dones;
        r.result[p.i] = kDone;
        if (active_threads) set_activity(l, Activity::Done, cycle_ - 1);
        r.all_wait = false;
      }
    }
    r.waiting &= ~(std::uint64_t{1} << p.i);
    r.stale = true;
    --queue_left_[r.core];
    if (r.waiting == 0) finished_.push_back(&r);
  }
  if (hvu) hvu_.end_cycle(now);
  // Progress for the livelock rule: anything answered but WAIT, or taken in.
  bool moved = swapped || hvu_taken.any;
  for (const Presented& p : presented)
    if (p.r->push || out.pull_status[p.bank] != hwwl::kPullWait) moved = true;
  // Finished requests: deliver, or block the all-WAIT pulls, in submission
  // order; the others keep theirs (their port priority). Nothing submits
  // while this runs (a wake-up is a notification to the CU).
  for (Request* done : finished_) {
    std::vector<std::unique_ptr<Request>>& q = queue_[done->core];
    auto it = std::find_if(q.begin(), q.end(), [done](const std::unique_ptr<Request>& p) { return p.get() == done; });
    std::unique_ptr<Request> r = std::move(*it);
    q.erase(it);
    --pending_;
    if (!r->push && r->all_wait && r->whole_wave && !spin_) {
      ++wait_blocks;
      waiting_.push_back(std::move(r));
    } else {
      const Tick at = std::max<Tick>(end, sc_core::sc_time_stamp().value()) + clock_.cycles(latency_);
      if (spin_ && !r->push) {
        // A spinning wavefront waits from its first all-WAIT pull to the
        // answer of the first pull that is not all WAIT.
        if (r->all_wait && r->whole_wave) {
          ++wait_spins;
          spin_since_.try_emplace(r->wave, r->at);
        } else if (auto sit = spin_since_.find(r->wave); sit != spin_since_.end()) {
          wait_ticks_ += at - sit->second;
          spin_since_.erase(sit);
        }
      }
      deliver(*r, at);
      recycle(std::move(r));
    }
  }
  bool same = presented.empty() && !hvu_taken.any && !swapped;
  backend_->pull_counts(double_buf_, lanes_, counts_);
  for (unsigned c = 0; c < cores_; ++c) {
    unsigned busy = 0;
    for (unsigned b = 0; b < lanes_; ++b) {
      const unsigned k = counts_[std::size_t{c} * lanes_ + b];
      same = same && k == last_counts_[std::size_t{c} * lanes_ + b];
      busy += k != 0;
    }
    core_has_work_[c] = busy != 0;
  }
  last_counts_.swap(counts_);
  quiet_cycles_ = same ? quiet_cycles_ + 1 : 0;
  if (spin_) {
    // Every lane back at its pull (none holds a work ID), work inside, and
    // for livelock_ cycles nothing but WAIT answered, nothing taken in and
    // no count moved: no pull will ever reach that work.
    const bool counts_same = last_counts_ == counts_;
    stuck_cycles_ = !moved && counts_same && active_lanes_ == 0 && (inside_ != 0 || hvu_.held() != 0) && !hvu_.active()
                        ? stuck_cycles_ + 1
                        : 0;
    if (stuck_cycles_ >= livelock_)
      throw SimFault(
          fmt::format("worklist: livelock: every lane of the kernel has pulled WAIT for {} cycles and "
                      "nothing moved inside; no pull can reach the work left: {}",
                      stuck_cycles_, where()));
  }
  // Refills refused in a quiet cycle: their banks are full (nothing else
  // used the ports), and stay full until an input, a redistribution or a
  // network hop changes a count; until then offering them again is the same
  // cycle again.
  refills_stuck_ = same && hvu_taken.offered;
  // Blocked waiters retry when one of their banks has work or nothing is left.
  for (std::size_t k = 0; k < waiting_.size();) {
    Request& r = *waiting_[k];
    bool go = out.sys_empty && (double_buf_ || active_lanes_ == 0);
    if (!go && core_has_work_[r.core])
      for (std::uint64_t m = r.mask; m; m &= m - 1)
        if (last_counts_[std::size_t{r.core} * lanes_ + (static_cast<unsigned>(std::countr_zero(m)) & lane_mask_)] !=
            0) {
          go = true;
          break;
        }
    if (go) {
      // The lanes issue the pull again (not before now: catch-up cycles).
      const Tick at = std::max<Tick>(end, sc_core::sc_time_stamp().value());
      wait_ticks_ += at - r.at;
      r.h.cu->wake(r.h, at, false);
      recycle(std::move(waiting_[k]));
      waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      ++k;
    }
  }
}

void Worklist::skip_cycles(std::uint64_t n) {
  std::fill(in_.pull.begin(), in_.pull.end(), false);
  std::fill(in_.push.begin(), in_.push.end(), false);
  in_.double_buf = double_buf_;
  in_.swap = false;
  if (hvu_.enabled()) {
    // What the idle unit presents: nothing to refill or reserve.
    in_.rf_put.assign(in_.pull.size(), false);
    in_.rf_id.assign(in_.pull.size(), 0);
    in_.rsv.assign(cores_, false);
    in_.hvu_busy = hvu_.busy_this_round();
    hvu_.end_bursts();
  }
  backend_->skip(n, in_);
  // Their greedy bits are those of the next cycle stepped (the same counts).
  greedy_skipped_ += n;
  cycle_ += n;
  cycles += n;
  idle_cycles += n;
  skipped_cycles += n;
  quiet_cycles_ += n;
}

std::uint64_t Worklist::first_cycle_at(Tick t) const {
  const Tick half = clock_.period() / 2;
  return t <= half ? 0 : (t - half + clock_.period() - 1) / clock_.period();
}

std::uint64_t Worklist::next_event() const {
  const std::uint64_t c = cycle_;
  // Still: neither the network nor a redistribution tick moves anything
  // until the next input; only the virtualization unit, which may still hold
  // work, acts on its own.
  const bool still = this->still();
  if (!still && backend_->net_busy()) return c;
  std::uint64_t next = kNever;
  // The WRUs decide on the cycle before their interval counter wraps (tick_
  // == interval - 1, and tick_ is the cycle modulo the interval).
  if (redistributes_ && !still) next = c + (interval_ - 1 - c % interval_);
  if (hvu_.enabled()) {
    const Hvu::Next h = hvu_.next_event(refills_stuck_);
    if (h.now) return c;
    if (h.interval) next = std::min(next, c + (interval_ - c % interval_) % interval_);
    if (h.at != Hvu::kNever) next = std::min(next, std::max(c, first_cycle_at(h.at)));
  }
  return next;
}

void Worklist::run() {
  run_guarded([&] {
    for (;;) {
      // A waveform write error (a full disk) ends the run as bad input naming
      // --vcd (exit 2): recorded, not thrown on this thread's stack.
      if (wave_) {
        if (std::string e = backend_->output_error(); !e.empty()) {
          record_failure(std::make_exception_ptr(UserError(e)));
          stop_early();
          return;
        }
      }
      // Sleep when nothing can change: empty, or only blocked waiters while
      // the banks' pull-side counts have not moved for a settle window (no
      // redistribution is bringing work; a new request wakes the unit and
      // the skipped cycles are stepped then). With nothing else running the
      // kernel then ends in a deadlock diagnosis instead of spinning.
      const bool empty = pending_ == 0 && waiting_.empty() && !swap_ && inside_ == 0;
      // The virtualization unit may hold work then only if nothing will load
      // it (every wavefront that could pull it is blocked): a fault, which
      // then ends as the deadlock diagnosis too, with the buffer in it. Its
      // requests in flight keep the unit awake.
      const bool settled = pending_ == 0 && !swap_ && !waiting_.empty() && quiet_cycles_ >= settle_ && !hvu_.active();
      // Fast-forward (docs/worklists.md): no request, and the banks' counts
      // have not moved for the backend's window of idle cycles: a fixpoint,
      // in which nothing moves until the next request. The unit sleeps and
      // skips the cycles when it wakes.
      // The virtualization unit must hold nothing: awake, it would refill.
      const bool fixpoint = still() && pending_ == 0 && !swap_ && hvu_.quiet();
      if (empty || settled || fixpoint) {
        skip_ok_ = window_ != 0 && !hvu_.active() && (inside_ == 0 || still());
        wait(wake_);
        quiet_cycles_ = 0;
        continue;
      }
      const Tick now = sc_core::sc_time_stamp().value();
      // Idle cycles since the unit slept: no request came, and nothing moved
      // inside (empty, or settled), so stepping them without inputs is exact;
      // in a fixpoint the backend skips them without stepping.
      const std::uint64_t n = first_cycle_at(now) > cycle_ ? first_cycle_at(now) - cycle_ : 0;
      if (skip_ok_ && n > 0) {
        skip_cycles(n);
      } else {
        for (std::uint64_t i = 0; i < n; ++i) step_cycle(true);
      }
      skip_ok_ = false;
      // Fast-forward between events: with no request, cycles before the next
      // one in which something may move (a redistribution tick, the network,
      // the virtualization unit) change nothing but the cyclic counters; the
      // unit waits for that cycle or a request, and skips the cycles before.
      if (window_ != 0 && pending_ == 0 && !swap_) {
        const std::uint64_t next = next_event();
        if (next > cycle_) {
          if (next == kNever)
            wait(wake_);
          else
            wait(sc_core::sc_time::from_value(sample_time(next) - now), wake_);
          const std::uint64_t upto = std::min(next, first_cycle_at(sc_core::sc_time_stamp().value()));
          if (upto > cycle_) skip_cycles(upto - cycle_);
          continue;
        }
      }
      if (sample_time(cycle_) > now) wait(sc_core::sc_time::from_value(sample_time(cycle_) - now));
      step_cycle(false);
      // The virtualization unit's requests of this cycle enter the cores'
      // load/store paths after the CUs' requests of this instant.
      if (hvu_.deferred()) {
        wait(sc_core::SC_ZERO_TIME);
        hvu_.flush();
      }
    }
  });
}

// ---- the ISA operations (Table III) ------------------------------------------

namespace {

// Each CU's units find the worklist of their GPU once.
struct UnitOfCu : UnitState {
  Worklist* unit = nullptr;
};
Worklist& unit(IssueContext& c, const char* op) {
  auto& s = c.state<UnitOfCu>();
  if (!s.unit) s.unit = &c.gpu().get<Worklist>(op);
  return *s.unit;
}
class WlUnit : public OpUnit {
 public:
  explicit WlUnit(const char* name) : OpUnit(name, Order::Synchronising) { belongs_to(mechanism_tag(Worklist::kName)); }
  std::unique_ptr<UnitState> make_state(const std::string&) const override { return std::make_unique<UnitOfCu>(); }
};

class WlPull final : public WlUnit {
 public:
  WlPull() : WlUnit("wlpull") {}
  void issue(IssueContext& c) const override { unit(c, "wlpull").submit(c, false); }
};
class WlPush final : public WlUnit {
 public:
  WlPush() : WlUnit("wlpush") {}
  void issue(IssueContext& c) const override { unit(c, "wlpush").submit(c, true); }
};
class WlCfg final : public WlUnit {
 public:
  WlCfg() : WlUnit("wlcfg") {}
  void issue(IssueContext& c) const override { unit(c, "wlcfg").configure(c.first().pending.value != 0); }
};
class WlInit final : public WlUnit {
 public:
  WlInit() : WlUnit("wlinit") {}
  void issue(IssueContext& c) const override {
    unit(c, "wlinit").init_overflow(c.first().pending.addr, c.first().pending.n);
  }
};
const WlInit kInit;
const WlPull kPull;
const WlPush kPush;
const WlCfg kCfg;

// The mechanism: the unit, clocked by the CU clock, and its virtualization
// unit's ports: into each core's load/store path (worklist.hvu_path=lsu), or
// one straight to the L2 (l2; no L1, no directory entry).
const RegisterMechanism kMechanism{
    {Worklist::kName,
     "hardware worklist (Kim & Batten): banks, redistribution, inter-core network, virtualization unit",
     {},
     [](Gpu& g) {
       auto w = std::make_unique<Worklist>("worklist", g.config(), static_cast<unsigned>(g.cus()), g.clock(),
                                           g.take_wave_file());
       if (kHvuPath.get(g.config()) == "lsu")
         for (int k = 0; k < g.cus(); ++k)
           w->set_core_port(static_cast<unsigned>(k), &g.lsu_port(k, fmt::format("cu{}_hvu_port", k)));
       else
         w->set_port(&g.l2_port("hvu_port"));
       w->report_tasks(g);
       return w;
     },
     {"worklist."},
     [](std::ostream& o) {
       o << "  Verilated worklist RTL (worklist.backend=rtl runs these configurations):\n";
       if (rtl_builds().empty()) o << "    none: built with -DFG_RTL_BACKEND=OFF\n";
       for (const auto& b : rtl_builds()) {
         const auto& p = b.params;
         o << fmt::format(
             "    {:<30}--set gpu.cus={} --set worklist.lanes={} --set worklist.depth={} --set worklist.scheme={} "
             "--set worklist.threshold={} --set worklist.interval={}\n",
             b.name, p.cores, p.lanes, p.depth, scheme_name(p.scheme), p.threshold, p.interval);
       }
     }}};

}  // namespace

OpAwaiter<std::uint32_t> wl_pull(Lane& l, Lane::Loc loc) {
  return l.op<std::uint32_t>(kPull, loc, [](PendingOp& o) { o.n = 0; });
}
OpAwaiter<std::uint32_t> wl_pull_spin(Lane& l, Lane::Loc loc) {
  return l.op<std::uint32_t>(kPull, loc, [](PendingOp& o) { o.n = kSpinPull; });
}
OpAwaiter<void> wl_push(Lane& l, std::uint32_t id, Lane::Loc loc) {
  return l.op(kPush, loc, [id](PendingOp& o) { o.value = id; });
}
OpAwaiter<void> wl_init(Lane& l, std::uint64_t base, std::uint64_t entries, Lane::Loc loc) {
  return l.op(kInit, loc, [base, entries](PendingOp& o) {
    o.addr = base;
    o.n = entries;
  });
}
OpAwaiter<void> wl_cfg(Lane& l, bool double_buf, Lane::Loc loc) {
  return l.op(kCfg, loc, [double_buf](PendingOp& o) { o.value = double_buf; });
}

}  // namespace fg::wl
