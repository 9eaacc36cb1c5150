// SPDX-License-Identifier: Apache-2.0
// strassen and matmul: C = A x B on n x n integer matrices, two ways, for
// Orr et al. Table 4.
//
// strassen (Sec. 7.1) on one channel stack, one kernel node (Table 3): a task
// C_blk += A_blk x B_blk of size s > 16 spawns the eight products of its
// quadrants, C_ij += A_ik x B_kj, at depth d + 1; a 16 x 16 task (the base
// case) multiplies in one lane and adds its result into C with atomic adds,
// so no task waits for another and there are no continuations. Table 3's
// 587 wavefronts for 512 x 512 are exactly the eight-product recursion's
// (1 + 1 + 1 + 8 + 64 + 512 full wavefronts of 1, 8, ..., 32,768 tasks);
// Strassen's seven products with their sums would give 310
// (docs/channels.md, "strassen").
//
// matmul is the conventional kernel Table 4 compares it with (the AMD APP
// SDK's MatrixMultiplication, mmmKernel): one work-item per 4 x 4 block of C,
// reading four-element rows of A and B, one launch.
//
// Both check C against the host's product every run; `--output` writes C,
// one row per line.
#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "cilk/cilk.h"
#include "gpu/dispatcher.h"
#include "gpu/host.h"
#include "runtime/channel.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

// Table 3: Strassen's data set is 512 x 512 and its channel width 8,192.
const Param<std::uint64_t> kN{
    "strassen.n", 512, "", "matrix size, 16 x a power of two (Orr et al. Table 3: 512)", {{16}, {4096}}};
const Param<std::uint64_t> kCapacity{"strassen.capacity",
                                     8192,
                                     "CEs",
                                     "capacity of each channel of the stack (Orr et al. Table 3: 8,192)",
                                     {{0}, {1u << 30}}};
const Param<std::uint64_t> kMatmulN{
    "matmul.n",
    512,
    "",
    "matrix size, a multiple of 32 (the AMD SDK sample's 8 x 8 work-groups of 4 x 4 blocks; Table 4: as strassen, 512)",
    {{32}, {4096}}};
// Sec. 7.1: "down to a base case (16x16 elements)".
constexpr std::uint32_t kBase = 16;
// A task CE: {u32 a, u32 b, u32 c, u32 size}, element offsets of the blocks'
// top-left corners (row stride n).
constexpr std::uint32_t kTaskBytes = 16;

// Entries uniform in -8..8: every product fits in 32 bits exactly.
std::vector<std::int32_t> matrix(Host& h, std::uint32_t n) {
  std::uniform_int_distribution<std::int32_t> d(-8, 8);
  std::vector<std::int32_t> m(std::size_t{n} * n);
  for (auto& v : m) v = d(h.rng());
  return m;
}

std::vector<std::int32_t> product(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b,
                                  std::uint32_t n) {
  std::vector<std::int32_t> c(std::size_t{n} * n, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::int32_t x = a[std::size_t{i} * n + k];
      for (std::uint32_t j = 0; j < n; ++j) c[std::size_t{i} * n + j] += x * b[std::size_t{k} * n + j];
    }
  return c;
}

// Check the device's C, report, write it.
void finish(Host& h, const char* what, std::uint64_t dc, const std::vector<std::int32_t>& a,
            const std::vector<std::int32_t>& b, std::uint32_t n) {
  const std::vector<std::int32_t> got = h.download<std::int32_t>(dc, std::size_t{n} * n);
  const std::vector<std::int32_t> want = product(a, b, n);
  std::uint64_t wrong = 0, first = 0;
  for (std::size_t i = got.size(); i-- > 0;)
    if (got[i] != want[i]) ++wrong, first = i;
  h.check(wrong == 0, fmt::format("{}: {} of {} entries of C differ from the host, the first at ({}, {})", what, wrong,
                                  got.size(), first / n, first % n));
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) h.output() << (j ? " " : "") << got[std::size_t{i} * n + j];
    h.output() << "\n";
  }
}

struct Mats {
  std::uint64_t a, b, c;
  std::uint32_t n;
  std::uint64_t at(std::uint64_t m, std::uint32_t off) const { return m + 4ull * off; }
};

