// SPDX-License-Identifier: Apache-2.0
#include "ctrl/control_core.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpu/gpu.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/error.h"

namespace fg::ctrl {

namespace {
// Table 5 (Sec. 8.3): 2-way OoO "was used to generate the results reported".
const Param<std::string> kCore{"ctrl.core", "ooo-2",
                               std::vector<std::string>{"simple", "light-ooo-2", "ooo-2", "ooo-4"},
                               "control-core class (Orr et al. Table 5): simple (not pipelined), light-ooo-2, "
                               "ooo-2 (the paper's default), ooo-4"};
// Table 2: "Aggregator Clock 2GHz".
const Param<double> kClock{
    "ctrl.clock", 2000.0, "MHz", "control-core clock (Orr et al. Table 2: the aggregator at 2 GHz)", {{1}, {100000}}};
// The names these had while the aggregator was the only firmware.
const ParamAlias kCoreAlias{"aggregator.core", "ctrl.core"};
const ParamAlias kClockAlias{"aggregator.clock", "ctrl.clock"};
}  // namespace

CoreClass CoreClass::named(const std::string& name, unsigned instructions_per_load) {
  CoreClass c;
  c.name = name;
  if (name == "simple") {
    c.pipelined = false;
  } else if (name == "light-ooo-2") {
    c.width = 2, c.iq = 2, c.rob = 8, c.lq = 8, c.sq = 8;
  } else if (name == "ooo-2") {
    c.width = 2, c.iq = 32, c.rob = 64, c.lq = 32, c.sq = 32;
  } else if (name == "ooo-4") {
    c.width = 4, c.iq = 64, c.rob = 128, c.lq = 64, c.sq = 64;
  } else {
    throw UserError(fmt::format("ctrl.core: unknown core class '{}'", name));
  }
  if (!c.pipelined) {
    c.ipc = 1.0 / 5.0;  // five stages executed one after the other
    c.mlp = 1;
  } else {
    c.ipc = std::min<double>(c.width, std::sqrt(static_cast<double>(std::min(c.iq, c.rob))));
    c.mlp = std::min(c.lq, std::max(1u, c.rob / std::max(1u, instructions_per_load)));
  }
  return c;
}

Firmware::Firmware(ControlCore& core, const std::string& name, unsigned instructions_per_load)
    : instructions(StatGroup(name), "instructions", "firmware instructions executed on the control core", ""),
      loads(StatGroup(name), "loads", "firmware loads through the control core's L1", ""),
      stores(StatGroup(name), "stores", "firmware stores through the control core's L1", ""),
      held_ns(StatGroup(name), "held_ns", "time this firmware held the control core", "ns",
              [this] { return tick_to_ns(held_); }),
      name_(name),
      core_name_(core.core_name()),
      class_(CoreClass::named(core.core_name(), instructions_per_load)) {}

ControlCore::Params ControlCore::Params::from(const Config& cfg) {
  Params p;
  p.core = kCore.get(cfg);
  p.mhz = kClock.get(cfg);
  return p;
}

ControlCore::ControlCore(const Params& p, MemPort& port, MemorySystem& mem)
    : Mechanism(kName),
      instructions(StatGroup("ctrl"), "instructions", "instructions of every firmware on the control core", "",
                   [this] {
                     double s = 0;
                     for (const auto& f : firmware_) s += static_cast<double>(f->instructions.value());
                     return s;
                   }),
      loads(StatGroup("ctrl"), "loads", "loads of every firmware through the control core's L1", "",
            [this] {
              double s = 0;
              for (const auto& f : firmware_) s += static_cast<double>(f->loads.value());
              return s;
            }),
      stores(StatGroup("ctrl"), "stores", "stores of every firmware through the control core's L1", "",
             [this] {
               double s = 0;
               for (const auto& f : firmware_) s += static_cast<double>(f->stores.value());
               return s;
             }),
      p_(p),
      clock_(p.mhz),
      port_(port),
      mem_(mem) {
  CoreClass::named(p.core, 1);  // an unknown class: exit 2 before the run
}

ControlCore::~ControlCore() = default;

Firmware& ControlCore::attach(const std::string& group, unsigned instructions_per_load) {
  firmware_.push_back(std::make_unique<Firmware>(*this, group, instructions_per_load));
  return *firmware_.back();
}

Firmware& ControlCore::charged() {
  if (!holder_) throw std::logic_error("control core: firmware code ran without holding the core");
  return *holder_;
}

void ControlCore::acquire(Firmware& fw) {
  if (holder_ == &fw) throw std::logic_error(fmt::format("control core: {} acquired it twice", fw.name()));
  ++waiting_;
  while (holder_) sc_core::wait(free_);
  --waiting_;
  holder_ = &fw;
  t_ = std::max<Tick>(t_, sc_core::sc_time_stamp().value());
  fw.since_ = t_;
}

void ControlCore::release(Firmware& fw) {
  if (holder_ != &fw) throw std::logic_error(fmt::format("control core: {} released it without holding it", fw.name()));
  holder_ = nullptr;
  fw.held_ += t_ - fw.since_;
  // Another firmware may take the core from the time this one is done. Only
  // when one waits: a notification is an event of the simulation kernel (a
  // delta cycle at its time), which the CUs' tie order counts
  // (ComputeUnit::order_ties), so a lone firmware must not add any.
  if (!waiting_) return;
  const Tick now = sc_core::sc_time_stamp().value();
  free_.notify(sc_core::sc_time::from_value(t_ > now ? t_ - now : 0));
}

void ControlCore::sync() {
  const Tick now = sc_core::sc_time_stamp().value();
  if (t_ > now)
    sc_core::wait(sc_core::sc_time::from_value(t_ - now));
  else
    t_ = now;
}

Tick ControlCore::sync_to(Tick t) {
  const Tick now = sc_core::sc_time_stamp().value();
  if (t <= now) return now;
  sc_core::wait(sc_core::sc_time::from_value(t - now));
  return t;
}

void ControlCore::instr(std::uint32_t n) {
  Firmware& fw = charged();
  fw.instructions += n;
  t_ += static_cast<Tick>(std::llround(static_cast<double>(n) * static_cast<double>(clock_.period()) / fw.class_.ipc));
}

void ControlCore::load_words(const std::vector<std::uint64_t>& addrs, std::vector<std::uint32_t>& out) {
  Firmware& fw = charged();
  const CoreClass& c = fw.class_;
  out.assign(addrs.size(), 0);
  const Tick step = static_cast<Tick>(std::llround(static_cast<double>(clock_.period()) / c.ipc));
  std::vector<Tick>& done = done_;  // a member: the thread may end suspended in here
  done.clear();
  Tick issue = t_, end = t_;
  for (std::size_t i = 0; i < addrs.size(); ++i) {
    if (i >= c.mlp) issue = std::max(issue, done[i - c.mlp]);  // a load-queue entry frees
    // Every access takes effect at its simulated time: the firmware polls
    // what the CUs publish, so it must not read ahead of them (as
    // sim.order_memory does for the CUs).
    const Tick now = sync_to(issue);
    const Tick c_done = now + port_.read(addrs[i], &out[i], 4, sc_core::sc_time::from_value(issue - now)).value();
    ++fw.loads;
    done.push_back(c_done);
    end = std::max(end, c_done);
    issue += step;
  }
  t_ = std::max(end, issue);
}

std::uint32_t ControlCore::load_word(std::uint64_t addr) {
  one_addr_.assign(1, addr);
  load_words(one_addr_, one_val_);
  return one_val_[0];
}

void ControlCore::store(std::uint64_t addr, const void* data, unsigned bytes) {
  // One store per cache line the bytes cover: the aggregator's 64-byte
  // dispatch packet is four with gpu.line = 16 (it was one request across
  // lines, which the L1 refuses: an internal error).
  const std::uint64_t line = mem_.line_size();
  const auto* p = static_cast<const unsigned char*>(data);
  for (unsigned off = 0; off < bytes;) {
    const std::uint64_t a = addr + off;
    const auto len = static_cast<unsigned>(std::min<std::uint64_t>(line - a % line, bytes - off));
    Firmware& fw = charged();
    const Tick now = sync_to(t_);
    const Tick c = now + port_.write(a, p + off, len, sc_core::sc_time::from_value(t_ - now)).value();
    ++fw.stores;
    instr(1);
    if (!fw.class_.pipelined) t_ = std::max(t_, c);  // one instruction at a time: the store completes first
    off += len;
  }
}

std::uint32_t ControlCore::atomic_word(std::uint64_t addr, AtomicOp op, std::uint32_t operand, std::uint32_t compare) {
  Firmware& fw = charged();
  const Tick now = sync_to(t_);
  std::uint64_t old = 0;
  const Tick c = now + port_.atomic(addr, op, 4, operand, compare, old, sc_core::sc_time::from_value(t_ - now)).value();
  ++fw.stores;
  instr(1);
  t_ = std::max(t_, c);  // the firmware uses the old value
  return static_cast<std::uint32_t>(old);
}

void ControlCore::wait_for_write(Firmware& fw, std::uint64_t addr) {
  Firmware* f = &fw;
  mem_.store().watch(addr, 4, [f] { f->written_.notify(sc_core::SC_ZERO_TIME); });
  release(fw);
  sc_core::wait(fw.written_);
  acquire(fw);
}

namespace {
// The control core has its own L1 on the coherent L2, in its own clock
// domain. Orr et al.'s Table 2 gives the aggregator the CU L1's geometry (16
// kB, 64 B, 16-way, 4 cycles), so it takes the CU L1's parameters.
const RegisterMechanism kMechanism{
    {ControlCore::kName,
     "the GPU's control core that firmware runs on (Orr et al. Table 5 core classes), with its L1",
     {},
     [](Gpu& g) {
       const ControlCore::Params p = ControlCore::Params::from(g.config());
       return std::make_unique<ControlCore>(p, g.agent_port("ctrl", "ctrl.l1", Clock(p.mhz)), g.memory());
     },
     {"ctrl."},
     {}}};
}  // namespace

}  // namespace fg::ctrl
