// SPDX-License-Identifier: Apache-2.0
#include "runtime/grid_barrier.h"

#include <deque>

#include <fmt/format.h>

#include "gpu/host.h"
#include "mem/memory_system.h"

namespace fg {

GridBarrier GridBarrier::make(Host& h, const std::string& name) {
  // The names live as long as the process (a diagnosis may come at any time).
  static std::deque<std::string> names;
  names.push_back(fmt::format("grid barrier '{}'", name));
  const unsigned line = h.memory().line_size();
  GridBarrier b;
  b.count = h.memory().allocate(line, line);
  b.generation = h.memory().allocate(line, line);
  const std::uint32_t zero = 0;
  h.copy_in(b.count, &zero, 4);
  h.copy_in(b.generation, &zero, 4);
  b.what = names.back().c_str();
  return b;
}

Task<void> grid_barrier(Lane& l, GridBarrier b, std::uint32_t groups) {
  co_await l.barrier();  // the whole workgroup is here
  if (l.local_id() == 0) {
    // The generation cannot move before this workgroup arrives.
    const std::uint32_t gen = co_await l.load_acquire<std::uint32_t>(b.generation);
    const std::uint32_t before = co_await l.atomic_add<std::uint32_t>(b.count, 1);
    if (before + 1 == groups) {
      co_await l.atomic_exch<std::uint32_t>(b.count, 0);
      co_await l.store_release<std::uint32_t>(b.generation, gen + 1);
    } else {
      co_await l.spin_until<std::uint32_t>(b.generation, SpinCmp::Ne, gen, b.what);
    }
  }
  co_await l.barrier();  // and waits for its first lane
}

}  // namespace fg
