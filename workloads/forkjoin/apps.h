// SPDX-License-Identifier: Apache-2.0
// The fork-join versions of workloads that also run on channels (the
// `<workload>.mechanism=forkjoin` value): GTaP's evaluation programs (Maeda &
// Taura 2026, Sec. 6; docs/forkjoin.md) on the runtime of runtime/forkjoin.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fg {
class Host;
class Config;
}  // namespace fg

namespace fg::fj {

// fib(n) with no cutoff: the result is checked against the host and written
// to the output.
void fib_app(Host& h, std::uint32_t n);
// The local-memory slots fork-join fib's serial code needs (fib.cutoff).
std::uint32_t fib_local_slots(const Config& c);
// N-Queens, spawn-only, tasks at rows <= cutoff, a serial search below;
// solutions counted with atomics; `want` is the host's count.
void queens_app(Host& h, std::uint32_t n, std::uint64_t want);
// The local-memory slots fork-join N-Queens' serial search needs (n rows).
std::uint32_t queens_local_slots(std::uint32_t n);
// The sorts of `keys`: mergesort (cutoff 128, a serial merge) or cilksort
// (cutoffs 64 and 256, the recursive binary-split merge); returns the device's
// keys after the run (the sort workload checks them against the host's
// std::sort and writes them out).
std::vector<std::int32_t> sort_app(Host& h, const std::vector<std::int32_t>& keys, bool cilksort);
// The fork-join sort's own keys (refused with sort.mechanism=channels).
std::vector<std::string> sort_keys();
// The local-memory slots the fork-join mergesort's serial recursion needs.
std::uint32_t sort_local_slots(const Config& c);
// The device memory the runtime of a workload needs under `cfg` (a bound for
// WorkloadInfo::device_bytes): its pools, deques and `local_slots` slots of
// local memory per lane.
std::uint64_t runtime_bytes(const Config& cfg, std::uint32_t payload, std::uint32_t max_children,
                            std::uint32_t local_slots = 0);

}  // namespace fg::fj
