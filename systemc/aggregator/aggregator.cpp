// SPDX-License-Identifier: Apache-2.0
#include "aggregator/aggregator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/error.h"
#include "sim/guard.h"
#include "sim/trace.h"

namespace fg::agg {

namespace {
// Instruction counts of the firmware's steps, from the firmware's code
// compiled for AArch64 (clang 14 -O2, Cortex-A55: the class of the paper's
// 2-way low-power core) and counted dynamically (tools/firmware, results.md:
// the "model-equivalent" counts, i.e. the compiled instructions less the
// device loads and stores the model charges itself; docs/channels.md,
// "Firmware costs").
const Param<std::uint64_t> kPassInstr{"aggregator.pass_instructions",
                                      33,
                                      "instructions",
                                      "firmware loop overhead per pass (AArch64 -O2, main loop inlined: 33; "
                                      "tools/firmware)",
                                      {{0}, {1u << 20}}};
const Param<std::uint64_t> kPollInstr{
    "aggregator.poll_instructions",
    25,
    "instructions",
    "firmware instructions per channel polled besides its load: the poll, the default "
    "predicate and the free-candidate test (AArch64 -O2: 25; tools/firmware)",
    {{0}, {1u << 20}}};
const Param<std::uint64_t> kDispatchInstr{"aggregator.dispatch_instructions",
                                          46,
                                          "instructions",
                                          "firmware instructions to build one 64-byte dispatch packet and ring the "
                                          "doorbell, besides its stores (AArch64 -O2: 46; tools/firmware)",
                                          {{0}, {1u << 20}}};
const Param<std::uint64_t> kFreeInstr{"aggregator.free_instructions",
                                      25,
                                      "instructions",
                                      "firmware instructions per done-count block freed besides its stores (AArch64 "
                                      "-O2: 25; tools/firmware)",
                                      {{0}, {1u << 20}}};
const Param<std::uint64_t> kRestartInstr{"aggregator.restart_instructions",
                                         24,
                                         "instructions",
                                         "firmware instructions per restart context recorded and again per yielded "
                                         "wavefront restarted, besides their loads and stores (AArch64 -O2: 23 and "
                                         "25; tools/firmware)",
                                         {{0}, {1u << 20}}};
const Param<std::uint64_t> kCheckInstr{"aggregator.check_instructions",
                                       14,
                                       "instructions",
                                       "firmware instructions per channel in the end-of-graph check besides its load "
                                       "(AArch64 -O2: 14; tools/firmware)",
                                       {{0}, {1u << 20}}};
constexpr unsigned kPacketBytes = 64;  // an HSA AQL dispatch packet is 64 bytes
constexpr unsigned kPacketRing = 64;   // packets in the ring before it wraps
enum Activity { kPoll, kDispatch, kFree, kRestart, kCheck, kOther };
}  // namespace

std::uint32_t Scheduler::predicate(const chan::Channel& c, std::uint32_t ready, const View& v) {
  (void)c;
  if (ready >= v.width) return ready / v.width * v.width;
  if (ready > 0 && v.outstanding == 0 && !v.dispatched) return ready;
  return 0;
}

Aggregator::Params Aggregator::Params::from(const Config& cfg) {
  Params p;
  p.pass_instructions = static_cast<std::uint32_t>(kPassInstr.get(cfg));
  p.poll_instructions = static_cast<std::uint32_t>(kPollInstr.get(cfg));
  p.dispatch_instructions = static_cast<std::uint32_t>(kDispatchInstr.get(cfg));
  p.free_instructions = static_cast<std::uint32_t>(kFreeInstr.get(cfg));
  p.restart_instructions = static_cast<std::uint32_t>(kRestartInstr.get(cfg));
  p.check_instructions = static_cast<std::uint32_t>(kCheckInstr.get(cfg));
  return p;
}

Aggregator::Aggregator(sc_core::sc_module_name name, const Params& p, MemorySystem& mem, ctrl::ControlCore& core,
                       Dispatcher& dispatcher, std::uint32_t wave_width, yld::Engine* yield)
    : sc_module(name),
      Mechanism(kName),
      passes(StatGroup("aggregator"), "passes", "firmware passes (poll, dispatch, free)", ""),
      dispatches(StatGroup("aggregator"), "dispatches", "consumer kernels launched", ""),
      wavefronts(StatGroup("aggregator"), "wavefronts", "consumer wavefronts launched", ""),
      ces_dispatched(StatGroup("aggregator"), "ces_dispatched", "CEs handed to consumer wavefronts", ""),
      blocks_freed(StatGroup("aggregator"), "blocks_freed", "done-count blocks freed", ""),
      restart_contexts(StatGroup("aggregator"), "restart_contexts", "restart contexts read from the restart channel",
                       ""),
      restarts(StatGroup("aggregator"), "restarts", "yielded wavefronts restarted", ""),
      blocks_closed(StatGroup("aggregator"), "blocks_closed",
                    "partly allocated done-count blocks closed for a yielded wavefront (freed with their "
                    "unallocated CEs skipped)",
                    ""),
      ces_skipped(StatGroup("aggregator"), "ces_skipped", "unallocated CEs skipped by closed blocks", ""),
      busy_ns(StatGroup("aggregator"), "busy_ns", "firmware time dispatching, freeing and managing yields", "ns",
              [this] { return tick_to_ns(activity_[kDispatch] + activity_[kFree] + activity_[kRestart]); }),
      poll_ns(StatGroup("aggregator"), "poll_ns", "firmware time polling control tails", "ns",
              [this] { return tick_to_ns(activity_[kPoll]); }),
      dispatch_ns(StatGroup("aggregator"), "dispatch_ns", "firmware time dispatching", "ns",
                  [this] { return tick_to_ns(activity_[kDispatch]); }),
      free_ns(StatGroup("aggregator"), "free_ns", "firmware time reading done counts and freeing", "ns",
              [this] { return tick_to_ns(activity_[kFree]); }),
      restart_ns(StatGroup("aggregator"), "restart_ns",
                 "firmware time reading restart contexts and restarting yielded wavefronts", "ns",
                 [this] { return tick_to_ns(activity_[kRestart]); }),
      check_ns(StatGroup("aggregator"), "check_ns", "firmware time checking for the end of the graph", "ns",
               [this] { return tick_to_ns(activity_[kCheck]); }),
      blocked_ns(StatGroup("aggregator"), "gpu_blocked_ns",
                 "time from start to done with no consumer wavefront running (launched, not finished, not "
                 "yielded): the GPU waits for the aggregator (docs/channels.md)",
                 "ns", [this] { return tick_to_ns(blocked_); }),
      blocked_poll_ns(StatGroup("aggregator"), "gpu_blocked_poll_ns",
                      "gpu_blocked_ns while the firmware polled control tails (and its pass overhead)", "ns",
                      [this] { return tick_to_ns(blocked_by_[kPoll]); }),
      blocked_dispatch_ns(StatGroup("aggregator"), "gpu_blocked_dispatch_ns",
                          "gpu_blocked_ns while the firmware dispatched", "ns",
                          [this] { return tick_to_ns(blocked_by_[kDispatch]); }),
      blocked_free_ns(StatGroup("aggregator"), "gpu_blocked_free_ns",
                      "gpu_blocked_ns while the firmware read done counts and freed (deallocation)", "ns",
                      [this] { return tick_to_ns(blocked_by_[kFree]); }),
      blocked_restart_ns(StatGroup("aggregator"), "gpu_blocked_restart_ns",
                         "gpu_blocked_ns while the firmware read restart contexts and restarted wavefronts", "ns",
                         [this] { return tick_to_ns(blocked_by_[kRestart]); }),
      blocked_check_ns(StatGroup("aggregator"), "gpu_blocked_check_ns",
                       "gpu_blocked_ns while the firmware checked for the end of the graph", "ns",
                       [this] { return tick_to_ns(blocked_by_[kCheck]); }),
      blocked_other_ns(StatGroup("aggregator"), "gpu_blocked_other_ns",
                       "the rest of gpu_blocked_ns: the control core held by another firmware, completions the "
                       "firmware has not seen yet",
                       "ns", [this] { return tick_to_ns(blocked_by_[kOther]); }),
      run_ns(StatGroup("aggregator"), "run_ns", "time from start to done", "ns",
             [this] { return tick_to_ns(ended_ - started_); }),
      blocked_fraction(
          StatGroup("aggregator"), "gpu_blocked_fraction", "gpu_blocked_ns / run_ns", "",
          [this] { return ended_ > started_ ? static_cast<double>(blocked_) / (ended_ - started_) : 0.0; }),
      p_(p),
      cp_(core),
      fw_(core.attach("aggregator", p.poll_instructions + 1)),
      mem_(mem),
      dispatcher_(dispatcher),
      width_(wave_width),
      sched_(std::make_unique<Scheduler>()),
      yield_(yield && yield->enabled() ? yield : nullptr) {
  SC_HAS_PROCESS(Aggregator);
  SC_THREAD(run);
}

Aggregator::~Aggregator() = default;

void Aggregator::report_tasks(Gpu& g) {
  auto sum = [this](auto per_channel) {
    return [this, per_channel] {
      double s = 0;
      for (const chan::Channel* c : channel_ptrs_) s += per_channel(*c);
      return s;
    };
  };
  TaskMetrics::Sources src;
  src.created = sum([](const chan::Channel& c) { return static_cast<double>(c.enqueued.value()); });
  src.run = [this] { return static_cast<double>(ces_dispatched.value()); };
  src.control_instructions = [this] { return static_cast<double>(fw_.instructions.value()); };
  // Each CE written by its producer and read by its consumer; yielded contexts saved and restored.
  src.state_bytes = [this, ces = sum([](const chan::Channel& c) {
                             return static_cast<double>((c.enqueued.value() + c.dispatched.value()) * c.spec().ce_size);
                           })] {
    return ces() + (yield_ ? yield_->save_bytes.value() + yield_->restore_bytes.scalar() : 0.0);
  };
  // The CEs in use at the fullest poll of each channel, and every spill block.
  src.peak_storage_bytes = [this, ces = sum([](const chan::Channel& c) {
                                    return c.occupancy.max() * c.spec().ce_size;
                                  })] { return ces() + (yield_ ? yield_->spill_bytes.scalar() : 0.0); };
  tasks_ = std::make_unique<TaskMetrics>(g, kName, std::move(src));
}

std::string Aggregator::diagnose() const { return channels().empty() ? std::string() : where(); }

std::vector<std::string> Aggregator::summary_lines() const {
  std::vector<std::string> lines;
  if (channels().empty()) return lines;
  lines.push_back(fmt::format("{:<22}{} ({}): {} dispatches, {} wavefronts, {} passes; GPU blocked on it {:.1f}%",
                              "aggregator", cp_.core_name(), fmt::format("{:.0f} MHz", cp_.clock().mhz()),
                              dispatches.value(), wavefronts.value(), passes.value(),
                              100.0 * blocked_fraction.scalar()));
  if (yield_)
    lines.push_back(fmt::format("{:<22}{} yields, {} restarts, {:.1f} kB saved, {:.0f} ns yielded on average", "yield",
                                yield_->yields.value(), yield_->restarts.value(),
                                static_cast<double>(yield_->save_bytes.value()) / 1024.0, yield_->yielded_ns.mean()));
  for (const auto* c : channels())  // a space after a name as long as the column
    lines.push_back(fmt::format("{:<21} {} CEs produced, {} consumed, {} CAS ({} failed), peak {:.0f} of {} in use",
                                "channel " + c->spec().name, c->enqueued.value(), c->dispatched.value(),
                                c->cas_attempts.value(), c->cas_failures.value(), c->occupancy.max(),
                                c->spec().capacity));
  return lines;
}

namespace {
const RegisterMechanism kMechanism{
    {Aggregator::kName,
     "channels and the aggregator (Orr et al.): channel consumers dispatched by firmware on the control core",
     {ctrl::ControlCore::kName, yld::Engine::kName},
     [](Gpu& g) {
       auto a = std::make_unique<Aggregator>("aggregator", Aggregator::Params::from(g.config()), g.memory(),
                                             g.get<ctrl::ControlCore>("channels"), g.dispatcher(),
                                             g.cu(0).params().wavefront_width, g.find<yld::Engine>());
       a->report_tasks(g);
       return a;
     },
     {"aggregator.", "channel."},
     {},
     [](const Config& cfg) {
       const std::uint64_t align = std::max<std::uint64_t>(256, std::get<std::uint64_t>(cfg.value("gpu.line")));
       return (std::uint64_t{kPacketBytes} * kPacketRing + align - 1) / align * align;
     }}};
}  // namespace

chan::Channel& Aggregator::create_channel(chan::Spec spec, chan::Consumer consumer, const std::string& key) {
  chan::validate(spec, key);
  for (const auto& c : channels_)
    if (c->spec().name == spec.name) throw UserError(fmt::format("{}: a channel '{}' exists already", key, spec.name));
  const unsigned line = mem_.line_size();
  const std::uint64_t bytes = chan::Layout::bytes(spec, line);
  const std::uint64_t base = mem_.allocate(bytes);
  const std::vector<unsigned char> zero(bytes, 0);
  mem_.copy_in(base, zero.data(), bytes);
  const chan::Layout layout = chan::Layout::at(base, spec, line);
  channels_.push_back(std::make_unique<chan::Channel>(static_cast<std::uint32_t>(channels_.size()), std::move(spec),
                                                      layout, std::move(consumer)));
  channel_ptrs_.push_back(channels_.back().get());
  channels_.back()->yields = yield_ != nullptr;
  if (!packets_) packets_ = mem_.allocate(std::uint64_t{kPacketBytes} * kPacketRing);
  return *channels_.back();
}

void Aggregator::set_scheduler(std::unique_ptr<Scheduler> s) {
  sched_ = s ? std::move(s) : std::make_unique<Scheduler>();
  // The core's memory-level parallelism follows the polling loop's mix: one
  // device load per (instructions per channel + 1).
  fw_.set_instructions_per_load(sched_->poll_instructions(p_.poll_instructions) + 1);
}

void Aggregator::start() {
  if (running_) throw std::logic_error("aggregator started twice");
  if (channels_.empty()) throw std::logic_error("aggregator started without channels");
  running_ = true;
  if (yield_) yield_->prepare();
  const Tick now = sc_core::sc_time_stamp().value();
  cp_.advance_to(now);
  started_ = idle_since_ = cp_.time();
  blocked_ = 0;
  std::fill(std::begin(blocked_by_), std::end(blocked_by_), Tick{0});
  segs_.clear();
  dispatcher_.hold_cycle_sync(true);
  start_ev_.notify(sc_core::SC_ZERO_TIME);
}

void Aggregator::wait_done() {
  while (running_) sc_core::wait(done_ev_);
}

std::string Aggregator::where() const {
  std::string s = fmt::format(
      "aggregator ({}, {} MHz) {}, {} consumer wavefronts outstanding ({} yielded); channels:", cp_.core_name(),
      cp_.clock().mhz(), running_ ? "running" : "idle", outstanding_, yielded_.size());
  for (const auto* c : channel_ptrs_) {
    std::uint32_t w[2] = {};
    mem_.copy_out(&w[0], c->layout().data_tail, 4);
    mem_.copy_out(&w[1], c->layout().ctrl_tail, 4);
    s += fmt::format(" {} ({} of {} CEs in use, {} published, {} dispatched{});", c->spec().name, w[0] - c->data_head,
                     c->spec().capacity, w[1], c->ctrl_head,
                     c->skipped ? fmt::format(", {} skipped", c->skipped) : std::string());
  }
  return s;
}

// ---- the core's timing ------------------------------------------------------

void Aggregator::span(const char* what, Tick from) {
  if (!Trace::get().on() || cp_.time() <= from) return;
  if (track_ < 0) track_ = Trace::get().track("aggregator", "firmware");
  Trace::get().span(track_, what, from, cp_.time() - from);
}

// ---- the firmware -----------------------------------------------------------

void Aggregator::complete_until(Tick t) {
  while (!completions_.empty() && completions_.begin()->first <= t) {
    const auto [c, ch] = *completions_.begin();
    completions_.erase(completions_.begin());
    --ch->running;
    --outstanding_;
    if (consumers_running() == 0) idle_since_ = c;
  }
}

void Aggregator::start_running(std::uint64_t waves, int kind, Tick from) {
  if (consumers_running() == 0) add_blocked(kind, from);
  outstanding_ += waves;
}

void Aggregator::note(int kind, Tick from) {
  const Tick to = cp_.time();
  activity_[kind] += to - from;
  if (to > from) segs_.push_back(Seg{from, to, kind});
}

// The GPU was blocked from idle_since_ to now: split that time by the
// firmware's activity segments it overlaps (and the activity `kind` in
// progress since `from`, not yet noted); the rest is other (pass overhead
// before the poll is poll time; the rest: the core held by another firmware,
// completions not yet seen).
void Aggregator::add_blocked(int kind, Tick from) {
  const Tick a = idle_since_, b = cp_.time();
  if (b <= a) return;
  blocked_ += b - a;
  Tick covered = 0;
  auto overlap = [&](Tick f, Tick t, int k) {
    const Tick lo = std::max(f, a), hi = std::min(t, b);
    if (hi > lo) blocked_by_[k] += hi - lo, covered += hi - lo;
  };
  for (const Seg& g : segs_) overlap(g.from, g.to, g.kind);
  if (kind >= 0) overlap(from, b, kind);
  blocked_by_[kOther] += b - a - covered;
}

// Segments that no blocked interval can reach any more: before the blocked
// interval in progress, or before the earliest completion not yet seen (the
// time a blocked interval may start from).
void Aggregator::prune_segments() {
  Tick keep = cp_.time();
  if (consumers_running() == 0) keep = std::min(keep, idle_since_);
  if (!completions_.empty()) keep = std::min(keep, completions_.begin()->first);
  while (!segs_.empty() && segs_.front().to <= keep) segs_.pop_front();
}

void Aggregator::dispatch(chan::Channel& c, std::uint32_t n) {
  const Tick from = cp_.time();
  cp_.instr(p_.dispatch_instructions);
  // The dispatch packet, one cache line, then the channel's control head.
  unsigned char packet[kPacketBytes] = {};
  const std::uint32_t first = c.ctrl_head;
  std::memcpy(packet, &first, 4);
  std::memcpy(packet + 4, &n, 4);
  const std::uint64_t slot = packets_ + (packet_slot_++ % kPacketRing) * kPacketBytes;
  cp_.store(slot, packet, kPacketBytes);
  c.ctrl_head += n;
  cp_.store_word(c.layout().ctrl_head, c.ctrl_head);

  const std::uint64_t waves = (n + width_ - 1) / width_;
  start_running(waves, kDispatch, from);
  c.running += waves;
  ++dispatches, ++c.dispatches;
  wavefronts += waves, c.wavefronts += waves;
  ces_dispatched += n, c.dispatched += n;
  const chan::Consumer& cons = c.consumer();
  KernelLaunch k;
  k.name = cons.kernel;
  k.grid = n;
  k.group_size = width_;
  k.registers = cons.registers;
  k.context = cons.context;
  k.body = [body = cons.body, first](Lane& l) { return body(l, first + l.global_id()); };
  SubmitOptions o;
  o.at = cp_.time();
  o.launch_cycles = 0;  // the aggregator is the control processor: it has just paid the launch
  o.on_workgroup_done = [this, ch = &c](std::uint32_t, Tick t) { completions_.emplace(t, ch); };
  kernel_channel_[dispatcher_.submit(std::move(k), std::move(o)).id] = &c;
  note(kDispatch, from);
  span("dispatch", from);
}

bool Aggregator::read_restart_contexts(std::uint32_t tail) {
  if (tail == restart_head_) return false;
  const Tick from = cp_.time();
  rc_addrs_.clear();
  for (std::uint32_t i = restart_head_; i != tail; ++i)
    for (unsigned w = 0; w < yld::Engine::kEntryWords; ++w) rc_addrs_.push_back(yield_->entry_addr(i) + 4 * w);
  cp_.load_words(rc_addrs_, rc_vals_);
  for (std::size_t k = 0; k < rc_vals_.size(); k += yld::Engine::kEntryWords) {
    cp_.instr(p_.restart_instructions);
    const yld::Restart r{rc_vals_[k] | std::uint64_t{rc_vals_[k + 1]} << 32, rc_vals_[k + 2], rc_vals_[k + 3],
                         rc_vals_[k + 4]};
    auto own = kernel_channel_.find(r.kernel);
    if (r.resource >= channel_ptrs_.size() || own == kernel_channel_.end())
      throw SimFault(
          fmt::format("yield: a restart context names channel {} and dispatch {}: not a channel of this "
                      "graph ({} channels) or not a consumer the aggregator launched",
                      r.resource, r.kernel, channel_ptrs_.size()));
    ++own->second->yielded;
    yielded_.push_back(r);
    ++restart_contexts;
    if (consumers_running() == 0) idle_since_ = cp_.time();  // every launched consumer has now yielded
  }
  restart_head_ = tail;
  cp_.store_word(yield_->ring_head_addr(), tail);
  recheck_ = true;
  note(kRestart, from);
  span("restart contexts", from);
  return true;
}

bool Aggregator::restart_ready() {
  const Tick from = cp_.time();
  recheck_ = false;
  // The data tail of each channel a yielded wavefront waits for: its room.
  rc_chans_.clear();
  rc_addrs_.clear();
  for (const yld::Restart& r : yielded_) {
    chan::Channel* c = channel_ptrs_[r.resource];
    if (std::find(rc_chans_.begin(), rc_chans_.end(), c) != rc_chans_.end()) continue;
    rc_chans_.push_back(c);
    rc_addrs_.push_back(c->layout().data_tail);
  }
  cp_.load_words(rc_addrs_, rc_vals_);
  rc_tails_ = rc_vals_;
  for (std::size_t i = 0; i < rc_chans_.size(); ++i)
    rc_vals_[i] = rc_chans_[i]->spec().capacity - (rc_vals_[i] - rc_chans_[i]->data_head);  // room
  bool any = false;
  for (auto it = yielded_.begin(); it != yielded_.end();) {
    const std::size_t i = static_cast<std::size_t>(
        std::find(rc_chans_.begin(), rc_chans_.end(), channel_ptrs_[it->resource]) - rc_chans_.begin());
    if (it->need > rc_vals_[i]) {
      ++it;
      continue;
    }
    rc_vals_[i] -= it->need;
    cp_.instr(p_.restart_instructions);
    // The restart request to the CU's front end, then the CU restores it.
    const std::uint64_t slot = packets_ + (packet_slot_++ % kPacketRing) * kPacketBytes;
    cp_.store_word(slot, static_cast<std::uint32_t>(it->spill));
    const std::uint64_t spill = it->spill;
    if (consumers_running() == 0) add_blocked(kRestart, from);
    --kernel_channel_.at(it->kernel)->yielded;
    it = yielded_.erase(it);
    ++restarts;
    yield_->restart(spill, cp_.time());
    any = true;
  }
  note(kRestart, from);
  span("restart", from);
  // Waiters that still do not fit: a block only partly allocated is freed
  // only once the rest of it is allocated and done, which a waiter needing
  // more than the rest never lets happen (Sec. 5.3's progress argument needs
  // the space the base cases free to come back).
  for (std::size_t i = 0; i < rc_chans_.size(); ++i) {
    chan::Channel& c = *rc_chans_[i];
    const std::uint32_t room = rc_vals_[i];
    if (room != c.spec().capacity - (rc_tails_[i] - c.data_head)) continue;  // a waiter restarted: it reserves next
    const bool short_of_room = std::any_of(
        yielded_.begin(), yielded_.end(), [&](const yld::Restart& r) { return r.resource == c.id() && r.need > room; });
    if (short_of_room && close_block(c, rc_tails_[i])) any = true;
  }
  return any;
}

bool Aggregator::close_block(chan::Channel& c, std::uint32_t tail) {
  const std::uint32_t in_use = tail - c.data_head, block = c.spec().done_count;
  // Only the oldest block, only partly allocated, and every CE allocated in
  // it published and dispatched (none is between a talloc and its enq).
  if (in_use == 0 || in_use >= block || c.ctrl_head + c.skipped != tail) return false;
  const Tick from = cp_.time();
  cp_.instr(p_.free_instructions);
  const std::uint32_t done = cp_.load_word(c.layout().done_addr(c.data_head));
  bool closed = false;
  if (done == in_use) {
    const std::uint32_t end = c.data_head + block;
    // A producer that reserved since the tail was read wins: the block is
    // then allocated further and freed as usual.
    closed = cp_.atomic_word(c.layout().data_tail, AtomicOp::Cas, end, tail) == tail;
    if (closed) {
      cp_.store_word(c.layout().done_addr(c.data_head), 0);
      c.data_head = end;
      cp_.store_word(c.layout().data_head, c.data_head);
      c.skipped += block - in_use;
      ++blocks_closed;
      ces_skipped += block - in_use;
      ++blocks_freed;
      c.freed += in_use;
      recheck_ = true;
    }
  }
  note(kFree, from);
  span("close block", from);
  return closed;
}

void Aggregator::yield_deadlock() {
  std::string s = fmt::format(
      "yield: {} consumer wavefronts yielded, none can be restarted and no other consumer runs (a deadlock: "
      "raise the capacity of the channels they wait for):",
      yielded_.size());
  for (const chan::Channel* c : channel_ptrs_) {
    std::uint64_t waves = 0, need = 0;
    for (const yld::Restart& r : yielded_)
      if (r.resource == c->id()) ++waves, need += r.need;
    if (!waves) continue;
    std::uint32_t tail = 0;
    mem_.copy_out(&tail, c->layout().data_tail, 4);
    s += fmt::format(" channel '{}' ({} of {} CEs in use) is awaited by {} wavefronts needing {} CEs;", c->spec().name,
                     tail - c->data_head, c->spec().capacity, waves, need);
  }
  constexpr std::size_t kShown = 4;
  for (std::size_t i = 0; i < yielded_.size() && i < kShown; ++i) s += "\n  " + yield_->describe(yielded_[i].spill);
  if (yielded_.size() > kShown) s += fmt::format("\n  ... and {} more", yielded_.size() - kShown);
  throw SimFault(s);
}

void Aggregator::scheduler_stall(const std::vector<std::uint32_t>& tails) {
  std::string s = fmt::format(
      "aggregator: the scheduler '{}' dispatches none of the ready CEs and no consumer runs or has yielded (a "
      "deadlock of the scheduling policy):",
      sched_->name());
  for (std::size_t i = 0; i < channel_ptrs_.size(); ++i)
    if (tails[i] != channel_ptrs_[i]->ctrl_head + channel_ptrs_[i]->skipped)
      s += fmt::format(" channel '{}' has {} ready;", channel_ptrs_[i]->spec().name,
                       tails[i] - channel_ptrs_[i]->ctrl_head - channel_ptrs_[i]->skipped);
  throw SimFault(s);
}

void Aggregator::run() {
  run_guarded([&] {
    // Scratch lists are members: this thread never returns, and its stack is
    // not unwound when the simulation ends (LeakSanitizer).
    auto& order = order_;
    auto& addrs = addrs_;
    auto& vals = vals_;
    auto& cand = cand_;
    for (;;) {
      while (!running_) sc_core::wait(start_ev_);
      cp_.sync();
      for (;;) {
        // One pass holds the control core; another firmware may run between passes.
        cp_.acquire(fw_);
        cp_.sync();
        ++passes;
        prune_segments();
        Tick from = cp_.time();
        cp_.instr(sched_->pass_instructions(p_.pass_instructions));
        complete_until(cp_.time());
        // 1-2. Poll the control tails the policy lists; dispatch.
        order.clear();
        sched_->order(channel_ptrs_, order);
        addrs.clear();
        for (const auto* c : order) addrs.push_back(c->layout().ctrl_tail);
        if (yield_) addrs.push_back(yield_->ring_tail_addr());  // the restart channel (Fig. 13, 3)
        cp_.load_words(addrs, vals);
        note(kPoll, from);
        // Restart contexts new in this pass: the control tails above were
        // read before some of them arrived, so what their wavefronts
        // published before yielding may not show until the next pass.
        const bool fresh = yield_ && read_restart_contexts(vals.back());
        bool acted = false;
        View v{width_, consumers_running(), false};
        for (std::size_t i = 0; i < order.size(); ++i) {
          chan::Channel& c = *order[i];
          const Tick p0 = cp_.time();
          cp_.instr(sched_->poll_instructions(p_.poll_instructions));
          note(kPoll, p0);
          ++c.polls;
          std::uint32_t data_tail = 0;
          mem_.copy_out(&data_tail, c.layout().data_tail, 4);  // statistics only: no time
          c.occupancy.sample(static_cast<double>(data_tail - c.data_head));
          c.last_tail = vals[i];
          const std::uint32_t ready = vals[i] - c.ctrl_head;
          const std::uint32_t n = std::min(ready, sched_->predicate(c, ready, v));
          if (n == 0) continue;
          dispatch(c, n);
          acted = true;
          v.dispatched = true;
          v.outstanding = consumers_running();
          if (sched_->stop_after_dispatch(c)) break;
        }
        // 3. Free in allocation order: a channel's oldest block, once every
        // one of its CEs has been dispatched (ctrl_head - data_head >= block)
        // and counted done.
        for (;;) {
          cand.clear();
          addrs.clear();
          for (auto* c : channel_ptrs_)
            if (c->ctrl_head + c->skipped - c->data_head >= c->spec().done_count) {
              cand.push_back(c);
              addrs.push_back(c->layout().done_addr(c->data_head));
            }
          if (cand.empty()) break;
          from = cp_.time();
          cp_.load_words(addrs, vals);
          bool freed = false;
          for (std::size_t i = 0; i < cand.size(); ++i) {
            chan::Channel& c = *cand[i];
            if (vals[i] < c.spec().done_count) continue;
            if (vals[i] > c.spec().done_count)
              throw SimFault(
                  fmt::format("channel '{}': done count {} of the block at CE {} is above the block size "
                              "{} (a CE freed twice)",
                              c.spec().name, vals[i], c.data_head, c.spec().done_count));
            cp_.instr(p_.free_instructions);
            cp_.store_word(c.layout().done_addr(c.data_head), 0);
            c.data_head += c.spec().done_count;
            cp_.store_word(c.layout().data_head, c.data_head);
            ++blocks_freed;
            c.freed += c.spec().done_count;
            freed = acted = recheck_ = true;
          }
          note(kFree, from);
          span("free", from);
          if (!freed) break;
        }
        // Restart yielded wavefronts whose channels have room now (only
        // frees make room; new arrivals are checked once).
        if (!yielded_.empty() && (recheck_ || consumers_running() == 0)) acted = restart_ready() || acted;
        // Every consumer that launched has yielded, none can be restarted,
        // and nothing was dispatched or freed: nothing will change.
        if (!acted && !fresh && consumers_running() == 0 && !yielded_.empty()) yield_deadlock();
        // 4. The end: nothing outstanding, nothing dispatched, and every CE
        // ever allocated has been dispatched.
        if (!acted && outstanding_ == 0) {
          from = cp_.time();
          addrs.clear();
          for (const auto* c : channel_ptrs_) addrs.push_back(c->layout().data_tail);
          cp_.load_words(addrs, vals);
          cp_.instr(static_cast<std::uint64_t>(p_.check_instructions) * channel_ptrs_.size());
          bool empty = true;
          for (std::size_t i = 0; i < channel_ptrs_.size(); ++i) {
            const chan::Channel& c = *channel_ptrs_[i];
            empty = empty && vals[i] == c.ctrl_head + c.skipped;
            // No consumer is running, so no producer is between talloc and
            // enq: every reserved CE must have been published.
            if (vals[i] != c.last_tail + c.skipped)
              throw SimFault(fmt::format(
                  "channel '{}': {} CEs reserved (data tail) but {} published (control tail) and no consumer is "
                  "running: a talloc without its enq, or an enq of CEs allocated elsewhere",
                  c.spec().name, vals[i] - c.skipped, c.last_tail));
          }
          note(kCheck, from);
          // CEs are ready, no consumer runs or waits, and the scheduler
          // took none of them this pass: its predicates see the same state
          // in every later pass, so nothing will ever change.
          if (!empty) scheduler_stall(vals);
          add_blocked();
          ended_ = cp_.time();
          running_ = false;
          dispatcher_.hold_cycle_sync(false);
          const Tick now = sc_core::sc_time_stamp().value();
          done_ev_.notify(sc_core::sc_time::from_value(cp_.time() - now));
          cp_.release(fw_);
          break;
        }
        cp_.release(fw_);
      }
    }
  });
}

}  // namespace fg::agg
