// SPDX-License-Identifier: Apache-2.0
// The fork-join runtime (GTaP, Maeda & Taura 2026, Secs. 4.1-4.5) as device
// code of one persistent kernel; docs/forkjoin.md. Facts about the runtime's
// algorithm come from the paper and the authors' paper-era sources
// (yukim0359/GTaP at b611dde, runtime/thread/gtap_runtime_thread.cuh and the
// baselines beside it); no code was taken from them.
//
// Device memory (allocated and initialised by the host before the launch):
//   headers   per task id: func u64 @0, generation u16 @8, state u16 @10,
//             queue u16 @12, parent u32 @16, parent generation u16 @20, total
//             child count u32 @24, waiting child count u32 @28, child ids u32
//             @32.. (max_children of them); GTaP's layout (40 B for 2 children)
//   payloads  per task id: `payload` bytes; a result in its last 8
//   pools     per worker (warp or block): free position, id list, valid flags
//             (feb2026 thread workers)
//   deques    per worker and queue: count/top @0, head/bottom @4, lock @8, ring @64
//   global    the global queue (queue=gq): head, tail, alloc, ring
//   flags     first task finished, all tasks finished, active workers
// LDS per worker (a warp, or a workgroup for block workers): id allocation
// position, the EPAQ cursor, per queue the ids generated in this batch, the
// deque's tail and the stale head; the child-id batch buffer (in shared
// memory up to 10 children per task in the feb2026 runtime, as GTaP's
// GTAP_MAX_CHILD_TASKS_FOR_SHARED; in global memory otherwise and always in
// the jan2026 runtime).
#include "runtime/forkjoin.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <map>
#include <unordered_map>

#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/mechanism.h"
#include "gpu/task_metrics.h"
#include "mem/memory_system.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/stats.h"
#include "sim/time.h"
#include "sim/trace.h"

namespace fg::fj {

std::size_t detail::FnPromiseBase::last_frame_bytes = 0;

namespace {

// ---- parameters (GTaP's Table 1 and the runtime's defaults) ----
const Param<std::string> kWorkers{
    "forkjoin.workers", "auto", std::vector<std::string>{"auto", "thread", "block"},
    "thread: one task per lane (warp workers); block: one task per workgroup "
    "(block workers, a deque per block: GTaP's locked one in jan2026, Chase-Lev in feb2026); auto: the "
    "workload's choice"};
const Param<std::string> kQueue{
    "forkjoin.queue", "ws", std::vector<std::string>{"ws", "gq", "cl"},
    "ws: work stealing, GTaP's per-warp deques with batched pop and steal (Sec. 4.3.2; "
    "block workers: a deque per block, one task a time, Sec. 4.3.1); gq: one global queue; cl: "
    "per-warp Chase-Lev deques, single pops and steals (thread workers; the baselines "
    "of Sec. 6.1)"};
const Param<std::uint64_t> kQueues{"forkjoin.queues",
                                   1,
                                   "",
                                   "execution-path-aware queues per warp (Sec. 4.4; GTAP_NUM_QUEUES, default 1)",
                                   {{1}, {8}}};
const Param<std::uint64_t> kPerWarp{"forkjoin.max_tasks_per_warp",
                                    20000,
                                    "tasks",
                                    "task records per warp, split over its queues (GTAP_MAX_TASKS_PER_WARP: 20,000)",
                                    {{64}, {1u << 24}}};
const Param<std::uint64_t> kPerBlock{"forkjoin.max_tasks_per_block",
                                     10000,
                                     "tasks",
                                     "task records per block worker (GTAP_MAX_TASKS_PER_BLOCK: 10,000)",
                                     {{64}, {1u << 24}}};
const Param<std::uint64_t> kMaxChildren{
    "forkjoin.max_child_tasks",
    0,
    "",
    "children a task spawns over its whole life (GTAP_MAX_CHILD_TASKS; 0: the workload's value from the paper's "
    "sources)",
    {{0}, {4096}}};
const Param<std::uint64_t> kPayload{"forkjoin.payload",
                                    0,
                                    "B",
                                    "payload bytes per task record (GTAP_MAX_TASK_DATA_SIZE; 0: the workload's value "
                                    "from the paper's sources)",
                                    {{0}, {4096}}};
const Param<std::string> kTerminate{"forkjoin.terminate", "auto", std::vector<std::string>{"auto", "all", "first"},
                                    "end of the run: all when no worker is active (GTaP's default), first when the "
                                    "root task finishes (GTAP_TERMINATE_ON_FIRST_TASK_FINISH), auto the workload's "
                                    "choice as in the paper's scripts"};
// The runtime that produced the paper's numbers (yukim0359/GTaP at 84591ae to
// 14669e9, Jan.-Feb. 2026) retries another victim at once; the exponential
// sleep came with 2f7d32e (June 2026), after every measurement.
const Param<std::string> kBackoff{"forkjoin.backoff", "none", std::vector<std::string>{"none", "exp"},
                                  "after a failed victim-lock CAS: none tries another random victim at once (the "
                                  "runtime of the paper's measurements); exp sleeps from backoff_min doubling to "
                                  "backoff_max first (the authors' later runtime)"};
// Two versions of GTaP's runtime produced the paper's numbers: the one of
// Figs. 3, 4 and 10 (yukim0359/GTaP 84591ae-263bdbc, January 2026) and the
// one of Figs. 7-8 (14669e9, the tree results of 2026-02-23), which fences
// after every task function (thread and block runtimes) and whose thread
// workers release a finished task's children's ids to their own pool.
const Param<std::string> kRuntime{"forkjoin.runtime", "jan2026", std::vector<std::string>{"jan2026", "feb2026"},
                                  "which GTaP runtime: jan2026 as the paper's Figs. 3, 4 and 10 (84591ae), feb2026 as "
                                  "its Figs. 7-8 (14669e9: a __threadfence after every task; thread workers release "
                                  "ids to their own pool)"};
// GTaP draws a victim from the SM clock, with no state: xorshift32 of
// clock64() + warp x 2654435761 (thread workers) or + block x 1234 (block
// workers), modulo the grid, the next worker when it hits itself
// (runtime/common/gtap_runtime_common.cuh, get_random_warpnum_global and
// get_random_blocknum, 84591ae and 14669e9).
const Param<std::string> kVictim{
    "forkjoin.victim", "clock", std::vector<std::string>{"clock", "stream"},
    "how a thief picks its victim: clock is GTaP's xorshift of the CU clock and the worker's index, modulo the "
    "workers, the next one when it is itself (the same run whatever the seed); stream a per-worker xorshift stream "
    "seeded from the run's seed, over the other workers (an ablation: runs that differ by seed)"};
const Param<std::string> kNoTaskwait{
    "forkjoin.assume_no_taskwait", "auto", std::vector<std::string>{"auto", "on", "off"},
    "GTAP_ASSUME_NO_TASKWAIT for a program that never waits (queens): on keeps no join metadata (an 8-byte header, "
    "no parent notification), off the full header; auto the workload's choice (queens: on, as GTaP's Fig. 10; its "
    "Figs. 3-4 scaling runs were built without it)"};
const Param<std::uint64_t> kBackoffMin{
    "forkjoin.backoff_min", 32, "ns", "first back-off sleep (Sec. 4.3.2: 32 ns)", {{1}, {1u << 20}}};
const Param<std::uint64_t> kBackoffMax{
    "forkjoin.backoff_max", 4096, "ns", "longest back-off sleep (Sec. 4.3.2: 4,096 ns)", {{1}, {1u << 24}}};
const Param<std::uint64_t> kGroups{"forkjoin.groups",
                                   0,
                                   "",
                                   "workgroups of the persistent kernel (0: the resident capacity, every worker "
                                   "that fits)",
                                   {{0}, {1u << 20}}};
const Param<std::uint64_t> kGroupSize{"forkjoin.group_size",
                                      0,
                                      "",
                                      "work-items per workgroup (0: one wavefront for thread workers, the paper's "
                                      "best configurations' 32 threads on its 32-wide warps, Table 3; 256 for block "
                                      "workers, GTaP's default)",
                                      {{0}, {1024}}};
const Param<std::uint64_t> kRegisters{"forkjoin.registers",
                                      32,
                                      "",
                                      "vector registers per lane of the worker kernel (assumed: 32, the most at "
                                      "which an H100 SM holds 2048 threads)",
                                      {{1}, {255}}};

// gq's publish (GTaP ececf4e's push_global_queue): the source waits until the tail reaches the batch's base
// before its atomicAdd on the tail (`while (load_L2(&d_queue_tail) != base_pos)`), so batches would commit in
// order. The loop is in the PTX but not in ptxas 13.0's machine code (docs/forkjoin-sass.md D: no load of the
// tail exists in the kernel; the load is weak and the loop does nothing else, so the compiler may drop it), and
// clang-gtap's binary, which produced the paper's numbers, could not be built here to show it kept the loop. So
// the thread workers' default is the machine code's publish; the source's is the ablation `ordered`. The block
// workers' gq (gtap_runtime_block_gq.cuh) was not compiled, and its publish without the wait races in the model:
// Fig. 3's compute tree on 512 block workers at a one-cycle quantum claims a slot before its id is stored (a
// simulated fault; 2026-12-02, nineteenth session), so block workers keep the source's order by default.
const Param<std::string> kGqCommit{
    "forkjoin.gq_commit", "auto", std::vector<std::string>{"auto", "unordered", "ordered"},
    "the global queue's publish (forkjoin.queue=gq): unordered adds to the tail at once (ptxas 13.0's machine code "
    "of GTaP's thread gq, which drops the source's wait), so a later batch's commit can cover an earlier one's "
    "slots, and a worker that claims a slot before its id is stored is a simulated fault (exit 3); ordered first "
    "waits until the tail reaches the batch's base (GTaP's source and PTX); auto: unordered for thread workers, "
    "ordered for block workers (their gq was not compiled, and unordered races at a one-cycle quantum)"};

// Where the runtime's global words live. GTaP declares them as __device__ globals (the queue's head, tail and
// alloc for gq; the termination words: the first task finished, all finished, the active workers), and ptxas
// 13.0 (sm_90) packs its 4-byte globals after its 8-byte pointers into one .nv.global section: the jan2026
// thread and block gq headers' declarations compiled for sm_90 (2026-12-04, twenty-sixth session) put the
// all-finished flag at 0x28, the head at 0x2c, alloc at 0x34, the active count at 0x38, the tail at 0x3c and
// the first-finished flag at 0x40 of the section, one 128-byte line (two with 64-byte lines, as orr2014's); the
// deques' runtimes (thread and block ws, Chase-Lev) the active count at 0x28, the first-finished flag at 0x30 and
// the all-finished flag at 0x34 (tools/gtap_globals.py prints the layouts). packed lays them
// out at those byte offsets (same-line atomics serialise, loads share a bank); lines gives each word a line of its
// own (the model before; the default until 2026-12-04, twenty-seventh session). The feb2026 runtime (14669e9)
// declares the same globals in the same order, so its layout is the jan2026 one.
const Param<std::string> kGlobals{
    "forkjoin.globals", "packed", std::vector<std::string>{"lines", "packed"},
    "where the runtime's global words live: packed, at the byte offsets ptxas 13.0 gives GTaP's __device__ "
    "globals (gq's head, tail and alloc and the termination words: one 128-byte line, where same-line atomics "
    "serialise; the default since 2026-12-04); lines, a line each (the model before)"};

// What the runtime's own instructions cost (docs/forkjoin-sass.md): free charges its memory operations alone
// (the model before 2026-12-01, fourteenth session); compiled adds GTaP's compiled code per runtime operation,
// measured from its runtimes' sm_90 machine code (thread and block workers of both runtimes): each operation's
// non-memory instructions and their static stall cycles, the loads of the `__device__` pointers ahead of the accesses
// that need them, and the task function's saves and restores of its callee-saved registers in local memory.
const Param<std::string> kCode{
    "forkjoin.code", "free", std::vector<std::string>{"free", "compiled"},
    "the runtime's own instructions: free charges its loads, stores, atomics and fences only; compiled adds GTaP's "
    "compiled runtime per operation (instructions and stall cycles, the `__device__` pointers' loads, the task "
    "function's register saves: docs/forkjoin-sass.md; thread and block workers, and the thread workers' gq and "
    "cl baselines; the block workers' gq, whose code was not compiled, is charged their deques' code)"};

// One runtime operation of GTaP's compiled runtime, per warp: non-memory instructions and the sum of
// their static stall counts (docs/forkjoin-sass.md, the rows named; the out-of-line shuffle and warp-sync
// sequences an operation runs are added in).
struct Cost {
  std::uint16_t n = 0, cycles = 0;
  Cost operator+(Cost o) const {
    return {static_cast<std::uint16_t>(n + o.n), static_cast<std::uint16_t>(cycles + o.cycles)};
  }
};
struct CodeCosts {
  Cost head_kept, head_found, idle_frame, pop, pop_empty, steal_fail, steal_ok, steal_active, term, term_first,
      term_last, start, after_call, prologue, epilogue, state0, state1, spawn_first, spawn_later, spawn_recycled, join,
      finish, decrement, ready_parent, children0, children, end0, end, release_first, release_next, push_head,
      push_kept, push_publish, push_more;
  std::uint32_t frame_words;  // callee-saved registers the task function saves (4 B each)
};
// Rows 14a/14b/14c: a __shfl_sync's and a __syncwarp's out-of-line sequences, push's pair of broadcasts.
constexpr Cost kShflJan{10, 32}, kShflFeb{9, 30}, kSyncw{7, 25}, kPushPair{17, 52};
// jan2026 (GTaP 84591ae), table A; "after the call" is rows 6b and 6c.
const CodeCosts kJanCode{{22 + 7, 90 + 25},
                         {32 + 7, 151 + 25},
                         {29, 138},
                         Cost{36, 165} + kShflJan,
                         Cost{21, 93} + kShflJan,
                         Cost{52, 216} + kShflJan,
                         Cost{79, 356} + kShflJan + kShflJan + kShflJan + kSyncw,
                         {5, 22},
                         Cost{23, 90} + kSyncw + kShflJan,
                         {13, 57},
                         {7, 23},
                         {14, 43},
                         {10 + 6, 24 + 20},
                         {5, 13},
                         {3, 12},
                         {8, 50},
                         {11, 72},
                         {49, 158},
                         {36, 126},
                         {0, 0},
                         {6, 23},
                         {30, 107},
                         {6, 34},
                         {15, 57},
                         {8, 49},
                         {16, 66},
                         {3, 23},
                         {5, 33},
                         {21, 68},
                         {28, 110},
                         {15, 54},
                         Cost{13, 68} + kPushPair,
                         Cost{62, 273} + kPushPair + kSyncw,
                         {11, 38},
                         16};
// feb2026 (GTaP 14669e9), table B; "after the call" is rows 6b (its fence is the model's fence_release) and 6c.
const CodeCosts kFebCode{{17 + 7, 83 + 25},
                         {23 + 7, 119 + 25},
                         {20, 106},
                         Cost{35, 156} + kShflFeb,
                         Cost{20, 84} + kShflFeb,
                         Cost{49, 201} + kShflFeb,
                         Cost{77, 341} + kShflFeb + kShflFeb + kShflFeb + kSyncw,
                         {5, 22},
                         Cost{23, 90} + kSyncw + kShflFeb,
                         {13, 57},
                         {7, 23},
                         {19, 53},
                         {5 + 6, 18 + 20},
                         {5, 13},
                         {3, 12},
                         {8, 50},
                         {11, 72},
                         {51, 195},
                         {38, 163},
                         {17, 59},
                         {6, 23},
                         {30, 107},
                         {6, 34},
                         {4, 20},
                         {8, 49},
                         {20, 84},
                         {3, 23},
                         {5, 33},
                         {22, 83},
                         {26, 101},
                         {15, 54},
                         Cost{13, 65} + kPushPair,
                         Cost{61, 249} + kPushPair + kSyncw,
                         {16, 39},
                         15};
// The thread workers' baselines, GTaP ececf4e's gtap_runtime_thread_gq.cuh and gtap_runtime_thread_chaselev.cuh
// (byte-identical to a611b90; docs/forkjoin-sass.md D, rows G and C): the rows in which their loop, search and
// push differ from work stealing's. The rest (task start, the task function, spawn, join, finish, push head) are
// the runtime's (jan2026's table A, or feb2026's table B).
struct BaselineCosts {
  Cost head_kept, head_found, idle_frame, term, term_first, term_last, after_call, push_kept, push_publish, push_more;
  Cost pop, pop_empty, pop_retry, active;  // gq: G2, G2b, G2x, G2+; cl: C2, C2b, -, C3+
  Cost pop_entry, pop_last, pop_exit, pop_loop, steal_entry, steal_ok, steal_fail;  // cl: C2e, C2l, C2x, C3e, C3, C3b
};
// Trampolines: G-T2 (two shuffles, pop's count and base) 17/53, G-T1 and C-T1 (one shuffle) 10/32 and 9/30 (the
// victim's 10/31), C-T2 (push's pair) 17/52 as kPushPair, G-Ts and C-Ts as kSyncw.
constexpr Cost kGqShfl2{17, 53}, kClShfl{9, 30};
// G3 is charged less its last three instructions (970-990, the `lane<count` guard: 3 / 18), which G4 and the task
// start's row 6 also hold.
const BaselineCosts kGqCode{Cost{8, 41} + Cost{4, 18} + kSyncw + Cost{2, 18},  // G1k, G3 with its trampoline, G7
                            Cost{4, 18} + Cost{4, 18} + kSyncw + Cost{2, 18},  // G1, G3, G7
                            Cost{4, 18} + Cost{2, 18},                         // G1, G7
                            Cost{22, 92} + kSyncw + kShflJan,                  // G6
                            {13, 55},                                          // G6b
                            {2, 9},                                            // G6c
                            Cost{4, 13} + kSyncw,               // G4f (its fence is the model's fence_release)
                            Cost{17, 85} + kPushPair + kSyncw,  // G5b
                            Cost{65, 320} + kPushPair + Cost{10, 32} + kSyncw + kSyncw,  // G5c: 106/454
                            {11, 39},                                                    // G5d
                            Cost{48, 201} + kGqShfl2,                                    // G2: 65/254
                            Cost{33, 125} + kGqShfl2,                                    // G2b: 50/178
                            {11, 61},                                                    // G2x
                            {6, 26},                                                     // G2+
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {}};
const BaselineCosts kClCode{
    Cost{8, 41} + Cost{6, 43} + Cost{2, 18},  // G1k (cl's kept path not measured: the same loop top), C4, C8
    Cost{4, 18} + Cost{6, 43} + Cost{2, 18},  // C1, C4, C8
    Cost{4, 18} + Cost{2, 18},                // C1, C8
    Cost{21, 96} + kSyncw + kShflJan,         // C7
    {13, 55},                                 // C7b
    {6, 22},                                  // C7c
    Cost{4, 13} + kSyncw,                     // C5f
    Cost{13, 73} + kPushPair + kSyncw,        // C6b
    Cost{53, 263} + kPushPair + kSyncw,       // C6c: 77/340
    {11, 39},                                 // C6c.2, one more trip of the store loop
    Cost{21, 113} + kClShfl,                  // C2: 30/143
    Cost{15, 79} + kClShfl,                   // C2b: 24/109 (the -1 is broadcast as a popped id is)
    {},
    {6, 29},                       // C3+
    {9, 38},                       // C2e
    Cost{25, 131} + kClShfl,       // C2l
    {1, 5},                        // C2x: the loop's exit
    {6, 26},                       // C2x: the loop-back after four pops (ptxas unrolled it four times)
    Cost{34, 145} + Cost{10, 31},  // C3e: 44/176
    Cost{32, 156} + kClShfl,       // C3: 41/186
    Cost{15, 84} + kClShfl};       // C3b: 24/114
// The feb2026 block runtime (GTaP 14669e9), table C, per warp of the block: rows every warp issues ("all") and
// rows thread 0 runs alone ("t0", warp 0). A block of 64 threads is two warps.
struct BlockCosts {
  Cost frame_all, search_t0, after_idle_t0, pop_t0, pop_last_t0, pop_empty_t0, steal_fail_t0, steal_ok_t0, found_all,
      none_all, none_t0, start_all, call_all, after_call_all, prologue_all, epilogue_all, state0_all, state1_all,
      spawn_first_t0, spawn_later_t0, join_all, join_t0, finish_all, finish_t0, notify_t0, leaf_end_t0, children_t0,
      release_first_t0, release_second_t0, release_next_t0, children_end_t0, push_all, push_check_t0,
      push_resumable_all, push_keep_all, push_publish, push_tail_all, push_commit_t0;
  std::uint32_t frame_words;
  Cost pop_retry_t0{}, lock_retry_t0{}, count_retry_t0{};  // jan2026's locked deques: each extra CAS or lock attempt
};
const BlockCosts kFebBlockCode{{7, 46},   {6, 32},         {3, 22},          {20, 108}, {26, 134}, {14, 70},  {19, 87},
                               {32, 128}, {1 + 7, 8 + 32}, {1 + 10, 8 + 54}, {2, 9},    {3, 23},   {15, 35},  {1, 5},
                               {5, 13},   {3, 12},         {8, 50},          {11, 72},  {67, 184}, {55, 200}, {2, 10},
                               {10, 39},  {2, 10},         {25, 105},        {12, 63},  {5, 33},   {11, 32},  {21, 68},
                               {28, 110}, {25, 99},        {5, 33},          {17, 68},  {3, 22},   {5, 31},   {2, 18},
                               {14, 46},  {4, 16},         {4, 11},          15};
// The jan2026 block runtime (GTaP 84591ae), table C's rows for it (docs/forkjoin-sass.md, "jan2026 block
// runtime"): its locked deques (a CAS on count per pop; a lock, a CAS on count and a fence per steal), no fence after
// the task function, no barrier in its taskwait and finish (the program's own barrier at the taskwait, CU1, is
// charged with the taskwait's row), the generated ids in global memory.
const BlockCosts kJanBlockCode{
    {5, 41},   {6, 34},          {3, 22},           {40, 193}, {40, 193}, {23, 112}, {38, 157},
    {48, 216}, {2 + 8, 13 + 44}, {2 + 10, 13 + 54}, {2, 9},    {8, 34},   {13, 35},  {1, 5},
    {5, 13},   {3, 12},          {8, 50},           {11, 72},  {47, 139}, {39, 133}, {1 + 1, 5 + 5},
    {10, 39},  {1, 5},           {25, 105},         {13, 63},  {5, 33},   {11, 32},  {21, 70},
    {27, 110}, {24, 99},         {5, 33},           {15, 67},  {6, 31},   {5, 31},   {5, 21},
    {17, 63},  {4, 16},          {7, 14},           15,        {8, 54},   {19, 85},  {7, 52}};

// The `__device__` pointers the compiled runtime loads (one 8-byte word each, in one line) and, after them, the
// queue array's per-queue planes.
enum Ptr : std::uint32_t { kPtrHeaders, kPtrData, kPtrLists, kPtrGenerated, kPtrQueues, kPtrGlobalQueue };

constexpr std::uint32_t kNone = ~0u;
// GTaP's QUEUE_MARGIN is 100 slots of headroom; ours checks exactly.
// The task header's function pointer is at its start in every runtime; the
// other fields' offsets are the runtime's (header_layout). kHdrMax is the
// largest header before its child ids (runtime_bytes' bound).
constexpr std::uint32_t kHdrFunc = 0, kHdrMax = 32;

std::uint8_t tag() {
  static const std::uint8_t t = mechanism_tag(kName);
  return t;
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// ---- the mechanism: the runtime's statistics on the GPU ----
class Stats final : public Mechanism {
 public:
  static constexpr const char* kName = fj::kName;
  explicit Stats(Gpu& gpu)
      : Mechanism(kName),
        spawned(StatGroup("forkjoin"), "spawned", "tasks spawned (the root not included)", ""),
        started(StatGroup("forkjoin"), "started", "task executions started (first runs and resumes)", ""),
        finished(StatGroup("forkjoin"), "finished", "tasks finished", ""),
        resumed(StatGroup("forkjoin"), "resumed", "continuations resumed after a taskwait", ""),
        batches(StatGroup("forkjoin"), "batches", "worker iterations that ran tasks", ""),
        batch_lanes(StatGroup("forkjoin"), "batch_tasks", "tasks a worker ran per iteration (occupancy: / warp size)",
                    "", 0, 64, 16),
        kept(StatGroup("forkjoin"), "kept", "tasks kept for the worker's next iteration (never published)", ""),
        published(StatGroup("forkjoin"), "published", "tasks pushed to a queue", ""),
        popped(StatGroup("forkjoin"), "popped", "tasks taken from the worker's own queue", ""),
        steal_tries(StatGroup("forkjoin"), "steal_tries", "victims tried (lock or CAS attempts on a victim)", ""),
        steals(StatGroup("forkjoin"), "steals", "steals that took at least one task", ""),
        stolen(StatGroup("forkjoin"), "stolen", "tasks taken from other workers", ""),
        lock_fails(StatGroup("forkjoin"), "lock_fails", "victim-lock CAS that failed (contention)", ""),
        cas_retries(StatGroup("forkjoin"), "cas_retries", "count/top CAS retried after losing a race", ""),
        commit_waits(StatGroup("forkjoin"), "commit_waits",
                     "gq, forkjoin.gq_commit=ordered: publishes that found the tail short of their base and waited for "
                     "an earlier batch's commit",
                     ""),
        backoff_ns(StatGroup("forkjoin"), "backoff_time", "time workers slept backing off (summed)", "ns"),
        idle_iterations(StatGroup("forkjoin"), "idle_iterations", "worker iterations that found no task", ""),
        pool_peak(StatGroup("forkjoin"), "pool_peak", "most task records in use at once in one worker's pool", ""),
        records_peak(StatGroup("forkjoin"), "records_peak", "most task records in use at once (all pools)", ""),
        recycled(StatGroup("forkjoin"), "recycled",
                 "task ids taken from a worker's list of released ids (its own range used up)", ""),
        payload_bytes(StatGroup("forkjoin"), "payload_bytes",
                      "payload bytes stored and loaded (spawn, taskwait spill, start and resume reload, results)", "B"),
        frame_bytes(StatGroup("forkjoin"), "frame_bytes",
                    "largest coroutine frame of a task (what the payload stands for; host bytes)", "B"),
        wait_ns(StatGroup("forkjoin"), "wait_time",
                "wavefront time blocked in the runtime (back-off sleeps, the global queue's in-order commit)", "ns",
                [&gpu] {
                  Tick t = 0;
                  for (int i = 0; i < gpu.cus(); ++i) t += gpu.cu(i).mechanism_wait(tag());
                  return tick_to_ns(t);
                }) {
    TaskMetrics::Sources src;
    src.created = [this] { return static_cast<double>(spawned.value() + roots); };
    src.run = [this] { return static_cast<double>(started.value()); };
    src.state_bytes = [this] { return static_cast<double>(payload_bytes.value()); };
    src.wait_ns = [this] { return wait_ns.scalar(); };
    src.peak_storage_bytes = [this] { return static_cast<double>(records_peak.value() * record_bytes); };
    src.control_instructions = [] { return 0.0; };
    metrics_ = std::make_unique<TaskMetrics>(gpu, kName, std::move(src));
  }
  void queue_counters(std::uint32_t n) {
    while (per_queue.size() < n)
      per_queue.push_back(std::make_unique<Counter>(
          StatGroup("forkjoin"), fmt::format("queue{}_tasks", per_queue.size()),
          fmt::format("tasks spawned into or resumed in queue {} (execution-path-aware queues)", per_queue.size()),
          ""));
  }
  std::vector<std::string> summary_lines() const override {
    if (!started.value()) return {};
    return {
        fmt::format("forkjoin: {} tasks, {} executions, {:.1f} tasks per batch, {} steals of {} tries, "
                    "{} lock fails",
                    spawned.value() + roots, started.value(), batch_lanes.mean(), steals.value(), steal_tries.value(),
                    lock_fails.value())};
  }
  std::string diagnose() const override { return where; }

  Counter spawned, started, finished, resumed, batches;
  Distribution batch_lanes;
  Counter kept, published, popped, steal_tries, steals, stolen, lock_fails, cas_retries, commit_waits, backoff_ns,
      idle_iterations;
  Counter pool_peak, records_peak, recycled, payload_bytes, frame_bytes;
  Formula wait_ns;
  std::vector<std::unique_ptr<Counter>> per_queue;
  std::uint64_t roots = 0, record_bytes = 0;
  std::string where;  // what the runtime holds (deadlock and watchdog messages)

 private:
  std::unique_ptr<TaskMetrics> metrics_;
};

const RegisterMechanism kReg{{kName,
                              "fork-join tasks on a persistent kernel (GTaP): task records, per-warp deques with "
                              "batched pop and steal, global-queue and Chase-Lev baselines, execution-path queues",
                              {},
                              [](Gpu& g) { return std::make_unique<Stats>(g); },
                              {"forkjoin."},
                              {},
                              {},
                              /*software=*/true}};

// Resume a task's coroutine on lane `l` from the worker coroutine.
struct Resume {
  detail::FnPromiseBase* p;
  std::coroutine_handle<> frame;
  Lane* lane;
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> worker) const noexcept {
    p->lane = lane;
    p->continuation = worker;
    lane->current = frame;
    return frame;
  }
  void await_resume() const {
    if (p->error) std::rethrow_exception(p->error);
  }
};

}  // namespace

// ---- one task's host-side record ----
struct Record {
  Runtime* rt = nullptr;
  std::uint32_t id = 0, parent = 0;
  std::uint16_t gen = 0, parent_gen = 0;
  std::uint16_t state = 0;
  std::uint32_t total = 0;        // children spawned before the last taskwait
  std::uint32_t child_count = 0;  // since the last taskwait
  std::uint32_t call_spawns = 0;  // spawns since its task function was called (forkjoin.code=compiled)
  std::uint32_t fn = 0;           // its task function (Runtime::fn_index)
  std::vector<Ctx> ctx;           // one per lane of its worker (1 for thread tasks)
  ~Record() {
    for (Ctx& c : ctx)
      if (c.frame_) c.frame_.destroy();
  }
};

// ---- the runtime of one run ----
class Runtime {
 public:
  // The plan (parameters, layout); allocate() then makes the device memory.
  Runtime(Host& h, const Program& p, std::uint32_t groups, std::uint32_t group_size, std::uint32_t wave);
  void allocate();

