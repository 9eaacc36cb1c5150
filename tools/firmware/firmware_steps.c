/* SPDX-License-Identifier: Apache-2.0 */
/* FineGrain aggregator firmware steps as plain C (see README.md).
 *
 * One function per step of Aggregator::run (systemc/aggregator/aggregator.cpp)
 * and of the Cilk LevelScheduler (workloads/cilk/cilk.cpp). Device memory (the
 * channel pointers, done counts, packet ring, doorbell, restart channel) is
 * read with acquire loads and written with release stores where another agent
 * synchronises on the word; the firmware's own state (struct fw, struct chan)
 * is ordinary memory. Statistics the simulator keeps (counters, occupancy
 * samples, trace spans) are not firmware and are left out. Fault checks stay
 * (a compare and a branch to fw_fault, never taken on the measured paths).
 *
 * Compiled alone (no LTO) so that no step is specialised to the harness. */
#include "firmware_steps.h"

#define NOINLINE __attribute__((noinline))
#define LD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ST_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* Consumer wavefronts running: launched, not finished, not yielded. */
static inline uint32_t running_now(const struct fw *f, uint32_t done) { return f->launched - done - f->ny; }

/* ---- 1. poll (per channel in the policy's order) + default predicate ----
 * Model: cp_.load_words(ctrl_tail) + poll_instructions; c.last_tail = tail;
 * ready = tail - ctrl_head; n = min(ready, Scheduler::predicate(c, ready, v)). */
static inline uint32_t poll_one_channel_i(struct fw *f, struct chan *c, const struct view *v) {
  (void)f;
  const uint32_t tail = LD_ACQ(&c->sh->ctrl_tail);
  c->last_tail = tail;
  const uint32_t ready = tail - c->ctrl_head;
  if (ready >= WAVE) return ready & ~(uint32_t)(WAVE - 1); /* whole wavefronts */
  if (ready > 0 && v->outstanding == 0 && !v->dispatched) return ready;
  return 0;
}
NOINLINE uint32_t poll_one_channel(struct fw *f, struct chan *c, const struct view *v) {
  return poll_one_channel_i(f, c, v);
}

/* ---- Cilk levelized scheduler (LevelScheduler::order's per-pass reset, predicate) ---- */
NOINLINE void level_pass_reset(struct fw *f) {
  f->spawn_busy = 0;
  f->spawn_active = 0; /* spawn_active_.assign(depth_, false) */
  f->cont_deeper = f->cont_level_busy = f->cont_level_active = 0;
  f->cont_depth = ~(uint32_t)0;
}

NOINLINE uint32_t predicate_level(struct fw *f, struct chan *c, uint32_t ready, const struct view *v) {
  (void)v;
  const uint32_t busy = ready > 0 || c->running > 0; /* yielded wavefronts included */
  if (c->spawn) {
    const struct chan *a = c->above;
    uint32_t above_idle = 1;
    if (a) {
      const uint32_t a_running = a->launched - LD_ACQ(&a->sh->waves_done);
      above_idle = a_running == a->yielded && a->last_tail == a->ctrl_head;
    }
    const uint32_t n = ready >= WAVE ? ready & ~(uint32_t)(WAVE - 1) : (above_idle ? ready : 0);
    if (busy && f->spawn_busy < c->depth + 1) f->spawn_busy = c->depth + 1;
    if (c->running > c->yielded) f->spawn_active |= (uint64_t)1 << c->depth;
    return n;
  }
  if (c->depth != f->cont_depth) { /* continuations are polled deepest first */
    f->cont_deeper = f->cont_deeper || f->cont_level_busy;
    f->cont_level_busy = f->cont_level_active = 0;
    f->cont_depth = c->depth;
  }
  const uint32_t go = f->spawn_busy <= c->depth + 1 && !(f->spawn_active >> c->depth & 1) && !f->cont_deeper &&
                      !f->cont_level_active;
  f->cont_level_busy = f->cont_level_busy || busy;
  f->cont_level_active = f->cont_level_active || ready > 0 || c->running > c->yielded;
  return go ? ready : 0;
}

