// SPDX-License-Identifier: Apache-2.0
#include "gpu/wavefront.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/op.h"

namespace fg {

namespace {
std::vector<const char*>& site_files() {
  static std::vector<const char*> f;
  return f;
}
}  // namespace

Site make_site(const std::source_location& loc) {
  // Interned by pointer, numbered in order of first use (deterministic).
  static const char* last = nullptr;
  static std::uint32_t last_id = 0;
  const char* f = loc.file_name();
  if (f != last) {
    auto& files = site_files();
    auto it = std::find(files.begin(), files.end(), f);
    if (it == files.end()) {
      files.push_back(f);
      it = files.end() - 1;
    }
    last = f;
    last_id = static_cast<std::uint32_t>(it - files.begin());
  }
  return Site{last_id, loc.line(), loc.column()};
}

bool same_site(const std::source_location& a, const std::source_location& b) {
  static_assert(sizeof(std::source_location) == sizeof(void*), "source_location is one pointer (libstdc++)");
  if (std::bit_cast<const void*>(a) == std::bit_cast<const void*>(b)) return true;
  return a.line() == b.line() && a.column() == b.column() && std::strcmp(a.file_name(), b.file_name()) == 0;
}

std::string site_name(const Site& s) {
  const auto& files = site_files();
  std::string f = s.file < files.size() ? files[s.file] : "?";
  if (auto slash = f.rfind('/'); slash != std::string::npos) f = f.substr(slash + 1);
  return fmt::format("{}:{}", f, s.line);
}

const char* to_string(WaveState s) {
  switch (s) {
    case WaveState::Ready:
      return "ready";
    case WaveState::Barrier:
      return "at barrier";
    case WaveState::Blocked:
      return "blocked";
    case WaveState::Parking:
      return "parking";
    case WaveState::Parked:
      return "parked";
    case WaveState::Restoring:
      return "restoring";
    case WaveState::Draining:
      return "draining";
  }
  return "?";
}

Wavefront::Wavefront(Workgroup& wg, std::uint32_t first_local, std::uint32_t width, std::uint32_t age)
    : wg_(&wg), width_(width), age_(age), lanes_(width), tasks_(width) {
  const KernelLaunch& k = wg.kernel->launch;
  for (std::uint32_t i = 0; i < width; ++i) {
    Lane& l = lanes_[i];
    l.local_id_ = first_local + i;
    l.group_id_ = wg.id;
    l.lane_id_ = i;
    l.wave_size_ = width;
    l.group_size_ = k.group_size;
    l.global_id_ = wg.id * k.group_size + l.local_id_;
    l.transmit_ = wg.grow ? &wg.transmit : nullptr;  // null: not added by Dispatcher::grow
    l.clock_ = &ready;
    // Lanes past the workgroup exist in hardware but stay inactive, and so do
    // lanes past the launch's grid in its own workgroups (grown workgroups are
    // whole).
    if (l.local_id_ >= k.group_size || (!wg.grow && l.global_id_ >= k.grid)) l.done = true;
  }
}

Wavefront::~Wavefront() = default;

void Wavefront::resume_lane(Lane& l) {
  one_site_ = 0;
  l.current.resume();
  if (l.done) {
    --live_;
    avail_ &= ~(1ull << l.lane_id_);
    auto h = tasks_[l.lane_id_].get();
    if (h.promise().error) std::rethrow_exception(h.promise().error);
  }
}

namespace {
// A grown workgroup's lanes: read the transmit block, then run the entry.
Task<void> grown_entry(Lane& l, const GrowSpec* g, const KernelBody* body) {
  if (g->transmit_bytes) co_await l.load_transmit(g->transmit_addr, g->transmit_bytes);
  co_await (*body)(l);
}
}  // namespace

void Wavefront::start() {
  const KernelBody& body = wg_->kernel->launch.body;
  const GrowSpec* g = wg_->grow.get();
  const KernelBody* entry = g && g->entry ? &g->entry : &body;
  for (Lane& l : lanes_) {
    if (l.done) continue;
    tasks_[l.lane_id_] = g ? grown_entry(l, g, entry) : body(l);
    l.current = tasks_[l.lane_id_].get();
    ++live_;
  }
  for (Lane& l : lanes_)
    if (!l.done && l.current) {
      avail_ |= 1ull << l.lane_id_;
      resume_lane(l);
    }
}

std::uint64_t Wavefront::select(bool& divergent) const {
  // One pass. The order is the deeper call frame first (Lane::path's top
  // byte; 0 outside any), then the earlier site, then the smaller path; the
  // best only moves earlier, so a lane equal to the final best is never seen
  // before the lane that made it the best.
  if (one_site_ != 0 && one_site_ == avail_) {
    divergent = false;
    return avail_;
  }
  const Lane* best = nullptr;
  Site best_site{};
  bool have_site = false;  // best_site computed (only once lanes diverge)
  std::uint64_t mask = 0;
  divergent = false;
  for (std::uint64_t m = avail_; m; m &= m - 1) {
    const Lane& l = lanes_[std::countr_zero(m)];
    if (!best) {
      best = &l;
      mask = 1ull << l.lane_id_;
    } else if (l.path == best->path && same_site(l.pending.loc, best->pending.loc)) {
      mask |= 1ull << l.lane_id_;
    } else {
      divergent = true;
      if (!have_site) best_site = best->pending.site(), have_site = true;
      const Site s = l.pending.site();
      const std::uint32_t d = l.path >> Lane::kDepthShift, bd = best->path >> Lane::kDepthShift;
      if (d > bd || (d == bd && (s < best_site || (s == best_site && l.path < best->path)))) {
        best = &l;
        best_site = s;
        mask = 1ull << l.lane_id_;
      }
    }
  }
  return mask;
}

void Wavefront::resume(std::uint64_t mask) {
  for (std::uint64_t m = mask; m; m &= m - 1) resume_lane(lanes_[std::countr_zero(m)]);
  release_sync_if_complete();  // lanes that finished may have been all the others waited for
}

void Wavefront::arrive_at_sync(std::uint64_t mask) {
  for (std::uint64_t m = mask; m; m &= m - 1) {
    lanes_[std::countr_zero(m)].at_sync = true;
    ++at_sync_;
    avail_ &= ~(m & -m);
  }
  release_sync_if_complete();
}

void Wavefront::release_sync_if_complete() {
  if (at_sync_ == 0 || at_sync_ != live_) return;
  at_sync_ = 0;
  for (Lane& l : lanes_)
    if (l.at_sync) {
      l.at_sync = false;
      avail_ |= 1ull << l.lane_id_;
      resume_lane(l);
    }
  release_sync_if_complete();  // they may have met at the next one already
}

void Wavefront::end() {
  for (Lane& l : lanes_) {
    l.done = true;
    l.at_barrier = false;
    l.at_sync = false;
  }
  live_ = 0;
  avail_ = 0;
  one_site_ = 0;
  at_barrier_ = 0;
  at_sync_ = 0;
}

void Wavefront::arrive_at_barrier(std::uint64_t mask) {
  for (std::uint64_t m = mask; m; m &= m - 1) {
    lanes_[std::countr_zero(m)].at_barrier = true;
    ++at_barrier_;
    avail_ &= ~(m & -m);
  }
}

void Wavefront::release_barrier() {
  at_barrier_ = 0;
  for (Lane& l : lanes_)
    if (l.at_barrier) {
      l.at_barrier = false;
      avail_ |= 1ull << l.lane_id_;
      resume_lane(l);
    }
}

std::string Wavefront::describe() const {
  std::map<std::string, int> where;
  for (const Lane& l : lanes_)
    if (!l.done)
      where[fmt::format("{} at {}", l.pending.unit ? l.pending.unit->name() : "?", site_name(l.pending.site()))]++;
  std::string s;
  for (const auto& [w, n] : where) s += fmt::format("{}{} lanes {}", s.empty() ? "" : ", ", n, w);
  return s;
}

}  // namespace fg
