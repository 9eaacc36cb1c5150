// SPDX-License-Identifier: Apache-2.0
// First kernels: vecadd, reduce, histogram, divergent. Each checks its result
// against a host computation every run (a mismatch is a simulated fault).
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "sim/config.h"
#include "sim/workload.h"

namespace fg {
namespace {

const Param<std::uint64_t> kGroup{
    "kernel.group_size", 256, "work-items", "workgroup size of the basic kernels", {{1}, {1024}}};

// ---- vecadd: c[i] = a[i] + b[i] ----
const Param<std::uint64_t> kVecN{"vecadd.n", 65536, "", "vector length", {{1}, {1ull << 28}}};

Task<> vecadd_kernel(Lane& l, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint32_t n) {
  const std::uint32_t i = l.global_id();
  if (i < n) {
    // Both loads in flight at once (memory-level parallelism), then wait.
    const Async<float> pa = co_await l.load_async<float>(a + 4ull * i);
    const Async<float> pb = co_await l.load_async<float>(b + 4ull * i);
    const float x = co_await l.wait(pa);
    const float y = co_await l.wait(pb);
    co_await l.alu(1);
    co_await l.store<float>(c + 4ull * i, x + y);
  }
}

void vecadd(Host& h) {
  const auto n = static_cast<std::uint32_t>(kVecN.get(h.config()));
  std::uniform_real_distribution<float> d(-1000.0f, 1000.0f);
  std::vector<float> a(n), b(n);
  for (auto& x : a) x = d(h.rng());
  for (auto& x : b) x = d(h.rng());
  const std::uint64_t da = h.upload(a), db = h.upload(b), dc = h.alloc(4ull * n);
  const auto t = h.run_kernel({"vecadd", n, static_cast<std::uint32_t>(kGroup.get(h.config())), 8, 0,
                               [=](Lane& l) { return vecadd_kernel(l, da, db, dc, n); }});
  const auto c = h.download<float>(dc, n);
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < n; ++i) bad += c[i] != a[i] + b[i];
  h.check(bad == 0, fmt::format("vecadd: {} of {} elements differ from the host sum", bad, n));
  h.result("kernel_ns", t.to_seconds() * 1e9);
  for (std::uint32_t i = 0; i < n; ++i) h.output() << c[i] << "\n";
}

// ---- reduce: wavefront reduction, one atomic per wavefront ----
const Param<std::uint64_t> kRedN{"reduce.n", 65536, "", "elements to sum", {{1}, {1ull << 28}}};

Task<> reduce_kernel(Lane& l, std::uint64_t in, std::uint64_t out, std::uint32_t n) {
  const std::uint32_t i = l.global_id();
  std::uint64_t v = 0;
  if (i < n) v = co_await l.load<std::uint32_t>(in + 4ull * i);
  const std::uint64_t sum = co_await l.reduce_add<std::uint64_t>(v);
  const std::uint64_t active = co_await l.active_mask();
  if (l.is_leader(active)) co_await l.atomic_add<std::uint64_t>(out, sum);
}

void reduce(Host& h) {
  const auto n = static_cast<std::uint32_t>(kRedN.get(h.config()));
  std::vector<std::uint32_t> x(n);
  for (auto& v : x) v = static_cast<std::uint32_t>(h.rng()() % 1000000);
  const std::uint64_t dx = h.upload(x), dout = h.upload(std::vector<std::uint64_t>{0});
  const auto t = h.run_kernel({"reduce", n, static_cast<std::uint32_t>(kGroup.get(h.config())), 8, 0,
                               [=](Lane& l) { return reduce_kernel(l, dx, dout, n); }});
  const std::uint64_t got = h.download<std::uint64_t>(dout, 1)[0];
  const std::uint64_t want = std::accumulate(x.begin(), x.end(), std::uint64_t{0});
  h.check(got == want, fmt::format("reduce: device sum {} vs host sum {}", got, want));
  h.result("kernel_ns", t.to_seconds() * 1e9);
  h.output() << got << "\n";
}

// ---- histogram: contended atomics ----
const Param<std::uint64_t> kHistN{"histogram.n", 65536, "", "input elements", {{1}, {1ull << 28}}};
const Param<std::uint64_t> kBins{
    "histogram.bins", 64, "", "histogram bins (fewer = more contention)", {{1}, {1 << 20}}};

Task<> histogram_kernel(Lane& l, std::uint64_t in, std::uint64_t bins, std::uint32_t n, std::uint32_t nbins) {
  const std::uint32_t i = l.global_id();
  if (i < n) {
    const std::uint32_t v = co_await l.load<std::uint32_t>(in + 4ull * i);
    co_await l.alu(2);
    co_await l.atomic_add<std::uint32_t>(bins + 4ull * (v % nbins), 1u);
  }
}

void histogram(Host& h) {
  const auto n = static_cast<std::uint32_t>(kHistN.get(h.config()));
  const auto nbins = static_cast<std::uint32_t>(kBins.get(h.config()));
  std::vector<std::uint32_t> x(n), want(nbins, 0);
  for (auto& v : x) v = static_cast<std::uint32_t>(h.rng()());
  for (auto v : x) ++want[v % nbins];
  const std::uint64_t dx = h.upload(x), dbins = h.upload(std::vector<std::uint32_t>(nbins, 0));
  const auto t = h.run_kernel({"histogram", n, static_cast<std::uint32_t>(kGroup.get(h.config())), 8, 0,
                               [=](Lane& l) { return histogram_kernel(l, dx, dbins, n, nbins); }});
  const auto got = h.download<std::uint32_t>(dbins, nbins);
  h.check(got == want, "histogram: device bins differ from the host histogram");
  h.result("kernel_ns", t.to_seconds() * 1e9);
  for (auto v : got) h.output() << v << "\n";
}

// ---- divergent: a fraction of lanes takes a long branch ----
const Param<std::uint64_t> kDivN{"divergent.n", 16384, "", "work-items", {{1}, {1ull << 28}}};
const Param<double> kFraction{"divergent.fraction", 0.5, "", "fraction of lanes on the long branch", {{0}, {1}}};
const Param<std::uint64_t> kWork{
    "divergent.work", 64, "instructions", "loop iterations of the long branch", {{0}, {1 << 20}}};

// Lane i takes the long branch when its index falls in the first `fraction`
// of each wavefront-sized group of consecutive lanes, so utilization on the
// branch is exact for any wavefront width.
bool takes_long(std::uint32_t i, double fraction, std::uint32_t width) {
  return (i % width) < std::lround(fraction * width);
}

Task<> divergent_kernel(Lane& l, std::uint64_t out, std::uint32_t n, double fraction, std::uint32_t work) {
  const std::uint32_t i = l.global_id();
  if (i >= n) co_return;
  std::uint32_t acc = i;
  if (takes_long(i, fraction, l.wave_size())) {
    for (std::uint32_t k = 0; k < work; ++k) {
      co_await l.alu(1);
      acc = acc * 1664525u + 1013904223u;
    }
  } else {
    co_await l.alu(1);
    acc += 1;
  }
  co_await l.store<std::uint32_t>(out + 4ull * i, acc);
}

void divergent(Host& h) {
  const auto n = static_cast<std::uint32_t>(kDivN.get(h.config()));
  const double fraction = kFraction.get(h.config());
  const auto work = static_cast<std::uint32_t>(kWork.get(h.config()));
  const auto width = static_cast<std::uint32_t>(std::get<std::uint64_t>(h.config().value("gpu.cu.wavefront_width")));
  const std::uint64_t dout = h.alloc(4ull * n);
  const auto t = h.run_kernel({"divergent", n, static_cast<std::uint32_t>(kGroup.get(h.config())), 8, 0,
                               [=](Lane& l) { return divergent_kernel(l, dout, n, fraction, work); }});
  const auto got = h.download<std::uint32_t>(dout, n);
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t acc = i;
    if (takes_long(i, fraction, width))
      for (std::uint32_t k = 0; k < work; ++k) acc = acc * 1664525u + 1013904223u;
    else
      acc += 1;
    bad += got[i] != acc;
  }
  h.check(bad == 0, fmt::format("divergent: {} of {} results differ from the host", bad, n));
  h.result("kernel_ns", t.to_seconds() * 1e9);
  for (auto v : got) h.output() << v << "\n";
}

const RegisterWorkload r1{{"vecadd", "c = a + b on floats: coalesced loads and stores", "", vecadd,
                           [](const Config& c) { return 12 * kVecN.get(c); }}};
const RegisterWorkload r2{{"reduce", "sum with a wavefront reduction and one atomic per wavefront", "", reduce,
                           [](const Config& c) { return 4 * kRedN.get(c) + 8; }}};
const RegisterWorkload r3{{"histogram", "atomic increments into histogram.bins bins (contention)", "", histogram,
                           [](const Config& c) { return 4 * kHistN.get(c) + 4 * kBins.get(c); }}};
const RegisterWorkload r4{{"divergent", "divergent.fraction of lanes run a long loop (branch divergence)", "",
                           divergent, [](const Config& c) { return 4 * kDivN.get(c); }}};

}  // namespace
}  // namespace fg