  Task<void> worker(Lane& l);
  Task<void> block_worker(Lane& l);
  void add_root(const std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)>& make);
  std::uint64_t root_result() const { return root_result_; }
  std::size_t records_left() const { return recs_.size(); }

  // used by Ctx
  Task<Child> spawn(Lane& l, Record& parent, std::uint32_t queue,
                    const std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)>& make, Lane::Loc loc);
  Task<std::uint64_t> result(Lane& l, Record& self, Child c, Lane::Loc loc);
  bool block() const { return block_; }
  std::uint32_t task_lds() const { return lds_bytes() + shared_bytes(); }
  // The runtime's shared variables after the per-warp contexts: a word the
  // thread workers' leader broadcasts through; the block workers' loop state
  // (GTaP's __shared__ execute_task_id, have_execute_task, should_continue,
  // the resumable parent and the cached header).
  std::uint32_t shared_bytes() const { return block_ ? 48 : 16; }
  // Slot `slot` of lane l's local memory: per worker, slot-major, lanes
  // (of the warp, or of the workgroup for block workers) adjacent.
  std::uint64_t local(const Lane& l, std::uint32_t slot) const {
    if (slot >= p_.local_slots)
      throw SimFault(fmt::format("forkjoin: {} uses local-memory slot {} of {} (Program::local_slots)", p_.name, slot,
                                 p_.local_slots));
    const std::uint32_t width = block_ ? group_size_ : wave_;
    const std::uint32_t lane = block_ ? l.local_id() : l.lane_id();
    return local_ + (std::uint64_t{worker_of(l).global} * p_.local_slots + slot) * width * 8ull + 8ull * lane;
  }
  std::uint64_t local_word(const Lane& l, std::uint32_t word) const {
    if (word >= 2 * p_.local_slots)
      throw SimFault(fmt::format("forkjoin: {} uses local-memory word {} of {} (Program::local_slots x 2)", p_.name,
                                 word, 2 * p_.local_slots));
    const std::uint32_t width = block_ ? group_size_ : wave_;
    const std::uint32_t lane = block_ ? l.local_id() : l.lane_id();
    return local_ + (std::uint64_t{worker_of(l).global} * 2 * p_.local_slots + word) * width * 4ull + 4ull * lane;
  }

 private:
  // addresses
  std::uint64_t hdr(std::uint32_t id) const { return headers_ + std::uint64_t{id} * hdr_bytes_; }
  // GTaP's TaskHeader for this runtime and worker kind (header_layout, set in
  // the constructor): its fields' offsets, kHeaderNoField where it has none.
  HeaderLayout h_off_{};
  std::uint64_t pay(std::uint32_t id) const { return payloads_ + std::uint64_t{id} * payload_; }
  std::uint64_t pool(std::uint32_t w) const { return pools_ + std::uint64_t{w} * pool_bytes_; }
  std::uint64_t idlist(std::uint32_t w, std::uint32_t slot) const { return pool(w) + line_ + 4ull * slot; }
  std::uint64_t valid(std::uint32_t w, std::uint32_t slot) const {
    return pool(w) + line_ + 4ull * per_worker_ + 4ull * slot;
  }
  std::uint64_t dq(std::uint32_t w, std::uint32_t k) const {
    return deques_ + (std::uint64_t{w} * nq_ + k) * dq_bytes_;
  }
  std::uint64_t ring(std::uint32_t w, std::uint32_t k, std::uint32_t pos) const {
    return dq(w, k) + line_ + 4ull * (pos % qs_);
  }
  std::uint64_t gbuf(std::uint32_t w, std::uint32_t k, std::uint32_t pos) const {
    return gbuf_ + (std::uint64_t{w} * nq_ + k) * 4ull * buf_cap_ + 4ull * pos;
  }
  // LDS of warp `wl` (its index in the workgroup)
  std::uint32_t lds_ctx(std::uint32_t wl) const { return wl * lds_ctx_bytes_; }
  std::uint32_t lds_gen(std::uint32_t wl, std::uint32_t k) const { return lds_ctx(wl) + 16 + 4 * k; }
  std::uint32_t lds_tail(std::uint32_t wl, std::uint32_t k) const { return lds_ctx(wl) + 16 + 4 * (nq_ + k); }
  std::uint32_t lds_hstale(std::uint32_t wl, std::uint32_t k) const { return lds_ctx(wl) + 16 + 4 * (2 * nq_ + k); }
  std::uint32_t lds_buf(std::uint32_t wl, std::uint32_t k, std::uint32_t pos) const {
    return lds_ctx(wl) + 16 + 12 * nq_ + 4 * (k * buf_cap_ + pos);
  }
  struct W {
    std::uint32_t global, local;  // worker index in the grid, warp index in the workgroup
  };
  W worker_of(const Lane& l) const {
    if (block_) return {l.group_id(), 0};
    const std::uint32_t wl = l.local_id() / wave_;
    return {l.group_id() * warps_per_group_ + wl, wl};
  }
  bool leader(const Lane& l) const { return block_ ? l.local_id() == 0 : l.lane_id() == 0; }
  // A __threadfence() after the task function returns: the feb2026 runtime, and the baselines (ececf4e's
  // thread gq and cl, and its block gq, gtap_runtime_block_gq.cuh). Issued once the lanes have met, as a warp
  // issues it after the lanes reconverge at the call's return: a fence per divergent group would be too many.
  bool after_call_fence() const { return feb_ || q_ != Q::Ws; }
  Task<void> sync(Lane& l) {
    if (block_)
      co_await l.barrier();
    else
      co_await l.sync_wave();
  }

  // pieces of the worker loop
  Task<std::uint32_t> alloc_id(Lane& l, W w, bool& recycled);
  Task<void> release(Lane& l, W w, std::uint32_t id, const Async<std::uint32_t>* pending = nullptr);
  Task<void> push_generated(Lane& l, W w, std::uint32_t k, std::uint32_t id);
  Task<void> run_task(Lane& l, W w, std::uint32_t id);
  Task<void> call_return(Lane& l);
  Task<void> copy_header(Lane& l, Record& r, Async<std::uint64_t>& last);
  Task<void> finish(Lane& l, W w, Record& r);
  Task<void> suspend(Lane& l, Record& r, std::uint32_t queue);
  Task<void> store_payload(Lane& l, std::uint32_t id, std::uint32_t bytes);
  struct Claim {
    std::uint32_t n_pop = 0, n_steal = 0, q = 0, tail = 0, vic = 0, vh = 0;
  };
  Task<void> claim(Lane& l, W w, bool prev, Claim& out);
  Task<void> end_steal(Lane& l, std::uint32_t vic, std::uint32_t k, std::uint32_t head);
  // The global queue's slot of queue position `pos`, and the host-side record of what was stored there.
  std::uint64_t gq_slot(std::uint32_t pos) const {
    return gq_ + 3ull * line_ + 4ull * (pos % (per_worker_ * workers_));
  }
  // Recorded before the store is issued (its effect is at the issue), so a claim that reads the slot
  // before the store sees a value other than the record's; the lap before is kept, for a slow claimer.
  void gq_storing(std::uint32_t pos, std::uint32_t id) {
    GqRecord& r = gq_record_[pos % (per_worker_ * workers_)];
    r = {pos + 1, id, r.pos1, r.id};
  }
  bool gq_holds(std::uint32_t pos, std::uint32_t id) const {
    const GqRecord& r = gq_record_[pos % (per_worker_ * workers_)];
    return (r.pos1 == pos + 1 && r.id == id) || (r.prev_pos1 == pos + 1 && r.prev_id == id);
  }
  Task<void> gq_fault(Lane& l, std::uint32_t pos);
  Task<std::uint32_t> push_batch(Lane& l, W w, std::uint32_t& my);
  Task<bool> block_push(Lane& l, W w);
  // The block workers' shared words (GTaP's block loop's __shared__ state).
  std::uint32_t sh_id() const { return lds_bytes(); }           // execute_task_id
  std::uint32_t sh_have() const { return lds_bytes() + 4; }     // have_execute_task
  std::uint32_t sh_go() const { return lds_bytes() + 8; }       // should_continue
  std::uint32_t sh_resume() const { return lds_bytes() + 16; }  // have_task_id_resumable, task_id_resumable
  std::uint32_t sh_header() const { return lds_bytes() + 24; }  // the cached header (16 B)
  Task<std::uint32_t> idle_check(Lane& l, W w, bool prev);
  Task<void> find(Lane& l, W w, bool& prev, Claim& c, std::uint32_t& stop, int track);
  std::uint32_t victim(W w, std::uint64_t clock);
  Task<std::uint32_t> pick_victim(Lane& l, W w);
  Task<void> deque_full(Lane& l, W w, std::uint32_t used, int queue = -1);
  Task<void> fault(Lane& l, std::string what);
  void note_pool(std::uint32_t w, int delta);

  Host& h_;
  Stats& st_;
  Program p_;
  bool block_ = false, spawn_only_ = false, first_ = false, backoff_ = true, feb_ = false;
  bool clock_victim_ = true;  // forkjoin.victim
  bool valid_flags_ = false;  // a valid flag per released id (feb2026's thread workers)
  enum class Q { Ws, Gq, Cl } q_ = Q::Ws;
  std::uint32_t groups_, group_size_, wave_, warps_per_group_, workers_;
  std::uint32_t nq_ = 1, per_worker_, qs_, max_children_, payload_, hdr_bytes_, buf_cap_;
  std::uint32_t line_ = 64, pool_bytes_ = 0, dq_bytes_ = 0, lds_ctx_bytes_ = 0;
  bool buf_in_lds_ = true;
  const CodeCosts* code_ = nullptr;      // forkjoin.code=compiled: the thread runtime's compiled code
  const BaselineCosts* base_ = nullptr;  // and the thread workers' gq or cl rows (code_ then has their rows in)
  CodeCosts base_code_{};                // the runtime's rows with the baseline's in place of work stealing's
  bool gq_ordered_ = false;              // forkjoin.gq_commit
  struct GqRecord {
    std::uint32_t pos1 = 0, id = 0;            // 1 + the queue position last stored in the slot, and its task id
    std::uint32_t prev_pos1 = 0, prev_id = 0;  // the lap before
  };
  std::vector<GqRecord> gq_record_;    // gq: per ring slot (a check of the claims, no simulated cost)
  const BlockCosts* bcode_ = nullptr;  // forkjoin.code=compiled: the feb2026 block runtime's
  std::uint64_t ptrs_ = 0, frames_ = 0;
  // The compiled runtime's load of a `__device__` pointer (a plain load, through the L1) and of queue k's plane.
  std::uint64_t ptr(Ptr p) const { return ptrs_ + 8ull * p; }
  std::uint64_t plane(std::uint32_t k) const { return ptrs_ + line_ + 8ull * k; }
  // Word k of lane l's saved registers (local memory, lanes adjacent).
  std::uint32_t frame_words() const { return code_ ? code_->frame_words : bcode_ ? bcode_->frame_words : 0; }
  std::uint64_t frame(const Lane& l, std::uint32_t k) const {
    const std::uint32_t lanes = block_ ? group_size_ : wave_, lane = block_ ? l.local_id() : l.lane_id();
    return frames_ + ((std::uint64_t{worker_of(l).global} * frame_words() + k) * lanes + lane) * 4ull;
  }
  std::uint64_t headers_ = 0, payloads_ = 0, pools_ = 0, deques_ = 0, gbuf_ = 0, gq_ = 0, flags_ = 0, local_ = 0;
  // The global words (forkjoin.globals): gq's head, tail and alloc; the first-finished and all-finished flags and
  // the active workers' count.
  std::uint64_t head_a_ = 0, tail_a_ = 0, alloc_a_ = 0, first_a_ = 0, done_a_ = 0, active_a_ = 0;
  bool packed_ = false;
  std::uint64_t backoff_min_cycles_ = 0, backoff_max_cycles_ = 0;
  double cycle_ns_ = 1;
  std::unordered_map<std::uint32_t, std::unique_ptr<Record>> recs_;
  // Which released ids a worker's list holds, for the runtimes without valid
  // flags (host-side: the pool-full check costs those nothing).
  std::vector<std::vector<bool>> released_;
  std::vector<std::int64_t> in_use_;  // records taken from each pool less those returned to it (the peak stat)
  std::uint64_t in_use_all_ = 0;
  std::vector<std::uint32_t> rng_;               // victim selection state per worker
  std::vector<std::vector<std::uint32_t>> got_;  // the ids a single-pop queue's leader claimed, per worker
  // A block worker's finished record, kept until its lanes have left its
  // frames (the barrier after the task; its id is free already).
  std::vector<std::unique_ptr<Record>> retiring_;
  std::uint64_t root_result_ = 0;
  // The task functions in the order first spawned (their coroutines' resume
  // functions): a record's function as a small number, for Lane::path.
  std::vector<const void*> fns_;
  std::uint32_t fn_index(std::coroutine_handle<detail::FnPromiseBase> frame) {
    // A coroutine frame starts with its resume function's address (the
    // Itanium C++ ABI's coroutine frame, GCC's and Clang's).
    const void* resume = *static_cast<void* const*>(frame.address());
    auto it = std::find(fns_.begin(), fns_.end(), resume);
    if (it == fns_.end()) it = fns_.insert(fns_.end(), resume);
    return static_cast<std::uint32_t>(it - fns_.begin()) + 1;
  }
  // Lane::path in a task (forkjoin.h, "Reconvergence"): the task function's
  // frame (level 1) tagged with its function, and with the state it was
  // called in and the way it left.
  static std::uint32_t fn_path(std::uint32_t fn) { return at_depth(tagged(0, fn), 1); }
  static std::uint32_t state_path(std::uint32_t fn, std::uint32_t state) { return tagged(fn_path(fn), state + 1); }

 public:
  std::uint32_t lds_bytes() const { return lds_ctx_bytes_ * (block_ ? 1 : warps_per_group_); }
  std::uint32_t workers() const { return workers_; }
  std::uint64_t device_bytes() const;
};

