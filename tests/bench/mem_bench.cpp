// Memory-system throughput: simulated memory transactions per host second.
// The benchmark drives one CU's port from the main thread (targets never wait
// in b_transport, so no SystemC process is needed) and advances global time
// every batch so the reservation calendars stay short, as they do in a run.
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>
#include <systemc>
#include <tlm>

#include "mem/mem_port.h"
#include "sim/setup.h"
#include "sim/workload.h"
#include "top/gpu_top.h"

namespace {

fg::GpuTop& gpu() {
  static std::unique_ptr<fg::GpuTop> top = [] {
    fg::setup_systemc(20.0);
    static fg::Config cfg;
    const auto& p = fg::presets().at("orr2014");
    cfg.apply_yaml(p.text, p.source);
    auto t = std::make_unique<fg::GpuTop>("gpu", cfg);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // completes elaboration (socket binding)
    return t;
  }();
  return *top;
}

// footprint: bytes cycled through; a footprint within the L1 gives hits, a
// large one L1 and L2 misses that go to DRAM.
void stream(benchmark::State& state, std::uint64_t footprint) {
  fg::GpuTop& g = gpu();
  fg::MemPort& port = g.port(0);
  const unsigned line = g.memory().line_size();
  static std::uint64_t base = g.memory().allocate(64ull << 20);
  std::uint32_t v = 0;
  std::uint64_t i = 0;
  sc_core::sc_time local = sc_core::SC_ZERO_TIME;
  const auto& l1 = g.memory().l1(0);
  const double reads0 = double(l1.reads.value()), hits0 = double(l1.read_hits.value());
  for (auto _ : state) {
    local = port.read(base + (i * line) % footprint, &v, 4, local);
    if (++i % 1024 == 0) {
      sc_core::sc_start(local);
      local = sc_core::SC_ZERO_TIME;
    }
  }
  benchmark::DoNotOptimize(v);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["l1_hit_rate"] = (double(l1.read_hits.value()) - hits0) / (double(l1.reads.value()) - reads0);
}

void BM_HitHeavy(benchmark::State& s) { stream(s, 8 * 1024); }
void BM_MissHeavy(benchmark::State& s) { stream(s, 64ull << 20); }
BENCHMARK(BM_HitHeavy)->MinTime(1.0);
BENCHMARK(BM_MissHeavy)->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
