// SPDX-License-Identifier: Apache-2.0
#include "gpu/dispatcher.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "gpu/compute_unit.h"
#include "sim/error.h"
#include "sim/guard.h"

namespace fg {

namespace {
const Param<std::string> kPolicy{"gpu.frontend.policy", "fifo", std::vector<std::string>{"fifo", "priority"},
                                 "launch policy: fifo (in order, head-of-line blocking) or priority (any queued "
                                 "kernel that fits, highest priority first)"};
// Accel-Sim's GPGPU-Sim 4 configurations (e.g. its Volta QV100 config) set
// -gpgpu_kernel_launch_latency 5000 core cycles; GPGPU-Sim 3.x, the worklist
// paper's simulator, defaults it to 0 (the kim2014 preset).
const Param<std::uint64_t> kLaunch{"gpu.frontend.launch_latency",
                                   5000,
                                   "cycles",
                                   "kernel launch latency: from submit until its workgroups can be dispatched "
                                   "(Accel-Sim GPGPU-Sim 4 configs: 5000 core cycles)",
                                   {{0}, {1ull << 32}}};
// GPGPU-Sim issues at most one CTA to each SM per core cycle
// (gpgpu_sim::issue_block2core runs once per cycle over the SMs).
const Param<std::uint64_t> kDispatch{"gpu.frontend.dispatch_interval",
                                     1,
                                     "cycles",
                                     "cycles between two workgroups dispatched to the same CU (GPGPU-Sim: one CTA "
                                     "per SM per cycle)",
                                     {{0}, {1ull << 20}}};
constexpr Tick kNever = std::numeric_limits<Tick>::max();
}  // namespace

Dispatcher::Params Dispatcher::Params::from(const Config& cfg) {
  Params p;
  p.policy = kPolicy.get(cfg);
  p.launch_cycles = kLaunch.get(cfg);
  p.dispatch_cycles = kDispatch.get(cfg);
  return p;
}

Dispatcher::Dispatcher(sc_core::sc_module_name name, std::vector<ComputeUnit*> cus, const Params& p, Clock clock)
    : sc_module(name),
      kernels(StatGroup("gpu.dispatcher"), "kernels", "kernels completed", ""),
      workgroups(StatGroup("gpu.dispatcher"), "workgroups", "workgroups dispatched", ""),
      cus_(std::move(cus)),
      p_(p),
      clock_(clock),
      accept_at_(cus_.size(), 0) {
  SC_HAS_PROCESS(Dispatcher);
  SC_THREAD(run);
  for (ComputeUnit* cu : cus_) cu->set_dispatcher(this);
}

std::uint64_t Dispatcher::resident_capacity(const KernelLaunch& launch) const {
  std::uint64_t n = 0;
  for (const ComputeUnit* cu : cus_) n += cu->capacity(launch);
  return n;
}

KernelState& Dispatcher::submit(KernelLaunch launch, SubmitOptions opts) {
  if (!launch.body) throw std::logic_error("kernel launch without a body");
  if (launch.group_size == 0) throw SimFault(fmt::format("kernel '{}': workgroup size 0", launch.name));
  auto k = std::make_unique<KernelState>();
  k->launch = std::move(launch);
  k->id = static_cast<std::uint32_t>(all_.size());
  k->priority = opts.priority;
  k->num_groups = static_cast<std::uint32_t>((k->launch.grid + k->launch.group_size - 1) / k->launch.group_size);
  const Tick now = sc_core::sc_time_stamp().value();
  k->submitted = opts.at == ~0ull ? now : std::max<Tick>(opts.at, now);
  k->visible = k->submitted + clock_.cycles(opts.launch_cycles == ~0ull ? p_.launch_cycles : opts.launch_cycles);
  k->on_done = std::move(opts.on_done);
  k->on_workgroup_done = std::move(opts.on_workgroup_done);
  if (!cus_.empty() && !cus_.front()->fits_empty(*k)) {
    const auto& p = cus_.front()->params();
    throw SimFault(fmt::format(
        "kernel '{}': a workgroup ({} work-items, {} registers per lane, {} B LDS) does not fit an empty CU "
        "({} slots, {} registers, {} B LDS)",
        k->launch.name, k->launch.group_size, k->launch.registers, k->launch.lds_bytes, p.slots, p.registers,
        p.lds_bytes));
  }
  KernelState& ref = *k;
  all_.push_back(std::move(k));
  if (ref.num_groups == 0) {
    ref.finished = true;
    ref.first_dispatch = ref.end = ref.visible;
    ++kernels;
    if (ref.on_done) ref.on_done(ref, ref.end);
    ref.done.notify(sc_core::sc_time::from_value(ref.end - now));
    return ref;
  }
  queue_.push_back(&ref);
  work_.notify(sc_core::SC_ZERO_TIME);
  return ref;
}

void Dispatcher::workgroup_finished(KernelState& k, std::uint32_t group, Tick t) {
  if (k.on_workgroup_done) k.on_workgroup_done(group, t);
  k.end = std::max(k.end, t);
  resources_freed(t);
  if (++k.groups_done == k.num_groups) {
    k.finished = true;
    ++kernels;
    if (k.on_done) k.on_done(k, k.end);
    const Tick now = sc_core::sc_time_stamp().value();
    k.done.notify(sc_core::sc_time::from_value(k.end > now ? k.end - now : 0));
  }
}

void Dispatcher::resources_freed(Tick t) {
  const Tick now = sc_core::sc_time_stamp().value();
  freed_.notify(sc_core::sc_time::from_value(t > now ? t - now : 0));
}

std::string Dispatcher::describe_queue() const {
  std::string s;
  const Tick now = sc_core::sc_time_stamp().value();
  for (const KernelState* k : queue_) {
    if (k->next_group >= k->num_groups) continue;
    s += fmt::format("{}kernel '{}': {} of {} workgroups not dispatched{}", s.empty() ? "" : "; ", k->launch.name,
                     k->num_groups - k->next_group, k->num_groups,
                     k->visible > now ? fmt::format(" (launch latency until {} ns)", tick_to_ns(k->visible))
                                      : " (waiting for room on a CU)");
  }
  return s;
}

bool Dispatcher::place_one(KernelState& k) {
  const Tick now = sc_core::sc_time_stamp().value();
  for (std::size_t i = 0; i < cus_.size(); ++i) {
    const std::size_t c = (next_cu_ + i) % cus_.size();
    if (accept_at_[c] > now || !cus_[c]->fits(k)) continue;
    if (k.next_group == 0) k.first_dispatch = now;
    cus_[c]->place(k, k.next_group++);
    ++workgroups;
    accept_at_[c] = now + clock_.cycles(p_.dispatch_cycles);
    next_cu_ = (c + 1) % cus_.size();
    return true;
  }
  return false;
}

void Dispatcher::run() {
  run_guarded([&] {
    for (;;) {
      const Tick now = sc_core::sc_time_stamp().value();
      // Kernels that still have workgroups to dispatch, in policy order.
      std::vector<KernelState*> order;
      for (KernelState* k : queue_)
        if (k->next_group < k->num_groups) order.push_back(k);
      if (p_.policy == "priority")
        std::stable_sort(order.begin(), order.end(),
                         [](const KernelState* a, const KernelState* b) { return a->priority > b->priority; });
      bool placed = false;
      Tick wake = kNever;
      for (KernelState* k : order) {
        if (k->visible > now) {
          wake = std::min(wake, k->visible);
          if (p_.policy == "fifo") break;  // in order: later kernels wait for this one
          continue;
        }
        if (place_one(*k)) {
          placed = true;
          break;
        }
        if (p_.policy == "fifo") break;
      }
      std::erase_if(queue_, [](const KernelState* k) { return k->next_group >= k->num_groups; });
      if (placed) continue;
      // Nothing placed now: wait for a kernel to become visible, a CU to
      // accept again, resources to free, or a new submission.
      // (An sc_event keeps only its earliest pending notification, so a
      // release later than another CU's may have no notification of its
      // own: wait for the CUs' pending releases explicitly.)
      if (!order.empty()) {
        for (Tick a : accept_at_)
          if (a > now) wake = std::min(wake, a);
        for (const ComputeUnit* cu : cus_)
          if (const Tick r = cu->next_release(); r > now) wake = std::min(wake, r);
      }
      if (wake == kNever)
        sc_core::wait(work_ | freed_);
      else
        sc_core::wait(sc_core::sc_time::from_value(wake - now), work_ | freed_);
    }
  });
}

}  // namespace fg