// ---- Ctx ----
std::uint32_t Ctx::id() const { return rec_->id; }
bool Ctx::block() const { return rec_->rt->block(); }
std::uint32_t Ctx::lds() const { return rec_->rt->task_lds(); }
std::uint64_t Ctx::local(std::uint32_t slot) const { return rec_->rt->local(*lane_, slot); }
std::uint64_t Ctx::local_word(std::uint32_t word) const { return rec_->rt->local_word(*lane_, word); }

std::coroutine_handle<> Ctx::TaskWait::await_suspend(std::coroutine_handle<>) const noexcept {
  c->waiting_ = true;
  c->wait_queue_ = queue;
  c->live_ = live;
  detail::FnPromiseBase& p = c->frame_.promise();
  p.lane->current = p.continuation;
  return p.continuation;
}

Task<Child> Ctx::spawn_frames(Lane& l, std::uint32_t queue,
                              std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)> make, Lane::Loc loc) {
  const Child c = co_await rec_->rt->spawn(l, *rec_, queue, make, loc);
  co_return c;
}

Task<std::uint64_t> Ctx::result_bits(Lane& l, Child c, Lane::Loc loc) {
  const std::uint64_t v = co_await rec_->rt->result(l, *rec_, c, loc);
  co_return v;
}

bool block_workers(const Config& c, bool program_default) {
  const std::string w = kWorkers.get(c);
  return w == "auto" ? program_default : w == "block";
}

// ---- the runtime ----
Runtime::Runtime(Host& h, const Program& p, std::uint32_t groups, std::uint32_t group_size, std::uint32_t wave)
    : h_(h), st_(h.gpu().get<Stats>("forkjoin")), p_(p), groups_(groups), group_size_(group_size), wave_(wave) {
  const Config& cfg = h.config();
  block_ = block_workers(cfg, p.block);
  feb_ = kRuntime.get(cfg) == "feb2026";
  const std::string nowait = kNoTaskwait.get(cfg);
  if (nowait == "on" && !p.spawn_only)
    throw UserError(fmt::format("forkjoin.assume_no_taskwait=on: {} waits for its children", p.name));
  spawn_only_ = nowait == "auto" ? p.spawn_only : nowait == "on";
  const std::string term = kTerminate.get(cfg);
  first_ = term == "auto" ? p.first_finish : term == "first";
  if (first_ && p.spawn_only)
    throw UserError(
        fmt::format("forkjoin.terminate=first: {} spawns without taskwait, so its root finishes before "
                    "its tasks (the paper runs it with all)",
                    p.name));
  const std::string q = kQueue.get(cfg);
  q_ = q == "gq" ? Q::Gq : q == "cl" ? Q::Cl : Q::Ws;
  nq_ = static_cast<std::uint32_t>(kQueues.get(cfg));
  if (block_ && q_ == Q::Cl)
    throw UserError(
        "forkjoin.queue=cl: block workers' deques are their runtime's (forkjoin.queue=ws: GTaP's locked deques "
        "in jan2026, Chase-Lev in feb2026); their baseline is the global queue (gq)");
  // Block workers' deques (one task per pop or steal, by the leader): in the
  // feb2026 runtime per-block Chase-Lev deques (GTaP 0f89507 on); in the
  // jan2026 one the thread workers' locked count deques (84591ae).
  if (block_ && q_ == Q::Ws && feb_) q_ = Q::Cl;
  if (block_ && !p.block_ok)
    throw UserError(
        fmt::format("forkjoin.workers=block: {}'s tasks are thread-level (GTaP's block-level programs are "
                    "the synthetic trees)",
                    p.name));
  if (nq_ > 1 && (block_ || q_ != Q::Ws))
    throw UserError(
        fmt::format("forkjoin.queues={}: execution-path-aware queues are GTaP's per-warp deques' (thread "
                    "workers, forkjoin.queue=ws)",
                    nq_));
  if (kCode.get(cfg) == "compiled") {
    // Block workers' gq (gtap_runtime_block_gq.cuh) was not compiled: it is
    // charged the block deques' code per operation (docs/forkjoin-sass.md).
    if (block_)
      bcode_ = feb_ ? &kFebBlockCode : &kJanBlockCode;
    else
      code_ = feb_ ? &kFebCode : &kJanCode;
    if (code_ && q_ != Q::Ws) {
      base_ = q_ == Q::Gq ? &kGqCode : &kClCode;
      base_code_ = *code_;
      const BaselineCosts& b = *base_;
      for (auto [to, from] : {std::pair{&CodeCosts::head_kept, b.head_kept},
                              {&CodeCosts::head_found, b.head_found},
                              {&CodeCosts::idle_frame, b.idle_frame},
                              {&CodeCosts::term, b.term},
                              {&CodeCosts::term_first, b.term_first},
                              {&CodeCosts::term_last, b.term_last},
                              {&CodeCosts::after_call, b.after_call},
                              {&CodeCosts::push_kept, b.push_kept},
                              {&CodeCosts::push_publish, b.push_publish},
                              {&CodeCosts::push_more, b.push_more}})
        base_code_.*to = from;
      code_ = &base_code_;
    }
  }
  packed_ = kGlobals.get(cfg) == "packed";
  const std::string commit = kGqCommit.get(cfg);
  gq_ordered_ = commit == "ordered" || (commit == "auto" && block_);
  if (q_ != Q::Gq && cfg.set_by_user(kGqCommit.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: forkjoin.queue is not gq", kGqCommit.name(),
                                cfg.origin(kGqCommit.name())));
  backoff_ = kBackoff.get(cfg) == "exp";
  clock_victim_ = kVictim.get(cfg) == "clock";
  // Only a locked deque's steal backs off (thread workers on ws, jan2026's
  // block workers); gq has no steals, Chase-Lev's CAS no lock.
  if (backoff_ && q_ != Q::Ws)
    throw UserError(
        fmt::format("{} (set by {}) does not apply: only work stealing's locked deques back off, and "
                    "this run's workers use {}",
                    kBackoff.name(), cfg.origin(kBackoff.name()),
                    q_ == Q::Gq ? "the global queue (forkjoin.queue=gq)"
                    : block_    ? "Chase-Lev deques (feb2026's block workers)"
                                : "Chase-Lev deques (forkjoin.queue=cl)"));
  // The global queue has no victims: every worker pops from the one queue.
  if (q_ == Q::Gq && cfg.set_by_user(kVictim.name()))
    throw UserError(
        fmt::format("{} (set by {}) does not apply: the global queue's workers steal from no victim "
                    "(forkjoin.queue=gq)",
                    kVictim.name(), cfg.origin(kVictim.name())));
  if (const auto& other = block_ ? kPerWarp : kPerBlock; cfg.set_by_user(other.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: this run's workers are {} (their pools: {})",
                                other.name(), cfg.origin(other.name()), block_ ? "blocks" : "warps",
                                block_ ? kPerBlock.name() : kPerWarp.name()));
  if (!backoff_)
    for (const std::string& k : {kBackoffMin.name(), kBackoffMax.name()})
      if (cfg.set_by_user(k))
        throw UserError(
            fmt::format("{} (set by {}) does not apply: forkjoin.backoff is none (no back-off)", k, cfg.origin(k)));
  cycle_ns_ = 1000.0 / std::get<double>(cfg.value("gpu.clock"));
  backoff_min_cycles_ =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(double(kBackoffMin.get(cfg)) / cycle_ns_));
  backoff_max_cycles_ = std::max<std::uint64_t>(backoff_min_cycles_,
                                                static_cast<std::uint64_t>(double(kBackoffMax.get(cfg)) / cycle_ns_));
  if (kBackoffMin.get(cfg) > kBackoffMax.get(cfg))
    throw UserError(fmt::format("forkjoin.backoff_min={} is above forkjoin.backoff_max={}", kBackoffMin.get(cfg),
                                kBackoffMax.get(cfg)));
  max_children_ = kMaxChildren.get(cfg) ? static_cast<std::uint32_t>(kMaxChildren.get(cfg)) : p.max_children;
  payload_ = kPayload.get(cfg) ? static_cast<std::uint32_t>(kPayload.get(cfg)) : p.payload;
  // A smaller record would cut the arguments the program copies into it
  // (they were silently truncated).
  if (payload_ < p.payload)
    throw UserError(
        fmt::format("forkjoin.payload={}: below the {} B that {} declares for its task arguments "
                    "(GTAP_MAX_TASK_DATA_SIZE)",
                    payload_, p.payload, p.name));
  if (payload_ < 8) payload_ = 8;
  payload_ = static_cast<std::uint32_t>(round_up(payload_, 8));
  warps_per_group_ = block_ ? 1 : (group_size_ + wave_ - 1) / wave_;
  workers_ = groups_ * warps_per_group_;
  per_worker_ = static_cast<std::uint32_t>(block_ ? kPerBlock.get(cfg) : kPerWarp.get(cfg));
  qs_ = per_worker_ / nq_;
  line_ = h.memory().line_size();
  h_off_ = header_layout(feb_, block_, spawn_only_, max_children_, nq_);
  hdr_bytes_ = h_off_.bytes;
  // The batch buffer: a warp's lanes spawn up to max_children each, plus the
  // parents resumed by its finishing children.
  buf_cap_ = (max_children_ + 1) * (block_ ? 1 : wave_);
  // A worker's generated ids: in shared memory up to 10 children per task
  // (GTAP_MAX_CHILD_TASKS_FOR_SHARED, GTaP 0f89507 on: feb2026), always in
  // global memory before (84591ae: jan2026).
  buf_in_lds_ = feb_ && max_children_ <= 10;
  // A released id's list slot has a valid flag, set after the id's store and
  // read (acquire) before it, only in the feb2026 runtime's thread workers
  // (GTaP 14669e9); the others read the id alone.
  valid_flags_ = feb_ && !block_;
  lds_ctx_bytes_ = static_cast<std::uint32_t>(round_up(16 + 12 * nq_ + (buf_in_lds_ ? 4ull * nq_ * buf_cap_ : 0), 16));
  pool_bytes_ = static_cast<std::uint32_t>(round_up(line_ + (valid_flags_ ? 8ull : 4ull) * per_worker_, line_));
  dq_bytes_ = static_cast<std::uint32_t>(round_up(line_ + 4ull * qs_, line_));
  const std::uint64_t ids = std::uint64_t{per_worker_} * workers_;
  if (ids >= kNone)
    throw UserError(fmt::format("forkjoin.max_tasks_per_{}={} x {} workers: more than 2^32 task ids",
                                block_ ? "block" : "warp", per_worker_, workers_));
  st_.queue_counters(nq_);
  st_.record_bytes = hdr_bytes_ + payload_;
}

