// SPDX-License-Identifier: Apache-2.0
// The periodic graphics-like kernel of the cooperative-kernel paper (Sorensen,
// Evrard, Donaldson, FSE 2017, Secs. 5.2-5.4), shared by its two co-runners:
// the cooperative one (runtime/coop_host.h, `coop.graphics.*`: the slots are
// gathered from a cooperative kernel by the scheduler) and the plain one
// (runtime/graphics.cpp, `graphics.*`: the kernel is submitted to the front
// end beside any other workload's kernels and waits there for free slots).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpu/dispatcher.h"

namespace fg {
class Host;
}

namespace fg::graphics {

// Sec. 5.2: the graphics workloads measured on the authors' desktop: period P
// and GPU time E per period (ms): light (icons highlighted) 70 / 3, medium (a
// window dragged) 40 / 3, heavy (a WebGL animation) 40 / 10.
struct Load {
  double period_ms = 0, exec_ms = 0;
};
Load load_of(const std::string& name);  // "none": {0, 0}

// The graphics-like kernel: C = A x B on d x d 32-bit integers, output
// elements strided over the launch's work-items; the host checks C's diagonal.
class MatMul {
 public:
  MatMul(Host& h, const KernelLaunch& shape) : h_(h), shape_(shape) {}
  void size(std::uint32_t d);
  KernelLaunch launch(std::uint32_t workgroups) const;
  void clear();  // C zeroed (a host copy, no simulated time)
  bool check();
  std::uint32_t d() const { return d_; }

 private:
  Host& h_;
  KernelLaunch shape_;
  std::uint32_t d_ = 0;
  std::vector<std::uint32_t> a_, b_;
  std::uint64_t da_ = 0, db_ = 0, dc_ = 0;
};

// The matrix size d whose product takes at least `exec_ps` (the paper's E),
// found as both co-runners size it: double d from 8 (at most 12 times), then
// halve the step (at most 6 times). `time_ps(d)` sizes the product to d, runs
// it on all slots but one with the GPU to itself and returns its time (ps).
std::uint32_t fit_size(double exec_ps, const std::function<double(std::uint32_t)>& time_ps);

double median(std::vector<double> v);
double mean(const std::vector<double>& v);

}  // namespace fg::graphics
