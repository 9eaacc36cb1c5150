// SPDX-License-Identifier: Apache-2.0
// The GPU's control core: the programmable processor that firmware runs on
// (the command processor; Orr et al., ISCA 2014, Secs. 3.1, 7.2, 8.3). It has
// its own clock and its own L1 on the coherent L2, and a core class (Table 5:
// simple / light-ooo-2 / ooo-2 / ooo-4) that sets how fast firmware code runs.
// The channel aggregator is one firmware on it; the cooperative-kernel
// scheduler is another. Firmware is C++ whose every step charges the core:
//
//   ctrl::Firmware& fw = core.attach("aggregator", 9);  // its stats group, instructions per load
//   core.acquire(fw);                 // time-sliced: wait while another firmware holds the core
//   core.instr(16);                   // 16 instructions at the core class's sustained IPC
//   core.load_words(addrs, values);   // independent loads through the core's L1, up to its MLP in flight
//   core.store_word(addr, v);         // a store (posted, or waited for on `simple`)
//   core.release(fw);                 // at the end of a pass: another firmware may run
//
// Timing contract: the core keeps a local time, advanced by the costs of the
// firmware holding it. Every memory access takes effect at its simulated time
// (the core brings SystemC time up to it first), so firmware polling what the
// CUs publish sees it in simulated-time order. Costs are charged to whichever
// firmware holds the core; each has its own counters (<group>.instructions,
// .loads, .stores, .held_ns) and the core sums them (ctrl.*).
//
// Core classes (ctrl.core; derivation in docs/channels.md): sustained IPC =
// min(issue width, sqrt(window)) by the square-root law of instruction-level
// parallelism, window = min(IQ, ROB); loads in flight = min(load queue,
// max(1, ROB / instructions per load)), where the instruction mix is the
// firmware's own. `simple` is not pipelined: 5 cycles per instruction, one
// access at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gpu/mechanism.h"
#include "mem/mem_ext.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace fg {
class MemPort;
class MemorySystem;
}  // namespace fg

namespace fg::ctrl {

struct CoreClass {
  std::string name;
  unsigned width = 1, iq = 1, rob = 1, lq = 1, sq = 1;
  bool pipelined = true;
  double ipc = 1.0;  // sustained instructions per cycle (derived)
  unsigned mlp = 1;  // loads in flight (derived from the firmware's mix)
  // One of simple, light-ooo-2, ooo-2, ooo-4; `instructions_per_load` is the
  // firmware's instruction mix (its poll instructions + the load).
  static CoreClass named(const std::string& name, unsigned instructions_per_load);
};

class ControlCore;

// One firmware's account on the core: its core-class view (its MLP follows
// its instruction mix) and what it was charged.
class Firmware {
 public:
  Firmware(ControlCore& core, const std::string& name, unsigned instructions_per_load);
  const std::string& name() const { return name_; }
  const CoreClass& core() const { return class_; }
  // The firmware's mix changed (its MLP follows it).
  void set_instructions_per_load(unsigned n) { class_ = CoreClass::named(core_name_, n); }
  Counter instructions, loads, stores;
  Formula held_ns;

 private:
  friend class ControlCore;
  std::string name_, core_name_;
  CoreClass class_;
  Tick held_ = 0, since_ = 0;
  sc_core::sc_event written_;  // wait_for_write
};

// The mechanism "control_core" (gpu/mechanism.h): built when a firmware
// mechanism needs it (the aggregator, the cooperative scheduler).
class ControlCore : public Mechanism {
 public:
  static constexpr const char* kName = "control_core";
  struct Params {
    std::string core = "ooo-2";
    double mhz = 2000;
    static Params from(const Config& cfg);
  };
  ControlCore(const Params& p, MemPort& port, MemorySystem& mem);
  ~ControlCore() override;

  const Clock& clock() const { return clock_; }
  const std::string& core_name() const { return p_.core; }
  // A firmware's account (its statistics under `group`); valid for the core's lifetime.
  Firmware& attach(const std::string& group, unsigned instructions_per_load);

  // ---- time slicing (from the firmware's own SystemC thread) ----
  // Wait until no other firmware holds the core, then hold it; the core's
  // time becomes at least SystemC time.
  void acquire(Firmware& fw);
  void release(Firmware& fw);
  const Firmware* holder() const { return holder_; }

  // ---- the cost model (the holder is charged) ----
  Tick time() const { return t_; }
  // Let the core's time be at least `t` (an event the firmware waited for).
  void advance_to(Tick t) { t_ = std::max(t_, t); }
  // Bring SystemC time up to the core's time (or the core's up to SystemC's).
  void sync();
  // Wait until SystemC time reaches t (if it is behind); returns SystemC time.
  Tick sync_to(Tick t);
  // n instructions at the core's sustained IPC.
  void instr(std::uint32_t n);
  // Independent loads of 32-bit words through the core's L1, issued one per
  // instruction slot, at most the holder's MLP in flight; each takes effect
  // at its simulated time.
  void load_words(const std::vector<std::uint64_t>& addrs, std::vector<std::uint32_t>& out);
  std::uint32_t load_word(std::uint64_t addr);
  // A store of `bytes`: one instruction per cache line it covers (posted on
  // a pipelined core, waited for on `simple`).
  void store(std::uint64_t addr, const void* data, unsigned bytes);
  void store_word(std::uint64_t addr, std::uint32_t v) { store(addr, &v, 4); }
  // A 32-bit atomic through the core's L1 (waited for: its old value is used); returns the old value.
  std::uint32_t atomic_word(std::uint64_t addr, AtomicOp op, std::uint32_t operand, std::uint32_t compare = 0);
  // The firmware waits for a write to the word at `addr` (its next poll can see
  // something new; the polls in between are not issued, as Lane::spin_until):
  // releases the core, waits, and holds it again. The core's time is then the
  // write's time.
  void wait_for_write(Firmware& fw, std::uint64_t addr);

  Formula instructions, loads, stores;

 private:
  Firmware& charged();
  Params p_;
  Clock clock_;
  MemPort& port_;
  MemorySystem& mem_;
  Tick t_ = 0;  // the core's local time (ps)
  Firmware* holder_ = nullptr;
  unsigned waiting_ = 0;  // firmware waiting in acquire()
  std::vector<std::unique_ptr<Firmware>> firmware_;
  std::vector<Tick> done_;
  std::vector<std::uint64_t> one_addr_;
  std::vector<std::uint32_t> one_val_;
  sc_core::sc_event free_;
};

}  // namespace fg::ctrl