void Runtime::allocate() {
  const std::uint64_t ids = std::uint64_t{per_worker_} * workers_;
  Host& h = h_;
  auto& mem = h.memory();
  auto alloc = [&](std::uint64_t bytes) { return h.alloc(std::max<std::uint64_t>(bytes, line_)); };
  headers_ = alloc(ids * hdr_bytes_);
  payloads_ = alloc(ids * payload_);
  pools_ = alloc(std::uint64_t{workers_} * pool_bytes_);
  if (q_ == Q::Gq) {
    gq_ = alloc(3ull * line_ + 4ull * ids);
    gq_record_.assign(ids, {});
  } else {
    deques_ = alloc(std::uint64_t{workers_} * nq_ * dq_bytes_);
  }
  if (!buf_in_lds_) gbuf_ = alloc(std::uint64_t{workers_} * nq_ * 4ull * buf_cap_);
  // packed: ptxas's offsets reach 0x44, which three lines of fewer than 32 bytes do not hold.
  flags_ = alloc(packed_ ? std::max<std::uint64_t>(3ull * line_, round_up(0x44, line_)) : 3ull * line_);
  if (packed_ && q_ == Q::Gq) {  // ptxas's offsets in the .nv.global section (kGlobals), in flags_'s lines
    done_a_ = flags_ + 0x28, head_a_ = flags_ + 0x2c, alloc_a_ = flags_ + 0x34, active_a_ = flags_ + 0x38,
    tail_a_ = flags_ + 0x3c, first_a_ = flags_ + 0x40;
  } else if (packed_) {  // the deques' runtimes (ws, cl): the termination words only
    active_a_ = flags_ + 0x28, first_a_ = flags_ + 0x30, done_a_ = flags_ + 0x34;
  } else {
    head_a_ = gq_, tail_a_ = gq_ + line_, alloc_a_ = gq_ + 2ull * line_;
    first_a_ = flags_, done_a_ = flags_ + line_, active_a_ = flags_ + 2ull * line_;
  }
  if (code_ || bcode_) {
    ptrs_ = alloc(2ull * line_);
    const std::uint64_t bytes = std::uint64_t{workers_} * frame_words() * (block_ ? group_size_ : wave_) * 4ull;
    frames_ = alloc(bytes);
    mem.add_local_window(frames_, bytes);  // the task function's saved registers
  }
  if (p_.local_slots) {
    const std::uint64_t bytes = std::uint64_t{workers_} * p_.local_slots * (block_ ? group_size_ : wave_) * 8ull;
    local_ = alloc(bytes);
    mem.add_local_window(local_, bytes);  // the lanes' stacks (gpu.cu.ivall_keeps_local)
  }
  // Free positions start one pass ahead of the allocation positions (a
  // released id goes to slot free % n, the allocation's second pass reads
  // slot alloc % n).
  for (std::uint32_t w = 0; w < workers_; ++w) mem.copy_in(pool(w), &per_worker_, 4);
  const std::uint32_t one = 1;
  mem.copy_in(active_a_, &one, 4);  // active workers: the root's
  in_use_.assign(workers_, 0);
  released_.assign(valid_flags_ ? 0 : workers_, {});
  rng_.resize(workers_);
  got_.resize(workers_);
  retiring_.resize(workers_);
  for (std::uint32_t w = 0; w < workers_; ++w)
    rng_[w] = 0x9e3779b9u ^ (w * 2654435761u) ^ static_cast<std::uint32_t>(h.rng()());
}

std::uint64_t Runtime::device_bytes() const {
  const std::uint64_t ids = std::uint64_t{per_worker_} * workers_;
  return ids * (hdr_bytes_ + payload_) + std::uint64_t{workers_} * pool_bytes_ +
         (q_ == Q::Gq ? 4ull * ids : std::uint64_t{workers_} * nq_ * dq_bytes_);
}

void Runtime::add_root(const std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)>& make) {
  auto r = std::make_unique<Record>();
  r->rt = this;
  r->id = 0;
  r->ctx.resize(block_ ? group_size_ : 1);
  for (Ctx& c : r->ctx) {
    c.rec_ = r.get();
    c.frame_ = make(c);
    st_.frame_bytes += 0;
    if (detail::FnPromiseBase::last_frame_bytes > st_.frame_bytes.value())
      st_.frame_bytes += detail::FnPromiseBase::last_frame_bytes - st_.frame_bytes.value();
  }
  r->fn = fn_index(r->ctx[0].frame_);
  recs_.emplace(0u, std::move(r));
  ++st_.roots;
  note_pool(0, 1);
  // The root's record and its place in worker 0's queue 0 (GTaP's
  // __gtap_push_initial_task); worker 0's allocation starts at 1.
  auto& mem = h_.memory();
  const std::uint64_t func = 1;
  mem.copy_in(hdr(0) + kHdrFunc, &func, 8);
  const std::uint32_t zero = 0, one = 1;
  if (q_ == Q::Gq) {
    mem.copy_in(gq_ + 3ull * line_, &zero, 4);  // ring[0] = 0
    gq_storing(0, 0);
    mem.copy_in(tail_a_, &one, 4);   // tail
    mem.copy_in(alloc_a_, &one, 4);  // alloc
  } else {
    mem.copy_in(ring(0, 0, 0), &zero, 4);
    mem.copy_in(dq(0, 0) + (q_ == Q::Cl ? 4 : 0), &one, 4);  // count (ws) or bottom (cl)
  }
}

void Runtime::note_pool(std::uint32_t w, int delta) {
  in_use_[w] += delta;  // taken from this pool less returned to it (feb2026 thread workers return ids to their own)
  in_use_all_ = static_cast<std::uint64_t>(static_cast<std::int64_t>(in_use_all_) + delta);
  if (in_use_[w] > static_cast<std::int64_t>(st_.pool_peak.value()))
    st_.pool_peak += static_cast<std::uint64_t>(in_use_[w]) - st_.pool_peak.value();
  if (in_use_all_ > st_.records_peak.value()) st_.records_peak += in_use_all_ - st_.records_peak.value();
}

Task<void> Runtime::fault(Lane& l, std::string what) {
  (void)l;
  throw SimFault(std::move(what));
  co_return;
}

// Task ids: per-worker lists (GTaP Sec. 4.1): the first pass hands out the
// worker's own range, later passes the ids released to it.
Task<std::uint32_t> Runtime::alloc_id(Lane& l, W w, bool& recycled) {
  // The allocation position in the worker's LDS context (GTaP: the warp's or
  // the block's shared TaskContext, id_list_alloc_pos).
  const std::uint32_t old = co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, lds_ctx(w.local), 1u);
  if (old < per_worker_) {
    recycled = false;
    note_pool(w.global, 1);
    co_return w.global* per_worker_ + old;
  }
  const std::uint32_t slot = old % per_worker_;
  bool ok = false;
  if (valid_flags_) {
    ok = co_await l.load_acquire<std::uint32_t>(valid(w.global, slot)) == 1;
  } else {
    std::vector<bool>& r = released_[w.global];
    ok = slot < r.size() && r[slot];
    if (ok) r[slot] = false;
  }
  if (!ok) {
    co_await fault(
        l, fmt::format("forkjoin: the task pool of {} {} is full ({} records in use of {}; its id list hands "
                       "out released ids in order, and slot {} holds none yet): raise forkjoin.max_tasks_per_{}",
                       block_ ? "block" : "warp", w.global, in_use_[w.global], per_worker_, slot,
                       block_ ? "block" : "warp"));
  }
  const std::uint32_t id = co_await l.load_bypass<std::uint32_t>(idlist(w.global, slot));
  if (valid_flags_) co_await l.store_bypass<std::uint32_t>(valid(w.global, slot), 0u);
  recycled = true;
  ++st_.recycled;
  note_pool(w.global, 1);
  co_return id;
}

// Back to its owner's list (the jan2026 runtime; block workers always), or
// to the releasing warp's own (the feb2026 runtime's thread workers). An id
// still being loaded (`pending`: a finishing parent's child) is waited for
// where it is first needed: before the list's atomic when that depends on it
// (its owner), after it when not (the releasing warp's own list).
Task<void> Runtime::release(Lane& l, W w, std::uint32_t id, const Async<std::uint32_t>* pending) {
  const bool own = feb_ && !block_;
  if (code_ || bcode_) co_await l.load<std::uint64_t>(ptr(kPtrLists));  // the id lists' pointer, then the atomic
  if (pending && !own) co_await l.wait(*pending);
  const std::uint32_t to = own ? w.global : id / per_worker_;
  const std::uint32_t pos = co_await l.atomic_add<std::uint32_t>(pool(to), 1u);
  if (pending && own) co_await l.wait(*pending);
  co_await l.store_bypass<std::uint32_t>(idlist(to, pos % per_worker_), id);
  if (valid_flags_) {
    co_await l.store_release<std::uint32_t>(valid(to, pos % per_worker_), 1u);
  } else {
    std::vector<bool>& r = released_[to];
    if (r.empty()) r.resize(per_worker_);
    r[pos % per_worker_] = true;
  }
  note_pool(to, -1);
}

// A new or resumed task joins this worker's batch in queue k.
Task<void> Runtime::push_generated(Lane& l, W w, std::uint32_t k, std::uint32_t id) {
  if (k >= nq_) co_await fault(l, fmt::format("forkjoin: queue hint {} with forkjoin.queues={}", k, nq_));
  const std::uint32_t pos = co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, lds_gen(w.local, k), 1u);
  if (pos >= buf_cap_)
    co_await fault(l, fmt::format("forkjoin: {} {} generated more than {} tasks in one batch: raise "
                                  "forkjoin.max_child_tasks",
                                  block_ ? "block" : "warp", w.global, buf_cap_));
  if (buf_in_lds_) {
    co_await l.lds_store<std::uint32_t>(lds_buf(w.local, k, pos), id);
  } else {
    if (code_) co_await l.load<std::uint64_t>(ptr(kPtrGenerated));
    co_await l.store<std::uint32_t>(gbuf(w.global, k, pos), id);
  }
  ++*st_.per_queue[k];
}

Task<void> Runtime::store_payload(Lane& l, std::uint32_t id, std::uint32_t bytes) {
  // The arguments or the spilled locals (GTaP's task data): 8 bytes per
  // access, the first `bytes` of the payload (Ctx::kWhole: all of it).
  const std::uint32_t n = std::min(bytes, payload_);
  for (std::uint32_t b = 0; b < n; b += 8) co_await l.store<std::uint64_t>(pay(id) + b, 0);
  st_.payload_bytes += round_up(n, 8);
}

Task<Child> Runtime::spawn(Lane& l, Record& parent, std::uint32_t queue,
                           const std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)>& make,
                           Lane::Loc loc) {
  const MechanismScope scope(l, tag(), loc);
  // Inlined at the spawn in GTaP, with branches (the id's source): its lanes
  // run one level deeper than the task's body and meet after it
  // (forkjoin.h, "Reconvergence").
  const std::uint32_t body = enter_body(l);
  const W w = worker_of(l);
  const std::uint32_t index = parent.total + parent.child_count;
  if (!spawn_only_ && index >= max_children_)
    co_await fault(l, fmt::format("forkjoin: task {} spawned more than {} children over its life: raise "
                                  "forkjoin.max_child_tasks",
                                  parent.id, max_children_));
  bool recycled = false;
  Async<std::uint64_t> lists{};
  if (code_ || bcode_) {  // rows 8 and 8b (C17, C17b): the id list's pointer in flight with the allocation
    const Cost c = code_ ? (parent.call_spawns++ ? code_->spawn_later : code_->spawn_first)
                         : (parent.call_spawns++ ? bcode_->spawn_later_t0 : bcode_->spawn_first_t0);
    co_await l.alu_sched(c.n, c.cycles);
    lists = co_await l.load_async<std::uint64_t>(ptr(kPtrLists));
  }
  const std::uint32_t id = co_await alloc_id(l, w, recycled);
  if (code_ || bcode_) {  // the header stores wait for the list's pointer and the header's
    if (code_ && recycled && code_->spawn_recycled.n)
      co_await l.alu_sched(code_->spawn_recycled.n, code_->spawn_recycled.cycles);
    co_await l.wait(lists);
    co_await l.load<std::uint64_t>(ptr(kPtrHeaders));
  }
  // The child's header, as GTaP's __gtap_spawn_task writes it. jan2026
  // (84591ae): the function, state, queue (thread workers), parent and its
  // generation at every spawn, the child counts unless spawn-only. feb2026
  // (14669e9): the function, the queue with several queues; unless
  // spawn-only the parent and its generation, and the state and counts only
  // when the id was used before (its header was zeroed at the start).
  co_await l.store_bypass<std::uint64_t>(hdr(id) + kHdrFunc, 1);
  const HeaderLayout& o = h_off_;
  if (!feb_) {
    co_await l.store_bypass<std::uint16_t>(hdr(id) + o.state, 0);
    if (!block_) co_await l.store_bypass<std::uint16_t>(hdr(id) + o.queue, static_cast<std::uint16_t>(queue));
    co_await l.store_bypass<std::uint32_t>(hdr(id) + o.parent, parent.id);
    co_await l.store_bypass<std::uint16_t>(hdr(id) + o.pgen, parent.gen);
    if (!spawn_only_) {
      co_await l.store_bypass<std::uint32_t>(hdr(id) + o.total, 0u);
      co_await l.store_bypass<std::uint32_t>(hdr(id) + o.waiting, 0u);
    }
  } else {
    if (nq_ > 1) co_await l.store_bypass<std::uint16_t>(hdr(id) + o.queue, static_cast<std::uint16_t>(queue));
    if (!spawn_only_) {
      co_await l.store_bypass<std::uint32_t>(hdr(id) + o.parent, parent.id);
      co_await l.store_bypass<std::uint16_t>(hdr(id) + o.pgen, parent.gen);
      if (recycled) {
        co_await l.store_bypass<std::uint16_t>(hdr(id) + o.state, 0);
        co_await l.store_bypass<std::uint32_t>(hdr(id) + o.total, 0u);
        co_await l.store_bypass<std::uint32_t>(hdr(id) + o.waiting, 0u);
      }
    }
  }
  if (!spawn_only_) {
    if (code_ || bcode_) co_await l.load<std::uint64_t>(ptr(kPtrHeaders));  // reloaded after the generated-id atomic
    co_await l.store_bypass<std::uint32_t>(hdr(parent.id) + o.children + 4ull * index, id);
  }
  auto r = std::make_unique<Record>();
  r->rt = this;
  r->id = id;
  r->parent = parent.id;
  r->parent_gen = parent.gen;
  r->ctx.resize(block_ ? group_size_ : 1);
  for (Ctx& c : r->ctx) {
    c.rec_ = r.get();
    c.frame_ = make(c);
    if (detail::FnPromiseBase::last_frame_bytes > st_.frame_bytes.value())
      st_.frame_bytes += detail::FnPromiseBase::last_frame_bytes - st_.frame_bytes.value();
  }
  r->fn = fn_index(r->ctx[0].frame_);
  if (recs_.count(id)) co_await fault(l, fmt::format("forkjoin: task id {} handed out twice (runtime defect)", id));
  recs_.emplace(id, std::move(r));
  if (code_ || bcode_) co_await l.load<std::uint64_t>(ptr(kPtrData));  // the arguments' pointer
  co_await store_payload(l, id, Ctx::kWhole);                          // the arguments
  co_await push_generated(l, w, queue, id);
  ++parent.child_count;
  ++st_.spawned;
  co_await leave(l, body);
  co_return Child{index};
}

