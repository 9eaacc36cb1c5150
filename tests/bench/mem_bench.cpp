// SPDX-License-Identifier: Apache-2.0
// Memory-system throughput: simulated memory transactions per host second.
// The benchmark drives one CU's port from the main thread (targets never wait
// in b_transport, so no SystemC process is needed) and advances global time
// every batch so the reservation calendars stay short, as they do in a run.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <systemc>
#include <tlm>

#include "mem/mem_port.h"
#include "sim/setup.h"
#include "sim/stats.h"
#include "sim/workload.h"
#include "top/gpu_top.h"

namespace {

fg::GpuTop& gpu() {
  static std::unique_ptr<fg::GpuTop> top = [] {
    fg::setup_systemc(20.0);
    static fg::Config cfg;
    const auto& p = fg::presets().at("orr2014");
    cfg.apply_yaml(p.text, p.source);
    // FG_BENCH_COHERENCE=gpu|moesi overrides the preset's protocol (tools/bench.sh runs both).
    if (const char* c = std::getenv("FG_BENCH_COHERENCE"))
      cfg.apply_yaml(std::string("mem:\n  coherence: ") + c + "\n", "FG_BENCH_COHERENCE");
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
  sc_core::sc_start(local);  // the next benchmark's port times start from here
  benchmark::DoNotOptimize(v);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["l1_hit_rate"] = (double(l1.read_hits.value()) - hits0) / (double(l1.reads.value()) - reads0);
}

void BM_HitHeavy(benchmark::State& s) { stream(s, 8 * 1024); }
void BM_MissHeavy(benchmark::State& s) { stream(s, 64ull << 20); }
BENCHMARK(BM_HitHeavy)->MinTime(1.0);
BENCHMARK(BM_MissHeavy)->MinTime(1.0);

// Contended CAS under mem.coherence = moesi (orr2014): 4 CUs take turns at a
// compare-and-swap increment of one word, each issuing at its previous CAS's
// completion, so the line migrates between their L1s on (almost) every CAS:
// directory lookup, ownership transfer, invalidation, per-line calendar.
void BM_ContendedCasMoesi(benchmark::State& state) {
  fg::GpuTop& g = gpu();
  constexpr int kCus = 4;
  static std::uint64_t word = g.memory().allocate(64);
  sc_core::sc_time local[kCus] = {};
  std::uint64_t expect = 0, i = 0, ok = 0;
  auto& reg = fg::StatRegistry::global();
  const double moved0 = reg.sum_matching("gpu.l2.bank", ".ownership_transfers");
  for (auto _ : state) {
    const int c = static_cast<int>(i % kCus);
    std::uint64_t old = 0;
    local[c] = g.port(c).atomic(word, fg::AtomicOp::Cas, 4, expect + 1, expect, old, local[c]);
    if (old == expect)
      ++expect, ++ok;
    else
      expect = old;
    if (++i % 1024 == 0) {
      sc_core::sc_time lo = local[0];
      for (auto& t : local) lo = std::min(lo, t);
      sc_core::sc_start(lo);
      for (auto& t : local) t -= lo;
    }
  }
  sc_core::sc_time hi = local[0];
  for (auto& t : local) hi = std::max(hi, t);
  sc_core::sc_start(hi);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["success"] = double(ok) / double(i);
  state.counters["line_moves"] = (reg.sum_matching("gpu.l2.bank", ".ownership_transfers") - moved0) / double(i);
}
BENCHMARK(BM_ContendedCasMoesi)->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
