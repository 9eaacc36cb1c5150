// SPDX-License-Identifier: Apache-2.0
// The graphics-like kernel (graphics.h) and its plain co-runner: with
// `graphics.load` set, every period P a matrix product sized to take E on all
// workgroup slots but one is submitted to the front end beside the
// workload's own kernels, with `graphics.share` workgroups, and waits there
// for free slots like any kernel (fifo: behind the kernels queued before it).
// It is how a workload on a mechanism that cannot give workgroups back
// (worklists, channels, fork-join, a persistent kernel) shares the GPU with
// the cooperative-kernel paper's periodic work (Sorensen et al. Sec. 5);
// a cooperative kernel uses `coop.graphics.*` instead (runtime/coop_host.h),
// whose slots the scheduler gathers by kills. Results: the achieved periods
// launch to launch (`period_*_ns`, as the cooperative co-runner's), each
// launch's time from submission to its end (`graphics_latency_mean_ns`), and
// at the workload's end the launch still under way (`graphics_pending_ns`:
// since its submission; `graphics_pending_wait_ns`: until its first workgroup
// found a slot, or until the end). The sizing runs and the launches are GPU
// work like any other: run-wide statistics (instructions, DRAM bytes, the
// simulated time) include them; a workload's own kernel times do not.
#include "runtime/graphics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "coop/coop.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg::graphics {

Load load_of(const std::string& name) {
  if (name == "light") return {70, 3};
  if (name == "medium") return {40, 3};
  if (name == "heavy") return {40, 10};
  return {};
}

namespace {

Task<> matmul(Lane& l, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint32_t d, std::uint64_t items) {
  const std::uint64_t n = std::uint64_t{d} * d;
  for (std::uint64_t e = l.global_id(); e < n; e += items) {
    const std::uint64_t i = e / d, j = e % d;
    std::uint32_t sum = 0;
    for (std::uint32_t k = 0; k < d; ++k) {
      const std::uint32_t x = co_await l.load<std::uint32_t>(a + 4 * (i * d + k));
      const std::uint32_t y = co_await l.load<std::uint32_t>(b + 4 * (std::uint64_t{k} * d + j));
      co_await l.alu(2);
      sum += x * y;
    }
    co_await l.store<std::uint32_t>(c + 4 * e, sum);
  }
}

}  // namespace

void MatMul::size(std::uint32_t d) {
  d_ = d;
  a_.assign(std::size_t{d} * d, 0);
  b_.assign(a_.size(), 0);
  std::uint32_t x = 1234;
  for (auto& v : a_) v = (x = x * 1103515245u + 12345u) % 10;
  for (auto& v : b_) v = (x = x * 1103515245u + 12345u) % 10;
  da_ = h_.upload(a_);
  db_ = h_.upload(b_);
  dc_ = h_.upload(std::vector<std::uint32_t>(a_.size(), 0));
}

KernelLaunch MatMul::launch(std::uint32_t workgroups) const {
  KernelLaunch k = shape_;
  k.name = "graphics";
  k.grid = std::uint64_t{workgroups} * k.group_size;
  const std::uint64_t items = k.grid;
  k.body = [a = da_, b = db_, c = dc_, d = d_, items](Lane& l) { return matmul(l, a, b, c, d, items); };
  return k;
}

void MatMul::clear() { h_.copy_in(dc_, std::vector<std::uint32_t>(a_.size(), 0).data(), 4 * a_.size()); }

bool MatMul::check() {
  const auto c = h_.download<std::uint32_t>(dc_, a_.size());
  for (std::uint32_t i = 0; i < d_; ++i) {
    std::uint32_t s = 0;
    for (std::uint32_t k = 0; k < d_; ++k) s += a_[std::size_t{i} * d_ + k] * b_[std::size_t{k} * d_ + i];
    if (c[std::size_t{i} * d_ + i] != s) return false;
  }
  return true;
}

