// SPDX-License-Identifier: Apache-2.0
// Coalesced atomics (gpu.cu.coalesce_atomics; on in kim2014 as in GPGPU-Sim):
// a wavefront's atomics to one line go in one request unless their bytes
// overlap; the functional results are those of lane-by-lane execution.
#include <numeric>

#include <gtest/gtest.h>

#include "fg_test.h"
#include "sim/stats.h"

namespace fg {
namespace {

using test::HostHarness;

// Each lane adds 1 to word (lane * stride_words) % words of `out` and keeps the
// old value in `olds`.
Task<> add_one(Lane& l, std::uint64_t out, std::uint64_t olds, unsigned stride_words, unsigned words) {
  const std::uint64_t w = (std::uint64_t{l.lane_id()} * stride_words) % words;
  const std::uint32_t old = co_await l.atomic_add<std::uint32_t>(out + 4 * w, 1u);
  co_await l.store<std::uint32_t>(olds + 4ull * l.global_id(), old);
}

struct Result {
  double requests, operations, kernel_ns;
  std::vector<std::uint32_t> words, olds;
};

// One 32-lane wavefront on kim2014 (128 B lines).
Result run(bool coalesce, unsigned stride_words, unsigned words) {
  Result r;
  HostHarness h(test::make_config(
                    "kim2014", {"gpu.cus=1", std::string("gpu.cu.coalesce_atomics=") + (coalesce ? "true" : "false")}),
                [&](Host& host) {
                  const std::uint64_t out = host.alloc(4 * words), olds = host.alloc(4 * 32);
                  host.copy_in(out, std::vector<std::uint32_t>(words, 0).data(), 4 * words);
                  r.kernel_ns = host.run_kernel({"add_one", 32, 32, 8, 0,
                                                 [=](Lane& l) { return add_one(l, out, olds, stride_words, words); }})
                                    .to_seconds() *
                                1e9;
                  r.words = host.download<std::uint32_t>(out, words);
                  r.olds = host.download<std::uint32_t>(olds, 32);
                });
  h.run();
  r.requests = StatRegistry::global().sum_matching("gpu.l2.bank", ".atomic_requests");
  r.operations = StatRegistry::global().sum_matching("gpu.l2.bank", ".atomics");
  return r;
}

TEST(CoalescedAtomics, DistinctWordsOfOneLineAreOneRequest) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result r = run(true, 1, 32);  // 32 words = one 128 B line
  EXPECT_EQ(r.requests, 1.0);
  EXPECT_EQ(r.operations, 32.0);
  for (auto w : r.words) EXPECT_EQ(w, 1u);
  for (auto o : r.olds) EXPECT_EQ(o, 0u);
}

TEST(CoalescedAtomics, TwoLinesAreTwoRequests) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result r = run(true, 2, 64);  // lanes 0-15 in the first line, 16-31 in the second
  EXPECT_EQ(r.requests, 2.0);
  EXPECT_EQ(r.operations, 32.0);
}

// Lanes on one word overlap: each needs its own request, and they see each
// other's results in lane order.
TEST(CoalescedAtomics, LanesOnOneWordAreOneRequestEachInLaneOrder) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result r = run(true, 0, 1);
  EXPECT_EQ(r.requests, 32.0);
  EXPECT_EQ(r.words[0], 32u);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(r.olds[i], i) << "lane " << i;
}

// Two lanes per word (lanes i and i+16 on word i): two requests.
TEST(CoalescedAtomics, TwoLanesPerWordAreTwoRequests) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result r = run(true, 1, 16);
  EXPECT_EQ(r.requests, 2.0);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(r.words[i], 2u);
    EXPECT_EQ(r.olds[i], 0u);
    EXPECT_EQ(r.olds[i + 16], 1u);
  }
}

TEST(CoalescedAtomics, OffEveryLaneIsARequest) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result r = run(false, 1, 32);
  EXPECT_EQ(r.requests, 32.0);
  for (auto w : r.words) EXPECT_EQ(w, 1u);
  for (auto o : r.olds) EXPECT_EQ(o, 0u);
}

// Two kernels in one run (after a warm-up): 32 lanes on 32 words of one line, then 32 lanes on
// one word; returns (one word - 32 words) kernel time in ns.
double same_word_penalty(bool coalesce) {
  double distinct = 0, same = 0;
  HostHarness h(
      test::make_config("kim2014",
                        {"gpu.cus=1", std::string("gpu.cu.coalesce_atomics=") + (coalesce ? "true" : "false")}),
      [&](Host& host) {
        const std::uint64_t out = host.alloc(4 * 32), olds = host.alloc(4 * 32);
        // Warm-up: the line and the code paths in place for both timed kernels.
        host.run_kernel({"warm", 32, 32, 8, 0, [=](Lane& l) { return add_one(l, out, olds, 1, 32); }});
        distinct = host.run_kernel({"distinct", 32, 32, 8, 0, [=](Lane& l) { return add_one(l, out, olds, 1, 32); }})
                       .to_seconds() *
                   1e9;
        same =
            host.run_kernel({"same", 32, 32, 8, 0, [=](Lane& l) { return add_one(l, out, olds, 0, 1); }}).to_seconds() *
            1e9;
      });
  h.run();
  return same - distinct;
}

// Coalesced, the 32 words cost one pass of the bank's atomic unit while the
// one word costs 32 passes serialised on the line (4 L2 cycles of 1.429 ns
// each): 31 x 4 cycles more. Uncoalesced both cost 32 passes.
TEST(CoalescedAtomics, OnlyOverlappingLanesPayTheSerialisation) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_NEAR(same_word_penalty(true), 31 * 4 * 1.429, 2.0);
}

TEST(CoalescedAtomics, UncoalescedEveryLanePaysTheSerialisation) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_NEAR(same_word_penalty(false), 0.0, 2.0);
}

}  // namespace
}  // namespace fg
