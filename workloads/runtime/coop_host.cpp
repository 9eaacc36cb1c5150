// SPDX-License-Identifier: Apache-2.0
#include "runtime/coop_host.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "runtime/graphics.h"
#include "sim/error.h"

namespace fg::coop {

namespace {

// Sec. 5.2: the graphics workloads measured on the authors' desktop
// (graphics::load_of: period and GPU time per load).
const Param<std::string> kLoad{"coop.graphics.load", "none",
                               std::vector<std::string>{"none", "light", "medium", "heavy"},
                               "a periodic graphics-like kernel sharing the GPU with the cooperative kernel "
                               "(Sorensen et al. Sec. 5.2): light P 70 ms E 3 ms, medium 40/3, heavy 40/10, times "
                               "coop.graphics.scale; none: no co-runner"};
// Sec. 5.4: the graphics kernel gets 1, N/4, N/2 or all but one workgroup.
const Param<std::string> kShare{"coop.graphics.share", "quarter",
                                std::vector<std::string>{"one", "quarter", "half", "all-but-one"},
                                "workgroup slots the graphics kernel asks for (Sec. 5.4): 1, S/4, S/2 or S-1 of the "
                                "S slots"};
// One factor for every time of the schedule, so that P/E is the paper's and
// a simulable kernel sees several periods. 0.005: the validation's
// (experiments/cooperative.yaml), whose kernels of 0.8-3.6 ms then see 2-50
// periods while a period still spans many barrier intervals (at 0.001 a
// 70 us light period is shorter than the gathers it needs; docs/cooperative.md).
const Param<double> kScale{"coop.graphics.scale",
                           0.005,
                           "",
                           "factor on the paper's periods, GPU times and preemption cost (keeps P/E; "
                           "docs/cooperative.md)",
                           {{1e-6}, {1}}};
const Param<double> kPeriod{
    "coop.graphics.period", 0.0, "ms", "graphics period P before scaling (0: the load's)", {{0}, {1e6}}};
const Param<double> kExec{"coop.graphics.exec",
                          0.0,
                          "ms",
                          "graphics GPU time E per period before scaling, on all slots but one (0: the load's)",
                          {{0}, {1e6}}};
// Sec. 5.5: Nvidia reports about 0.1 ms per preemption on Pascal.
const Param<double> kPreemptCost{"coop.graphics.preemption_cost",
                                 0.1,
                                 "ms",
                                 "cost of one kernel-level preemption before scaling, for the preemption model "
                                 "(Sorensen et al. Sec. 5.5: 0.1 ms on Pascal)",
                                 {{0}, {1e3}}};
const Param<std::string> kMode{"coop.graphics.model", "cooperative",
                               std::vector<std::string>{"cooperative", "preemption"},
                               "cooperative: the graphics kernel gets its slots from the cooperative kernel "
                               "(kills, forks); preemption: the paper's kernel-level preemption model (Sec. 5.5), "
                               "the whole GPU switched every period at the preemption cost"};

struct Graphics {
  double period_ms = 0, exec_ms = 0;
};
Graphics graphics_of(const Config& cfg) {
  const std::string load = kLoad.get(cfg);
  if (load == "none")  // nothing a user gives is ignored
    for (const char* key : {"coop.graphics.share", "coop.graphics.scale", "coop.graphics.period", "coop.graphics.exec",
                            "coop.graphics.preemption_cost", "coop.graphics.model"})
      if (cfg.set_by_user(key))
        throw UserError(
            fmt::format("{} (set by {}) does not apply: there is no graphics co-runner (coop.graphics.load=none)", key,
                        cfg.origin(key)));
  const graphics::Load l = graphics::load_of(load);  // Sec. 5.2's loads (runtime/graphics.h)
  Graphics g{l.period_ms, l.exec_ms};
  if (kPeriod.get(cfg) > 0) g.period_ms = kPeriod.get(cfg);
  if (kExec.get(cfg) > 0) g.exec_ms = kExec.get(cfg);
  if (load != "none" && g.exec_ms >= g.period_ms)
    throw UserError(
        fmt::format("coop.graphics.exec: {} ms of GPU time per period is not less than the period of "
                    "{} ms (coop.graphics.period)",
                    g.exec_ms, g.period_ms));
  return g;
}

using GraphicsKernel = graphics::MatMul;
using graphics::mean;
using graphics::median;

}  // namespace

std::uint32_t groups(Host& h, const KernelLaunch& shape, std::int64_t value, bool cooperative) {
  if (value > 0) return static_cast<std::uint32_t>(value);
  std::int64_t cap = static_cast<std::int64_t>(h.dispatcher().resident_capacity(shape));
  if (cooperative) cap = h.gpu().get<Scheduler>("coop").slots(shape);
  const std::int64_t n = cap + value;
  if (n < 1)
    throw UserError(
        fmt::format("{}: {} workgroups below a resident capacity of {} leaves none", shape.name, -value, cap));
  return static_cast<std::uint32_t>(n);
}

// The scheduler's and the co-runner's keys mean nothing to a kernel that
// does not go through the scheduler: refused, not ignored.
void refuse_scheduler_keys(const Host& h, const std::string& kernel) {
  const Config& cfg = h.config();
  const nlohmann::ordered_json keys = cfg.to_json();
  for (const auto& [key, value] : keys.items())
    if (key.starts_with("coop.") && cfg.set_by_user(key))
      throw UserError(
          fmt::format("{} (set by {}) does not apply: kernel '{}' runs in its non-cooperative version "
                      "(its <workload>.mechanism chooses)",
                      key, cfg.origin(key), kernel));
}

Run run_persistent(Host& h, KernelLaunch launch, std::uint32_t groups) {
  refuse_scheduler_keys(h, launch.name);
  launch.grid = std::uint64_t{groups} * launch.group_size;
  Run r;
  r.groups = r.active = groups;
  r.kernel_ns = h.run_kernel(launch).to_seconds() * 1e9;
  h.result("groups", groups);
  h.result("active", groups);
  h.result("kernel_ns", r.kernel_ns);
  return r;
}

Run run_cooperative(Host& h, KernelLaunch launch, std::uint32_t groups,
                    const std::function<KernelBody(const Kernel&)>& make_body) {
  const Config& cfg = h.config();
  Scheduler& s = h.gpu().get<Scheduler>("coop");
  const std::uint32_t slots = s.slots(launch);
  const Graphics g = graphics_of(cfg);
  const bool co_runner = kLoad.get(cfg) != "none";
  const double scale = kScale.get(cfg);
  const Tick period = static_cast<Tick>(std::llround(g.period_ms * scale * 1e9));  // ps
  const Tick exec = static_cast<Tick>(std::llround(g.exec_ms * scale * 1e9));
  const std::string share_name = kShare.get(cfg);
  const std::uint32_t share = share_name == "one"       ? 1
                              : share_name == "quarter" ? std::max(1u, slots / 4)
                              : share_name == "half"    ? std::max(1u, slots / 2)
                                                        : std::max(1u, slots - 1);
  if (co_runner && kMode.get(cfg) == "preemption" && cfg.set_by_user("coop.graphics.share"))
    throw UserError(
        fmt::format("coop.graphics.share (set by {}) does not apply: coop.graphics.model=preemption gives "
                    "the graphics kernel the whole GPU every period",
                    cfg.origin("coop.graphics.share")));
  if (co_runner && kMode.get(cfg) == "cooperative" && cfg.set_by_user("coop.graphics.preemption_cost"))
    throw UserError(
        fmt::format("coop.graphics.preemption_cost (set by {}) does not apply: it is the cost of "
                    "coop.graphics.model=preemption",
                    cfg.origin("coop.graphics.preemption_cost")));
  if (co_runner && (slots < 2 || share >= slots))
    throw UserError(
        fmt::format("coop.graphics.share: {} of {} workgroup slots leaves the cooperative kernel none", share, slots));
  GraphicsKernel gk(h, launch);
  if (co_runner && kMode.get(cfg) == "cooperative") {
    // Size the matrix so that it takes E on all slots but one with the GPU
    // to itself (the paper's E is the time on the whole GPU).
    const std::uint32_t hi = graphics::fit_size(static_cast<double>(exec), [&](std::uint32_t d) {
      gk.size(d);
      return s.run_task(gk.launch(slots - 1), slots - 1).exec_ns() * 1e3;
    });
    gk.size(hi);
    const double full = s.run_task(gk.launch(slots - 1), slots - 1).exec_ns();
    h.result("graphics_matrix", hi);
    h.result("graphics_exec_alone_ns", full);
    h.result("graphics_period_ns", tick_to_ns(period));
    h.result("graphics_share", share);
  }
  auto ck = s.prepare(groups);
  launch.body = make_body(*ck);
  const Tick t0 = sc_core::sc_time_stamp().value();
  KernelState& k = s.launch(ck, std::move(launch));
  Run r;
  r.groups = groups;
  r.active = s.active(k);
  std::vector<double> periods, gathers, execs;
  if (co_runner && kMode.get(cfg) == "cooperative") {
    // The co-runner submits graphics launches (through the scheduler's
    // firmware) at any time while the cooperative kernel runs: like the
    // aggregator, it holds the CUs to the next cycle edge meanwhile, so that a
    // launch's workgroups issue from their placement and not from wherever a
    // busy CU had run ahead to within the quantum (docs/cooperative.md,
    // "Quantum"). No host-time cost measured: octree under the light load, 1.31 s
    // of user time at a one-cycle quantum, 1.35 s at 20 ns without the hold.
    h.dispatcher().hold_cycle_sync(true);
    Tick next = sc_core::sc_time_stamp().value();
    while (!k.finished) {
      const Tick now = sc_core::sc_time_stamp().value();
      if (next > now) sc_core::wait(sc_core::sc_time::from_value(next - now), k.done);
      if (k.finished) break;
      const Tick launched = sc_core::sc_time_stamp().value();
      const TaskTimes tt = s.run_task(gk.launch(share), share);
      gathers.push_back(tt.gather_ns());
      execs.push_back(tt.exec_ns());
      // The next launch a period after this one, or at once when it is late
      // (the prototype's host loop: no launch is skipped). That is this
      // launch's achieved period, launch to launch; the last launch's too
      // (a launch that outlives the kernel still had to wait that long).
      next = std::max<Tick>(launched + period, sc_core::sc_time_stamp().value());
      periods.push_back(tick_to_ns(next - launched));
    }
    h.dispatcher().hold_cycle_sync(false);
    h.check(gk.check(),
            fmt::format("graphics: the {} x {} matrix product's diagonal equals the host's", gk.d(), gk.d()));
  }
  while (!k.finished) sc_core::wait(k.done);
  r.kernel_ns = tick_to_ns(k.end - t0);
  const double active_mean = s.active_mean(k, k.end);
  if (co_runner && kMode.get(cfg) == "preemption") {
    // Kernel-level preemption (Sec. 5.5): every period the whole GPU goes to
    // the graphics kernel for E, at the preemption cost c for each switch
    // out and back; the kernel makes progress only in between. Its time
    // alone (this run) is stretched by that schedule.
    const double c = kPreemptCost.get(cfg) * scale * 1e6;  // ns
    const double p = tick_to_ns(period), e = tick_to_ns(exec), alone = r.kernel_ns;
    if (p - e - 2 * c <= 0)
      throw UserError(
          fmt::format("coop.graphics.preemption_cost: two preemptions of {} ns and E = {} ns fill the "
                      "period of {} ns",
                      c, e, p));
    double done = 0, t = 0;
    while (done < alone) {
      const double run = std::min(p - e - 2 * c, alone - done);
      done += run;
      t += run;
      if (done < alone) t += e + 2 * c;
    }
    h.result("preemption_alone_ns", alone);
    h.result("preemption_overhead_analytic", p / (p - e));
    r.kernel_ns = t;
  }
  h.result("groups", groups);
  h.result("active", r.active);
  h.result("active_mean", active_mean);
  h.result("kernel_ns", r.kernel_ns);
  if (!periods.empty() || !gathers.empty()) {
    h.result("graphics_launches", gathers.size());
    h.result("period_median_ns", median(periods));
    h.result("period_mean_ns", mean(periods));
    h.result("period_max_ns", periods.empty() ? 0.0 : *std::max_element(periods.begin(), periods.end()));
    h.result("gather_median_ns", median(gathers));
    h.result("gather_mean_ns", mean(gathers));
    h.result("graphics_exec_mean_ns", mean(execs));
  }
  return r;
}

}  // namespace fg::coop
