// SPDX-License-Identifier: Apache-2.0
// memstream: memory-system microbenchmark that drives each CU's L1 directly
// (no compute units): every active CU runs an agent that issues line requests
// with `outstanding` in flight. Patterns:
//   read    stream once through a private region (miss-heavy, DRAM bound)
//   reuse   read a private region `passes` times (hit-heavy once it fits in L1)
//   random  random lines of a private region (seeded by sim.seed)
//   copy    read a line of a private source region, write it to a destination
//   cas     every CU CAS-increments one shared counter `iterations` times
// Every value read is checked against what the host wrote; copy and cas check
// the final memory contents.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <tlm>

// After <tlm>: the quantum keeper's header does not include SystemC itself.
#include <tlm_utils/tlm_quantumkeeper.h>

#include "gpu/host.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

const Param<std::string> kPattern{
    "memstream.pattern", "read", {"read", "reuse", "random", "copy", "cas"}, "access pattern"};
const Param<std::uint64_t> kBytes{"memstream.bytes", 64 * 1024, "B", "region size per CU", {{64}, {1ull << 30}}};
const Param<std::uint64_t> kPasses{
    "memstream.passes", 1, "", "passes over the region (read, reuse, random, copy)", {{1}, {1000000}}};
const Param<std::uint64_t> kOutstanding{
    "memstream.outstanding", 8, "", "line requests in flight per CU", {{1}, {1024}}};
const Param<std::uint64_t> kActive{"memstream.cus", 0, "", "active CUs (0 = all)", {{0}, {63}}};
const Param<std::uint64_t> kIterations{
    "memstream.iterations", 100, "", "successful CAS increments per CU (cas)", {{1}, {10000000}}};

std::uint32_t pattern_word(std::uint64_t addr) { return static_cast<std::uint32_t>((addr * 2654435761u) >> 7); }

