// SPDX-License-Identifier: Apache-2.0
// The input generators' seeded stream: splitmix64 (sim/splitmix.h), so a
// seed gives the same input on every standard library.
#pragma once

#include "sim/splitmix.h"

namespace fg::inputs {

using SplitMix64 = fg::SplitMix64;

}  // namespace fg::inputs
