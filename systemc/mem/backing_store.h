// SPDX-License-Identifier: Apache-2.0
// Functional device memory: the one place real data lives. Caches and DRAM
// are timing models; the level that completes a request (L1 on a read hit,
// the L2 otherwise) performs it here at the moment its b_transport runs, so
// the functional order is the host order of transactions (the loosely-timed
// approximation, see docs/memory.md).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

#include "mem/mem_ext.h"

namespace fg {

class BackingStore {
 public:
  explicit BackingStore(std::uint64_t capacity) : capacity_(capacity) {}
  std::uint64_t capacity() const { return capacity_; }
  void read(std::uint64_t addr, void* dst, std::uint64_t len) const;
  // Byte-enable mask as in TLM (0xff = enabled), repeating every be_len bytes.
  void write(std::uint64_t addr, const void* src, std::uint64_t len, const unsigned char* be = nullptr,
             unsigned be_len = 0);
  // Executes the read-modify-write, returns the old value (zero-extended).
  std::uint64_t atomic(std::uint64_t addr, AtomicOp op, unsigned size, std::uint64_t operand, std::uint64_t compare);
  // Executes the atomic request at `addr` described by `ext` (one op, or a
  // coalesced request's lanes in order); a single op's old value goes to `data`.
  void atomic(std::uint64_t addr, MemExt& ext, unsigned char* data);
  // Performs a whole TLM request functionally (read, write with its byte
  // enables, or the atomic `ext` describes): mem.magic's caches.
  void apply(tlm::tlm_generic_payload& p, MemExt* ext);
  // Throws SimFault if [addr, addr+len) is outside device memory.
  void check(std::uint64_t addr, std::uint64_t len, const char* what) const;

  // Calls `on_write` once, from the writer's process, at the next write (or
  // value-changing atomic) that overlaps [addr, addr + len), len <= 8: how a
  // wavefront spinning on a flag learns that polling again can see something
  // new (Lane::spin_until).
  void watch(std::uint64_t addr, unsigned len, std::function<void()> on_write);

 private:
  void fire_watches(std::uint64_t addr, std::uint64_t len);
  struct Watch {
    unsigned len;
    std::function<void()> on_write;
  };
  std::multimap<std::uint64_t, Watch> watches_;  // by address
  static constexpr unsigned kPageBits = 16;
  static constexpr std::uint64_t kPageSize = 1ull << kPageBits;
  unsigned char* page(std::uint64_t page_index, bool create) const;

  std::uint64_t capacity_;
  mutable std::unordered_map<std::uint64_t, std::unique_ptr<unsigned char[]>> pages_;
  mutable std::uint64_t last_index_ = ~0ull;
  mutable unsigned char* last_page_ = nullptr;
};

}  // namespace fg
