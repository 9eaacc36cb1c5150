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
const Param<std::string> kPolicy{
    "gpu.frontend.policy", "fifo", "",
    "launch policy (registered by name; an unknown name's error lists them): fifo (in order, "
    "head-of-line blocking) or priority (any queued kernel that fits, highest priority "
    "first)"};

// The two built-in launch policies.
class Fifo final : public LaunchPolicy {
 public:
  void order(std::vector<KernelState*>&) const override {}  // submission order
  bool in_order() const override { return true; }
};
class Priority final : public LaunchPolicy {
 public:
  void order(std::vector<KernelState*>& k) const override {
    std::stable_sort(k.begin(), k.end(),
                     [](const KernelState* a, const KernelState* b) { return a->priority > b->priority; });
  }
  bool in_order() const override { return false; }
};
const RegisterLaunchPolicy kFifo{{"fifo", "kernels in submission order, head-of-line blocking (one in-order queue)",
                                  [] { return std::make_unique<Fifo>(); }}};
const RegisterLaunchPolicy kPriority{{"priority",
                                      "any queued kernel whose workgroup fits, highest priority first, then "
                                      "submission order",
                                      [] { return std::make_unique<Priority>(); }}};
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

LaunchPolicyRegistry& LaunchPolicyRegistry::global() {
  static LaunchPolicyRegistry r;
  return r;
}

void LaunchPolicyRegistry::add(LaunchPolicyInfo p) {
  if (!all_.emplace(p.name, p).second) throw std::logic_error("launch policy '" + p.name + "' registered twice");
}

const LaunchPolicyInfo* LaunchPolicyRegistry::find(const std::string& name) const {
  auto it = all_.find(name);
  return it == all_.end() ? nullptr : &it->second;
}

Dispatcher::Params Dispatcher::Params::from(const Config& cfg) {
  Params p;
  p.policy = kPolicy.get(cfg);
  if (!LaunchPolicyRegistry::global().find(p.policy)) {
    std::string known;
    for (const auto& [n, i] : LaunchPolicyRegistry::global().all()) known += (known.empty() ? "" : ", ") + n;
    throw UserError(fmt::format("{} (set by {}): unknown launch policy '{}' (known: {})", kPolicy.name(),
                                cfg.origin(kPolicy.name()), shown(p.policy), known));
  }
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
      policy_(LaunchPolicyRegistry::global().find(p.policy)->make()),
      clock_(clock),
      accept_at_(cus_.size(), 0) {
  SC_HAS_PROCESS(Dispatcher);
  SC_THREAD(run);
  for (ComputeUnit* cu : cus_) cu->set_dispatcher(this);
}

std::uint64_t Dispatcher::mask_of(const std::vector<int>& cus) const {
  if (cus.empty()) return ~0ull;
  std::uint64_t m = 0;
  for (int c : cus) {
    if (c < 0 || c >= static_cast<int>(cus_.size()))
      throw std::logic_error(
          fmt::format("kernel confined to CU {}, which this GPU ({} CUs) does not have", c, cus_.size()));
    m |= 1ull << c;
  }
  return m;
}

std::uint64_t Dispatcher::resident_capacity(const KernelLaunch& launch, const std::vector<int>& cus) const {
  const std::uint64_t mask = mask_of(cus);
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < cus_.size(); ++i)
    if (mask >> i & 1) n += cus_[i]->capacity(launch);
  return n;
}

KernelState& Dispatcher::submit(KernelLaunch launch, SubmitOptions opts) {
  if (!launch.body) throw std::logic_error("kernel launch without a body");
  if (launch.group_size == 0) throw SimFault(fmt::format("kernel '{}': workgroup size 0", launch.name));
  auto k = std::make_unique<KernelState>();
  k->launch = std::move(launch);
  k->id = static_cast<std::uint32_t>(all_.size());
  k->priority = opts.priority;
  k->num_groups = k->initial_groups =
      static_cast<std::uint32_t>((k->launch.grid + k->launch.group_size - 1) / k->launch.group_size);
  k->cu_mask = mask_of(opts.cus);
  k->extension = std::move(opts.ext);
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
  for (FrontEndObserver* o : observers_) o->kernel_submitted(ref, ref.submitted);
  if (ref.num_groups == 0) {
    ref.finished = true;
    ref.first_dispatch = ref.end = ref.visible;
    ++kernels;
    if (ref.on_done) ref.on_done(ref, ref.end);
    for (FrontEndObserver* o : observers_) o->kernel_finished(ref, ref.end);
    ref.done.notify(sc_core::sc_time::from_value(ref.end - now));
    return ref;
  }
  queue_.push_back(&ref);
  work_.notify(sc_core::SC_ZERO_TIME);
  return ref;
}

