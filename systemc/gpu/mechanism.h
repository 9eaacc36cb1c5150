// SPDX-License-Identifier: Apache-2.0
// Mechanisms as plug-ins of the GPU.
//
// A mechanism (the hardware worklist, the aggregator with its channels, the
// yield engine, the control core, the cooperative scheduler, ...) is an
// extension of one GPU. It registers itself by name with a RegisterMechanism
// object (like a workload or a device-operation unit), and the GPU builds it
// from configuration only when a run uses it: the workload names the
// mechanisms it needs for its configuration (WorkloadInfo::mechanisms), and
// `gpu.mechanisms` adds more. What the GPU's assembly used to do for each
// mechanism by name goes through this one interface: build and wire
// (MechanismInfo::build, with the Gpu it extends), diagnose (deadlock and
// watchdog messages), summary lines, statistics (registered by the mechanism
// when built; its task metrics under `tasks.<name>`, gpu/task_metrics.h) and
// end-of-run checks.
//
// Units and workloads reach the mechanism of the GPU they run on through a
// typed lookup: `c.gpu().get<wl::Worklist>("wlpull")` in a unit's issue(),
// `h.gpu().find<agg::Aggregator>()` on the host. Nothing is process-global.
//
//   class Counter final : public Mechanism {      // a mechanism
//    public:
//     static constexpr const char* kName = "counter";
//     Counter() : Mechanism(kName) {}
//     std::uint64_t n = 0;
//   };
//   const RegisterMechanism reg{{Counter::kName, "counts something", {},
//                                [](Gpu&) { return std::make_unique<Counter>(); }}};
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/error.h"

namespace fg {

class Config;
class Gpu;

class Mechanism {
 public:
  explicit Mechanism(std::string name) : name_(std::move(name)) {}
  virtual ~Mechanism() = default;
  Mechanism(const Mechanism&) = delete;
  Mechanism& operator=(const Mechanism&) = delete;
  const std::string& name() const { return name_; }
  // What it holds and why its wavefronts wait, for deadlock and watchdog
  // messages (one or more lines; empty: nothing to say).
  virtual std::string diagnose() const { return {}; }
  // Lines for the end-of-run summary (empty when the run did not use it).
  virtual std::vector<std::string> summary_lines() const { return {}; }
  // After the workload finished: a SimFault if the mechanism was left in a
  // state the run cannot have meant (work left inside, ...).
  virtual void end_of_run() {}
  // After every run, however it ended, when the outputs are committed:
  // completes the files the mechanism writes itself (the worklist's --vcd
  // waveform); a write error is a UserError naming the option and the file.
  virtual void close_outputs() {}

 private:
  std::string name_;
};

struct MechanismInfo {
  std::string name;
  std::string description;  // one line, for `fgsim list`
  // Mechanisms built before this one (this one's build finds them on the Gpu).
  std::vector<std::string> needs;
  std::function<std::unique_ptr<Mechanism>(Gpu&)> build;
  // Prefixes of its parameters ("worklist."): a run that does not build the
  // mechanism refuses them when the user sets them (they would be ignored).
  std::vector<std::string> params;
  // Optional: more lines for `fgsim list` (e.g. the Verilated configurations).
  std::function<void(std::ostream&)> list = {};
  // Optional: the device memory the mechanism allocates for a configuration
  // (rings, queues), added to the workload's before the run is checked
  // against gpu.mem.size and sim.max_memory. Empty: a few kilobytes.
  std::function<std::uint64_t(const Config&)> device_bytes = {};
  // A runtime in device software (the fork-join runtime): it adds no
  // hardware, and its parameters act only on the programs a workload runs
  // on it. A run of a workload that declares its mechanisms (fgsim run) and
  // does not use this one refuses its user-set parameters even when
  // gpu.mechanisms builds it (they would be ignored).
  bool software = false;
};

class MechanismRegistry {
 public:
  static MechanismRegistry& global();
  void add(MechanismInfo m);
  const MechanismInfo* find(const std::string& name) const;
  const std::map<std::string, MechanismInfo>& all() const { return all_; }
  // `names` and what they require, each once, every mechanism after the ones
  // it requires (then in name order). Throws UserError naming `origin` for an
  // unknown name.
  std::vector<const MechanismInfo*> closure(const std::vector<std::string>& names, const std::string& origin) const;

 private:
  std::map<std::string, MechanismInfo> all_;
};

struct RegisterMechanism {
  explicit RegisterMechanism(MechanismInfo m) { MechanismRegistry::global().add(std::move(m)); }
};

// The mechanisms of one GPU, in build order.
class Mechanisms {
 public:
  void add(std::unique_ptr<Mechanism> m) { all_.push_back(std::move(m)); }
  const std::vector<std::unique_ptr<Mechanism>>& all() const { return all_; }
  bool has(std::string_view name) const {
    for (const auto& m : all_)
      if (m->name() == name) return true;
    return false;
  }
  // The mechanism of type M, or nullptr when this GPU has none.
  template <class M>
  M* find() const {
    for (const auto& m : all_)
      if (auto* p = dynamic_cast<M*>(m.get())) return p;
    return nullptr;
  }
  // The mechanism of type M; a simulated fault naming `what` (the operation
  // or workload that needs it) when this GPU has none.
  template <class M>
  M& get(std::string_view what) const {
    if (M* p = find<M>()) return *p;
    throw SimFault(std::string(what) + ": this GPU has no " + M::kName + " (the workload does not use it; " +
                   "gpu.mechanisms adds it)");
  }

 private:
  std::vector<std::unique_ptr<Mechanism>> all_;
};

}  // namespace fg
