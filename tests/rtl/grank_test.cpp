// SPDX-License-Identifier: Apache-2.0
// hwwl_grank, gsorting's global ranking: the RTL's rule (bank b is globally
// greedy iff at least max(N/2, 1) banks hold strictly less) against the golden
// model's (hwwl::global_greedy: above the largest count of the lower half,
// found by std::nth_element; ties to the lower half), bit for bit:
// exhaustively for small N (odd ones too) and narrow counts, at random with
// many ties above; and the two rules against each other in C++ for every N
// from 1 to 70, including N = 1 (never greedy) and odd N, which a system
// (lanes a power of two >= 2) never has but the block accepts.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "Vgrank_n1.h"
#include "Vgrank_n12.h"
#include "Vgrank_n3.h"
#include "Vgrank_n5.h"
#include "Vgrank_n64.h"
#include "hwwl/hwwl_model.h"
#include "tb_util.h"

namespace fg {
namespace {

// The RTL's formulation, in C++.
hwwl::Bits count_rule(const std::vector<unsigned>& counts) {
  const std::size_t n = counts.size(), k = std::max<std::size_t>(n / 2, 1);
  hwwl::Bits g(n, 0);
  for (std::size_t b = 0; b < n; ++b) {
    std::size_t below = 0;
    for (std::size_t j = 0; j < n; ++j) below += counts[j] < counts[b];
    g[b] = below >= k;
  }
  return g;
}

std::string show(const std::vector<unsigned>& v) {
  std::string s;
  for (unsigned x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

TEST(HwwlGrank, CountRuleEqualsTheModelsMedianRule) {
  std::mt19937_64 rng(3);
  std::vector<unsigned> sorted;
  hwwl::Bits model;
  for (unsigned n = 1; n <= 70; ++n)
    for (unsigned t = 0; t < 400; ++t) {
      std::vector<unsigned> c(n);
      const unsigned range = 1 + static_cast<unsigned>(rng() % (t % 3 == 0 ? 3 : 33));  // ties, often
      for (auto& x : c) x = static_cast<unsigned>(rng() % range);
      hwwl::global_greedy(c, sorted, model);
      ASSERT_EQ(count_rule(c), model) << "counts " << show(c);
    }
  // N = 1: never greedy; all equal: none greedy.
  hwwl::global_greedy({7}, sorted, model);
  EXPECT_EQ(model, hwwl::Bits{0});
  hwwl::global_greedy(std::vector<unsigned>(16, 5), sorted, model);
  EXPECT_EQ(model, hwwl::Bits(16, 0));
}

// The Verilated block (combinational: no clock).
template <class V>
class Grank {
 public:
  Grank(unsigned n, unsigned cw) : n_(n), cw_(cw), ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->debug(0);
    m_ = std::make_unique<V>(ctx_.get(), "top");
  }
  ~Grank() {
    Verilated::threadContextp(ctx_.get());
    m_->final();
  }
  hwwl::Bits eval(const std::vector<unsigned>& counts) {
    for (unsigned b = 0; b < n_; ++b) tb::put(m_->counts_i, b * cw_, cw_, counts[b]);
    m_->eval();
    hwwl::Bits g(n_);
    for (unsigned b = 0; b < n_; ++b) g[b] = tb::get(m_->greedy_o, b, 1) != 0;
    return g;
  }

 private:
  unsigned n_, cw_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> m_;
};

// Every count vector of n banks of cw bits.
template <class V>
void exhaustive(unsigned n, unsigned cw) {
  Grank<V> g(n, cw);
  std::vector<unsigned> sorted;
  hwwl::Bits model;
  const std::uint64_t total = std::uint64_t{1} << (n * cw);
  for (std::uint64_t x = 0; x < total; ++x) {
    std::vector<unsigned> c(n);
    for (unsigned b = 0; b < n; ++b) c[b] = static_cast<unsigned>((x >> (b * cw)) & ((1u << cw) - 1));
    hwwl::global_greedy(c, sorted, model);
    ASSERT_EQ(g.eval(c), model) << "counts " << show(c);
  }
}

template <class V>
void random_counts(unsigned n, unsigned cw, unsigned trials, int seed) {
  Grank<V> g(n, cw);
  std::mt19937_64 rng(seed);
  std::vector<unsigned> sorted;
  hwwl::Bits model;
  unsigned some = 0;
  for (unsigned t = 0; t < trials; ++t) {
    std::vector<unsigned> c(n);
    // Narrow ranges (ties at the median) and the full width.
    const unsigned range = t % 2 ? (1u << cw) : 1 + static_cast<unsigned>(rng() % 4);
    for (auto& x : c) x = static_cast<unsigned>(rng() % range);
    hwwl::global_greedy(c, sorted, model);
    ASSERT_EQ(g.eval(c), model) << "counts " << show(c);
    for (auto b : model) some += b;
  }
  EXPECT_GT(some, 0u);
}

TEST(HwwlGrank, OneBankIsNeverGreedy) { exhaustive<Vgrank_n1>(1, 6); }
TEST(HwwlGrank, ThreeBanksExhaustiveMatchModel) { exhaustive<Vgrank_n3>(3, 2); }
TEST(HwwlGrank, FiveBanksExhaustiveMatchModel) { exhaustive<Vgrank_n5>(5, 3); }
TEST(HwwlGrank, TwelveBanksRandomMatchModel) { random_counts<Vgrank_n12>(12, 5, 20000, 5); }
TEST(HwwlGrank, SixtyFourBanksRandomMatchModel) { random_counts<Vgrank_n64>(64, 6, 20000, 6); }

}  // namespace
}  // namespace fg
