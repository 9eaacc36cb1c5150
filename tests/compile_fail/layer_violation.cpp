// SPDX-License-Identifier: Apache-2.0
// Compiled as if it were part of systemc/gpu/ (the gpu layer's include
// directory): the compute side may not name a mechanism. The control builds
// the same file without the mechanism's include, so the failure is for the
// right reason (systemc/CMakeLists.txt, fg_layer).
#include "gpu/op.h"
#ifndef FG_CONTROL
#include "worklist/worklist.h"
#endif

int fg_layer_probe() { return 0; }
