// SPDX-License-Identifier: Apache-2.0
/* FineGrain aggregator firmware, rendered as the C an embedded control core
 * would run (see README.md). Data structures only; the steps are in
 * firmware_steps.c. Model reference: systemc/aggregator/aggregator.cpp
 * (Aggregator::run, dispatch, read_restart_contexts, restart_ready),
 * systemc/channel/channel.h (Layout), systemc/yield/yield.h (Restart),
 * workloads/cilk/cilk.cpp (LevelScheduler). */
#ifndef FW_STEPS_H
#define FW_STEPS_H
#include <stdint.h>

#define LINE 64         /* gpu.line */
#define WAVE 64         /* wavefront width: a hardware constant for firmware */
#define PKT_RING 64     /* dispatch packets before the ring wraps (kPacketRing) */
#define YIELD_RING 4096 /* restart-channel entries (yield.ring) */
#define MAX_CHAN 64
#define MAX_DEPTH 64
#define MAX_YIELDED 1024
#define KTAB 256                           /* dispatch id -> channel, for dispatches in flight */
#define AQL_HEADER_KERNEL_DISPATCH 0x1502u /* type 2, acquire/release fences */

/* Device memory: one channel's pointers, each on its own cache line
 * (channel.h Layout). Written by the CUs except data_head / ctrl_head. */
struct chan_shared {
  _Alignas(LINE) uint32_t data_tail;    /* producers' CAS (talloc) */
  _Alignas(LINE) uint32_t ctrl_reserve; /* producers' CAS */
  _Alignas(LINE) uint32_t ctrl_tail;    /* producers publish (enq); the aggregator polls */
  _Alignas(LINE) uint32_t data_head;    /* the aggregator frees; producers read it (full check) */
  _Alignas(LINE) uint32_t ctrl_head;    /* the aggregator's dispatch point */
  _Alignas(LINE) uint32_t waves_done;   /* consumer wavefronts of this channel finished (front end
                                           counts; the model knows completions for free) */
};

/* HSA AQL kernel-dispatch packet, 64 bytes. */
struct aql_packet {
  uint16_t header, setup;
  uint16_t workgroup_size_x, workgroup_size_y, workgroup_size_z, reserved0;
  uint32_t grid_size_x, grid_size_y, grid_size_z;
  uint32_t private_segment_size, group_segment_size;
  uint64_t kernel_object, kernarg_address;
  uint64_t reserved2; /* the model's packet payload: first control position (and dispatch id) */
  uint64_t completion_signal;
};

/* Restart channel entry (yield.h: 32 bytes, 20 used). */
struct restart_entry {
  uint64_t spill;
  uint32_t resource, need, kernel;
  uint32_t pad[3];
};

/* A yielded wavefront the firmware tracks. */
struct yielded {
  uint64_t spill;
  uint32_t resource, need, kernel;
};

/* The firmware's private per-channel state (its own memory, in the core's L1). */
struct chan {
  struct chan_shared* sh;
  uint32_t* done; /* done-count array (device) */
  uint32_t ctrl_head, data_head, last_tail;
  uint32_t capacity, done_count, nblocks, done_idx; /* done_idx: data_head's block */
  uint32_t launched, running, yielded, room;
  uint32_t id;
  /* the consumer kernel */
  uint16_t setup;
  uint32_t private_segment_size, group_segment_size;
  uint64_t kernel_object, kernarg_address, completion_signal;
  /* cilk LevelScheduler::Place */
  uint32_t spawn, depth;
  struct chan* above;
};

struct view {
  uint32_t outstanding; /* consumer wavefronts running (not yielded) */
  uint32_t dispatched;  /* something dispatched earlier in this pass */
};

struct fw;
typedef uint32_t (*poll_fn)(struct fw*, struct chan*, const struct view*);

struct fw {
  struct chan* chan[MAX_CHAN]; /* creation order */
  struct chan* order[MAX_CHAN];
  uint32_t nchan, norder;
  /* dispatch: packet ring and doorbell (device) */
  struct aql_packet* pkt;
  uint64_t* doorbell;
  uint64_t write_index;
  uint32_t next_kernel;
  struct chan* kchan[KTAB];
  /* completions: launched by us, finished as the front end counts (device) */
  uint32_t* waves_done;
  uint32_t launched;
  /* restart channel (yield) */
  uint32_t yield;
  struct restart_entry* rring; /* device */
  uint32_t *rtail, *rhead_sh;  /* device */
  uint32_t rhead, ny, recheck;
  struct yielded y[MAX_YIELDED];
  /* cilk level scheduler, this pass */
  uint32_t depth, spawn_busy, cont_deeper, cont_level_busy, cont_level_active, cont_depth;
  uint64_t spawn_active; /* vector<bool> spawn_active_: one bit per level (depth <= 64) */
};

/* The steps (firmware_steps.c). */
uint32_t poll_one_channel(struct fw* f, struct chan* c, const struct view* v);
uint32_t poll_one_channel_level(struct fw* f, struct chan* c, const struct view* v);
uint32_t predicate_level(struct fw* f, struct chan* c, uint32_t ready, const struct view* v);
void level_pass_reset(struct fw* f);
void dispatch_one(struct fw* f, struct chan* c, uint32_t n);
int free_one_block(struct fw* f, struct chan* c);
int free_pass(struct fw* f);
void restart_record_one(struct fw* f, const struct restart_entry* e);
int read_restart_contexts(struct fw* f, uint32_t tail);
int restart_one(struct fw* f, const struct yielded* y);
int restart_ready(struct fw* f);
int check_done(struct fw* f);
int fw_pass_default(struct fw* f);
int fw_pass_level(struct fw* f);
int fw_run_default(struct fw* f, uint32_t passes);

/* Defined by the harness: a simulation fault (never taken on the measured paths). */
__attribute__((noreturn)) void fw_fault(int what, uint32_t a, uint32_t b);
#endif