Task<> strassen_task(Lane& l, const Mats& m, const cilk::Stack& st, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = st.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t w0 = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint64_t w1 = co_await l.load<std::uint64_t>(ce.addr + 8);
  const auto a = static_cast<std::uint32_t>(w0), b = static_cast<std::uint32_t>(w0 >> 32);
  const auto c = static_cast<std::uint32_t>(w1), s = static_cast<std::uint32_t>(w1 >> 32);
  if (s <= kBase) {
    // C_blk += A_blk x B_blk, a row at a time: A's row and B's rows in
    // two-element loads, 16 multiply-adds per row of B, 16 atomic adds.
    for (std::uint32_t i = 0; i < kBase; ++i) {
      std::int32_t ar[kBase], acc[kBase] = {};
      for (std::uint32_t k = 0; k < kBase; k += 2) {
        const std::uint64_t v = co_await l.load<std::uint64_t>(m.at(m.a, a + i * m.n + k));
        ar[k] = static_cast<std::int32_t>(v), ar[k + 1] = static_cast<std::int32_t>(v >> 32);
      }
      for (std::uint32_t k = 0; k < kBase; ++k) {
        for (std::uint32_t j = 0; j < kBase; j += 2) {
          const std::uint64_t v = co_await l.load<std::uint64_t>(m.at(m.b, b + k * m.n + j));
          acc[j] += ar[k] * static_cast<std::int32_t>(v);
          acc[j + 1] += ar[k] * static_cast<std::int32_t>(v >> 32);
        }
        co_await l.alu(kBase);
      }
      for (std::uint32_t j = 0; j < kBase; ++j)
        co_await l.atomic_nr<std::int32_t>(AtomicOp::Add, m.at(m.c, c + i * m.n + j), acc[j]);
    }
  } else {
    chan::Channel& child = st.at(d + 1);
    const chan::Alloc ca = co_await chan::talloc(l, child, 8, true);  // spawn the eight quadrant products
    const std::uint32_t h = s / 2;
    auto spawn = [&](Lane& lr, chan::Alloc al) -> Task<> {
      for (std::uint32_t q = 0; q < 8; ++q) {
        const std::uint32_t i = q >> 2 & 1, j = q >> 1 & 1, k = q & 1;
        const std::uint64_t p = al.addr(child, q);
        co_await lr.store<std::uint64_t>(p, (a + i * h * m.n + k * h) | std::uint64_t{b + k * h * m.n + j * h} << 32);
        co_await lr.store<std::uint64_t>(p + 8, (c + i * h * m.n + j * h) | std::uint64_t{h} << 32);
      }
      co_await lr.alu(24);
      co_await chan::enq(lr, child, al);
    };
    if (ca.split)  // the wavefront's spawns exceed the channel: in rounds
      co_await chan::in_rounds(l, child, 8, spawn);
    else
      co_await spawn(l, ca);
  }
  co_await chan::tfree(l, in, ce);
}

void strassen(Host& h) {
  const auto n = static_cast<std::uint32_t>(kN.get(h.config()));
  if (n % kBase != 0 || !std::has_single_bit(n / kBase))
    throw UserError(
        fmt::format("{}={}: must be 16 times a power of two (the recursion halves down to 16 x 16)", kN.name(), n));
  const auto cap = static_cast<std::uint32_t>(kCapacity.get(h.config()));
  const std::vector<std::int32_t> a = matrix(h, n), b = matrix(h, n);
  const Mats m{h.upload(a), h.upload(b), h.upload(std::vector<std::int32_t>(std::size_t{n} * n, 0)), n};
  const auto levels = static_cast<std::uint32_t>(std::countr_zero(n / kBase)) + 1;
  flow::Graph g(h, kCapacity.name());
  cilk::Stack st;
  st = cilk::make_stack(
      g, "strassen", kTaskBytes, cap, levels,
      [&m, &st](std::uint32_t d) {
        return [&m, &st, d](Lane& l, std::uint32_t off) { return strassen_task(l, m, st, d, off); };
      },
      32, ContextSize{856, 16, 6, 8});  // Table 3: 16s/6d/8c
  g.aggregator().set_scheduler(std::make_unique<cilk::LevelScheduler>(std::vector{st}, std::vector<cilk::Stack>{}));
  struct Root {
    std::uint32_t a, b, c, size;
  };
  static_assert(sizeof(Root) == kTaskBytes);
  g.host_enq(st.at(0), Root{0, 0, 0, n});
  const Tick elapsed = cilk::run(g);
  finish(h, "strassen", m.c, a, b, n);
  cilk::report(h, g, elapsed);
}

