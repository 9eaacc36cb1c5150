// SPDX-License-Identifier: Apache-2.0
// fj-sum: the sum of n random 32-bit numbers by divide and conquer on the
// fork-join runtime (docs/forkjoin.md). The fork-join example of
// docs/workloads.md: task functions, spawn, taskwait, a child's result, the
// program's declaration, the host check.
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/workload.h"

namespace fg {
namespace {

const Param<std::uint64_t> kN{"fj-sum.n", 100000, "", "numbers to add", {{1}, {1ull << 24}}};
const Param<std::uint64_t> kGrain{"fj-sum.grain", 64, "", "largest range a task adds serially", {{1}, {1u << 20}}};

// A task adds n numbers from address a: serially on its lane when they are
// few, else as two children whose results it adds after the taskwait. The
// arguments are copied into each child; t.lane() is the lane running the
// task now (it may change across the taskwait).
fj::Fn<std::uint64_t> sum(fj::Ctx& t, std::uint64_t a, std::uint32_t n, std::uint32_t grain) {
  if (n <= grain) {
    std::uint64_t s = 0;
    for (std::uint32_t i = 0; i < n; ++i) s += co_await t.lane().load<std::uint32_t>(a + 4ull * i);
    co_await t.lane().alu(n);  // the adds
    co_return s;
  }
  const fj::Child left = co_await t.spawn(sum, a, n / 2, grain);
  const fj::Child right = co_await t.spawn(sum, a + 4ull * (n / 2), n - n / 2, grain);
  co_await t.taskwait();
  const std::uint64_t l = co_await t.result<std::uint64_t>(left);
  const std::uint64_t r = co_await t.result<std::uint64_t>(right);
  co_return l + r;
}

void fj_sum(Host& h) {
  const auto n = static_cast<std::uint32_t>(kN.get(h.config()));
  std::vector<std::uint32_t> v(n);
  std::uniform_int_distribution<std::uint32_t> d;  // h.rng() follows --seed
  for (auto& x : v) x = d(h.rng());
  // What GTaP's compile-time parameters say: the bytes a task spills (a, n,
  // grain) and how many children a task spawns over its life.
  fj::Program p;
  p.name = "fj-sum";
  p.payload = 16;
  p.max_children = 2;
  const fj::RunInfo r = fj::run(h, p, sum, h.upload(v), n, static_cast<std::uint32_t>(kGrain.get(h.config())));
  const std::uint64_t want = std::accumulate(v.begin(), v.end(), std::uint64_t{0});
  h.check(r.root_result == want, fmt::format("fj-sum: device {} vs host {}", r.root_result, want));
  h.output() << r.root_result << "\n";
}

const RegisterWorkload reg{{"fj-sum",
                            "sum by divide and conquer on the fork-join runtime (the example of docs/workloads.md)", "",
                            fj_sum, [](const Config& c) { return 4 * kN.get(c) + fj::runtime_bytes(c, 16, 2); },
                            [](const Config&) { return std::vector<std::string>{fj::kName}; }}};

}  // namespace
}  // namespace fg
