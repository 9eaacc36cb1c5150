// SPDX-License-Identifier: Apache-2.0
// Sectored lines (gpu.sector): a line of the L1 and the L2 is split into
// sectors, and lines move between the L1 and the L2 a sector at a time, as on
// NVIDIA's GPUs since Volta (128-byte lines of four 32-byte sectors; Accel-Sim's
// sectored L1, `S:` in its dl1 configurations). A read fetches the sectors its
// lanes touch; an L1 line keeps a mask of the sectors it holds, and a read
// that needs a sector the line lacks is a (sector) miss; an L2 bank's port is
// busy for the sectors a request moves, not for the whole line. The L2 still
// fills whole lines from DRAM. With gpu.sector = 0 every access moves its
// whole line (the model before 2026-11-30).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include <tlm.h>

#include "mem/mem_ext.h"

namespace fg {

struct Sectors {
  unsigned line = 64;
  unsigned size = 0;  // bytes per sector; 0: not sectored

  bool on() const { return size != 0; }
  unsigned count() const { return on() ? line / size : 1; }
  std::uint32_t all() const { return count() >= 32 ? ~0u : (1u << count()) - 1; }
  // The sectors of bytes [off, off + len) of a line.
  std::uint32_t span(std::uint64_t off, std::uint64_t len) const {
    if (!on() || len == 0) return all();
    const std::uint64_t first = off / size, last = std::min<std::uint64_t>((off + len - 1) / size, count() - 1);
    const std::uint32_t upto = last >= 31 ? ~0u : (2u << last) - 1;
    return upto & ~((1u << first) - 1);
  }
  // The sectors a request moves: the initiator's mask (MemExt::sectors), the
  // lanes of a coalesced atomic, the bytes a write enables, else its span.
  std::uint32_t of(const tlm::tlm_generic_payload& p, const MemExt* ext) const {
    if (!on()) return all();
    if (ext && ext->sectors) return ext->sectors & all();
    const std::uint64_t off = p.get_address() % line;
    if (ext && ext->op != AtomicOp::None && ext->n_lanes > 0) {
      std::uint32_t m = 0;
      for (unsigned i = 0; i < ext->n_lanes; ++i) m |= span(ext->lanes[i].offset, ext->lanes[i].size);
      return m;
    }
    const unsigned char* be = p.get_byte_enable_ptr();
    const unsigned n = p.get_data_length();
    if (be && p.get_byte_enable_length() >= n) {
      // A sector's bit when any of its bytes is enabled: one sector at a time (every byte of a
      // sector has the same span(b, 1)), eight enables at a time.
      std::uint32_t m = 0;
      for (unsigned i = 0; i < n;) {
        const std::uint64_t b = off + i;
        const unsigned k = static_cast<unsigned>(std::min<std::uint64_t>(n - i, (b / size + 1) * size - b));
        if (any_enabled(be + i, k)) m |= span(b, 1);
        i += k;
      }
      return m ? m : span(off, 1);
    }
    return span(off, n);
  }
  static bool any_enabled(const unsigned char* be, unsigned k) {
    unsigned i = 0;
    for (; i + 8 <= k; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, be + i, 8);
      if (w) return true;
    }
    for (; i < k; ++i)
      if (be[i]) return true;
    return false;
  }
  unsigned number(std::uint32_t mask) const { return static_cast<unsigned>(std::popcount(mask)); }
};

}  // namespace fg