// The AMD APP SDK's MatrixMultiplication sample, the kernel it runs by
// default (mmmKernel, no LDS, SDK 2.6-2.9): a 2-D launch of 8 x 8 work-groups,
// work-item (x, y) computing C's 4 x 4 block at rows 4y.., columns 4x.., so a
// work-group covers a 32 x 32 tile of C; per step of four along k,
// four-element rows of A and of B and 64 multiply-adds. The sample's float4
// loads are two 8-byte loads here (the model's widest). The 1-D launch is
// numbered tile by tile, row-major, and the 64 items of a tile row-major (8 x 8).
Task<> matmul_kernel(Lane& l, Mats m) {
  const std::uint32_t tiles = m.n / 32, id = l.global_id();
  const std::uint32_t tile = id / 64, local = id % 64;
  const std::uint32_t y = tile / tiles * 8 + local / 8, x = tile % tiles * 8 + local % 8;
  const std::uint32_t row = y * 4, col = x * 4;
  std::int32_t acc[4][4] = {};
  for (std::uint32_t k = 0; k < m.n; k += 4) {
    std::int32_t ab[4][4], bb[4][4];
    for (std::uint32_t r = 0; r < 4; ++r)
      for (std::uint32_t e = 0; e < 4; e += 2) {
        const std::uint64_t v = co_await l.load<std::uint64_t>(m.at(m.a, (row + r) * m.n + k + e));
        ab[r][e] = static_cast<std::int32_t>(v), ab[r][e + 1] = static_cast<std::int32_t>(v >> 32);
      }
    for (std::uint32_t r = 0; r < 4; ++r)
      for (std::uint32_t e = 0; e < 4; e += 2) {
        const std::uint64_t v = co_await l.load<std::uint64_t>(m.at(m.b, (k + r) * m.n + col + e));
        bb[r][e] = static_cast<std::int32_t>(v), bb[r][e + 1] = static_cast<std::int32_t>(v >> 32);
      }
    for (std::uint32_t r = 0; r < 4; ++r)
      for (std::uint32_t e = 0; e < 4; ++e)
        for (std::uint32_t t = 0; t < 4; ++t) acc[r][e] += ab[r][t] * bb[t][e];
    co_await l.alu(64 + 4);  // the multiply-adds, the loop and address arithmetic
  }
  for (std::uint32_t r = 0; r < 4; ++r)
    for (std::uint32_t e = 0; e < 4; e += 2)
      co_await l.store<std::uint64_t>(
          m.at(m.c, (row + r) * m.n + col + e),
          static_cast<std::uint32_t>(acc[r][e]) | std::uint64_t{static_cast<std::uint32_t>(acc[r][e + 1])} << 32);
}

void matmul(Host& h) {
  const auto n = static_cast<std::uint32_t>(kMatmulN.get(h.config()));
  if (n % 32 != 0)
    throw UserError(
        fmt::format("{}={}: must be a multiple of 32 (8 x 8 work-groups of 4 x 4 blocks, the AMD SDK "
                    "sample's)",
                    kMatmulN.name(), n));
  const std::vector<std::int32_t> a = matrix(h, n), b = matrix(h, n);
  const Mats m{h.upload(a), h.upload(b), h.upload(std::vector<std::int32_t>(std::size_t{n} * n, 0)), n};
  const std::uint32_t items = n / 4 * (n / 4);
  // 64 work-items a workgroup (one wavefront; the SDK's 8 x 8 block), 32 registers.
  const auto t = h.run_kernel({"matmul", items, 64, 32, 0, [m](Lane& l) { return matmul_kernel(l, m); }});
  finish(h, "matmul", m.c, a, b, n);
  h.result("kernel_ns", t.to_seconds() * 1e9);
  h.result("wavefronts", std::uint64_t{(items + 63) / 64});
}

std::uint64_t bytes(std::uint64_t n) { return 12 * n * n; }

// The three matrices, the channel stack as strassen() makes it and the spill
// blocks of its kernel.
std::uint64_t strassen_bytes(const Config& c) {
  const std::uint64_t n = kN.get(c);
  const auto levels = n % kBase == 0 && std::has_single_bit(n / kBase)
                          ? static_cast<std::uint32_t>(std::countr_zero(n / kBase)) + 1
                          : 1;  // refused when it runs
  return bytes(n) + cilk::stack_bytes(c, kTaskBytes, kCapacity.get(c), levels) +
         flow::spill_bytes(c, ContextSize{856, 16, 6, 8});
}

const RegisterWorkload kStrassen{{"strassen",
                                  "Cilk block-recursive matrix multiply (16x16 base, atomic adds) on a channel stack "
                                  "(Orr et al. Sec. 7.1)",
                                  "", strassen, strassen_bytes, flow::mechanisms}};
const RegisterWorkload kMatmul{{"matmul",
                                "conventional matrix multiply, one work-item per 4x4 block (AMD SDK mmmKernel; Orr "
                                "et al. Table 4)",
                                "", matmul, [](const Config& c) { return bytes(kMatmulN.get(c)); }}};

}  // namespace
}  // namespace fg
