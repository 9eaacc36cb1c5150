// SPDX-License-Identifier: Apache-2.0
#include "gpu/task_metrics.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/compute_unit.h"
#include "gpu/gpu.h"

namespace fg {

std::uint8_t mechanism_tag(std::string_view mechanism) {
  // Tags by first use; only their identity matters (no statistic names them).
  static std::vector<std::string> names{""};
  for (std::size_t i = 1; i < names.size(); ++i)
    if (names[i] == mechanism) return static_cast<std::uint8_t>(i);
  if (names.size() == kMaxMechanismTags) throw std::logic_error("more mechanism tags than kMaxMechanismTags");
  names.emplace_back(mechanism);
  return static_cast<std::uint8_t>(names.size() - 1);
}

namespace {
std::function<double()> over_cus(Gpu& g, std::uint8_t tag, bool atomics) {
  return [&g, tag, atomics] {
    double s = 0;
    for (int i = 0; i < g.cus(); ++i) s += static_cast<double>(g.cu(i).mechanism_counts(tag, atomics));
    return s;
  };
}
std::function<double()> or_zero(std::function<double()> f) {
  return f ? f : [] { return 0.0; };
}
}  // namespace

TaskMetrics::TaskMetrics(Gpu& gpu, const std::string& m, Sources s)
    : created(StatGroup("tasks." + m), "created", "tasks made available to the mechanism", "",
              or_zero(std::move(s.created))),
      run(StatGroup("tasks." + m), "run", "tasks a worker took", "", or_zero(std::move(s.run))),
      sched_instructions(StatGroup("tasks." + m), "sched_instructions",
                         "GPU wavefront instructions of the mechanism's operations and device runtime", "",
                         over_cus(gpu, mechanism_tag(m), false)),
      sched_atomics(StatGroup("tasks." + m), "sched_atomics", "global atomic lane operations among them", "",
                    over_cus(gpu, mechanism_tag(m), true)),
      control_instructions(StatGroup("tasks." + m), "control_instructions",
                           "instructions of the mechanism's firmware on the control core", "",
                           or_zero(std::move(s.control_instructions))),
      state_bytes(StatGroup("tasks." + m), "state_bytes", "bytes of task state moved through memory", "B",
                  or_zero(std::move(s.state_bytes))),
      wait_ns(StatGroup("tasks." + m), "wait_ns",
              "wavefront time blocked in the mechanism waiting for a task (summed over wavefronts)", "ns",
              or_zero(std::move(s.wait_ns))),
      peak_storage_bytes(StatGroup("tasks." + m), "peak_storage_bytes", "the most task storage in use at once", "B",
                         or_zero(std::move(s.peak_storage_bytes))) {}

}  // namespace fg