std::uint32_t fit_size(double exec_ps, const std::function<double(std::uint32_t)>& time_ps) {
  std::uint32_t d = 8;
  for (int i = 0; i < 12 && time_ps(d) < exec_ps; ++i) d *= 2;
  std::uint32_t lo = d / 2, hi = d;
  for (int i = 0; i < 6 && hi - lo > 1; ++i) {
    const std::uint32_t mid = (lo + hi) / 2;
    (time_ps(mid) >= exec_ps ? hi : lo) = mid;
  }
  return hi;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

namespace {

// The plain co-runner's keys: the cooperative co-runner's (coop.graphics.*),
// the same loads, shares and scale (runtime/coop_host.cpp cites them).
const Param<std::string> kLoad{"graphics.load", "none", std::vector<std::string>{"none", "light", "medium", "heavy"},
                               "a periodic graphics-like kernel submitted beside any workload that is not a "
                               "cooperative kernel (Sorensen et al. Sec. 5.2's loads: light P 70 ms E 3 ms, medium "
                               "40/3, heavy 40/10, times graphics.scale); it waits for free workgroup slots like any "
                               "kernel; a cooperative kernel's is coop.graphics.load; none: no co-runner"};
const Param<std::string> kShare{"graphics.share", "quarter",
                                std::vector<std::string>{"one", "quarter", "half", "all-but-one"},
                                "workgroups of each graphics launch (Sec. 5.4): 1, S/4, S/2 or S-1 of the S "
                                "workgroup slots of its shape (128 work-items, as coop.graphics.share)"};
const Param<double> kScale{"graphics.scale",
                           0.005,
                           "",
                           "factor on the load's period and GPU time (keeps P/E; 0.005 as coop.graphics.scale, "
                           "docs/cooperative.md)",
                           {{1e-6}, {1}}};
const Param<double> kPeriod{
    "graphics.period", 0.0, "ms", "graphics period P before scaling (0: the load's)", {{0}, {1e6}}};
const Param<double> kExec{"graphics.exec",
                          0.0,
                          "ms",
                          "graphics GPU time E per period before scaling, on all slots but one (0: the load's)",
                          {{0}, {1e6}}};

// The graphics kernel's shape: the cooperative-kernel paper's runs use
// workgroups of 128 work-items (as coop.graphics' kernels).
constexpr std::uint32_t kGroup = 128;

CoRunner start(Host& h) {
  const Config& cfg = h.config();
  const std::string load = kLoad.get(cfg);
  if (load == "none") {
    for (const char* key : {"graphics.share", "graphics.scale", "graphics.period", "graphics.exec"})
      if (cfg.set_by_user(key))
        throw UserError(
            fmt::format("{} (set by {}) does not apply: there is no graphics co-runner "
                        "(graphics.load=none)",
                        key, cfg.origin(key)));
    return {};
  }
  if (h.gpu().find<coop::Scheduler>())
    throw UserError(
        fmt::format("graphics.load (set by {}): this run builds the cooperative scheduler, whose graphics "
                    "co-runner is coop.graphics.load (the scheduler gathers its slots by kills)",
                    cfg.origin("graphics.load")));
  Load g = load_of(load);
  if (kPeriod.get(cfg) > 0) g.period_ms = kPeriod.get(cfg);
  if (kExec.get(cfg) > 0) g.exec_ms = kExec.get(cfg);
  if (g.exec_ms >= g.period_ms)
    throw UserError(
        fmt::format("graphics.exec: {} ms of GPU time per period is not less than the period of {} ms "
                    "(graphics.period)",
                    g.exec_ms, g.period_ms));
  const double scale = kScale.get(cfg);
  const Tick period = static_cast<Tick>(std::llround(g.period_ms * scale * 1e9));  // ps
  const Tick exec = static_cast<Tick>(std::llround(g.exec_ms * scale * 1e9));
  const KernelLaunch shape{"graphics", 0, kGroup, 16, 0, {}};
  const auto slots = static_cast<std::uint32_t>(h.dispatcher().resident_capacity(shape));
  const std::string share_name = kShare.get(cfg);
  const std::uint32_t share = share_name == "one"       ? 1
                              : share_name == "quarter" ? std::max(1u, slots / 4)
                              : share_name == "half"    ? std::max(1u, slots / 2)
                                                        : std::max(1u, slots - 1);
  if (slots < 2)
    throw UserError(
        fmt::format("graphics.load: the GPU holds {} workgroup slot(s) of 128 work-items; the graphics "
                    "kernel is sized on all but one",
                    slots));
  // Size the product so that it takes E on all slots but one with the GPU to
  // itself (before the workload starts): double, then halve the step, as the
  // cooperative co-runner does.
  auto mm = std::make_shared<MatMul>(h, shape);
  auto time_of = [&](std::uint32_t d) {
    mm->size(d);
    return h.run_kernel(mm->launch(slots - 1)).to_seconds() * 1e12;  // ps
  };
  const std::uint32_t hi = fit_size(static_cast<double>(exec), time_of);
  const double alone = time_of(hi) / 1e3;  // ns
  h.result("graphics_matrix", hi);
  h.result("graphics_exec_alone_ns", alone);
  h.result("graphics_period_ns", tick_to_ns(period));
  h.result("graphics_share", share);
  struct State {
    std::vector<double> periods, latencies;
    KernelState* inflight = nullptr;  // the launch under way
    bool stopped = false;             // the workload ended: launch no more
    bool holding = false;             // the dispatcher's cycle synchronisation, held while it shares the GPU
  };
  auto st = std::make_shared<State>();
  CoRunner r;
  r.body = [&h, mm, period, share, st] {
    bool checked = false;
    // It submits a launch in any cycle while the workload runs: like the
    // aggregator and the cooperative co-runner, it holds the CUs to the next
    // cycle edge meanwhile, so that a launch's workgroups issue from their
    // placement, not from wherever a busy CU had run ahead to within the
    // quantum (docs/cooperative.md, "Quantum"). Released at the workload's end.
    h.dispatcher().hold_cycle_sync(true);
    st->holding = true;
    Tick next = sc_core::sc_time_stamp().value();
    for (;;) {
      const Tick now = sc_core::sc_time_stamp().value();
      if (next > now) sc_core::wait(sc_core::sc_time::from_value(next - now));
      if (st->stopped) return;
      const Tick launched = sc_core::sc_time_stamp().value();
      mm->clear();  // so that the check sees this launch's product, not an earlier one's
      KernelState& k = h.dispatcher().submit(mm->launch(share));
      st->inflight = &k;
      while (!k.finished) sc_core::wait(k.done);
      if (st->stopped) return;
      st->inflight = nullptr;
      if (!checked || !mm->check()) {
        h.check(mm->check(),
                fmt::format("graphics: the {} x {} matrix product's diagonal equals the host's", mm->d(), mm->d()));
        checked = true;
      }
      st->latencies.push_back(tick_to_ns(k.end - k.submitted));
      // The next launch a period after this one, or at once when it is late
      // (no launch is skipped); that is this launch's achieved period.
      next = std::max<Tick>(launched + period, sc_core::sc_time_stamp().value());
      st->periods.push_back(tick_to_ns(next - launched));
    }
  };
  // At the workload's end: no more launches; the launches done, and for the
  // one under way how long it had been in the GPU since its submission and
  // how long it waited for its first workgroup slot (a kernel that never
  // gives slots back keeps it waiting to its end).
  r.finish = [&h, st] {
    const Tick now = sc_core::sc_time_stamp().value();
    st->stopped = true;
    if (st->holding) h.dispatcher().hold_cycle_sync(false);
    st->holding = false;
    const KernelState* k = st->inflight && !st->inflight->finished ? st->inflight : nullptr;
    h.result("graphics_launches", st->periods.size());
    if (!st->periods.empty()) {
      h.result("period_median_ns", median(st->periods));
      h.result("period_mean_ns", mean(st->periods));
      h.result("period_max_ns", *std::max_element(st->periods.begin(), st->periods.end()));
      h.result("graphics_latency_mean_ns", mean(st->latencies));
    }
    h.result("graphics_pending_ns", k && now > k->submitted ? tick_to_ns(now - k->submitted) : 0.0);
    h.result("graphics_pending_wait_ns",
             k ? tick_to_ns((k->dispatched ? std::min(k->first_dispatch, now) : now) - k->submitted) : 0.0);
  };
  return r;
}

const RegisterCoRunner kReg{{"graphics", start}};

}  // namespace
}  // namespace fg::graphics
