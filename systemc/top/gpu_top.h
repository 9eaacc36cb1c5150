// SPDX-License-Identifier: Apache-2.0
// The modelled GPU assembled from configuration: the memory system, one
// memory port and compute unit per CU, the front end, and the mechanisms the
// run uses, built through the mechanism registry (gpu/mechanism.h). This file
// names no mechanism.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/config.h"
#include "sim/time.h"

namespace fg {

// The names `gpu.mechanisms` gives (comma-separated; unchecked).
std::vector<std::string> extra_mechanisms(const Config& cfg);

class GpuTop : public sc_core::sc_module, public Gpu {
 public:
  GpuTop(sc_core::sc_module_name name, const Config& cfg, GpuOptions opts = {});
  ~GpuTop() override;

  // ---- Gpu ----
  const Config& config() const override { return cfg_; }
  const GpuOptions& options() const override { return opts_; }
  const Clock& clock() const override { return clock_; }
  MemorySystem& memory() override { return *mem_; }
  int cus() const override { return static_cast<int>(ports_.size()); }
  ComputeUnit& cu(int i) override { return *cus_[i]; }
  Dispatcher& dispatcher() override { return *dispatcher_; }
  MemPort& port(int cu) override { return *ports_[cu]; }
  MemPort& l2_port(const std::string& name) override;
  MemPort& lsu_port(int cu, const std::string& name) override;
  MemPort& agent_port(const std::string& name, const std::string& stats_path, const Clock& clock) override;
  const std::string& take_wave_file() override {
    wave_taken_ = true;
    return opts_.wave_file;
  }

  const Dispatcher& dispatcher() const { return *dispatcher_; }
  // What is blocked and where, for deadlock and watchdog messages.
  std::string diagnose() const;
  // Compute-side lines for the end-of-run summary.
  std::vector<std::string> summary_lines() const;
  // The mechanisms' end-of-run checks (SimFault).
  void end_of_run();
  // The files the mechanisms write themselves completed (UserError on a
  // write error); after every run.
  void close_outputs();

 private:
  const Config& cfg_;
  GpuOptions opts_;
  Clock clock_;
  std::unique_ptr<MemorySystem> mem_;
  std::vector<std::unique_ptr<MemPort>> ports_;
  std::vector<std::unique_ptr<ComputeUnit>> cus_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::vector<std::unique_ptr<MemPort>> agent_ports_;  // the mechanisms' ports (declared after the memory system)
  bool building_ = true;
  bool wave_taken_ = false;
};

}  // namespace fg
