// SPDX-License-Identifier: Apache-2.0
#include "gpu/host.h"

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "mem/memory_system.h"
#include "sim/error.h"
#include "sim/guard.h"

namespace fg {

Host::Host(const Config& cfg, MemorySystem& mem, std::vector<MemPort*> ports, std::ostream& out, std::uint64_t seed)
    : cfg_(cfg), mem_(mem), ports_(std::move(ports)), out_(out), rng_(seed) {}

std::uint64_t Host::alloc(std::uint64_t bytes) { return mem_.allocate(bytes); }
void Host::free(std::uint64_t addr) { mem_.free(addr); }
void Host::copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes) { mem_.copy_in(dst, src, bytes); }
void Host::copy_out(void* dst, std::uint64_t src, std::uint64_t bytes) { mem_.copy_out(dst, src, bytes); }

Dispatcher& Host::dispatcher() {
  if (!dispatcher_) throw std::logic_error("no dispatcher attached to the host");
  return *dispatcher_;
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
