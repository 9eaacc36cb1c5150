// SPDX-License-Identifier: Apache-2.0
#include "gpu/host.h"

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "mem/memory_system.h"
#include "sim/error.h"
#include "sim/guard.h"

namespace fg {

Host::Host(Gpu& gpu, std::ostream& out, std::uint64_t seed)
    : gpu_(gpu), cfg_(gpu.config()), mem_(gpu.memory()), out_(out), rng_(seed) {}

std::uint64_t Host::alloc(std::uint64_t bytes) { return mem_.allocate(bytes); }
void Host::free(std::uint64_t addr) { mem_.free(addr); }
void Host::copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes) { mem_.copy_in(dst, src, bytes); }
void Host::copy_out(void* dst, std::uint64_t src, std::uint64_t bytes) { mem_.copy_out(dst, src, bytes); }

Dispatcher& Host::dispatcher() { return gpu_.dispatcher(); }
int Host::cus() const { return gpu_.cus(); }
MemPort& Host::port(int cu) {
  if (cu < 0 || cu >= gpu_.cus()) throw std::out_of_range(fmt::format("no CU {}", cu));
  return gpu_.port(cu);
}

void Host::spawn(const std::string& name, std::function<void()> body) {
  ++running_;
  sc_core::sc_spawn(
      [this, body = std::move(body)] {
        run_guarded(body);
        if (--running_ == 0) agent_done_.notify(sc_core::SC_ZERO_TIME);
      },
      name.c_str());
}

void Host::join() {
  while (running_ > 0) sc_core::wait(agent_done_);
}

void Host::check(bool ok, const std::string& what) {
  if (!ok) throw SimFault("result check failed: " + what);
  checks_.push_back(what);
}

void Host::result(const std::string& key, const nlohmann::ordered_json& value) { results_[key] = value; }

}  // namespace fg

namespace fg {

sc_core::sc_time Host::run_kernel(const KernelLaunch& k) {
  KernelState& st = dispatcher().submit(k);  // at this agent's time (the host syncs before it submits)
  while (!st.finished) sc_core::wait(st.done);
  return sc_core::sc_time::from_value(st.end - st.submitted);  // launch latency included
}

}  // namespace fg