/* Poll for the level scheduler: the channel's completions too (c.running). */
NOINLINE uint32_t poll_one_channel_level(struct fw *f, struct chan *c, const struct view *v) {
  const uint32_t tail = LD_ACQ(&c->sh->ctrl_tail);
  c->running = c->launched - LD_ACQ(&c->sh->waves_done);
  c->last_tail = tail;
  const uint32_t ready = tail - c->ctrl_head;
  const uint32_t n = predicate_level(f, c, ready, v);
  return n < ready ? n : ready;
}

/* ---- 2. dispatch: one AQL packet, the control head, the doorbell ----
 * Model: dispatch_instructions + store(64-byte packet) + store_word(ctrl_head). */
NOINLINE void dispatch_one(struct fw *f, struct chan *c, uint32_t n) {
  const uint64_t wi = f->write_index;
  struct aql_packet *p = &f->pkt[wi & (PKT_RING - 1)];
  const uint32_t first = c->ctrl_head;
  const uint32_t kid = f->next_kernel++;
  p->workgroup_size_x = WAVE;
  p->workgroup_size_y = 1;
  p->workgroup_size_z = 1;
  p->reserved0 = 0;
  p->grid_size_x = n;
  p->grid_size_y = 1;
  p->grid_size_z = 1;
  p->private_segment_size = c->private_segment_size;
  p->group_segment_size = c->group_segment_size;
  p->kernel_object = c->kernel_object;
  p->kernarg_address = c->kernarg_address;
  p->reserved2 = (uint64_t)kid << 32 | first;
  p->completion_signal = c->completion_signal;
  /* header + setup last, one 32-bit release store: the packet becomes valid */
  ST_REL((uint32_t *)&p->header, AQL_HEADER_KERNEL_DISPATCH | (uint32_t)c->setup << 16);
  f->write_index = wi + 1;
  ST_REL(f->doorbell, wi + 1);
  c->ctrl_head = first + n;
  ST_REL(&c->sh->ctrl_head, first + n);
  const uint32_t waves = (n + WAVE - 1) / WAVE;
  c->launched += waves;
  c->running += waves;
  f->launched += waves;
  f->kchan[kid & (KTAB - 1)] = c;
}

/* ---- 3. free: the oldest done-count block of a candidate channel ----
 * Model: load_words(done word) per candidate (ctrl_head - data_head >= done_count);
 * if complete: free_instructions + store(done word = 0) + store(data_head). */
NOINLINE int free_one_block(struct fw *f, struct chan *c) {
  uint32_t *w = &c->done[c->done_idx];
  const uint32_t cnt = LD_ACQ(w);
  if (cnt < c->done_count) return 0;
  if (cnt > c->done_count) fw_fault(1, c->id, cnt); /* a CE freed twice */
  *w = 0;
  c->data_head += c->done_count;
  ST_REL(&c->sh->data_head, c->data_head);
  c->done_idx = c->done_idx + 1 == c->nblocks ? 0 : c->done_idx + 1;
  f->recheck = 1;
  return 1;
}

/* Free in allocation order until nothing more is freed. */
static inline int free_pass_i(struct fw *f) {
  int acted = 0;
  for (;;) {
    int freed = 0;
    for (uint32_t i = 0; i < f->nchan; ++i) {
      struct chan *c = f->chan[i];
      if (c->ctrl_head - c->data_head >= c->done_count) freed |= free_one_block(f, c);
    }
    if (!freed) return acted;
    acted = 1;
  }
}
NOINLINE int free_pass(struct fw *f) { return free_pass_i(f); }

/* ---- restart (yield): record a restart context; restart a yielded wavefront ----
 * Model: restart_instructions per context recorded (+ its 5 loads) and per
 * wavefront restarted (+ one store); one store of the ring head per batch. */
NOINLINE void restart_record_one(struct fw *f, const struct restart_entry *e) {
  const uint64_t spill = e->spill;
  const uint32_t res = e->resource, need = e->need, kernel = e->kernel;
  struct chan *own = f->kchan[kernel & (KTAB - 1)];
  if (res >= f->nchan || !own) fw_fault(2, res, kernel);
  ++own->yielded;
  struct yielded *y = &f->y[f->ny++];
  y->spill = spill;
  y->resource = res;
  y->need = need;
  y->kernel = kernel;
}

NOINLINE int read_restart_contexts(struct fw *f, uint32_t tail) {
  if (tail == f->rhead) return 0;
  for (uint32_t i = f->rhead; i != tail; ++i) restart_record_one(f, &f->rring[i & (YIELD_RING - 1)]);
  f->rhead = tail;
  ST_REL(f->rhead_sh, tail);
  f->recheck = 1;
  return 1;
}

