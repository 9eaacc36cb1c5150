// SPDX-License-Identifier: Apache-2.0
// saxpy: y[i] = a * x[i] + y[i]. The example of docs/workloads.md: a complete
// workload (parameters, device memory, a kernel, the host check, results).
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "sim/config.h"
#include "sim/workload.h"

namespace fg {
namespace {

// Parameters: declared once, listed by `fgsim params saxpy`, set with --set saxpy.n=...
const Param<std::uint64_t> kN{"saxpy.n", 4096, "", "vector length", {{1}, {1ull << 26}}};
const Param<double> kA{"saxpy.a", 2.5, "", "the scalar a", {{-1e6}, {1e6}}};

// The kernel: one coroutine per work-item (lane); every co_await is a device
// operation with its cost (docs/compute-unit.md lists them).
Task<> saxpy_kernel(Lane& l, float a, std::uint64_t x, std::uint64_t y, std::uint32_t n) {
  const std::uint32_t i = l.global_id();
  if (i >= n) co_return;
  const float xi = co_await l.load<float>(x + 4ull * i);
  const float yi = co_await l.load<float>(y + 4ull * i);
  co_await l.alu(2);  // multiply and add
  co_await l.store<float>(y + 4ull * i, a * xi + yi);
}

// The host side: runs in simulated time on the host agent.
void saxpy(Host& h) {
  const auto n = static_cast<std::uint32_t>(kN.get(h.config()));
  const auto a = static_cast<float>(kA.get(h.config()));
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);  // h.rng() follows --seed
  std::vector<float> x(n), y(n);
  for (auto& v : x) v = d(h.rng());
  for (auto& v : y) v = d(h.rng());
  const std::uint64_t dx = h.upload(x), dy = h.upload(y);
  // KernelLaunch: name, work-items, workgroup size, registers per lane, LDS bytes, body.
  const auto t = h.run_kernel({"saxpy", n, 256, 8, 0, [=](Lane& l) { return saxpy_kernel(l, a, dx, dy, n); }});
  const auto got = h.download<float>(dy, n);
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < n; ++i) bad += got[i] != a * x[i] + y[i];
  // Every run checks its result against the host; a failed check is a simulated fault (exit 3).
  h.check(bad == 0, fmt::format("saxpy: {} of {} elements differ from the host", bad, n));
  h.result("kernel_ns", t.to_seconds() * 1e9);  // in the stats JSON under workload.results
  for (float v : got) h.output() << v << "\n";  // --output FILE
}

const RegisterWorkload r{{"saxpy", "y = a*x + y (the example of docs/workloads.md)", "", saxpy,
                          [](const Config& c) { return 8 * kN.get(c); }}};

}  // namespace
}  // namespace fg
