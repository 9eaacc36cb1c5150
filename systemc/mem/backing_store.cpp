// SPDX-License-Identifier: Apache-2.0
#include "mem/backing_store.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg {

const char* to_string(AtomicOp op) {
  switch (op) {
    case AtomicOp::None:
      return "none";
    case AtomicOp::Add:
      return "add";
    case AtomicOp::Cas:
      return "cas";
    case AtomicOp::Exch:
      return "exch";
    case AtomicOp::Min:
      return "min";
    case AtomicOp::Max:
      return "max";
    case AtomicOp::UMin:
      return "umin";
    case AtomicOp::UMax:
      return "umax";
    case AtomicOp::Or:
      return "or";
    case AtomicOp::And:
      return "and";
  }
  return "?";
}

void BackingStore::check(std::uint64_t addr, std::uint64_t len, const char* what) const {
  if (addr >= capacity_ || len > capacity_ - addr)
    throw SimFault(
        fmt::format("{} of {} bytes at 0x{:x} is outside device memory (0x{:x} bytes)", what, len, addr, capacity_));
}

unsigned char* BackingStore::page(std::uint64_t index, bool create) const {
  if (index == last_index_) return last_page_;
  auto it = pages_.find(index);
  if (it == pages_.end()) {
    if (!create) return nullptr;
    auto p = std::make_unique<unsigned char[]>(kPageSize);
    std::memset(p.get(), 0, kPageSize);
    it = pages_.emplace(index, std::move(p)).first;
  }
  last_index_ = index;
  last_page_ = it->second.get();
  return last_page_;
}

void BackingStore::apply(tlm::tlm_generic_payload& p, MemExt* ext) {
  if (ext && ext->op != AtomicOp::None)
    atomic(p.get_address(), *ext, p.get_data_ptr());
  else if (p.is_write())
    write(p.get_address(), p.get_data_ptr(), p.get_data_length(), p.get_byte_enable_ptr(), p.get_byte_enable_length());
  else
    read(p.get_address(), p.get_data_ptr(), p.get_data_length());
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void BackingStore::read(std::uint64_t addr, void* dst, std::uint64_t len) const {
  check(addr, len, "read");
  auto* out = static_cast<unsigned char*>(dst);
  while (len) {
    std::uint64_t off = addr & (kPageSize - 1);
    std::uint64_t n = std::min(len, kPageSize - off);
    const unsigned char* p = page(addr >> kPageBits, false);
    if (p)
      std::memcpy(out, p + off, n);
    else
      std::memset(out, 0, n);
    addr += n, out += n, len -= n;
  }
}

namespace {
// Copies the n bytes of src whose byte enable is set (nonzero) to dst; the
// enables repeat every be_len bytes and src[0]'s is be[j]. Eight bytes at a
// time where the enables allow: a store's coalesced lanes enable whole words.
void write_enabled(unsigned char* dst, const unsigned char* src, std::uint64_t n, const unsigned char* be,
                   unsigned be_len, std::uint64_t j) {
  std::uint64_t i = 0;
  while (i < n) {
    if (j + 8 <= be_len && i + 8 <= n) {
      std::uint64_t m;
      std::memcpy(&m, be + j, 8);
      if (m == ~std::uint64_t{0}) {
        std::memcpy(dst + i, src + i, 8);
        i += 8, j += 8;
        if (j == be_len) j = 0;
        continue;
      }
      if (m == 0) {
        i += 8, j += 8;
        if (j == be_len) j = 0;
        continue;
      }
    }
    if (be[j]) dst[i] = src[i];
    ++i;
    if (++j == be_len) j = 0;
  }
}
}  // namespace

void BackingStore::write(std::uint64_t addr, const void* src, std::uint64_t len, const unsigned char* be,
                         unsigned be_len) {
  check(addr, len, "write");
  const auto* in = static_cast<const unsigned char*>(src);
  std::uint64_t done = 0;
  while (done < len) {
    std::uint64_t a = addr + done;
    std::uint64_t off = a & (kPageSize - 1);
    std::uint64_t n = std::min(len - done, kPageSize - off);
    unsigned char* p = page(a >> kPageBits, true);
    if (!be) {
      std::memcpy(p + off, in + done, n);
    } else {
      write_enabled(p + off, in + done, n, be, be_len, done % be_len);
    }
    done += n;
  }
  if (!watches_.empty()) fire_watches(addr, len);
}

void BackingStore::watch(std::uint64_t addr, unsigned len, std::function<void()> on_write) {
  if (len == 0 || len > 8) throw std::logic_error("BackingStore::watch: 1 to 8 bytes");
  watches_.emplace(addr, Watch{len, std::move(on_write)});
}

void BackingStore::fire_watches(std::uint64_t addr, std::uint64_t len) {
  // Watches start at most 7 bytes before the write and end inside or after it.
  std::vector<std::function<void()>> fire;
  for (auto it = watches_.lower_bound(addr >= 7 ? addr - 7 : 0); it != watches_.end() && it->first < addr + len;) {
    if (it->first + it->second.len > addr) {
      fire.push_back(std::move(it->second.on_write));
      it = watches_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& f : fire) f();  // after the erase: a callback may watch again
}

std::uint64_t BackingStore::atomic(std::uint64_t addr, AtomicOp op, unsigned size, std::uint64_t operand,
                                   std::uint64_t compare) {
  check(addr, size, "atomic");
  if ((size != 4 && size != 8) || addr % size)
    throw SimFault(fmt::format("atomic of {} bytes at 0x{:x} is not naturally aligned", size, addr));
  std::uint64_t old = 0;
  read(addr, &old, size);
  const std::uint64_t a = old & (size == 8 ? ~0ull : 0xffffffffull);
  const std::uint64_t nv = atomic_apply(op, size, old, operand, compare);
  if (nv != a) write(addr, &nv, size);
  return a;
}

void BackingStore::atomic(std::uint64_t addr, MemExt& ext, unsigned char* data) {
  if (ext.n_lanes == 0) {
    const std::uint64_t old = atomic(addr, ext.op, ext.size, ext.operand, ext.compare);
    std::memcpy(data, &old, ext.size);
    return;
  }
  for (unsigned i = 0; i < ext.n_lanes; ++i) {
    LaneAtomic& l = ext.lanes[i];
    l.old = atomic(addr + l.offset, l.op, l.size, l.operand, l.compare);
  }
}

}  // namespace fg