void run(Host& h) {
  const Config& cfg = h.config();
  const std::string pattern = kPattern.get(cfg);
  const unsigned line = h.memory().line_size();
  const std::uint64_t bytes = std::max<std::uint64_t>(line, kBytes.get(cfg) / line * line);
  const std::uint64_t lines = bytes / line;
  const int active =
      kActive.get(cfg) == 0 ? h.cus() : static_cast<int>(std::min<std::uint64_t>(kActive.get(cfg), h.cus()));
  const unsigned outstanding = static_cast<unsigned>(kOutstanding.get(cfg));
  const std::uint64_t passes = kPasses.get(cfg);

  // One rule (docs/reliability.md): a setting this pattern does not read is refused.
  if (pattern != "cas" && cfg.set_by_user(kIterations.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: memstream.pattern is {}, not cas", kIterations.name(),
                                cfg.origin(kIterations.name()), pattern));
  if (pattern == "cas")
    for (const std::string& k : {kBytes.name(), kOutstanding.name(), kPasses.name()})
      if (cfg.set_by_user(k))
        throw UserError(fmt::format("{} (set by {}) does not apply: memstream.pattern cas increments one counter", k,
                                    cfg.origin(k)));
  if (pattern == "cas") {
    const std::uint64_t iters = kIterations.get(cfg);
    const std::uint64_t counter = h.alloc(line);
    std::vector<std::uint64_t> attempts(active, 0);
    for (int c = 0; c < active; ++c) {
      h.spawn(fmt::format("memstream_cu{}", c), [&, c] {
        MemPort& port = h.port(c);
        tlm_utils::tlm_quantumkeeper qk;
        qk.reset();
        std::uint64_t expected = 0;
        for (std::uint64_t done = 0; done < iters;) {
          std::uint64_t old = 0;
          qk.set(port.atomic(counter, AtomicOp::Cas, 4, expected + 1, expected, old, qk.get_local_time()));
          ++attempts[c];
          if (old == expected) ++done;
          expected = old == expected ? expected + 1 : old;
          if (qk.need_sync()) qk.sync();
        }
        qk.sync();
      });
    }
    h.join();
    std::uint32_t final_value = 0;
    h.copy_out(&final_value, counter, 4);
    h.check(final_value == iters * active,
            fmt::format("counter = {} after {} CUs x {} increments", final_value, active, iters));
    std::uint64_t total = 0;
    for (auto a : attempts) total += a;
    h.result("cas_attempts", total);
    h.result("cas_success_rate", double(iters * active) / double(total));
    h.output() << fmt::format("counter {}\nattempts {}\n", final_value, total);
    return;
  }

  // Private regions, initialised by the host (debug transport: no time).
  std::vector<std::uint64_t> src(active), dst(active, 0);
  std::vector<std::uint32_t> words(bytes / 4);
  for (int c = 0; c < active; ++c) {
    src[c] = h.alloc(bytes);
    for (std::uint64_t i = 0; i < words.size(); ++i) words[i] = pattern_word(src[c] + 4 * i);
    h.copy_in(src[c], words.data(), bytes);
    if (pattern == "copy") dst[c] = h.alloc(bytes);
  }
  std::vector<std::uint64_t> bad(active, 0), finish_ps(active, 0);
  const std::uint64_t seed = h.rng()();
  for (int c = 0; c < active; ++c) {
    h.spawn(fmt::format("memstream_cu{}", c), [&, c] {
      MemPort& port = h.port(c);
      std::mt19937_64 rng(seed + static_cast<std::uint64_t>(c));
      tlm_utils::tlm_quantumkeeper qk;
      qk.reset();
      std::vector<unsigned char> buf(std::size_t{line} * outstanding);
      std::vector<std::uint64_t> at_line(outstanding);
      std::vector<sc_core::sc_time> loaded(outstanding);
      const std::uint64_t total = lines * passes;
      for (std::uint64_t i = 0; i < total; i += outstanding) {
        const sc_core::sc_time issue = qk.get_local_time();
        sc_core::sc_time done = issue;
        const std::uint64_t n = std::min<std::uint64_t>(outstanding, total - i);
        for (std::uint64_t k = 0; k < n; ++k) {
          const std::uint64_t l = at_line[k] = pattern == "random" ? rng() % lines : (i + k) % lines;
          const std::uint64_t a = src[c] + l * line;
          unsigned char* b = buf.data() + k * line;
          done = std::max(done, loaded[k] = port.read(a, b, line, issue));
          for (unsigned w = 0; w < line / 4; ++w) {
            std::uint32_t v;
            std::memcpy(&v, b + 4 * w, 4);
            if (v != pattern_word(a + 4 * w)) ++bad[c];
          }
        }
        // copy: each line stored once its load returned, after the batch's
        // loads (a port's requests never go back in time: storing line k
        // before loading line k + 1 at the batch's issue time was an
        // internal error, "initiator time went backwards").
        if (pattern == "copy") {
          sc_core::sc_time at = issue;
          for (std::uint64_t k = 0; k < n; ++k) {
            at = std::max(at, loaded[k]);
            done = std::max(done, port.write(dst[c] + at_line[k] * line, buf.data() + k * line, line, at));
          }
        }
        qk.set(done);
        if (qk.need_sync()) qk.sync();
      }
      qk.sync();
      finish_ps[c] = sc_core::sc_time_stamp().value();
    });
  }
  h.join();
  std::uint64_t wrong = 0;
  for (auto b : bad) wrong += b;
  h.check(wrong == 0, fmt::format("{} words read back wrong", wrong));
  if (pattern == "copy") {
    std::uint64_t diff = 0;
    for (int c = 0; c < active; ++c) {
      auto a = h.download<std::uint32_t>(src[c], bytes / 4), b = h.download<std::uint32_t>(dst[c], bytes / 4);
      diff += static_cast<std::uint64_t>(std::mismatch(a.begin(), a.end(), b.begin()).first != a.end());
    }
    h.check(diff == 0, fmt::format("{} copied regions differ from their source", diff));
  }
  const double ns = double(*std::max_element(finish_ps.begin(), finish_ps.end())) / 1000.0;
  const double moved = double(lines * passes * line) * active * (pattern == "copy" ? 2 : 1);
  h.result("bytes_moved", moved);
  h.result("achieved_gbps", ns > 0 ? moved / ns : 0.0);
  for (int c = 0; c < active; ++c)
    h.output() << fmt::format("cu{} lines {} finish_ns {:.3f}\n", c, lines * passes, finish_ps[c] / 1000.0);
}

// Per active CU a region (two for copy); the line size is at most 4 KiB.
std::uint64_t device_bytes(const Config& cfg) {
  const std::uint64_t cus = std::get<std::uint64_t>(cfg.value("gpu.cus"));
  const std::uint64_t active = kActive.get(cfg) == 0 ? cus : std::min(kActive.get(cfg), cus);
  const std::string pattern = kPattern.get(cfg);
  if (pattern == "cas") return 4096;
  return active * (kBytes.get(cfg) + 4096) * (pattern == "copy" ? 2 : 1);
}

const RegisterWorkload reg{{"memstream",
                            "memory microbenchmark: per-CU agents stream, reuse, copy or CAS through the caches", "",
                            run, device_bytes}};

}  // namespace
}  // namespace fg
