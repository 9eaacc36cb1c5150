// SPDX-License-Identifier: Apache-2.0
// Host time per clock cycle of a Verilated hwwl_system in a plain harness
// (tools/rtl_eval_bench.py builds it once per variant): the evaluations per
// cycle (2: inputs, rising edge, as tb::Dut does; 3: also the fall on its
// own), and idle lanes or random traffic on about a quarter of them.
// Usage: rtl_eval_bench EVALS BUSY CYCLES. Prints microseconds per cycle.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <verilated.h>

#include "Vsys.h"
#include "tb_util.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s EVALS BUSY CYCLES\n", argv[0]);
    return 2;
  }
  const int evals = std::atoi(argv[1]);
  const bool busy = std::atoi(argv[2]) != 0;
  const long n = std::atol(argv[3]);
  VerilatedContext ctx;
  ctx.randReset(2);
  ctx.randSeed(1);
  Vsys top(&ctx, "top");
  fg::tb::reset(top);
  std::mt19937_64 rng(3);
  const unsigned lanes = RTL_LANES;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    if (busy)
      for (unsigned l = 0; l < lanes; ++l) {
        const unsigned r = static_cast<unsigned>(rng() % 8);
        fg::tb::put(top.pull_i, l, 1, r < 2);
        fg::tb::put(top.push_i, l, 1, r == 2);
        fg::tb::put(top.push_id_i, l * 24, 24, l + 1);
      }
    top.eval();
    top.clk_i = 1;
    top.eval();
    top.clk_i = 0;
    if (evals == 3) top.eval();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.2f\n", s / static_cast<double>(n) * 1e6);
  top.final();
  return 0;
}
