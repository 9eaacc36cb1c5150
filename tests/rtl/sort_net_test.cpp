// SPDX-License-Identifier: Apache-2.0
// hwwl_sort_net: exhaustive 0-1 principle for N <= 16 (a comparator network
// sorts every input iff it sorts every 0/1 input), random keys above, and the
// RTL against the golden model every cycle (pipelined configurations too, and
// the valid bit with a random enable).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "Vsort_n16_s0.h"
#include "Vsort_n32_s3.h"
#include "Vsort_n8_s2.h"
#include "hwwl/hwwl_model.h"
#include "tb_util.h"

namespace fg {
namespace {

template <class V>
struct SortHarness {
  unsigned n, kw, stages;
  tb::Dut<V> dut;
  hwwl::SortNet model;
  std::uint64_t cycle = 0;
  SortHarness(unsigned n_, unsigned kw_, unsigned st)
      : n(n_),
        kw(kw_),
        stages(st),
        dut(::testing::UnitTest::GetInstance()->current_test_info()->name()),
        model(n_, kw_, st) {}
  // Applies keys (and the enable) for one cycle; checks RTL == model; returns
  // the RTL output.
  hwwl::SortNet::Out step(const std::vector<unsigned>& keys, bool en = true) {
    for (unsigned i = 0; i < n; ++i) tb::put(dut->keys_i, i * kw, kw, keys[i]);
    dut->en_i = en;
    dut.settle();
    const auto m = model.eval(keys, en);
    hwwl::SortNet::Out r;
    r.valid = dut->valid_o;
    EXPECT_EQ(r.valid, m.valid) << "cycle " << cycle;
    const unsigned iw = hwwl::clog2(n);
    for (unsigned k = 0; k < n; ++k) {
      r.keys.push_back(static_cast<unsigned>(tb::get(dut->keys_o, k * kw, kw)));
      r.perm.push_back(static_cast<unsigned>(tb::get(dut->perm_o, k * iw, iw)));
    }
    EXPECT_EQ(r.keys, m.keys) << "cycle " << cycle;
    EXPECT_EQ(r.perm, m.perm) << "cycle " << cycle;
    model.tick(keys, en);
    dut.clock();
    ++cycle;
    return r;
  }
};

// Sorted by (key, index), the order the RTL promises.
void expect_sorted(const std::vector<unsigned>& in, const hwwl::SortNet::Out& out) {
  std::vector<std::pair<unsigned, unsigned>> ref;
  for (unsigned i = 0; i < in.size(); ++i) ref.emplace_back(in[i], i);
  std::sort(ref.begin(), ref.end());
  for (unsigned k = 0; k < in.size(); ++k) {
    ASSERT_EQ(out.keys[k], ref[k].first);
    ASSERT_EQ(out.perm[k], ref[k].second);
  }
}

template <class V>
void zero_one_exhaustive(unsigned n, unsigned kw, unsigned stages) {
  SortHarness<V> h(n, kw, stages);
  std::vector<std::vector<unsigned>> inputs;
  for (std::uint64_t v = 0; v < (1ull << n); ++v) {
    std::vector<unsigned> keys(n);
    for (unsigned i = 0; i < n; ++i) keys[i] = (v >> i) & 1;
    inputs.push_back(keys);
  }
  // Flush the pipeline: the output of cycle t + stages belongs to input t.
  for (std::size_t t = 0; t < inputs.size() + stages; ++t) {
    const auto out = h.step(inputs[std::min(t, inputs.size() - 1)]);
    if (t >= stages) expect_sorted(inputs[t - stages], out);
    if (::testing::Test::HasFailure()) return;
  }
}

// Random keys (often many ties), with the enable always on or random (one
// cycle in three): a result appears (valid) exactly stages cycles after an
// enabled cycle and is that cycle's input sorted; otherwise the outputs are
// zero.
template <class V>
void random_keys(unsigned n, unsigned kw, unsigned stages, std::uint64_t cycles, int seed, bool random_en = false) {
  SortHarness<V> h(n, kw, stages);
  std::mt19937_64 rng(seed);
  std::vector<std::vector<unsigned>> inputs;
  std::vector<bool> ens;
  for (std::uint64_t t = 0; t < cycles + stages; ++t) {
    std::vector<unsigned> keys(n);
    const unsigned range = 1u + static_cast<unsigned>(rng() % (1u << kw));
    for (auto& k : keys) k = static_cast<unsigned>(rng() % range);
    const bool en = !random_en || rng() % 3 == 0;
    inputs.push_back(keys);
    ens.push_back(en);
    const auto out = h.step(keys, en);
    const bool expect_valid = t >= stages && ens[t - stages];
    ASSERT_EQ(out.valid, expect_valid) << "cycle " << t;
    if (expect_valid) {
      expect_sorted(inputs[t - stages], out);
    } else {
      for (unsigned k = 0; k < n; ++k) ASSERT_EQ(out.keys[k] + out.perm[k], 0u) << "cycle " << t;
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(HwwlSortNet, ZeroOnePrincipleN16) { zero_one_exhaustive<Vsort_n16_s0>(16, 6, 0); }
TEST(HwwlSortNet, ZeroOnePrincipleN8Pipelined) { zero_one_exhaustive<Vsort_n8_s2>(8, 4, 2); }
TEST(HwwlSortNet, RandomKeysN16) { random_keys<Vsort_n16_s0>(16, 6, 0, tb::cycles(50000), 3); }
TEST(HwwlSortNet, RandomKeysN32Pipelined) { random_keys<Vsort_n32_s3>(32, 6, 3, tb::cycles(50000), 4); }
TEST(HwwlSortNet, EnableAndValidN16) { random_keys<Vsort_n16_s0>(16, 6, 0, tb::cycles(20000), 5, true); }
TEST(HwwlSortNet, EnableAndValidN32Pipelined) { random_keys<Vsort_n32_s3>(32, 6, 3, tb::cycles(20000), 6, true); }

// Compare-and-swap cells of the RTL as Yosys elaborates it: each cell is one
// magnitude comparator ($gt in ascending blocks, $lt in descending ones) on
// {key, index}; after constant folding nothing else in the network compares.
unsigned rtl_comparators(unsigned n, unsigned stages) {
  const std::string rtl = FG_SOURCE_DIR "/rtl/hwwl/";
  const std::string cmd = "yosys -p 'read_verilog -sv -DSYNTHESIS " + rtl + "hwwl_pkg.sv " + rtl +
                          "hwwl_sort_net.sv; chparam -set N " + std::to_string(n) + " -set KeyWidth 6 -set Stages " +
                          std::to_string(stages) +
                          " hwwl_sort_net; prep -top hwwl_sort_net; select -count t:$gt t:$lt' 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return 0;
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, f)) out += buf;
  pclose(f);
  const auto pos = out.rfind(" objects");
  if (pos == std::string::npos) {
    ADD_FAILURE() << "yosys gave no count: " << out;
    return 0;
  }
  std::size_t b = pos;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(out[b - 1]))) --b;
  return static_cast<unsigned>(std::stoul(out.substr(b, pos - b)));
}

TEST(HwwlSortNet, CellCountOfTheBitonicNetwork) {
  // log2(N)(log2(N)+1)/2 layers of N/2 cells: 80 cells for N = 16 (the model's
  // layer count and the RTL's comparators as Yosys sees them must agree).
  for (auto [n, stages] : {std::pair{8u, 0u}, {16u, 0u}, {16u, 3u}, {32u, 2u}}) {
    hwwl::SortNet s(n, 6, 0);
    const unsigned logn = hwwl::clog2(n), expect = logn * (logn + 1) / 2 * n / 2;
    EXPECT_EQ(s.layers() * n / 2, expect) << "model, N=" << n;
    EXPECT_EQ(rtl_comparators(n, stages), expect) << "RTL, N=" << n << " Stages=" << stages;
  }
  EXPECT_EQ(rtl_comparators(16, 0), 80u);
}

}  // namespace
}  // namespace fg