Task<std::uint64_t> Runtime::result(Lane& l, Record& self, Child c, Lane::Loc loc) {
  const MechanismScope scope(l, tag(), loc);
  if (spawn_only_) co_await fault(l, fmt::format("forkjoin: {} reads a child's result without taskwait", p_.name));
  if (c.index >= self.total)
    co_await fault(l,
                   fmt::format("forkjoin: task {} reads the result of child {} before its taskwait", self.id, c.index));
  const std::uint32_t cid = co_await l.load_bypass<std::uint32_t>(hdr(self.id) + h_off_.children + 4ull * c.index);
  const std::uint64_t v = co_await l.load<std::uint64_t>(pay(cid) + payload_ - 8);
  st_.payload_bytes += 8;
  co_return v;
}

// GTaP's copy of a starting task's header: one L2 load per field (the
// generation, the parent, its generation, and the total child count unless
// spawn-only), in flight together; `last` becomes the latest to arrive.
Task<void> Runtime::copy_header(Lane& l, Record& r, Async<std::uint64_t>& last) {
  const std::uint64_t h = hdr(r.id);
  const Async<std::uint16_t> g = co_await l.load_async_bypass<std::uint16_t>(h + h_off_.gen);
  r.gen = g.value;
  std::uint64_t ready = g.ready;
  ready = std::max(ready, (co_await l.load_async_bypass<std::uint32_t>(h + h_off_.parent)).ready);
  ready = std::max(ready, (co_await l.load_async_bypass<std::uint16_t>(h + h_off_.pgen)).ready);
  if (!spawn_only_) ready = std::max(ready, (co_await l.load_async_bypass<std::uint32_t>(h + h_off_.total)).ready);
  last.ready = std::max(last.ready, ready);
}

// A task's start or resumption on lane `l` (every lane of the workgroup for
// a block task), up to its end or its next taskwait with children.
Task<void> Runtime::run_task(Lane& l, W w, std::uint32_t id) {
  auto it = recs_.find(id);
  if (it == recs_.end()) co_await fault(l, fmt::format("forkjoin: task id {} has no record (runtime defect)", id));
  Record& r = *it->second;
  Ctx& c = r.ctx[block_ ? l.local_id() : 0];
  // A task's start, as GTaP's worker loop and its compiler's task function
  // do it (GTaP 84591ae and 14669e9, runtime/*/gtap_runtime_*.cuh and the
  // generated state machine): the header's fields through the L2 (Sec. 4.5)
  // and the function pointer, independent loads in flight together; the
  // indirect call, which needs the pointer; in the task function the state
  // (which part of it to run), then the arguments (the payload, in flight
  // together). Three round trips, each waiting for the one before. Block
  // workers: the leader loads the header, a workgroup barrier, then every
  // lane loads the pointer, the state and the arguments.
  // The header's copy is GTaP's: one L2 load per field (generation, parent,
  // parent's generation, and the total child count unless spawn-only), in
  // both runtimes and worker kinds; the feb2026 runtime skips it for a
  // spawn-only program.
  auto later = [](Async<std::uint64_t>& last, const auto& a) {
    if (a.ready > last.ready) last.ready = a.ready;
  };
  const bool copy = !(feb_ && spawn_only_);
  if (!block_) {
    Async<std::uint64_t> last{};
    if (code_) {  // row 6: the header's pointer ahead of the header's loads, the payload's in flight
      co_await l.alu_sched(code_->start.n, code_->start.cycles);
      const Async<std::uint64_t> data = co_await l.load_async<std::uint64_t>(ptr(kPtrData));
      co_await l.load<std::uint64_t>(ptr(kPtrHeaders));
      later(last, data);
    }
    if (copy) co_await copy_header(l, r, last);
    later(last, co_await l.load_async_bypass<std::uint64_t>(hdr(id) + kHdrFunc));
    co_await l.wait(last);
    ++st_.started;
    if (r.state) ++st_.resumed;
  } else {
    // GTaP's block loop (84591ae and 14669e9, __gtap_execute_task_loop_device_impl):
    // thread 0 copies the header's generation, parent, parent's generation
    // and child count (L2 loads in flight together) into the shared cached
    // header, a barrier, then every thread loads the function pointer and
    // calls it. The feb2026 runtime skips the copy and its barrier for a
    // spawn-only program.
    if (bcode_) co_await l.alu_sched(bcode_->start_all.n, bcode_->start_all.cycles);  // row C7
    if (leader(l)) {
      if (copy) {
        Async<std::uint64_t> last{};
        co_await copy_header(l, r, last);
        co_await l.wait(last);
        co_await l.lds_store<std::uint64_t>(sh_header(), 0);  // the four fields in two words
        co_await l.lds_store<std::uint64_t>(sh_header() + 8, 0);
      }
      ++st_.started;
      if (r.state) ++st_.resumed;
    }
    if (copy) co_await l.barrier();
    if (bcode_) {  // row C8: the payload's and the header's pointers ahead of the function's
      co_await l.alu_sched(bcode_->call_all.n, bcode_->call_all.cycles);
      co_await l.load_async<std::uint64_t>(ptr(kPtrData));
      co_await l.load<std::uint64_t>(ptr(kPtrHeaders));
    }
    co_await l.load_bypass<std::uint64_t>(hdr(id) + kHdrFunc);
  }
  // The indirect call: the lanes run their task's function (forkjoin.h,
  // "Reconvergence"): its prologue and state dispatch in its frame.
  const std::uint32_t fn = r.fn, entered = r.state;
  l.path = fn_path(fn);
  if (!block_ || leader(l)) r.call_spawns = 0;  // a block task's spawns are thread 0's
  if (code_ || bcode_) {  // rows 7a and 9a (C14a, C15): the task function saves its registers, finds its state
    for (std::uint32_t k = 0; k < frame_words(); ++k) co_await l.store<std::uint32_t>(frame(l, k), 0u);
    const Cost pro = code_ ? code_->prologue : bcode_->prologue_all;
    co_await l.alu_sched(pro.n, pro.cycles);
    const Cost st =
        code_ ? (r.state ? code_->state1 : code_->state0) : (r.state ? bcode_->state1_all : bcode_->state0_all);
    co_await l.alu_sched(st.n, st.cycles);
    if (!spawn_only_ || !feb_) co_await l.load<std::uint64_t>(ptr(kPtrHeaders));
  }
  // __gtap_get_task_state: the jan2026 runtime loads the state even for a
  // spawn-only program (84591ae), the feb2026 one returns 0 there.
  if (!spawn_only_ || !feb_) co_await l.load_bypass<std::uint16_t>(hdr(id) + h_off_.state);
  // The state machine's case: its own code, one level deeper.
  const std::uint32_t body = deeper(state_path(fn, entered));
  l.path = body;
  // The arguments at a start; at a resumption the fields its taskwait
  // named (Ctx::Live::reload), maybe none.
  if (const std::uint32_t n = std::min(r.state ? c.live_.reload : payload_, payload_)) {
    Async<std::uint64_t> last = co_await l.load_async<std::uint64_t>(pay(id));
    for (std::uint32_t b = 8; b < n; b += 8) later(last, co_await l.load_async<std::uint64_t>(pay(id) + b));
    co_await l.wait(last);
    if (!block_ || leader(l)) st_.payload_bytes += round_up(n, 8);
  }
  c.lane_ = &l;
  c.waiting_ = false;
  for (;;) {
    detail::FnPromiseBase& p = c.frame_.promise();
    if (p.finished)
      co_await fault(l, fmt::format("forkjoin: task {} resumed on lane {} after its function returned (runtime defect)",
                                    id, l.local_id()));
    l.scope = 0;  // the task's own code is the work
    l.path = body;
    co_await Resume{&p, c.frame_, &l};
    l.scope = tag();
    const bool done = p.finished;
    // Its join or finish, in the task's frame: GTaP's compiler inlines them at
    // each taskwait and each return, so lanes that left by different ones run
    // different copies.
    if (done) {
      const Site at = make_site(p.ret);
      l.path = tagged(state_path(fn, entered), 0x10000u + at.file * 0x01000193u + at.line * 0x3F1u + at.column);
    } else {
      l.path = state_path(fn, entered);
    }
    // Block tasks: the feb2026 runtime's __gtap_set_state_for_join and
    // __gtap_finish_task begin with a barrier (14669e9); the jan2026 ones
    // have none (84591ae: thread 0 goes on alone; its programs put a barrier
    // before a leaf's return). Either way the lanes meet at a taskwait: the
    // feb2026 barrier, or in jan2026 the program's barrier before its
    // taskwait (Fig. 3's tree), which this one stands for.
    if (block_ && (feb_ || !done)) co_await l.barrier();
    // Whether the taskwait has children to wait for, read with no wait since the barrier: its release resumes
    // every lane of the block at once, before thread 0's suspend resets the count (a warp that read it later,
    // held up by the compiled code's step below, read 0, ran past the taskwait and crashed when the task came
    // back: ForkJoin.ABlockTasksWarpsDecideItsTaskwaitTogether).
    const bool children = r.child_count != 0;
    if (bcode_) {  // rows C18 and C19: the barrier's warp sync, the thread-0 test
      const Cost c = done ? bcode_->finish_all : bcode_->join_all;
      co_await l.alu_sched(c.n, c.cycles);
    }
    if (done) {
      if (!block_ || leader(l)) co_await finish(l, w, r);  // erases r (a block's: after its lanes leave it)
      break;
    }
    if (!children) {  // a taskwait with nothing to wait for goes on
      c.waiting_ = false;
      continue;
    }
    if (!block_ || leader(l)) co_await suspend(l, r, r.ctx[0].wait_queue_);
    break;
  }
  l.path = fn_path(fn);  // the function's return block: its epilogue (call_return)
  // The task function's return (its registers restored, the epilogue) and the fence after the call are the
  // caller's, call_return(): the lanes that left the task by different paths reconverge at the function's
  // return block, so a warp runs them once.
}

// The task function's return and what follows the call, once the caller's lanes have met (GTaP's task function
// reconverges at its return block: one epilogue and one fence a warp, however its lanes left the task): the
// registers restored, the epilogue and the call's return (rows 7b, 6b and 6c; C14b, C10), then the
// __threadfence() of the feb2026 runtime and the baselines (rows 6b, G4f, C5f, C9; after_call_fence()).
Task<void> Runtime::call_return(Lane& l) {
  if (code_ || bcode_) {
    Async<std::uint32_t> back{};
    for (std::uint32_t k = 0; k < frame_words(); ++k) {
      const Async<std::uint32_t> a = co_await l.load_async<std::uint32_t>(frame(l, k));
      if (a.ready >= back.ready) back = a;  // the return waits for every restore
    }
    const Cost epi = code_ ? code_->epilogue : bcode_->epilogue_all;
    co_await l.alu_sched(epi.n, epi.cycles);
    co_await l.wait(back);
    l.path = 0;  // back in the worker loop
    const Cost after = code_ ? code_->after_call : bcode_->after_call_all;
    co_await l.alu_sched(after.n, after.cycles);
  }
  l.path = 0;
  if (after_call_fence()) co_await l.fence_release();
}

// At a taskwait with children (GTaP's __gtap_set_state_for_join): the state
// to resume at, the join counts, the queue of the continuation, the payload.
Task<void> Runtime::suspend(Lane& l, Record& r, std::uint32_t queue) {
  // The queue: jan2026's thread runtime stores it always (84591ae),
  // feb2026's with several queues (14669e9); block headers have none.
  ++r.state;
  if (code_ || bcode_) {  // row 10 (C18+)
    const Cost c = code_ ? code_->join : bcode_->join_t0;
    co_await l.alu_sched(c.n, c.cycles);
    co_await l.load<std::uint64_t>(ptr(kPtrHeaders));
  }
  const HeaderLayout& o = h_off_;
  const bool store_queue = !block_ && (nq_ > 1 || !feb_);
  if (!feb_) co_await l.store_bypass<std::uint16_t>(hdr(r.id) + o.state, r.state);
  if (store_queue) co_await l.store_bypass<std::uint16_t>(hdr(r.id) + o.queue, static_cast<std::uint16_t>(queue));
  if (feb_) co_await l.store_bypass<std::uint16_t>(hdr(r.id) + o.state, r.state);
  const std::uint32_t total = co_await l.load_bypass<std::uint32_t>(hdr(r.id) + o.total);
  co_await l.store_bypass<std::uint32_t>(hdr(r.id) + o.total, total + r.child_count);
  co_await l.store_bypass<std::uint32_t>(hdr(r.id) + o.waiting, r.child_count);
  co_await store_payload(l, r.id, r.ctx[0].live_.spill);
  r.total += r.child_count;
  r.child_count = 0;
}

// A task's end (GTaP's __gtap_finish_task): its result, its parent's join,
// its children's ids.
Task<void> Runtime::finish(Lane& l, W w, Record& r) {
  const std::uint32_t id = r.id;
  detail::FnPromiseBase& p = r.ctx[0].frame_.promise();
  const std::uint64_t res = p.result;
  // GTaP's compiler stores a task's result only when its function returns one.
  if (p.returns) {
    co_await l.store<std::uint64_t>(pay(id) + payload_ - 8, res);
    st_.payload_bytes += 8;
  }
  ++st_.finished;
  const std::uint32_t parent = r.parent, pgen = r.parent_gen, total = r.total;
  const std::uint16_t gen = r.gen;
  // The frames end here (a block task's when its lanes have left them); the
  // result lives in the payload.
  auto it = recs_.find(id);
  if (block_) retiring_[w.global] = std::move(it->second);
  recs_.erase(it);
  if (id == 0) root_result_ = res;
  if ((code_ || bcode_) && !spawn_only_) {  // row 11a (C20a): the result, the generation, the parent's generation
    const Cost c = code_ ? code_->finish : bcode_->finish_t0;
    co_await l.alu_sched(c.n, c.cycles);
    co_await l.load<std::uint64_t>(ptr(kPtrHeaders));
  }
  if (spawn_only_) {
    if (id != 0 && !feb_) {  // the jan2026 runtime's spawn-only finish still bumps and checks generations
      co_await l.store_bypass<std::uint16_t>(hdr(id) + h_off_.gen, static_cast<std::uint16_t>(gen + 1));
      co_await l.load_bypass<std::uint16_t>(hdr(parent) + h_off_.gen);
    }
    if (id != 0) co_await release(l, w, id);
  } else {
    co_await l.store_bypass<std::uint16_t>(hdr(id) + h_off_.gen, static_cast<std::uint16_t>(gen + 1));
    if (id != 0) {
      if (code_ || bcode_) co_await l.load<std::uint64_t>(ptr(kPtrHeaders));
      const std::uint16_t pg = co_await l.load_bypass<std::uint16_t>(hdr(parent) + h_off_.gen);
      if (pg == pgen) {
        const std::uint32_t before = co_await l.atomic_add<std::uint32_t>(hdr(parent) + h_off_.waiting, ~0u);
        if (code_) co_await l.alu_sched(code_->decrement.n, code_->decrement.cycles);     // row 11b
        if (bcode_) co_await l.alu_sched(bcode_->notify_t0.n, bcode_->notify_t0.cycles);  // row C20b
        if (before == 1) {
          if (code_) co_await l.alu_sched(code_->ready_parent.n, code_->ready_parent.cycles);  // row 11c
          if (block_) {  // GTaP's block notify_parent: the parent to the shared resumable slot
            co_await l.lds_store<std::uint64_t>(sh_resume(), (std::uint64_t{parent} << 32) | 1u);
            ++*st_.per_queue[0];
          } else {
            std::uint32_t q = 0;
            // The parent's queue: the jan2026 thread runtime loads it even with one queue.
            if (nq_ > 1 || !feb_) q = co_await l.load_bypass<std::uint16_t>(hdr(parent) + h_off_.queue);
            co_await push_generated(l, w, q, parent);
          }
        }
        if (code_ || bcode_) {  // rows 11d/11d' (C20c/C20d): the child count, the release loop's entry
          const Cost c = code_ ? (total ? code_->children : code_->children0)
                               : (total ? bcode_->children_t0 : bcode_->leaf_end_t0);
          co_await l.alu_sched(c.n, c.cycles);
        }
        for (std::uint32_t i = 0; i < total; ++i) {
          if (code_ || bcode_) {  // rows 12' and 12 (C21a, C21b)
            const Cost c = code_ ? (i ? code_->release_next : code_->release_first)
                                 : (i == 0   ? bcode_->release_first_t0
                                    : i == 1 ? bcode_->release_second_t0
                                             : bcode_->release_next_t0);
            co_await l.alu_sched(c.n, c.cycles);
          }
          const Async<std::uint32_t> cid =
              co_await l.load_async_bypass<std::uint32_t>(hdr(id) + h_off_.children + 4ull * i);
          co_await release(l, w, cid.value, &cid);
        }
        if (code_) {  // rows 11e/11e'
          const Cost c = total ? code_->end : code_->end0;
          co_await l.alu_sched(c.n, c.cycles);
        } else if (bcode_ && total) {  // row C20e
          co_await l.alu_sched(bcode_->children_end_t0.n, bcode_->children_end_t0.cycles);
        }
      } else {
        co_await release(l, w, id);
      }
    }
  }
  if (id == 0) co_await l.store_release<std::uint32_t>(first_a_, 1u);
}

