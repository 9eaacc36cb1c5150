// SPDX-License-Identifier: Apache-2.0
// Must not compile (ctest lane_pointer_is_rejected): a kernel body that takes
// a Lane* where the launch passes a Lane&. With FG_CONTROL defined, the same
// kernel with Lane& must compile (ctest lane_reference_compiles), so the test
// fails for the right reason only.
#include "gpu/dispatcher.h"
#include "gpu/kernel.h"

namespace fg {
#ifdef FG_CONTROL
Task<> body(Lane& l) { co_await l.alu(1); }
KernelLaunch launch() {
  return {"k", 64, 64, 8, 0, [](Lane& l) { return body(l); }};
}
#else
Task<> body(Lane* l) { co_await l->alu(1); }
KernelLaunch launch() {
  return {"k", 64, 64, 8, 0, [](Lane* l) { return body(l); }};
}
#endif
}  // namespace fg