void Dispatcher::grow(KernelState& k, GrowSpec spec) {
  if (k.finished) throw std::logic_error(fmt::format("grow of kernel '{}', which has ended", k.launch.name));
  if (spec.count == 0) return;
  const Tick now = sc_core::sc_time_stamp().value();
  const Tick at = spec.at == ~0ull ? now : std::max<Tick>(spec.at, now);
  auto shared = std::make_shared<const GrowSpec>(std::move(spec));
  for (std::uint32_t i = 0; i < shared->count; ++i) k.grown.push_back({shared->first_group + i, shared, at});
  k.num_groups += shared->count;
  k.groups_grown += shared->count;
  // Back in the queue, in submission order (ahead of the kernels queued after it).
  if (std::find(queue_.begin(), queue_.end(), &k) == queue_.end())
    queue_.insert(std::upper_bound(queue_.begin(), queue_.end(), &k,
                                   [](const KernelState* a, const KernelState* b) { return a->id < b->id; }),
                  &k);
  work_.notify(sc_core::sc_time::from_value(at - now));
}

void Dispatcher::workgroup_exiting(KernelState& k) {
  --k.num_groups;
  ++k.groups_exited;
}

void Dispatcher::workgroup_finished(KernelState& k, std::uint32_t group, Tick t, bool exited) {
  if (k.on_workgroup_done) k.on_workgroup_done(group, t);
  k.end = std::max(k.end, t);
  --k.resident;
  ++k.groups_done;
  for (FrontEndObserver* o : observers_) o->workgroup_finished(k, group, t, exited);
  resources_freed(t);
  if (k.resident == 0 && !k.has_pending()) {
    k.finished = true;
    ++kernels;
    if (k.on_done) k.on_done(k, k.end);
    for (FrontEndObserver* o : observers_) o->kernel_finished(k, k.end);
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
    if (!k->has_pending()) continue;
    s += fmt::format("{}kernel '{}': {} of {} workgroups not dispatched{}", s.empty() ? "" : "; ", k->launch.name,
                     k->pending(), k->num_groups,
                     k->visible > now ? fmt::format(" (launch latency until {} ns)", tick_to_ns(k->visible))
                                      : " (waiting for room on a CU)");
  }
  return s;
}

Dispatcher::Placed Dispatcher::place_one(KernelState& k) {
  const Tick now = sc_core::sc_time_stamp().value();
  // The launch's workgroups first, then grown ones (each from its request's time).
  const bool initial = k.next_group < k.initial_groups;
  if (!initial && k.grown.front().at > now) return Placed::NotNow;
  Placed result = Placed::NoRoom;
  for (std::size_t i = 0; i < cus_.size(); ++i) {
    const std::size_t c = (next_cu_ + i) % cus_.size();
    if (!(k.cu_mask >> c & 1) || !cus_[c]->fits(k)) continue;
    if (accept_at_[c] > now) {
      result = Placed::NotNow;
      continue;
    }
    if (k.dispatched == 0) k.first_dispatch = now;
    if (initial) {
      cus_[c]->place(k, k.next_group++);
    } else {
      const KernelState::Grown g = std::move(k.grown.front());
      k.grown.pop_front();
      cus_[c]->place(k, g.id, g.spec);
    }
    ++k.dispatched;
    ++k.resident;
    k.waiting_for_room = false;
    ++workgroups;
    accept_at_[c] = now + clock_.cycles(p_.dispatch_cycles);
    next_cu_ = (c + 1) % cus_.size();
    return Placed::Yes;
  }
  return result;
}

void Dispatcher::run() {
  run_guarded([&] {
    // A member, not a local: the thread ends suspended in here, and its
    // frame is never unwound (LeakSanitizer saw the local's buffer).
    std::vector<KernelState*>& order = order_;
    for (;;) {
      const Tick now = sc_core::sc_time_stamp().value();
      // Kernels that still have workgroups to dispatch, in policy order.
      order.clear();
      for (KernelState* k : queue_)
        if (k->has_pending()) order.push_back(k);
      policy_->order(order);
      bool placed = false;
      Tick wake = kNever;
      placing_ = false;  // set again below while a visible kernel has workgroups to place
      for (KernelState* k : order) {
        if (k->visible > now) {
          wake = std::min(wake, k->visible);
          if (policy_->in_order()) break;  // in order: later kernels wait for this one
          continue;
        }
        const Placed r = place_one(*k);
        // Hold the CUs to the cycle also while the kernel waits for room: the
        // room comes from a CU's release, which may fall in any cycle, and the
        // workgroup placed in it issues from that cycle. A CU that ran ahead
        // within the quantum had gone past it (vecadd on two CUs at 5 ns
        // +2.76%: the CU ran ahead idle and reaped its next completion before
        // the placement; dmr topo at 20 ns -0.33%: the new workgroup's first
        // load a cycle late; docs/compute-unit.md, "Quantum").
        placing_ = true;
        if (r == Placed::Yes) {
          placed = true;
          break;
        }
        if (r == Placed::NoRoom && !k->waiting_for_room) {
          // Told once: a visible kernel found no CU with room for a workgroup.
          k->waiting_for_room = true;
          for (FrontEndObserver* o : observers_) o->kernel_waiting(*k, now);
        }
        // Grown workgroups requested for a later time (an agent ahead of SystemC time).
        if (k->next_group >= k->initial_groups && k->grown.front().at > now) wake = std::min(wake, k->grown.front().at);
        if (policy_->in_order()) break;
      }
      std::erase_if(queue_, [](const KernelState* k) { return !k->has_pending(); });
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