HeaderLayout header_layout(bool feb2026, bool block, bool spawn_only, std::uint32_t max_children,
                           std::uint32_t queues) {
  // The fields in C's order, with C's alignment:
  //   thread, jan2026: func 0, generation 8, state 10, queue 12, parent 16,
  //     its generation 20, child ids 24, then total and waiting;
  //   thread, feb2026: ... parent's generation 20, total 24, waiting 28,
  //     child ids 32;
  //   block: no queue, so parent 12, its generation 16, and the counts and
  //     child ids from 20 in each runtime's order.
  // Spawn-only: jan2026 keeps the fields up to the parent's generation and
  // an empty child-id array (24 B); feb2026 keeps the function and, in the
  // thread runtime with several queues, the queue (8 or 16 B).
  constexpr std::uint32_t no = kHeaderNoField;
  const std::uint32_t m = max_children;
  if (spawn_only && feb2026) {
    const bool q = !block && queues > 1;
    return {no, no, q ? 8u : no, no, no, no, no, no, q ? 16u : 8u};
  }
  const std::uint32_t after = block ? 20 : 24;  // where the parent's generation's field ends, 4-aligned
  const std::uint32_t queue = block ? no : 12, parent = block ? 12 : 16, pgen = block ? 16 : 20;
  if (spawn_only) return {8, 10, queue, parent, pgen, no, no, no, 24};
  const std::uint32_t bytes = static_cast<std::uint32_t>(round_up(after + 8 + 4ull * m, 8));
  if (feb2026) return {8, 10, queue, parent, pgen, after, after + 4, after + 8, bytes};
  return {8, 10, queue, parent, pgen, after + 4 * m, after + 4 * m + 4, after, bytes};
}

std::uint32_t clock_victim(std::uint64_t clock, std::uint32_t worker, std::uint32_t workers, bool block) {
  std::uint32_t s = static_cast<std::uint32_t>(clock) + worker * (block ? 1234u : 2654435761u);
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  const std::uint32_t v = s % workers;
  return v == worker ? (v + 1) % workers : v;
}

// A random other worker (the caller charges the clock's read and the
// xorshift's instructions). GTaP's (forkjoin.victim=clock): xorshift32 of the
// clock's low 32 bits plus the worker's index times a constant, modulo the
// workers, the successor when it is the thief itself. The ablation (stream): a
// per-worker xorshift stream, uniform over the other workers.
std::uint32_t Runtime::victim(W w, std::uint64_t clock) {
  if (clock_victim_) return clock_victim(clock, w.global, workers_, block_);
  std::uint32_t& s = rng_[w.global];
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  std::uint32_t v = s % (workers_ - 1);
  if (v >= w.global) ++v;
  return v;
}

// A thief's victim as device code: the clock's read (GTaP's clock64(); not
// for the stream ablation), the xorshift's and the modulo's instructions.
Task<std::uint32_t> Runtime::pick_victim(Lane& l, W w) {
  std::uint64_t clk = 0;
  if (clock_victim_) clk = co_await l.clock();
  if (!code_ && !bcode_) co_await l.alu(4);  // compiled: part of rows 3 and 4 (C4; cl's C3e)
  co_return victim(w, clk);
}

// A push that would overrun the deque: exit 3 naming the parameter to raise.
Task<void> Runtime::deque_full(Lane& l, W w, std::uint32_t used, int queue) {
  // The message is made before the co_await (g++ 12 and temporaries in a
  // co_await's operand).
  const char* who = block_ ? "block" : "warp";
  const std::string at = queue >= 0 ? fmt::format(" (queue {})", queue) : std::string();
  std::string what = fmt::format(
      "forkjoin: the deque of {} {}{} is full ({} tasks in {} slots): raise "
      "forkjoin.max_tasks_per_{}",
      who, w.global, at, used, qs_, who);
  co_await fault(l, std::move(what));
}

// Take tasks when none was kept (the leader): own queue first (only a worker
// that had work: an idle one's queue is empty), a steal to fill the rest.
// The single-pop queues' ids go to got_[worker].
Task<void> Runtime::claim(Lane& l, W w, bool prev, Claim& out) {
  const std::uint32_t max = block_ ? 1 : wave_;
  std::uint32_t n_pop = 0, n_steal = 0, q = 0, tail = 0, vic = 0, vh = 0;
  std::vector<std::uint32_t>& got = got_[w.global];
  got.clear();
  if (q_ == Q::Ws) {
    std::uint32_t cur = nq_ > 1 ? co_await l.lds_load<std::uint32_t>(lds_ctx(w.local) + 8) : 0u;
    const bool code = code_ != nullptr, bj = bcode_ != nullptr;  // bj: jan2026's block workers (locked deques)
    for (std::uint32_t j = 0; j < nq_; ++j) {
      const std::uint32_t k = (cur + j) % nq_;
      if (prev) {    // PopBatch: claim by CAS on count
        if (code) {  // row 2: the queue array's pointer, then the queue's plane
          co_await l.load<std::uint64_t>(ptr(kPtrQueues));
          co_await l.load<std::uint64_t>(plane(k));
        }
        if (bj) co_await l.load<std::uint64_t>(ptr(kPtrQueues));  // row C3a: the queues' pointer
        for (bool again = false;; again = true) {
          if (bj && again) co_await l.alu_sched(bcode_->pop_retry_t0.n, bcode_->pop_retry_t0.cycles);  // row C3x
          const std::uint32_t c = co_await l.load_bypass<std::uint32_t>(dq(w.global, k));
          if (c == 0) break;
          const std::uint32_t kk = std::min(max, c);
          const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(dq(w.global, k), c, c - kk);
          if (old == c) {
            tail = co_await l.lds_load<std::uint32_t>(lds_tail(w.local, k));
            tail -= kk;
            co_await l.lds_store<std::uint32_t>(lds_tail(w.local, k), tail);
            n_pop = kk;
            break;
          }
          ++st_.cas_retries;
        }
        if (code) {  // rows 2 and 2b
          const Cost c = n_pop ? code_->pop : code_->pop_empty;
          co_await l.alu_sched(c.n, c.cycles);
        }
        if (bj) {  // rows C3a and C3c
          const Cost c = n_pop ? bcode_->pop_t0 : bcode_->pop_empty_t0;
          co_await l.alu_sched(c.n, c.cycles);
        }
      }
      if (n_pop < max && workers_ > 1) {  // StealBatch: a victim's lock, then CAS on its count
        std::uint64_t back = backoff_min_cycles_;
        if (code) {  // row 3: the pointers again, ahead of the lock's CAS
          co_await l.load<std::uint64_t>(ptr(kPtrQueues));
          co_await l.load<std::uint64_t>(plane(k));
        }
        for (bool again = false;; again = true) {
          vic = co_await pick_victim(l, w);
          ++st_.steal_tries;
          if (bj) {  // row C4 (C4x1 for a further attempt): the queues' pointer ahead of the lock's CAS
            if (again) co_await l.alu_sched(bcode_->lock_retry_t0.n, bcode_->lock_retry_t0.cycles);
            co_await l.load<std::uint64_t>(ptr(kPtrQueues));
          }
          const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(dq(vic, k) + 8, 0u, 1u);
          if (old == 0) break;
          ++st_.lock_fails;
          if (backoff_) {
            co_await l.sleep(back);
            st_.backoff_ns += static_cast<std::uint64_t>(double(back) * cycle_ns_);
            back = std::min(back * 2, backoff_max_cycles_);
          }
        }
        for (bool again = false;; again = true) {
          if (bj && again) co_await l.alu_sched(bcode_->count_retry_t0.n, bcode_->count_retry_t0.cycles);  // C4x2
          const std::uint32_t c = co_await l.load_bypass<std::uint32_t>(dq(vic, k));
          if (c == 0) break;
          const std::uint32_t kk = std::min(max - n_pop, c);
          const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(dq(vic, k), c, c - kk);
          if (old == c) {
            if (code && !first_ && !prev && n_pop == 0)  // row 4+
              co_await l.alu_sched(code_->steal_active.n, code_->steal_active.cycles);
            if (!first_ && !prev && n_pop == 0) co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, active_a_, 1u);
            vh = co_await l.load_bypass<std::uint32_t>(dq(vic, k) + 4);
            n_steal = kk;
            break;
          }
          ++st_.cas_retries;
        }
        if (n_steal == 0) co_await l.atomic_nr<std::uint32_t>(AtomicOp::Exch, dq(vic, k) + 8, 0u);
        if (code) {  // rows 3 and 4
          const Cost c = n_steal ? code_->steal_ok : code_->steal_fail;
          co_await l.alu_sched(c.n, c.cycles);
        }
        if (bj) {  // rows C4a and C4b
          const Cost c = n_steal ? bcode_->steal_ok_t0 : bcode_->steal_fail_t0;
          co_await l.alu_sched(c.n, c.cycles);
        }
      }
      if (block_ && n_pop) {  // the jan2026 block runtime: the leader takes the one task
        got.push_back(co_await l.load_bypass<std::uint32_t>(ring(w.global, k, tail)));
      } else if (block_ && n_steal) {  // and releases the victim, the id's load in flight
        const Async<std::uint32_t> ida = co_await l.load_async_bypass<std::uint32_t>(ring(vic, k, vh));
        co_await end_steal(l, vic, k, vh + 1);
        got.push_back(co_await l.wait(ida));
      }
      if (n_pop + n_steal) {
        q = k;
        if (nq_ > 1) co_await l.lds_store<std::uint32_t>(lds_ctx(w.local) + 8, k);
        break;
      }
    }
  } else if (q_ == Q::Gq) {
    if (base_) co_await l.load<std::uint64_t>(ptr(kPtrGlobalQueue));  // rows G2 and G2b: the ring's pointer
    for (;;) {  // FIFO claim by CAS on the head; every idle worker polls
      const std::uint32_t hd = co_await l.load_bypass<std::uint32_t>(head_a_);
      const std::uint32_t tl = co_await l.load_bypass<std::uint32_t>(tail_a_);
      const std::uint32_t n = std::min(max, tl - hd);
      if (n == 0) {
        if (base_) co_await l.alu_sched(base_->pop_empty.n, base_->pop_empty.cycles);  // row G2b
        break;
      }
      const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(head_a_, hd, hd + n);
      if (old == hd) {
        if (base_ && !first_ && !prev) co_await l.alu_sched(base_->active.n, base_->active.cycles);  // row G2+
        if (!first_ && !prev) co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, active_a_, 1u);
        if (base_) co_await l.alu_sched(base_->pop.n, base_->pop.cycles);  // row G2
        n_pop = n;
        tail = hd;
        if (block_) {  // the leader takes the block's one task
          const std::uint32_t id = co_await l.load_bypass<std::uint32_t>(gq_slot(hd));
          if (!gq_holds(hd, id)) co_await gq_fault(l, hd);
          got.push_back(id);
        }
        break;
      }
      ++st_.cas_retries;
      if (base_) co_await l.alu_sched(base_->pop_retry.n, base_->pop_retry.cycles);  // row G2x
    }
  } else {  // Chase-Lev: up to `max` single pops, then single steals from one victim
    const bool bc = bcode_ != nullptr;
    if (prev) {
      if (base_) {  // row C2e: the queues' pointer and the plane, once per pop_chase_lev
        co_await l.alu_sched(base_->pop_entry.n, base_->pop_entry.cycles);
        co_await l.load<std::uint64_t>(ptr(kPtrQueues));
        co_await l.load<std::uint64_t>(plane(0));
      }
      for (std::uint32_t i = 0; i < max; ++i) {
        if (bc) co_await l.load<std::uint64_t>(ptr(kPtrQueues));  // row C3: the queues' pointer
        // The owner reads its own bottom with a plain load (the paper's
        // Chase-Lev pop; only the owner writes it), the rest through the L2.
        // An empty deque too: bottom - 1 stored, the fence, top, bottom
        // restored (GTaP's pop has no early exit: rows C2b and C3c).
        const std::uint32_t b = co_await l.load<std::uint32_t>(dq(w.global, 0) + 4);
        co_await l.store_bypass<std::uint32_t>(dq(w.global, 0) + 4, b - 1);
        co_await l.fence_release();
        const std::uint32_t t = co_await l.load_bypass<std::uint32_t>(dq(w.global, 0));
        if (static_cast<std::int32_t>(b - 1 - t) < 0) {
          co_await l.store_bypass<std::uint32_t>(dq(w.global, 0) + 4, t);
          if (bc) co_await l.alu_sched(bcode_->pop_empty_t0.n, bcode_->pop_empty_t0.cycles);  // row C3c
          if (base_) co_await l.alu_sched(base_->pop_empty.n, base_->pop_empty.cycles);       // row C2b
          break;
        }
        const std::uint32_t id = co_await l.load_bypass<std::uint32_t>(ring(w.global, 0, b - 1));
        if (b - 1 > t) {
          got.push_back(id);
          if (bc) co_await l.alu_sched(bcode_->pop_t0.n, bcode_->pop_t0.cycles);  // row C3a
          if (base_) {  // row C2; C2x's loop-back after every fourth
            co_await l.alu_sched(base_->pop.n, base_->pop.cycles);
            if (got.size() % 4 == 0) co_await l.alu_sched(base_->pop_loop.n, base_->pop_loop.cycles);
          }
          continue;
        }
        const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(dq(w.global, 0), t, t + 1);
        co_await l.store_bypass<std::uint32_t>(dq(w.global, 0) + 4, t + 1);
        if (bc) co_await l.alu_sched(bcode_->pop_last_t0.n, bcode_->pop_last_t0.cycles);  // row C3b
        if (base_) co_await l.alu_sched(base_->pop_last.n, base_->pop_last.cycles);       // row C2l
        if (old != t) break;  // lost to a thief: GTaP's pop returns -1 and the loop ends
        got.push_back(id);
        // Won: GTaP's pop_chase_lev goes on (it stops only at -1), so with lanes to fill its next pop
        // finds the deque empty (row C2b: bottom - 1 stored, the fence, top, bottom restored).
        if (base_ && got.size() % 4 == 0) co_await l.alu_sched(base_->pop_loop.n, base_->pop_loop.cycles);
        continue;
      }
      if (base_) co_await l.alu_sched(base_->pop_exit.n, base_->pop_exit.cycles);  // row C2x
      n_pop = static_cast<std::uint32_t>(got.size());
    }
    if (n_pop < max && workers_ > 1) {
      vic = co_await pick_victim(l, w);
      ++st_.steal_tries;
      if (base_) {  // row C3e: the victim's choice and broadcast, the queues' pointer and the plane
        co_await l.alu_sched(base_->steal_entry.n, base_->steal_entry.cycles);
        co_await l.load<std::uint64_t>(ptr(kPtrQueues));
        co_await l.load<std::uint64_t>(plane(0));
      }
      for (std::uint32_t i = n_pop; i < max; ++i) {
        if (bc) co_await l.load<std::uint64_t>(ptr(kPtrQueues));  // row C4: the queues' pointer
        const std::uint32_t t = co_await l.load_bypass<std::uint32_t>(dq(vic, 0));
        co_await l.fence_acquire();
        const std::uint32_t b = co_await l.load_bypass<std::uint32_t>(dq(vic, 0) + 4);
        if (static_cast<std::int32_t>(b - t) <= 0) {
          if (bc) co_await l.alu_sched(bcode_->steal_fail_t0.n, bcode_->steal_fail_t0.cycles);  // row C4a
          if (base_) co_await l.alu_sched(base_->steal_fail.n, base_->steal_fail.cycles);       // row C3b
          break;
        }
        // The task's id and the CAS on top in flight together (the CAS does
        // not wait for the id: GTaP's steal, one round trip).
        const Async<std::uint32_t> ida = co_await l.load_async_bypass<std::uint32_t>(ring(vic, 0, t));
        const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(dq(vic, 0), t, t + 1);
        const std::uint32_t id = co_await l.wait(ida);
        if (bc) co_await l.alu_sched(bcode_->steal_ok_t0.n, bcode_->steal_ok_t0.cycles);  // row C4b
        if (base_) co_await l.alu_sched(base_->steal_ok.n, base_->steal_ok.cycles);       // row C3
        if (old != t) {
          ++st_.cas_retries;
          break;
        }
        if (base_ && !first_ && !prev && got.empty())
          co_await l.alu_sched(base_->active.n, base_->active.cycles);  // row C3+
        if (!first_ && !prev && got.empty()) co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, active_a_, 1u);
        got.push_back(id);
        ++n_steal;
      }
    }
  }

  out = Claim{n_pop, n_steal, q, tail, vic, vh};
}