/* One yielded wavefront whose channel has room: a restart request (the spill
 * address in a packet slot, its header, the doorbell). */
NOINLINE int restart_one(struct fw *f, const struct yielded *y) {
  struct chan *c = f->chan[y->resource];
  if (y->need > c->room) return 0;
  c->room -= y->need;
  const uint64_t wi = f->write_index;
  struct aql_packet *p = &f->pkt[wi & (PKT_RING - 1)];
  p->kernarg_address = y->spill;
  ST_REL((uint32_t *)&p->header, 0x1u); /* vendor-specific: restart the context at kernarg_address */
  f->write_index = wi + 1;
  ST_REL(f->doorbell, wi + 1);
  --f->kchan[y->kernel & (KTAB - 1)]->yielded;
  return 1;
}

NOINLINE int restart_ready(struct fw *f) {
  f->recheck = 0;
  for (uint32_t i = 0; i < f->nchan; ++i) { /* room of each channel a yielded wavefront waits for */
    struct chan *c = f->chan[i];
    if (c->yielded) c->room = c->capacity - (LD_ACQ(&c->sh->data_tail) - c->data_head);
  }
  uint32_t k = 0;
  int any = 0;
  for (uint32_t j = 0; j < f->ny; ++j) { /* in arrival order; keep the rest in order */
    if (restart_one(f, &f->y[j]))
      any = 1;
    else
      f->y[k++] = f->y[j];
  }
  f->ny = k;
  return any;
}

/* ---- 4. the end: every channel empty (model: one load per channel, no instructions) ---- */
NOINLINE int check_done(struct fw *f) {
  int empty = 1;
  for (uint32_t i = 0; i < f->nchan; ++i) {
    const struct chan *c = f->chan[i];
    const uint32_t t = LD_ACQ(&c->sh->data_tail);
    empty &= t == c->ctrl_head;
    if (t != c->last_tail) fw_fault(3, c->id, t); /* a talloc without its enq */
  }
  return empty;
}

/* ---- one pass (Aggregator::run's inner loop body); returns 1 when the graph is done ---- */
static inline __attribute__((always_inline)) int pass(struct fw *f, poll_fn poll, int level, int inl) {
  if (level) level_pass_reset(f);
  const uint32_t done = LD_ACQ(f->waves_done); /* completions (the model's complete_until) */
  struct view v = {running_now(f, done), 0};
  int acted = 0;
  if (f->yield) {
    const uint32_t t = LD_ACQ(f->rtail); /* the restart channel's tail */
    read_restart_contexts(f, t);
  }
  for (uint32_t i = 0; i < f->norder; ++i) {
    struct chan *c = f->order[i];
    const uint32_t n = poll(f, c, &v);
    if (!n) continue;
    dispatch_one(f, c, n);
    acted = 1;
    v.dispatched = 1;
    v.outstanding = running_now(f, done);
  }
  acted |= inl ? free_pass_i(f) : free_pass(f);
  if (f->ny && (f->recheck || running_now(f, done) == 0)) acted |= restart_ready(f);
  if (!acted && running_now(f, done) == 0 && f->ny) fw_fault(4, f->ny, 0); /* yield deadlock */
  if (!acted && f->launched == done) {
    if (!check_done(f)) fw_fault(5, 0, 0); /* scheduler stall */
    return 1;
  }
  return 0;
}

/* One pass per call: each step a call (the model's structure: a virtual predicate). */
NOINLINE int fw_pass_default(struct fw *f) { return pass(f, poll_one_channel, 0, 0); }
NOINLINE int fw_pass_level(struct fw *f) { return pass(f, poll_one_channel_level, 1, 0); }

/* The firmware's main loop as it would be built for the default scheduler:
 * the pass, the poll and the free scan inlined into the loop (dispatch, free,
 * restart and check stay calls: they are the rare paths). Runs `passes`
 * passes or until the graph is done. */
NOINLINE int fw_run_default(struct fw *f, uint32_t passes) {
  for (uint32_t i = 0; i < passes; ++i)
    if (pass(f, poll_one_channel_i, 0, 1)) return 1;
  return 0;
}
