// SPDX-License-Identifier: Apache-2.0
// Host API for workloads: device memory, copies, device-side agents, time,
// result checks and results. A workload's run function executes in the host
// SC_THREAD and may wait for simulated time.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "sim/config.h"

namespace fg {

class MemorySystem;
class MemPort;
class Dispatcher;
class Gpu;
struct KernelLaunch;

class Host {
 public:
  Host(Gpu& gpu, std::ostream& out, std::uint64_t seed);

  const Config& config() const { return cfg_; }
  MemorySystem& memory() { return mem_; }
  // The GPU: its mechanisms (h.gpu().find<M>()), CUs and front end.
  Gpu& gpu() { return gpu_; }

  // Device memory.
  std::uint64_t alloc(std::uint64_t bytes);
  void free(std::uint64_t addr);
  void copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes);
  void copy_out(void* dst, std::uint64_t src, std::uint64_t bytes);
  template <class T>
  std::uint64_t upload(const std::vector<T>& v) {
    std::uint64_t a = alloc(v.size() * sizeof(T));
    copy_in(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> download(std::uint64_t addr, std::size_t n) {
    std::vector<T> v(n);
    copy_out(v.data(), addr, n * sizeof(T));
    return v;
  }

  // Kernels (compute units).
  Dispatcher& dispatcher();
  // Launch and wait for completion; returns the kernel's simulated duration.
  sc_core::sc_time run_kernel(const KernelLaunch& k);

  // Per-CU memory ports, for memory microbenchmarks that drive memory directly.
  int cus() const;
  MemPort& port(int cu);
  // Start a device-side agent thread; join() waits for all of them.
  void spawn(const std::string& name, std::function<void()> body);
  void join();

  sc_core::sc_time now() const { return sc_core::sc_time_stamp(); }
  void wait(const sc_core::sc_time& t) { sc_core::wait(t); }

  // Results. check() records a passed functional check, or throws SimFault.
  std::ostream& output() { return out_; }
  void check(bool ok, const std::string& what);
  void result(const std::string& key, const nlohmann::ordered_json& value);
  const nlohmann::ordered_json& results() const { return results_; }
  const std::vector<std::string>& checks() const { return checks_; }
  std::mt19937_64& rng() { return rng_; }

 private:
  Gpu& gpu_;
  const Config& cfg_;
  MemorySystem& mem_;
  std::ostream& out_;
  std::mt19937_64 rng_;
  int running_ = 0;
  sc_core::sc_event agent_done_;
  nlohmann::ordered_json results_ = nlohmann::ordered_json::object();
  std::vector<std::string> checks_;
};

}  // namespace fg
