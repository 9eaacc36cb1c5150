// SPDX-License-Identifier: Apache-2.0
#include "coop/coop.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gpu/compute_unit.h"
#include "gpu/gpu.h"
#include "gpu/wavefront.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/error.h"
#include "sim/guard.h"
#include "sim/trace.h"

namespace fg::coop {

namespace {

// Sorensen et al.'s megakernel prototype keeps one workgroup slot for its
// scheduler (Sec. 4.1); Table 2 compares both versions at that occupancy.
const Param<bool> kReserve{"coop.reserve_slot", false, "",
                           "keep one workgroup slot out of the cooperative kernels' and tasks' reach, as the paper's "
                           "megakernel prototype does for its scheduler (Sorensen et al. Sec. 4.1)"};
// Table 1: at most 4 transmitted values per kernel (bfs, l-sssp); the
// prototype's restoration context adds a resume label (and, for bfs and
// l-sssp, a fifth value and a barrier sense bit): 64 B holds them with room.
const Param<std::uint64_t> kTransmit{"coop.transmit_limit",
                                     64,
                                     "B",
                                     "largest transmit block (request_fork's root-scope variables, with the resume "
                                     "label); a larger one is refused (Table 1: at most 4 values)",
                                     {{4}, {4096}}};
// The firmware's instruction counts, assumed as the aggregator's are
// (docs/cooperative.md, "Costs"): taking a request and setting up the
// gather, one poll of `available` besides its load, building the dispatch
// packet of the task (as aggregator.dispatch_instructions).
const Param<std::uint64_t> kRequestInstr{"coop.request_instructions",
                                         40,
                                         "instructions",
                                         "scheduler firmware instructions to take a task request and start its "
                                         "gather (assumed; docs/cooperative.md)",
                                         {{0}, {1u << 20}}};
const Param<std::uint64_t> kPollInstr{"coop.poll_instructions",
                                      8,
                                      "instructions",
                                      "scheduler firmware instructions per poll of the free slots besides its load "
                                      "(assumed; docs/cooperative.md)",
                                      {{0}, {1u << 20}}};
const Param<std::uint64_t> kLaunchInstr{"coop.launch_instructions",
                                        40,
                                        "instructions",
                                        "scheduler firmware instructions to build a task's dispatch packet (as "
                                        "aggregator.dispatch_instructions; assumed)",
                                        {{0}, {1u << 20}}};

std::uint8_t tag() {
  static const std::uint8_t t = mechanism_tag(Scheduler::kName);
  return t;
}

Tick now_ps() { return sc_core::sc_time_stamp().value(); }

// A 32-bit word through the issuing CU's port: read, or atomic (old value).
std::uint32_t read_word(IssueContext& c, std::uint64_t addr, Tick& done) {
  std::uint32_t v = 0;
  const sc_core::sc_time t = c.port().read(addr, &v, 4, IssueContext::local(c.issue()), true);
  done = std::max<Tick>(done, now_ps() + t.value());
  ++c.mem_requests;
  return v;
}
std::uint32_t atomic_word(IssueContext& c, std::uint64_t addr, std::int32_t add, Tick& done) {
  std::uint64_t old = 0;
  const sc_core::sc_time t =
      c.port().atomic(addr, AtomicOp::Add, 4, static_cast<std::uint32_t>(add), 0, old, IssueContext::local(c.issue()));
  done = std::max<Tick>(done, now_ps() + t.value());
  ++c.mem_requests;
  return static_cast<std::uint32_t>(old);
}

// The kernel's call of the runtime function a lane is in (Lane::caller),
// or the operation's own site when the kernel issued it directly.
std::string call_site(const Lane& l) {
  return site_name(l.caller.line() != 0 ? make_site(l.caller) : l.pending.site());
}

Kernel& kernel_of(IssueContext& c, const char* op) {
  KernelState& k = *c.wave().workgroup().kernel;
  Kernel* ck = k.ext<Kernel>();
  if (!ck)
    throw SimFault(
        fmt::format("{} at {} in kernel '{}', which is not a cooperative kernel (launch it with the "
                    "coop scheduler)",
                    op, call_site(c.first()), k.launch.name));
  return *ck;
}

// The workgroup-level part of offer_kill and request_fork: every wavefront of
// the workgroup arrives with all its live lanes; the last to arrive decides.
// Returns the workgroup's arrival when this wavefront is the last, nullptr
// when it waits (blocked) or exits.
Kernel::Arrival* arrive(IssueContext& c, Kernel& k, const char* op) {
  Workgroup& wg = c.wave().workgroup();
  const Site site = c.first().pending.site();
  if (c.active() != c.wave().live())
    throw SimFault(
        fmt::format("{} at {} reached by {} of the {} threads of wavefront {} of workgroup {} of kernel "
                    "'{}' (a workgroup-level primitive: every thread must reach the same call)",
                    op, call_site(c.first()), c.active(), c.wave().live(), c.wave().slot, wg.id, k.state->launch.name));
  Kernel::Arrival& a = k.arrivals[wg.id];
  if (a.exiting) {  // woken after its workgroup's kill was accepted
    c.exit();
    if (--a.to_exit == 0) k.arrivals.erase(wg.id);
    return nullptr;
  }
  const OpUnit* unit = c.first().pending.unit;
  if (a.waves == 0) {
    a.unit = unit;
    a.op = op;
    a.site = site;
    a.caller = c.first().caller;
  } else if (a.unit != unit || a.site != site) {
    throw SimFault(
        fmt::format("workgroup {} of kernel '{}': its wavefronts reached different workgroup-level calls "
                    "({} at {} and {} at {}): the workgroup is stuck",
                    wg.id, k.state->launch.name, a.op, site_name(a.caller.line() != 0 ? make_site(a.caller) : a.site),
                    op, call_site(c.first())));
  }
  // Thread 0's transmit block (its coroutine frame holds it while it waits).
  c.for_each([&](Lane& l) {
    if (l.local_id() == 0) {
      a.transmit = l.pending.data;
      a.transmit_bytes = static_cast<std::uint32_t>(l.pending.n);
      a.release = {l.pending.addr, static_cast<std::uint32_t>(l.pending.value)};
    }
  });
  ++a.waves;
  if (a.waves < wg.waves - wg.waves_done) {
    a.waiting.push_back(c.block(fmt::format("{} (waiting for workgroup {})", op, wg.id)));
    return nullptr;
  }
  return &a;
}

// The others of the workgroup go on with `result` (or, killed, exit: they
// issue the operation again and find their workgroup exiting).
void release(Kernel& k, std::uint32_t group, Kernel::Arrival& a, Tick at, bool exit, std::uint32_t result) {
  if (exit && !a.waiting.empty()) {
    a.exiting = true;
    a.to_exit = static_cast<std::uint32_t>(a.waiting.size());
    for (const WaveHandle& h : a.waiting) h.cu->wake(h, at, false);
    a.waiting.clear();
    return;
  }
  for (const WaveHandle& h : a.waiting) {
    for (Lane& l : h.wave->lanes())
      if (!l.done) l.pending.result = result;
    h.cu->wake(h, at, true);
  }
  k.arrivals.erase(group);
}

class CoopUnit : public OpUnit {
 public:
  explicit CoopUnit(const char* name) : OpUnit(name, Order::Synchronising, true) { belongs_to(tag()); }
};

// offer_kill: accepted when the workgroup is M-1 >= 1 and the scheduler wants
// workgroups back (Sec. 3.1; App. A's Kill rule with M > 1).
class KillUnit final : public CoopUnit {
 public:
  KillUnit() : CoopUnit("coop_kill") {}
  void issue(IssueContext& c) const override {
    Kernel& k = kernel_of(c, "offer_kill");
    Kernel::Arrival* a = arrive(c, k, "offer_kill");
    if (!a) return;
    Scheduler& s = *k.scheduler;
    Workgroup& wg = c.wave().workgroup();
    ++s.kills_offered;
    Tick done = c.issue();
    const std::uint32_t m = read_word(c, k.m, done);
    bool accept = false;
    if (m > 1 && wg.id == m - 1) {
      const std::uint32_t want = read_word(c, k.to_kill, done);
      accept = want > 0;
    }
    if (accept) {
      atomic_word(c, k.to_kill, -1, done);
      atomic_word(c, k.m, -1, done);
      atomic_word(c, s.available_addr(), 1, done);
      ++s.kills_accepted;
      s.note_m(*k.state, m - 1, done);
      // Out of the kernel's workgroup count at once (its wavefronts exit next).
      wg.exited = true;
      c.cu().gpu().dispatcher().workgroup_exiting(*k.state);
    }
    c.complete = std::max(c.complete, done);
    c.for_each([&](Lane& l) { l.pending.result = accept; });
    const std::uint32_t id = wg.id;
    release(k, id, *a, c.complete, accept, accept);
    if (accept) c.exit();
  }
};
const KillUnit kKill;

// request_fork: k = min(available, N - M) new workgroups at once, none while
// the scheduler gathers slots for a launch (Sec. 3.1, 4.2).
class ForkUnit final : public CoopUnit {
 public:
  ForkUnit() : CoopUnit("coop_fork") {}
  void issue(IssueContext& c) const override {
    Kernel& k = kernel_of(c, "request_fork");
    Kernel::Arrival* a = arrive(c, k, "request_fork");
    if (!a) return;
    Scheduler& s = *k.scheduler;
    ++s.forks_requested;
    if (a->transmit_bytes > k.transmit_limit)
      throw UserError(
          fmt::format("coop.transmit_limit: request_fork in kernel '{}' transmits {} bytes, more than "
                      "the limit of {} B",
                      k.state->launch.name, a->transmit_bytes, k.transmit_limit));
    Tick done = c.issue();
    std::uint32_t grant = 0;
    if (read_word(c, s.gathering_addr(), done) == 0) {
      const std::uint32_t avail = read_word(c, s.available_addr(), done);
      const std::uint32_t m = read_word(c, k.m, done);
      grant = std::min(avail, k.n > m ? k.n - m : 0);
      if (grant > 0) {
        atomic_word(c, s.available_addr(), -static_cast<std::int32_t>(grant), done);
        atomic_word(c, k.m, static_cast<std::int32_t>(grant), done);
        if (m != k.state->num_groups)
          throw std::logic_error(fmt::format("coop: kernel '{}' has M {} in memory and {} workgroups",
                                             k.state->launch.name, m, k.state->num_groups));
        // The transmit block: thread 0's values, written through this CU's
        // port; the new workgroups are requested for when it is written.
        const std::uint64_t block = s.memory().allocate(std::max<std::uint32_t>(a->transmit_bytes, 4));
        const unsigned line = c.timing().line;
        const auto* src = static_cast<const unsigned char*>(a->transmit);
        for (std::uint32_t off = 0; off < a->transmit_bytes;) {
          const std::uint32_t n = std::min<std::uint32_t>(a->transmit_bytes - off, line - (block + off) % line);
          const sc_core::sc_time t = c.port().write(block + off, src + off, n, IssueContext::local(c.issue()));
          done = std::max<Tick>(done, now_ps() + t.value());
          ++c.mem_requests;
          off += n;
        }
        // Where each new workgroup starts: after the barrier's release when
        // the fork is a resizing barrier's (the paper's "conditional that
        // forces newly spawned workgroups to join the slaves"), else at once.
        for (std::uint32_t i = 0; i < grant; ++i) {
          if (a->release.addr != 0)
            k.join_release[m + i] = a->release;
          else
            k.join_release.erase(m + i);
        }
        GrowSpec g;
        g.count = grant;
        g.first_group = m;
        g.transmit_addr = block;
        g.transmit_bytes = a->transmit_bytes;
        g.at = done;
        c.cu().gpu().dispatcher().grow(*k.state, std::move(g));
        ++s.forks_granted;
        s.workgroups_forked += grant;
        s.transmit_bytes += a->transmit_bytes;
        s.note_transmit_read(std::uint64_t{a->transmit_bytes} * grant * c.wave().workgroup().waves);
        s.note_m(*k.state, m + grant, done);
      }
    }
    s.fork_size.sample(grant);
    c.complete = std::max(c.complete, done);
    c.for_each([&](Lane& l) { l.pending.result = grant; });
    release(k, c.wave().workgroup().id, *a, c.complete, false, grant);
  }
};
const ForkUnit kFork;

// query (Sec. 4.2): the workgroups the scheduler still needs back.
class QueryUnit final : public CoopUnit {
 public:
  QueryUnit() : CoopUnit("coop_query") {}
  void issue(IssueContext& c) const override {
    Kernel& k = kernel_of(c, "query");
    Tick done = c.issue();
    const std::uint32_t w = read_word(c, k.to_kill, done);
    c.complete = std::max(c.complete, done);
    c.for_each([&](Lane& l) { l.pending.result = w; });
  }
};
const QueryUnit kQuery;

}  // namespace

const OpUnit& kill_unit() { return kKill; }
const OpUnit& fork_unit() { return kFork; }
const OpUnit& query_unit() { return kQuery; }

Scheduler::Params Scheduler::Params::from(const Config& cfg) {
  Params p;
  p.reserve_slot = kReserve.get(cfg);
  p.transmit_limit = static_cast<std::uint32_t>(kTransmit.get(cfg));
  p.request_instructions = static_cast<std::uint32_t>(kRequestInstr.get(cfg));
  p.poll_instructions = static_cast<std::uint32_t>(kPollInstr.get(cfg));
  p.launch_instructions = static_cast<std::uint32_t>(kLaunchInstr.get(cfg));
  return p;
}

Scheduler::Scheduler(sc_core::sc_module_name name, const Params& p, Gpu& gpu, ctrl::ControlCore& core)
    : sc_module(name),
      Mechanism(kName),
      launches(StatGroup("coop"), "launches", "cooperative kernels launched", ""),
      kills_offered(StatGroup("coop"), "kills_offered", "offer_kill calls (workgroups)", ""),
      kills_accepted(StatGroup("coop"), "kills_accepted", "offer_kill calls the scheduler accepted", ""),
      forks_requested(StatGroup("coop"), "forks_requested", "request_fork calls (workgroups)", ""),
      forks_granted(StatGroup("coop"), "forks_granted", "request_fork calls granted at least one workgroup", ""),
      workgroups_forked(StatGroup("coop"), "workgroups_forked", "workgroups started by request_fork", ""),
      tasks(StatGroup("coop"), "tasks", "non-cooperative kernels gathered for and run", ""),
      transmit_bytes(StatGroup("coop"), "transmit_bytes", "transmit blocks written by request_fork", "B"),
      fork_size(StatGroup("coop"), "fork_size", "workgroups granted per request_fork", "", 0, 64, 16),
      gather_ns(StatGroup("coop"), "gather_time", "from a task's request until its slots were free (gather time)",
                "ns"),
      task_exec_ns(StatGroup("coop"), "task_time", "a task's execution, from its launch until it was done", "ns"),
      gather_ns_max(StatGroup("coop"), "gather_time_max", "the longest gather", "ns",
                    [this] { return tick_to_ns(max_gather_); }),
      wait_ns(StatGroup("coop"), "wait_time",
              "wavefront time blocked in the cooperative runtime: barrier spins and workgroup-level calls waiting "
              "for their workgroup (summed over wavefronts)",
              "ns",
              [&gpu] {
                Tick t = 0;
                for (int i = 0; i < gpu.cus(); ++i) t += gpu.cu(i).mechanism_wait(tag());
                return tick_to_ns(t);
              }),
      p_(p),
      gpu_(gpu),
      core_(core),
      fw_(core.attach("coop", p.poll_instructions + 1)) {
  const unsigned line = gpu.memory().line_size();
  available_ = gpu.memory().allocate(line, line);
  gathering_ = gpu.memory().allocate(line, line);
  const std::uint32_t zero = 0;
  gpu.memory().copy_in(available_, &zero, 4);
  gpu.memory().copy_in(gathering_, &zero, 4);
  TaskMetrics::Sources src;
  src.created = [this] { return static_cast<double>(started_groups_ + workgroups_forked.value()); };
  src.run = src.created;
  src.control_instructions = [this] { return static_cast<double>(fw_.instructions.value()); };
  src.state_bytes = [this] { return static_cast<double>(transmit_bytes.value() + transmit_read_); };
  src.peak_storage_bytes = [this] { return static_cast<double>(transmit_bytes.value()); };
  src.wait_ns = [this] { return wait_ns.scalar(); };
  tasks_metrics_ = std::make_unique<TaskMetrics>(gpu, kName, std::move(src));
  SC_HAS_PROCESS(Scheduler);
  SC_THREAD(firmware);
}

Scheduler::~Scheduler() = default;

MemorySystem& Scheduler::memory() { return gpu_.memory(); }

std::uint32_t Scheduler::read(std::uint64_t addr) const {
  std::uint32_t v = 0;
  gpu_.memory().copy_out(&v, addr, 4);
  return v;
}

std::uint32_t Scheduler::slots(const KernelLaunch& shape) {
  const auto cap = static_cast<std::uint32_t>(gpu_.dispatcher().resident_capacity(shape));
  const std::uint32_t s = cap > 0 && p_.reserve_slot ? cap - 1 : cap;
  if (!sized_) {
    sized_ = true;
    slots_ = s;
    shape_ = shape;
    gpu_.memory().copy_in(available_, &s, 4);
  } else if (shape.group_size != shape_.group_size || shape.registers != shape_.registers ||
             shape.lds_bytes != shape_.lds_bytes) {
    throw std::logic_error(fmt::format("coop: kernel '{}' has another workgroup shape than '{}' (slots are shared)",
                                       shape.name, shape_.name));
  }
  return slots_;
}

std::uint32_t Scheduler::active(const KernelState& k) const {
  const Kernel* ck = k.ext<Kernel>();
  return ck ? read(ck->m) : 0;
}

double Scheduler::active_mean(const KernelState& k, Tick end) const {
  const Kernel* ck = k.ext<Kernel>();
  if (!ck || end <= k.submitted) return 0;
  const double area = ck->m_area + double(ck->m_now) * double(end - std::min(end, ck->m_since));
  return area / double(end - k.submitted);
}

void Scheduler::note_m(const KernelState& k, std::uint32_t m, Tick t) {
  if (Kernel* ck = k.ext<Kernel>()) {
    if (t > ck->m_since) {
      ck->m_area += double(ck->m_now) * double(t - ck->m_since);
      ck->m_since = t;
    }
    ck->m_now = m;
  }
  if (!Trace::get().on()) return;
  if (track_ < 0) track_ = Trace::get().track("coop", "active workgroups");
  Trace::get().counter(track_, fmt::format("M of {}", k.launch.name).c_str(), t, m);
}

std::shared_ptr<Kernel> Scheduler::prepare(std::uint32_t n) {
  const unsigned line = gpu_.memory().line_size();
  auto ck = std::make_shared<Kernel>();
  ck->n = n;
  ck->m = gpu_.memory().allocate(line, line);
  ck->to_kill = gpu_.memory().allocate(line, line);
  const std::uint32_t zero = 0;
  gpu_.memory().copy_in(ck->m, &zero, 4);
  gpu_.memory().copy_in(ck->to_kill, &zero, 4);
  ck->transmit_limit = p_.transmit_limit;
  ck->scheduler = this;
  return ck;
}

KernelState& Scheduler::launch(std::shared_ptr<Kernel> ck, KernelLaunch launch) {
  slots(launch);
  const std::uint32_t avail = read(available_);
  const std::uint32_t m0 = std::min(ck->n, avail);
  if (m0 == 0)
    throw SimFault(
        fmt::format("coop: cooperative kernel '{}' can never be granted a workgroup: 0 of {} slots free "
                    "and nothing running that would give one back",
                    launch.name, slots_));
  const std::uint32_t left = avail - m0;
  gpu_.memory().copy_in(available_, &left, 4);
  gpu_.memory().copy_in(ck->m, &m0, 4);
  // A workgroup that ends gives its slot back (the prototype's worker marks
  // itself idle); one that offer_kill took gave it back there.
  KernelBody body = std::move(launch.body);
  const std::uint64_t avail_addr = available_;
  launch.body = [body = std::move(body), avail_addr, kernel = ck.get()](Lane& l) -> Task<> {
    // A workgroup a resizing barrier forked waits with the slaves for the
    // barrier's release before it starts after the barrier (Sec. 4.2).
    if (l.transmitted()) {
      const auto it = kernel->join_release.find(l.group_id());
      if (it != kernel->join_release.end()) {
        const Kernel::Release r = it->second;
        if (l.local_id() == 0)
          co_await l.spin_until<std::uint32_t>(r.addr, SpinCmp::Ne, r.value,
                                               "the release of the resizing barrier that forked it");
        co_await l.barrier();
      }
    }
    co_await body(l);
    co_await l.barrier();
    if (l.local_id() == 0) co_await l.atomic_add<std::uint32_t>(avail_addr, 1u);
  };
  launch.grid = std::uint64_t{m0} * launch.group_size;
  SubmitOptions o;
  o.ext = ck;
  KernelState& k = gpu_.dispatcher().submit(std::move(launch), o);
  ck->state = &k;
  kernels_.push_back(ck.get());
  ++launches;
  started_groups_ += m0;
  note_m(k, m0, k.submitted);
  return k;
}

TaskTimes Scheduler::run_task(KernelLaunch task, std::uint32_t workgroups) {
  slots(task);
  if (workgroups == 0 || workgroups > slots_)
    throw std::logic_error(fmt::format("coop: a task of {} workgroups on {} slots", workgroups, slots_));
  Request r;
  r.launch = std::move(task);
  r.workgroups = workgroups;
  requests_.push_back(&r);
  request_ev_.notify(sc_core::SC_ZERO_TIME);
  while (!r.done) sc_core::wait(served_ev_);
  return r.times;
}

void Scheduler::serve(Request& r) {
  core_.acquire(fw_);
  r.times.requested = core_.time();
  core_.instr(p_.request_instructions);
  // The assignment mutex: while it is set no fork takes a slot (Sec. 4.2).
  core_.store_word(gathering_, 1);
  std::uint32_t avail = core_.load_word(available_);
  const std::uint32_t need = r.workgroups;
  if (avail < need) {
    // Ask the running cooperative kernels for the rest (the newest first).
    std::uint32_t short_by = need - avail;
    for (auto it = kernels_.rbegin(); it != kernels_.rend() && short_by > 0; ++it) {
      if ((*it)->state->finished) continue;
      core_.atomic_word((*it)->to_kill, AtomicOp::Add, short_by);
      short_by = 0;
    }
  }
  while (avail < need) {
    gathering_for_ = need;
    core_.wait_for_write(fw_, available_);
    core_.instr(p_.poll_instructions);
    avail = core_.load_word(available_);
  }
  gathering_for_ = 0;
  core_.atomic_word(available_, AtomicOp::Add, static_cast<std::uint32_t>(-static_cast<std::int32_t>(need)));
  // A request the kernels have not met yet stays (the prototype's
  // groups_to_kill is only ever decremented by the kills): a query barrier
  // that promised workgroups gives them, and forks take them back.
  core_.store_word(gathering_, 0);
  r.times.gathered = core_.time();
  const Tick gather = r.times.gathered - r.times.requested;
  gather_ns.sample(tick_to_ns(gather));
  max_gather_ = std::max(max_gather_, gather);
  // Launch it on the slots: the workgroups give them back as they end.
  core_.instr(p_.launch_instructions);
  KernelLaunch launch = std::move(r.launch);
  KernelBody body = std::move(launch.body);
  const std::uint64_t avail_addr = available_;
  launch.body = [body = std::move(body), avail_addr](Lane& l) -> Task<> {
    co_await body(l);
    co_await l.barrier();
    if (l.local_id() == 0) co_await l.atomic_add<std::uint32_t>(avail_addr, 1u);
  };
  launch.grid = std::uint64_t{need} * launch.group_size;
  SubmitOptions o;
  o.at = core_.time();
  o.launch_cycles = 0;  // the scheduler, on the control core, has built the dispatch itself
  o.priority = 1;
  bool finished = false;
  Tick end = 0;
  sc_core::sc_event done;
  // Called from the CU that ends the task's last workgroup, at that CU's
  // time, which may be ahead of SystemC time within a quantum: the firmware
  // wakes at the end itself (waking at once let the next request start up to
  // a quantum before this task had ended).
  o.on_done = [&](KernelState&, Tick t) {
    finished = true;
    end = t;
    const Tick now = sc_core::sc_time_stamp().value();
    done.notify(sc_core::sc_time::from_value(t > now ? t - now : 0));
  };
  r.times.launched = core_.time();
  gpu_.dispatcher().submit(std::move(launch), o);
  ++tasks;
  core_.release(fw_);
  while (!finished) sc_core::wait(done);
  r.times.done = end;
  task_exec_ns.sample(tick_to_ns(end - r.times.launched));
}

void Scheduler::firmware() {
  run_guarded([&] {
    for (;;) {
      while (requests_.empty()) sc_core::wait(request_ev_);
      Request* r = requests_.front();
      requests_.pop_front();
      serve(*r);
      r->done = true;
      served_ev_.notify(sc_core::SC_ZERO_TIME);
    }
  });
}

std::string Scheduler::diagnose() const {
  std::string s;
  if (gathering_for_ > 0)
    s = fmt::format("coop scheduler gathering {} workgroup slots for a task, {} free;", gathering_for_,
                    read(available_));
  for (const Kernel* k : kernels_)
    if (!k->state->finished)
      s += fmt::format("{}cooperative kernel '{}': M {} of N {}, {} asked back", s.empty() ? "" : " ",
                       k->state->launch.name, read(k->m), k->n, read(k->to_kill));
  return s;
}

std::vector<std::string> Scheduler::summary_lines() const {
  if (launches.value() == 0 && tasks.value() == 0) return {};
  return {
      fmt::format("{:<22}{} kills of {} offered, {} forks of {} granted ({} workgroups), {} tasks, mean gather "
                  "{:.0f} ns",
                  "coop", kills_accepted.value(), kills_offered.value(), forks_granted.value(), forks_requested.value(),
                  workgroups_forked.value(), tasks.value(), gather_ns.mean())};
}

namespace {
const RegisterMechanism kMechanism{{Scheduler::kName,
                                    "cooperative kernels (Sorensen et al.): offer_kill, request_fork, the scheduler "
                                    "as firmware on the control core",
                                    {ctrl::ControlCore::kName},
                                    [](Gpu& g) {
                                      return std::make_unique<Scheduler>("coop", Scheduler::Params::from(g.config()), g,
                                                                         g.get<ctrl::ControlCore>("coop"));
                                    },
                                    {"coop."},
                                    {}}};
}  // namespace

}  // namespace fg::coop
