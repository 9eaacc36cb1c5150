// SPDX-License-Identifier: Apache-2.0
// What every N-Queens version shares (cilk/queens.cpp registers the workload
// and runs channels and fork-join; cilk/queens_sched.cpp the worklists and the
// persistent and cooperative kernels): the board, the host search that counts
// the completions and the squares it tries, and the base case's cost.
#pragma once

#include <cstdint>
#include <string>

namespace fg {
class Config;
class Host;
}  // namespace fg

namespace fg::queens {

// The base case's search, per square tried: three mask tests, the branch,
// the mask updates or the return (an assumption about the compiled loop).
constexpr std::uint64_t kInstrPerSquare = 8;

// Queens on rows 0..r-1 as column and diagonal masks (d1: row + column, d2:
// row + n - column).
struct Board {
  std::uint32_t cols = 0, d1 = 0, d2 = 0;
  bool safe(std::uint32_t n, std::uint32_t r, std::uint32_t c) const {
    return !(cols >> c & 1) && !(d1 >> (r + c) & 1) && !(d2 >> (r + n - c) & 1);
  }
  Board with(std::uint32_t n, std::uint32_t r, std::uint32_t c) const {
    return Board{cols | 1u << c, d1 | 1u << (r + c), d2 | 1u << (r + n - c)};
  }
};

// Completions of rows r..n-1; `squares` counts the squares tried.
inline std::uint64_t complete(std::uint32_t n, std::uint32_t r, Board b, std::uint64_t& squares) {
  if (r == n) return 1;
  std::uint64_t total = 0;
  for (std::uint32_t c = 0; c < n; ++c) {
    ++squares;
    if (b.safe(n, r, c)) total += complete(n, r + 1, b.with(n, r, c), squares);
  }
  return total;
}

// The partial boards the scheduled versions make: every board with queens on
// rows 0..r-1 where n - r > base (they expand) and their children (the last
// of them complete their rows serially).
std::uint64_t boards(std::uint32_t n, std::uint32_t base);

// queens.mechanism = swwl, hwwl, persistent or coop: a worklist (or work-
// stealing pools) of partial boards; `want` is the host's count.
void run_scheduled(Host& h, const std::string& mechanism, std::uint32_t n, std::uint32_t base, std::uint64_t want);
// Exit 2 naming the first key of these versions the user set when the
// mechanism is not one they apply to.
void refuse_scheduled_keys(const Config& c, const std::string& mechanism);
// Their device memory (WorkloadInfo::device_bytes).
std::uint64_t scheduled_bytes(const Config& c, const std::string& mechanism, std::uint32_t n, std::uint32_t base);

}  // namespace fg::queens
