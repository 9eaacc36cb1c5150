// SPDX-License-Identifier: Apache-2.0
// Simulation speed of the hardware worklist: cycles per host second of the
// Verilated 4-core x 16-lane system (lsorting, 32 x 24-bit banks) and of its
// golden model, under the same random lane traffic (pulls and pushes on about
// a third of the lanes per cycle). Verilator's random seed is fixed, so runs
// repeat.
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include <verilated.h>
#include "Vbench_sys.h"
#include "hwwl/hwwl_model.h"
#include "tb_util.h"

namespace {

constexpr unsigned kCores = 4, kLanes = 16, kNL = kCores * kLanes, kW = 24;

struct Stimulus {
  std::vector<std::uint64_t> pull, push;
  explicit Stimulus(std::size_t n) {
    std::mt19937_64 rng(11);
    for (std::size_t i = 0; i < n; ++i) {
      pull.push_back(rng() & rng());  // ~25% of lanes
      push.push_back(rng() & rng() & ~pull.back());
    }
  }
};

// Plain harness (no tracing): set the lane inputs, rising edge, falling edge.
void BM_VerilatedSystem(benchmark::State& state) {
  static Stimulus stim(1 << 16);
  VerilatedContext ctx;
  ctx.randReset(2);  // uninitialised state random, from a fixed seed: runs repeat
  ctx.randSeed(1);
  Vbench_sys top(&ctx, "top");
  for (unsigned l = 0; l < kNL; ++l) fg::tb::put(top.push_id_i, l * kW, kW, l + 1);
  for (unsigned l = 0; l < kNL; ++l) {  // no virtualization unit
    fg::tb::put(top.rf_put_i, l, 1, 0);
    fg::tb::put(top.rf_id_i, l * kW, kW, 0);
  }
  top.rsv_i = 0;
  top.hvu_busy_i = 0;
  top.double_buf_i = 0;
  top.swap_i = 0;
  top.pull_i = 0;
  top.push_i = 0;
  fg::tb::reset(top);
  std::size_t i = 0;
  std::uint64_t pulled = 0;
  for (auto _ : state) {
    top.pull_i = stim.pull[i & 0xffff];
    top.push_i = stim.push[i & 0xffff];
    top.clk_i = 1;
    top.eval();  // settles the new inputs, then the rising edge
    top.clk_i = 0;
    top.eval();
    pulled += top.push_gnt_o & 1;
    ++i;
  }
  benchmark::DoNotOptimize(pulled);
  top.final();
  state.counters["cycles_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_GoldenModelSystem(benchmark::State& state) {
  static Stimulus stim(1 << 16);
  fg::hwwl::Params p;
  p.cores = kCores;
  fg::hwwl::System model(p);
  model.reset();
  fg::hwwl::LaneIn in;
  in.pull.resize(kNL), in.push.resize(kNL), in.push_id.resize(kNL);
  for (unsigned l = 0; l < kNL; ++l) in.push_id[l] = l + 1;
  std::size_t i = 0;
  for (auto _ : state) {
    const std::uint64_t pu = stim.pull[i & 0xffff], ps = stim.push[i & 0xffff];
    for (unsigned l = 0; l < kNL; ++l) {
      in.pull[l] = (pu >> l) & 1;
      in.push[l] = (ps >> l) & 1;
    }
    benchmark::DoNotOptimize(model.step(in));
    ++i;
  }
  state.counters["cycles_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_VerilatedSystem)->MinTime(2.0);
BENCHMARK(BM_GoldenModelSystem)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
