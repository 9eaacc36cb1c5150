// SPDX-License-Identifier: Apache-2.0
// splitmix64: the portable, seeded stream the model and the input generators
// draw from (graphs, CNF formulas, point sets, survey seeds; the CUs' seeded
// clock starts, gpu.l2.perturb's streams), so a seed gives the same draws on
// every standard library.
#pragma once

#include <cstdint>

namespace fg {

struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in 0..n-1 for n <= 2^32 (multiply-shift, no division).
  std::uint32_t below(std::uint64_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
};

}  // namespace fg