// A steal's end (the leader): the victim's head moves past the stolen tasks,
// a fence, then its lock is released (GTaP's unlock, whose result is unused).
Task<void> Runtime::end_steal(Lane& l, std::uint32_t vic, std::uint32_t k, std::uint32_t head) {
  co_await l.store_bypass<std::uint32_t>(dq(vic, k) + 4, head);
  co_await l.fence_release();
  co_await l.atomic_nr<std::uint32_t>(AtomicOp::Exch, dq(vic, k) + 8, 0u);
}

// A claimed position of the global queue whose slot did not hold the id stored for it when the claimer read it
// (the read happens at the load's issue; checked by the value read): stored later (the unordered commit's race)
// or overwritten by a later lap (the ring wrapped under a slow claimer). A simulated fault either way, not a stale
// id run as a task.
Task<void> Runtime::gq_fault(Lane& l, std::uint32_t pos) {
  const std::uint32_t size = per_worker_ * workers_, slot = pos % size;
  const GqRecord& r = gq_record_[slot];
  std::string what =
      r.pos1 > pos + 1
          ? fmt::format(
                "forkjoin: the global queue's position {} (slot {}) was overwritten by position {} before the "
                "worker that claimed it read it: raise forkjoin.max_tasks_per_warp",
                pos, slot, r.pos1 - 1)
          : fmt::format(
                "forkjoin: a worker read the global queue's position {} (slot {}) before its task id was "
                "stored there: with forkjoin.gq_commit=unordered (the publish without its commit wait, as "
                "ptxas 13.0 compiles GTaP's gq) a later batch's commit covered an earlier batch's slots; "
                "forkjoin.gq_commit=ordered waits for them",
                pos, slot);
  co_await fault(l, std::move(what));
}

// The end of an iteration (PushBatch): keep up to a warp of the largest
// class for the next iteration, publish the rest.
Task<std::uint32_t> Runtime::push_batch(Lane& l, W w, std::uint32_t& my) {
  const std::uint32_t lane = l.lane_id();
  const std::uint32_t width = wave_;
  std::vector<std::uint32_t> gen(nq_, 0);
  std::uint64_t packed = 0;
  if (leader(l)) {
    std::uint32_t kmax = 0;
    for (std::uint32_t k = 0; k < nq_; ++k) {
      gen[k] = co_await l.lds_load<std::uint32_t>(lds_gen(w.local, k));
      if (gen[k] > gen[kmax]) kmax = k;
      co_await l.lds_store<std::uint32_t>(lds_gen(w.local, k), 0u);
    }
    if (nq_ > 1) co_await l.lds_store<std::uint32_t>(lds_ctx(w.local) + 8, kmax);
    packed = kmax;
  }
  // The counts to every lane (one broadcast per queue and the class).
  for (std::uint32_t k = 0; k < nq_; ++k) gen[k] = co_await l.broadcast<std::uint32_t>(gen[k], 0);
  const std::uint32_t kmax = static_cast<std::uint32_t>(co_await l.broadcast<std::uint64_t>(packed, 0) & 0xff);
  const std::uint32_t keep = std::min(width, gen[kmax]);
  std::uint32_t generated = 0;
  for (std::uint32_t k = 0; k < nq_; ++k) generated += gen[k];
  if (code_) {  // row 13a; 13b when it keeps them all
    co_await l.alu_sched(code_->push_head.n, code_->push_head.cycles);
    if (keep && keep == generated) co_await l.alu_sched(code_->push_kept.n, code_->push_kept.cycles);
    if (keep && !buf_in_lds_) co_await l.load<std::uint64_t>(ptr(kPtrGenerated));
  }
  if (lane < keep)
    my = buf_in_lds_ ? co_await l.lds_load<std::uint32_t>(lds_buf(w.local, kmax, lane))
                     : co_await l.load<std::uint32_t>(gbuf(w.global, kmax, lane));
  for (std::uint32_t k = 0; k < nq_; ++k) {
    const std::uint32_t first = k == kmax ? keep : 0;
    const std::uint32_t m = gen[k] - first;
    if (m == 0) continue;
    std::uint32_t base = 0;
    // Row G5c: every lane's load of the ring's pointer, in flight with lane 0's reservation.
    Async<std::uint64_t> gq_ptr{};
    if (code_ && q_ == Q::Gq) gq_ptr = co_await l.load_async<std::uint64_t>(ptr(kPtrGlobalQueue));
    if (q_ == Q::Cl) {  // every lane reads bottom and top, in flight together (ececf4e's push, row C6c)
      if (code_) {      // the queues' pointer and the plane ahead of them
        co_await l.load<std::uint64_t>(ptr(kPtrQueues));
        co_await l.load<std::uint64_t>(plane(0));
      }
      const Async<std::uint32_t> bot = co_await l.load_async_bypass<std::uint32_t>(dq(w.global, 0) + 4);
      const Async<std::uint32_t> top = co_await l.load_async_bypass<std::uint32_t>(dq(w.global, 0));
      co_await l.wait(bot.ready > top.ready ? bot : top);
      base = bot.value;
      if (leader(l) && base + m - top.value > qs_) co_await deque_full(l, w, base - top.value);
    } else if (leader(l)) {
      if (q_ == Q::Ws) {
        base = co_await l.lds_load<std::uint32_t>(lds_tail(w.local, k));
        // The head, when a stale copy says the deque may be full.
        std::uint32_t hs = co_await l.lds_load<std::uint32_t>(lds_hstale(w.local, k));
        if (base + m - hs > qs_) {
          hs = co_await l.load_bypass<std::uint32_t>(dq(w.global, k) + 4);
          co_await l.lds_store<std::uint32_t>(lds_hstale(w.local, k), hs);
          if (base + m - hs > qs_) co_await deque_full(l, w, base - hs, static_cast<int>(k));
        }
      } else if (q_ == Q::Gq) {
        base = co_await l.atomic_add<std::uint32_t>(alloc_a_, m);
        const std::uint32_t hd = co_await l.load_bypass<std::uint32_t>(head_a_);
        if (base + m - hd > per_worker_ * workers_)
          co_await fault(l, fmt::format("forkjoin: the global queue is full ({} tasks in {} slots): raise "
                                        "forkjoin.max_tasks_per_warp",
                                        base - hd, per_worker_ * workers_));
      }
    }
    if (q_ != Q::Cl) base = co_await l.broadcast<std::uint32_t>(base, 0);
    if (code_) {  // rows 13c, G5c, C6c: the queue's pointer (and plane) for every lane's store
      co_await l.alu_sched(code_->push_publish.n, code_->push_publish.cycles);
      if (q_ == Q::Ws) {
        co_await l.load<std::uint64_t>(ptr(kPtrQueues));
        co_await l.load<std::uint64_t>(plane(k));
      } else if (q_ == Q::Gq) {
        co_await l.wait(gq_ptr);
      }
      if (!buf_in_lds_) co_await l.load<std::uint64_t>(ptr(kPtrGenerated));
    }
    for (std::uint32_t j = lane; j < m; j += wave_) {
      if (code_ && j >= wave_) co_await l.alu_sched(code_->push_more.n, code_->push_more.cycles);
      const std::uint32_t id = buf_in_lds_ ? co_await l.lds_load<std::uint32_t>(lds_buf(w.local, k, first + j))
                                           : co_await l.load<std::uint32_t>(gbuf(w.global, k, first + j));
      if (q_ == Q::Gq) {
        gq_storing(base + j, id);
        co_await l.store_bypass<std::uint32_t>(gq_slot(base + j), id);
      } else {
        co_await l.store<std::uint32_t>(ring(w.global, k, base + j), id);
      }
    }
    co_await l.fence_release();
    co_await sync(l);
    if (leader(l)) {
      if (q_ == Q::Ws) {
        co_await l.lds_store<std::uint32_t>(lds_tail(w.local, k), base + m);
        co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, dq(w.global, k), m);
      } else if (q_ == Q::Gq) {
        if (gq_ordered_) {  // in-order commit: wait until the pushes before this one are visible
          const std::uint32_t tl = co_await l.load_bypass<std::uint32_t>(tail_a_);
          if (tl != base) {
            ++st_.commit_waits;
            co_await l.spin_until<std::uint32_t>(tail_a_, SpinCmp::Eq, base, "the global queue's tail");
          }
        }
        co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, tail_a_, m);
      } else {
        co_await l.store_bypass<std::uint32_t>(dq(w.global, 0) + 4, base + m);
      }
      st_.published += m;
    }
    co_await sync(l);  // the lanes meet again before the next queue (and the next iteration)
  }
  if (leader(l)) st_.kept += keep;
  co_return keep;
}

// The end of a block worker's iteration (GTaP's block push, 84591ae and
// 14669e9, after every task even with nothing to publish): every thread reads
// the shared context (the resumable parent, the generated count) and the
// deque's end (jan2026: the shared tail; feb2026: Chase-Lev's bottom through
// the L2), thread 0 checks for room (the head, or top); every thread stores
// the next task's id to execute_task_id (the resumable parent, else the first
// child) and the rest of the children to the ring, fences; a barrier; thread
// 0 commits (the count's add, or the bottom's store) and sets
// have_execute_task. Returns whether a task was kept (the leader's).
Task<bool> Runtime::block_push(Lane& l, W w) {
  const std::uint32_t lane = l.local_id();
  const std::uint64_t rs = co_await l.lds_load<std::uint64_t>(sh_resume());
  const std::uint32_t gen = co_await l.lds_load<std::uint32_t>(lds_gen(0, 0));
  const bool resumable = (rs & 1) != 0;
  const std::uint32_t total = (resumable ? 1 : 0) + gen, push = total ? total - 1 : 0;
  std::uint32_t base = 0;
  if (q_ == Q::Ws) {
    if (bcode_) {  // row C11 (jan2026): the queues' pointer, every thread the shared tail
      co_await l.alu_sched(bcode_->push_all.n, bcode_->push_all.cycles);
      co_await l.load<std::uint64_t>(ptr(kPtrQueues));
    }
    base = co_await l.lds_load<std::uint32_t>(lds_tail(0, 0));
    if (leader(l)) {
      if (bcode_) co_await l.alu_sched(bcode_->push_check_t0.n, bcode_->push_check_t0.cycles);  // row C11+
      const std::uint32_t hd = co_await l.load_bypass<std::uint32_t>(dq(w.global, 0) + 4);
      if (base + push - hd > qs_) co_await deque_full(l, w, base - hd);
    }
  } else if (q_ == Q::Cl) {  // every thread's bottom and thread 0's top, in flight together
    if (bcode_) {            // row C11: the queues' pointer ahead of the bottom
      co_await l.alu_sched(bcode_->push_all.n, bcode_->push_all.cycles);
      co_await l.load<std::uint64_t>(ptr(kPtrQueues));
    }
    const Async<std::uint32_t> bot = co_await l.load_async_bypass<std::uint32_t>(dq(w.global, 0) + 4);
    if (!leader(l)) {
      base = co_await l.wait(bot);
    } else {
      if (bcode_) co_await l.alu_sched(bcode_->push_check_t0.n, bcode_->push_check_t0.cycles);  // row C11+
      const Async<std::uint32_t> top = co_await l.load_async_bypass<std::uint32_t>(dq(w.global, 0));
      co_await l.wait(bot.ready > top.ready ? bot : top);
      base = bot.value;
      const std::uint32_t t = top.value;
      if (base + push - t > qs_) co_await deque_full(l, w, base - t);
    }
  } else if (push) {  // the global queue: the leader reserves the slots, the lanes read where
    if (leader(l)) {
      base = co_await l.atomic_add<std::uint32_t>(alloc_a_, push);
      const std::uint32_t hd = co_await l.load_bypass<std::uint32_t>(head_a_);
      if (base + push - hd > per_worker_ * workers_)
        co_await fault(l, fmt::format("forkjoin: the global queue is full ({} tasks in {} slots): raise "
                                      "forkjoin.max_tasks_per_block",
                                      base - hd, per_worker_ * workers_));
      co_await l.lds_store<std::uint32_t>(sh_go() + 4, base);
    }
    co_await l.barrier();
    base = co_await l.lds_load<std::uint32_t>(sh_go() + 4);
  }
  // The generated ids: in shared memory (feb2026, up to 10 children) or
  // in global memory (GTaP's get_task_id_generated).
  const auto at = [&](std::uint32_t i) { return buf_in_lds_ ? lds_buf(0, 0, i) : gbuf(w.global, 0, i); };
  if (bcode_) {  // row C12a or C12b
    const Cost c = resumable ? bcode_->push_resumable_all : bcode_->push_keep_all;
    co_await l.alu_sched(c.n, c.cycles);
  }
  {  // execute_task_id, also when nothing was generated (GTaP's push stores it after every task)
    std::uint32_t next = static_cast<std::uint32_t>(rs >> 32);
    if (!resumable && bcode_ && !buf_in_lds_) co_await l.load<std::uint64_t>(ptr(kPtrGenerated));  // row C12b
    if (!resumable)
      next = buf_in_lds_ ? co_await l.lds_load<std::uint32_t>(at(0)) : co_await l.load<std::uint32_t>(at(0));
    co_await l.lds_store<std::uint32_t>(sh_id(), next);
  }
  const std::uint32_t first = resumable ? 0 : 1;
  for (std::uint32_t i = lane + first; i < gen; i += group_size_) {
    if (bcode_) co_await l.alu_sched(bcode_->push_publish.n, bcode_->push_publish.cycles);  // row C12c
    if (bcode_ && !buf_in_lds_) co_await l.load<std::uint64_t>(ptr(kPtrGenerated));
    const std::uint32_t id =
        buf_in_lds_ ? co_await l.lds_load<std::uint32_t>(at(i)) : co_await l.load<std::uint32_t>(at(i));
    const std::uint32_t pos = base + i - first;
    if (q_ == Q::Gq) {
      gq_storing(pos, id);
      co_await l.store_bypass<std::uint32_t>(gq_slot(pos), id);
    } else if (q_ == Q::Cl) {
      co_await l.store_bypass<std::uint32_t>(ring(w.global, 0, pos), id);
    } else {
      co_await l.store<std::uint32_t>(ring(w.global, 0, pos), id);
    }
  }
  if (bcode_) co_await l.alu_sched(bcode_->push_tail_all.n, bcode_->push_tail_all.cycles);  // row C13
  co_await l.fence_release();
  co_await l.barrier();
  if (leader(l)) {
    if (bcode_) co_await l.alu_sched(bcode_->push_commit_t0.n, bcode_->push_commit_t0.cycles);  // row C13+
    if (q_ == Q::Ws) {
      co_await l.lds_store<std::uint32_t>(lds_tail(0, 0), base + push);
      co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, dq(w.global, 0), push);
    } else if (q_ == Q::Cl) {
      co_await l.store_bypass<std::uint32_t>(dq(w.global, 0) + 4, base + push);
    } else if (push) {
      if (gq_ordered_) {  // in-order commit: wait until the pushes before this one are visible
        const std::uint32_t tl = co_await l.load_bypass<std::uint32_t>(tail_a_);
        if (tl != base) {
          ++st_.commit_waits;
          co_await l.spin_until<std::uint32_t>(tail_a_, SpinCmp::Eq, base, "the global queue's tail");
        }
      }
      co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, tail_a_, push);
    }
    co_await l.lds_store<std::uint32_t>(sh_have(), total ? 1u : 0u);
    st_.published += push;
    if (total) ++st_.kept;
  }
  co_return total > 0;
}

