#include "gpu/dispatcher.h"

#include <fmt/format.h>

#include "gpu/compute_unit.h"
#include "sim/error.h"
#include "sim/guard.h"

namespace fg {

Dispatcher::Dispatcher(sc_core::sc_module_name name, std::vector<ComputeUnit*> cus)
    : sc_module(name),
      kernels(StatGroup("gpu.dispatcher"), "kernels", "kernels completed", ""),
      workgroups(StatGroup("gpu.dispatcher"), "workgroups", "workgroups dispatched", ""),
      cus_(std::move(cus)) {
  SC_HAS_PROCESS(Dispatcher);
  SC_THREAD(run);
  for (ComputeUnit* cu : cus_) cu->set_dispatcher(this);
}

KernelState& Dispatcher::submit(KernelLaunch launch, std::function<void(KernelState&)> on_done,
                                std::function<void(std::uint32_t)> on_workgroup_done) {
  if (!launch.body) throw std::logic_error("kernel launch without a body");
  if (launch.group_size == 0) throw SimFault(fmt::format("kernel '{}': workgroup size 0", launch.name));
  auto k = std::make_unique<KernelState>();
  k->launch = std::move(launch);
  k->num_groups = static_cast<std::uint32_t>((k->launch.grid + k->launch.group_size - 1) / k->launch.group_size);
  k->start = sc_core::sc_time_stamp().value();
  k->on_done = std::move(on_done);
  k->on_workgroup_done = std::move(on_workgroup_done);
  if (!cus_.empty() && !cus_.front()->fits_empty(*k)) {
    const auto& p = cus_.front()->params();
    throw SimFault(fmt::format(
        "kernel '{}': a workgroup ({} work-items, {} registers per lane, {} B LDS) does not fit an empty CU "
        "({} slots, {} registers, {} B LDS)",
        k->launch.name, k->launch.group_size, k->launch.registers, k->launch.lds_bytes, p.slots, p.registers,
        p.lds_bytes));
  }
  KernelState& ref = *k;
  all_.push_back(std::move(k));
  if (ref.num_groups == 0) {
    ref.finished = true;
    ref.end = ref.start;
    ref.done.notify(sc_core::SC_ZERO_TIME);
    return ref;
  }
  queue_.push_back(&ref);
  work_.notify(sc_core::SC_ZERO_TIME);
  return ref;
}

void Dispatcher::workgroup_finished(KernelState& k, std::uint32_t group, Tick t) {
  if (k.on_workgroup_done) k.on_workgroup_done(group);
  k.end = std::max(k.end, t);
  const Tick now = sc_core::sc_time_stamp().value();
  freed_.notify(sc_core::sc_time::from_value(t > now ? t - now : 0));
  if (++k.groups_done == k.num_groups) {
    k.finished = true;
    ++kernels;
    if (k.on_done) k.on_done(k);
    k.done.notify(sc_core::sc_time::from_value(k.end > now ? k.end - now : 0));
  }
}

void Dispatcher::run() {
  run_guarded([&] {
    for (;;) {
      while (queue_.empty()) sc_core::wait(work_);
      KernelState& k = *queue_.front();
      while (k.next_group < k.num_groups) {
        bool placed = false;
        for (std::size_t i = 0; i < cus_.size() && !placed; ++i) {
          ComputeUnit* cu = cus_[(next_cu_ + i) % cus_.size()];
          if (cu->fits(k)) {
            cu->place(k, k.next_group++);
            ++workgroups;
            next_cu_ = (next_cu_ + i + 1) % cus_.size();
            placed = true;
          }
        }
        if (!placed) sc_core::wait(freed_);
      }
      queue_.pop_front();
    }
  });
}

}  // namespace fg