// A block worker's loop, as GTaP's (84591ae and 14669e9,
// __gtap_execute_task_loop_device_impl). Thread 0 searches (a pop if it ran
// a task last time, a steal) unless it kept a task; a barrier; every thread
// reads have_execute_task. None: thread 0's termination check, a barrier,
// every thread reads should_continue, again. A task: thread 0 resets the
// batch's context, a barrier, the task (run_task), a barrier, the push.
Task<void> Runtime::block_worker(Lane& l) {
  const MechanismScope scope(l, tag());
  const W w = worker_of(l);
  if (leader(l)) {  // the allocation position (block 0's root has id 0), the tail, the shared state
    co_await l.lds_store<std::uint32_t>(lds_ctx(0), w.global == 0 ? 1u : 0u);
    co_await l.lds_store<std::uint32_t>(lds_gen(0, 0), 0u);
    co_await l.lds_store<std::uint32_t>(lds_tail(0, 0), w.global == 0 ? 1u : 0u);
    co_await l.lds_store<std::uint64_t>(sh_id(), 0u);
    co_await l.lds_store<std::uint64_t>(sh_resume(), 0u);
  }
  co_await l.barrier();
  bool prev = w.global == 0, have = false;  // thread 0's prev_get_task and have_execute_task
  const bool tracing = leader(l) && Trace::get().on();
  const int track = tracing ? Trace::get().track("forkjoin", fmt::format("block {}", w.global)) : -1;
  for (;;) {
    if (bcode_) co_await l.alu_sched(bcode_->frame_all.n, bcode_->frame_all.cycles);               // row C1
    if (bcode_ && leader(l)) co_await l.alu_sched(bcode_->search_t0.n, bcode_->search_t0.cycles);  // row C2
    if (leader(l) && !have) {
      if (bcode_ && !prev) co_await l.alu_sched(bcode_->after_idle_t0.n, bcode_->after_idle_t0.cycles);  // C2+
      Claim c;
      const Tick t0 = l.now();
      co_await claim(l, w, prev, c);
      if (tracing) Trace::get().span(track, "find", t0, l.now() - t0);
      if (c.n_pop + c.n_steal) {
        have = true;
        co_await l.lds_store<std::uint64_t>(sh_id(), (std::uint64_t{1} << 32) | got_[w.global][0]);
        if (c.n_steal)
          ++st_.steals, ++st_.stolen;
        else
          ++st_.popped;
      }
    }
    co_await l.barrier();
    const std::uint64_t a = co_await l.lds_load<std::uint64_t>(sh_id());  // have_execute_task, execute_task_id
    if (bcode_) {                                                         // rows C5 with C6a or C6b
      const Cost c = (a >> 32) ? bcode_->found_all : bcode_->none_all;
      co_await l.alu_sched(c.n, c.cycles);
    }
    if ((a >> 32) == 0) {
      if (leader(l)) {
        if (bcode_) co_await l.alu_sched(bcode_->none_t0.n, bcode_->none_t0.cycles);
        const Tick t1 = l.now();
        const std::uint32_t stop = co_await idle_check(l, w, prev);
        if (tracing) Trace::get().span(track, "idle", t1, l.now() - t1);
        prev = false;
        co_await l.lds_store<std::uint32_t>(sh_go(), stop);
      }
      co_await l.barrier();
      if (co_await l.lds_load<std::uint32_t>(sh_go())) break;  // while (should_continue)
      continue;
    }
    if (leader(l)) {  // prev_get_task; the batch's generated count and resumable parent reset
      prev = true;
      co_await l.lds_store<std::uint32_t>(lds_gen(0, 0), 0u);
      co_await l.lds_store<std::uint64_t>(sh_resume(), 0u);
      ++st_.batches;
      st_.batch_lanes.sample(1);
    }
    co_await l.barrier();
    const Tick t0 = l.now();
    co_await run_task(l, w, static_cast<std::uint32_t>(a));
    if (bcode_ || after_call_fence()) {
      co_await l.sync_wave();  // each warp's lanes reconverge at the task function's return block
      co_await call_return(l);
    }
    l.path = 0;
    co_await l.barrier();
    const Tick t1 = l.now();
    if (leader(l)) retiring_[w.global].reset();
    if (tracing) Trace::get().span(track, "run 1", t0, t1 - t0);
    have = co_await block_push(l, w);
    if (tracing) Trace::get().span(track, "push", t1, l.now() - t1);
  }
}

// No task found (the leader): the termination protocol; whether to stop.
Task<std::uint32_t> Runtime::idle_check(Lane& l, W w, bool prev) {
  ++st_.idle_iterations;
  if (code_) co_await l.alu_sched(code_->term.n, code_->term.cycles);  // row 5
  if (!first_ && prev) {
    if (code_) co_await l.alu_sched(code_->term_first.n, code_->term_first.cycles);  // row 5b
    const std::uint32_t before = co_await l.atomic_add<std::uint32_t>(active_a_, ~0u);
    if (before == 1) {
      if (code_) co_await l.alu_sched(code_->term_last.n, code_->term_last.cycles);  // row 5c
      // The last active worker: done when its own queues are empty.
      bool empty = true;
      for (std::uint32_t k = 0; k < nq_; ++k) {
        if (q_ == Q::Ws) {
          const std::uint32_t c = co_await l.load_bypass<std::uint32_t>(dq(w.global, k));
          empty = empty && c == 0;
        } else if (q_ == Q::Gq) {
          const std::uint32_t hd = co_await l.load_bypass<std::uint32_t>(head_a_);
          const std::uint32_t tl = co_await l.load_bypass<std::uint32_t>(tail_a_);
          empty = empty && hd >= tl;
        } else {
          const std::uint32_t t = co_await l.load_bypass<std::uint32_t>(dq(w.global, 0));
          const std::uint32_t b = co_await l.load_bypass<std::uint32_t>(dq(w.global, 0) + 4);
          empty = empty && static_cast<std::int32_t>(b - t) <= 0;
        }
      }
      co_await l.atomic_nr<std::uint32_t>(AtomicOp::Exch, done_a_, empty ? 1u : 0u);
    }
  }
  const std::uint32_t flag = co_await l.load_bypass<std::uint32_t>(first_ ? first_a_ : done_a_);
  co_return flag;
}

// The leader's search (the acquire and idle parts of GTaP's loop): claim
// tasks; when none, the termination check; again until tasks or the end.
// `prev`: the worker ran tasks in its previous iteration. Every fruitless
// iteration charges what shares the outcome with the other lanes in GTaP's
// loop: a shuffle after the claim and one after the check (thread workers;
// block workers go round their loop: block_worker).
Task<void> Runtime::find(Lane& l, W w, bool& prev, Claim& c, std::uint32_t& stop, int track) {
  const std::uint32_t share = 1;
  for (;;) {
    const Tick t0 = l.now();
    co_await claim(l, w, prev, c);
    if (track >= 0) Trace::get().span(track, "find", t0, l.now() - t0);
    if (c.n_pop + c.n_steal) co_return;
    if (code_)  // row 1c: the iteration's framing (its shuffles are in rows 3 and 5)
      co_await l.alu_sched(code_->idle_frame.n, code_->idle_frame.cycles);
    else
      co_await l.alu(share);
    const Tick t1 = l.now();
    stop = co_await idle_check(l, w, prev);
    if (track >= 0) Trace::get().span(track, "idle", t1, l.now() - t1);
    prev = false;
    if (stop) co_return;
    if (!code_) co_await l.alu(share);
  }
}

// The thread workers' persistent kernel: every lane runs the worker loop. The
// leader's parts are coroutines of the leader alone; what every lane does
// (the broadcasts, the loads of the claimed ids) is written here, so an
// iteration makes no coroutine frame per lane.
Task<void> Runtime::worker(Lane& l) {
  const MechanismScope scope(l, tag());
  const W w = worker_of(l);
  if (leader(l)) {  // the allocation position (worker 0's root has id 0), the batch counts, the tails
    co_await l.lds_store<std::uint32_t>(lds_ctx(w.local), w.global == 0 ? 1u : 0u);
    for (std::uint32_t k = 0; k < nq_; ++k) {
      co_await l.lds_store<std::uint32_t>(lds_gen(w.local, k), 0u);
      co_await l.lds_store<std::uint32_t>(lds_tail(w.local, k), w.global == 0 && k == 0 ? 1u : 0u);
      co_await l.lds_store<std::uint32_t>(lds_hstale(w.local, k), 0u);
    }
  }
  co_await sync(l);
  const std::uint32_t lane = l.lane_id();
  std::uint32_t my = kNone, exec = 0;
  bool prev = w.global == 0;  // worker 0 holds the root
  // Worker activity as a Perfetto track (--trace): "find" (pop and steal),
  // "idle" (found nothing: the termination check), "run N" (a batch of N
  // tasks, from their start to the barrier after them: GTaP's profile's
  // "working" time) and "push" (PushBatch).
  const bool tracing = leader(l) && Trace::get().on();
  const int track = tracing ? Trace::get().track("forkjoin", fmt::format("warp {}", w.global)) : -1;
  for (;;) {
    if (exec == 0) {
      // The leader looks for tasks, alone, until it finds some or the run
      // ends; the other lanes wait for it at the wavefront's barrier. Each of its fruitless iterations charges the
      // instructions that share its outcome with the lanes in GTaP's loop.
      Claim c;
      std::uint32_t stop = 0;
      if (leader(l)) co_await find(l, w, prev, c, stop, track);
      co_await sync(l);
      // The outcome to every lane.
      std::uint32_t n = 0;
      {
        const std::uint64_t a = co_await l.broadcast<std::uint64_t>(
            (std::uint64_t{c.n_pop} << 40) | (std::uint64_t{c.n_steal} << 8) | stop, 0);
        c.n_pop = static_cast<std::uint32_t>(a >> 40);
        c.n_steal = static_cast<std::uint32_t>(a >> 8) & 0xffffffu;
        stop = static_cast<std::uint32_t>(a & 0xff);
        n = c.n_pop + c.n_steal;
        if (n && q_ == Q::Cl) {
          for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t id = co_await l.broadcast<std::uint32_t>(leader(l) ? got_[w.global][i] : 0u, 0);
            if (lane == i) my = id;
          }
        } else if (n) {
          const std::uint64_t b = co_await l.broadcast<std::uint64_t>((std::uint64_t{c.q} << 32) | c.tail, 0);
          const std::uint64_t v = co_await l.broadcast<std::uint64_t>((std::uint64_t{c.vic} << 32) | c.vh, 0);
          c.q = static_cast<std::uint32_t>(b >> 32);
          c.tail = static_cast<std::uint32_t>(b);
          c.vic = static_cast<std::uint32_t>(v >> 32);
          c.vh = static_cast<std::uint32_t>(v);
          const std::uint64_t at =
              lane < c.n_pop ? (q_ == Q::Gq ? gq_ + 3ull * line_ + 4ull * ((c.tail + lane) % (per_worker_ * workers_))
                                            : ring(w.global, c.q, c.tail + lane))
                             : ring(c.vic, c.q, c.vh + lane - c.n_pop);
          if (!c.n_steal) {
            if (lane < n) {
              my = co_await l.load_bypass<std::uint32_t>(at);
              if (q_ == Q::Gq && !gq_holds(c.tail + lane, my)) co_await gq_fault(l, c.tail + lane);
            }
          } else {
            if (code_ && q_ == Q::Ws) {  // row 4: every lane loads the victim queue's plane again
              co_await l.load<std::uint64_t>(ptr(kPtrQueues));
              co_await l.load<std::uint64_t>(plane(c.q));
            }
            // A steal: the head moves, then the lock is released, while the
            // lanes' id loads are in flight (nothing there waits for them).
            Async<std::uint32_t> a;
            if (lane < n) a = co_await l.load_async_bypass<std::uint32_t>(at);
            co_await l.sync_wave();
            if (leader(l)) co_await end_steal(l, c.vic, c.q, c.vh + c.n_steal);
            co_await l.sync_wave();
            if (lane < n) my = co_await l.wait(a);
          }
        }
        if (n && leader(l)) {
          st_.popped += c.n_pop;
          st_.stolen += c.n_steal;
          if (c.n_steal) ++st_.steals;
        }
      }
      if (stop) break;
      exec = n;
      prev = true;
      if (code_) co_await l.alu_sched(code_->head_found.n, code_->head_found.cycles);  // row 1b
    } else if (code_) {
      co_await l.alu_sched(code_->head_kept.n, code_->head_kept.cycles);  // row 1a
    }
    if (leader(l)) {
      ++st_.batches;
      st_.batch_lanes.sample(exec);
    }
    const Tick t0 = l.now();
    const std::uint32_t ran = exec;
    if (lane < exec) co_await run_task(l, w, my);
    if (exec && (code_ || after_call_fence())) {  // (exec is the warp's: its lanes take this branch together)
      // The lanes reconverge at the task function's return block. This meeting costs an issue slot that the
      // rows' sync trampolines already count (about one instruction a batch, said in docs/forkjoin.md).
      co_await sync(l);
      if (lane < exec) co_await call_return(l);
    }
    l.path = 0;
    co_await sync(l);  // GTaP's __syncwarp after `if (lane < count) { call; [__threadfence();] }`
    const Tick t1 = l.now();
    if (tracing) Trace::get().span(track, fmt::format("run {}", ran), t0, t1 - t0);
    my = kNone;
    exec = co_await push_batch(l, w, my);
    if (tracing) Trace::get().span(track, "push", t1, l.now() - t1);
  }
}

// ---- host ----
}  // namespace fg::fj

#include "forkjoin/apps.h"

namespace fg::fj {

std::uint64_t runtime_bytes(const Config& cfg, std::uint32_t payload, std::uint32_t max_children,
                            std::uint32_t local_slots) {
  // At most one worker per wavefront slot (thread) or workgroup (block) of
  // every CU: an upper bound checked before the run (gpu.mem.size).
  const bool block = kWorkers.get(cfg) == "block";
  const std::uint64_t cus = std::get<std::uint64_t>(cfg.value("gpu.cus"));
  const std::uint64_t per_cu = std::get<std::uint64_t>(cfg.value(block ? "gpu.cu.max_workgroups" : "gpu.cu.slots"));
  const std::uint64_t workers = cus * per_cu;
  const std::uint64_t per = block ? kPerBlock.get(cfg) : kPerWarp.get(cfg);
  const std::uint64_t c = kMaxChildren.get(cfg) ? kMaxChildren.get(cfg) : max_children;
  const std::uint64_t pay = kPayload.get(cfg) ? kPayload.get(cfg) : payload;
  const std::uint64_t record = round_up(kHdrMax + 4 * c, 8) + round_up(std::max<std::uint64_t>(pay, 8), 8);
  const std::uint64_t lanes = block ? (kGroupSize.get(cfg) ? kGroupSize.get(cfg) : 256)
                                    : std::get<std::uint64_t>(cfg.value("gpu.cu.wavefront_width"));
  // forkjoin.code=compiled: the pointers' two lines and the task function's saved registers (16 words a lane).
  const std::uint64_t code = kCode.get(cfg) == "compiled" ? 512 + workers * 16 * lanes * 4 : 0;
  return workers * per * (record + 12) + workers * kQueues.get(cfg) * 256 + workers * local_slots * lanes * 8 + code;
}
RunInfo run_root(Host& h, const Program& p, std::function<std::coroutine_handle<detail::FnPromiseBase>(Ctx&)> root) {
  const Config& cfg = h.config();
  const std::uint32_t wave = static_cast<std::uint32_t>(std::get<std::uint64_t>(cfg.value("gpu.cu.wavefront_width")));
  const bool block = block_workers(cfg, p.block);
  std::uint32_t size = static_cast<std::uint32_t>(kGroupSize.get(cfg));
  if (size == 0) size = block ? 256 : wave;  // block workers: GTaP's default block of 256 (Table 1)
  // A thread worker is a whole warp: a partial one left lanes no worker
  // loop runs, and the run never ended (or ended with tasks unfinished).
  if (!block && size % wave != 0)
    throw UserError(
        fmt::format("forkjoin.group_size={}: thread workers are whole wavefronts (a multiple of {} "
                    "work-items, gpu.cu.wavefront_width)",
                    size, wave));
  KernelLaunch k{p.name, 0, size, static_cast<std::uint32_t>(kRegisters.get(cfg)), 0, {}};
  // The LDS the runtime needs decides residency: size it first with one group.
  std::uint32_t groups = static_cast<std::uint32_t>(kGroups.get(cfg));
  {
    const Runtime plan(h, p, 1, size, wave);
    k.lds_bytes = plan.lds_bytes() + plan.shared_bytes() + p.task_lds;  // the runtime's shared words, the tasks' LDS
  }
  const std::uint64_t capacity = h.dispatcher().resident_capacity(k);
  if (capacity == 0)
    throw UserError(
        fmt::format("forkjoin: no workgroup of {} work-items with {} B of LDS fits a CU "
                    "(forkjoin.group_size)",
                    size, k.lds_bytes));
  if (groups == 0) groups = static_cast<std::uint32_t>(capacity);
  if (groups > capacity) {
    // What bounds a CU's share, so that the line says which setting lowered
    // it (forkjoin.registers, the LDS).
    const ComputeUnit& cu = h.gpu().cu(0);
    const auto bound = cu.capacity_bound(k);
    std::vector<std::string> by;  // every limit that gives the share: raising one of a tie alone does not raise it
    if (bound.binds(ComputeUnit::Limit::kSlots))
      by.push_back(fmt::format("its {} wavefront slots (gpu.cu.slots)", cu.params().slots));
    if (bound.binds(ComputeUnit::Limit::kWorkgroups)) by.emplace_back("gpu.cu.max_workgroups");
    if (bound.binds(ComputeUnit::Limit::kRegisters))
      by.push_back(fmt::format("its registers at {} a lane (forkjoin.registers)", k.registers));
    if (bound.binds(ComputeUnit::Limit::kLds))
      by.push_back(fmt::format("its {} B of LDS at {} B a workgroup (gpu.cu.lds)", cu.params().lds_bytes, k.lds_bytes));
    throw UserError(
        fmt::format("forkjoin.groups={}: more than the {} workgroups that fit at once ({} a CU, bounded by {}; a "
                    "persistent kernel's workers must all be resident)",
                    groups, capacity, bound.groups, fmt::join(by, " and ")));
  }
  Runtime rt(h, p, groups, size, wave);
  rt.allocate();
  k.grid = std::uint64_t{groups} * size;
  k.body = [&rt, block](Lane& l) { return block ? rt.block_worker(l) : rt.worker(l); };
  rt.add_root(root);
  const auto t = h.run_kernel(k);
  if (rt.records_left())
    throw SimFault(
        fmt::format("forkjoin: the workers stopped with {} tasks unfinished (forkjoin.terminate)", rt.records_left()));
  RunInfo info;
  info.kernel_ns = t.to_seconds() * 1e9;
  info.groups = groups;
  info.warps = rt.workers();
  info.root_result = rt.root_result();
  h.result("kernel_ns", info.kernel_ns);
  h.result("workers", info.warps);
  return info;
}

}  // namespace fg::fj
