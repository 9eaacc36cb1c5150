/* SPDX-License-Identifier: Apache-2.0 */
/* Drives each firmware step on its common path, `iters` times, for counting
 * (README.md). Freestanding: no libc, so the same file runs natively under
 * valgrind (x86-64) and in the small ISA interpreter (fwcount.py) for AArch64
 * and RV64. Only the instructions executed inside the firmware functions are
 * counted; this file's own work (setting up each iteration) is not.
 *
 * Memory classes, by address: dev[] is device memory (what the model charges
 * through the control core's L1), fwst is the firmware's private state, the
 * stack is the stack. */
#include "firmware_steps.h"

_Alignas(4096) unsigned char dev[1 << 20];
_Alignas(4096) struct fwstate {
  struct fw f;
  struct chan c[MAX_CHAN];
} fwst;

static unsigned char *dev_top;
static void *dev_alloc(unsigned long bytes) {
  if (!dev_top) dev_top = dev;
  void *p = dev_top;
  dev_top += (bytes + 4095) & ~4095ul;
  return p;
}

void *memset(void *d, int c, unsigned long n) {
  unsigned char *p = d;
  while (n--) *p++ = (unsigned char)c;
  return d;
}
void *memcpy(void *d, const void *s, unsigned long n) {
  unsigned char *p = d;
  const unsigned char *q = s;
  while (n--) *p++ = *q++;
  return d;
}

volatile int fault_code;
__attribute__((noreturn)) void fw_fault(int what, uint32_t a, uint32_t b) {
  fault_code = what * 1000000 + (int)(a + b);
  for (;;) __builtin_trap();
}

#define CAP 32768
#define DONE 64

static struct fw *setup(uint32_t nchan, int level) {
  memset(&fwst, 0, sizeof fwst);
  dev_top = 0;
  struct fw *f = &fwst.f;
  f->nchan = f->norder = nchan;
  for (uint32_t i = 0; i < nchan; ++i) {
    struct chan *c = &fwst.c[i];
    c->sh = dev_alloc(sizeof(struct chan_shared));
    c->done = dev_alloc(CAP / DONE * 4);
    c->capacity = CAP;
    c->done_count = DONE;
    c->nblocks = CAP / DONE;
    c->id = i;
    c->setup = 1;
    c->kernel_object = 0x1000 + i;
    c->kernarg_address = 0x2000 + i;
    c->completion_signal = 0x3000 + i;
    /* cilk: a spawn stack of nchan levels, polled deepest first; level d's above is d-1 */
    c->spawn = 1;
    c->depth = nchan - 1 - i;
    f->chan[i] = c;
    f->order[i] = c;
  }
  for (uint32_t i = 0; i + 1 < nchan; ++i) fwst.c[i].above = &fwst.c[i + 1];
  f->depth = nchan;
  f->pkt = dev_alloc(PKT_RING * sizeof(struct aql_packet));
  f->doorbell = dev_alloc(LINE);
  f->waves_done = dev_alloc(LINE);
  f->rring = dev_alloc(YIELD_RING * sizeof(struct restart_entry));
  f->rtail = dev_alloc(LINE);
  f->rhead_sh = dev_alloc(LINE);
  (void)level;
  return f;
}

/* Keep the compiler from dropping a result. */
volatile uint32_t sink;

enum {
  S_POLL_IDLE = 1,     /* poll_one_channel, nothing ready */
  S_POLL_READY,        /* poll_one_channel, 128 ready */
  S_DISPATCH,          /* dispatch_one(64 CEs) */
  S_FREE_BLOCK,        /* free_one_block, a complete block */
  S_FREE_NOTDONE,      /* free_one_block, block not done yet */
  S_FREE_PASS_IDLE,    /* free_pass, n channels, no candidate */
  S_RESTART_RECORD,    /* read_restart_contexts with one new context */
  S_RESTART_READY,     /* restart_ready: one yielded wavefront, room */
  S_CHECK,             /* check_done, n channels, all empty */
  S_PASS_IDLE,         /* fw_pass_default, n channels, nothing ready, consumers outstanding */
  S_PASS_IDLE_YIELD,   /* same, with the restart channel polled */
  S_PASS_LEVEL_IDLE,   /* fw_pass_level, n spawn levels, nothing ready, consumers outstanding */
  S_PRED_SPAWN,        /* poll_one_channel_level: spawn level, above idle, 10 ready */
  S_PRED_CONT,         /* poll_one_channel_level: continuation, 10 ready, go */
  S_LEVEL_RESET,       /* level_pass_reset */
  S_PASS_DISPATCH,     /* fw_pass_default, n channels, the first has 64 ready */
  S_RUN_IDLE,          /* fw_run_default: `iters` idle passes in the firmware's main loop */
};

/* A checksum of the state the steps changed (no pointers): the same on
 * every ISA, so the interpreter's runs can be checked against native ones. */
static uint32_t checksum(const struct fw *f) {
  uint32_t h = 2166136261u;
#define MIX(x) (h = (h ^ (uint32_t)(x)) * 16777619u)
  MIX(sink);
  MIX(f->write_index), MIX(f->next_kernel), MIX(f->launched), MIX(f->rhead), MIX(f->ny), MIX(f->recheck);
  MIX(f->spawn_busy), MIX(f->cont_deeper), MIX(f->cont_level_busy), MIX(f->cont_level_active), MIX(f->spawn_active), MIX(f->spawn_active >> 32);
  for (uint32_t i = 0; i < f->nchan; ++i) {
    const struct chan *c = f->chan[i];
    MIX(c->ctrl_head), MIX(c->data_head), MIX(c->last_tail), MIX(c->done_idx), MIX(c->launched);
    MIX(c->running), MIX(c->yielded), MIX(c->room), MIX(c->sh->ctrl_head), MIX(c->sh->data_head);
    MIX(c->done[0]), MIX(c->done[1]);
  }
  for (uint32_t i = 0; i < PKT_RING; ++i) {
    const uint32_t *w = (const uint32_t *)&f->pkt[i];
    for (uint32_t k = 0; k < sizeof(struct aql_packet) / 4; ++k) MIX(w[k]);
  }
  MIX(*f->doorbell), MIX(*f->rhead_sh);
  for (uint32_t i = 0; i < f->ny; ++i) MIX(f->y[i].spill), MIX(f->y[i].need), MIX(f->y[i].kernel);
#undef MIX
  return h;
}

int run_scenario(int s, int n, int iters) {
  struct fw *f = setup((uint32_t)n, 0);
  struct chan *c = f->chan[0];
  struct view v = {1, 0};
  /* consumers outstanding: one launched wavefront not finished */
  f->launched = 1;
  if (s == S_RUN_IDLE) {
    sink = (uint32_t)fw_run_default(f, (uint32_t)iters);
    return (int)checksum(f);
  }
  for (int k = 0; k < iters; ++k) {
    switch (s) {
      case S_POLL_IDLE:
        sink = poll_one_channel(f, c, &v);
        break;
      case S_POLL_READY:
        c->sh->ctrl_tail = c->ctrl_head + 128;
        sink = poll_one_channel(f, c, &v);
        c->ctrl_head += 128;
        break;
      case S_DISPATCH:
        dispatch_one(f, c, 64);
        break;
      case S_FREE_BLOCK:
        c->ctrl_head = c->data_head + DONE;
        c->done[c->done_idx] = DONE;
        sink = (uint32_t)free_one_block(f, c);
        break;
      case S_FREE_NOTDONE:
        c->ctrl_head = c->data_head + DONE;
        c->done[c->done_idx] = DONE - 1;
        sink = (uint32_t)free_one_block(f, c);
        break;
      case S_FREE_PASS_IDLE:
        sink = (uint32_t)free_pass(f);
        break;
      case S_RESTART_RECORD: {
        f->yield = 1;
        f->kchan[7] = c;
        struct restart_entry *e = &f->rring[f->rhead & (YIELD_RING - 1)];
        e->spill = 0x123456789ull;
        e->resource = 0;
        e->need = 64;
        e->kernel = 7;
        f->ny = 0;
        c->yielded = 0;
        sink = (uint32_t)read_restart_contexts(f, f->rhead + 1);
        break;
      }
      case S_RESTART_READY:
        f->yield = 1;
        f->kchan[7] = c;
        f->ny = 1;
        f->y[0].spill = 0x123456789ull;
        f->y[0].resource = 0;
        f->y[0].need = 64;
        f->y[0].kernel = 7;
        c->yielded = 1;
        sink = (uint32_t)restart_ready(f);
        break;
      case S_CHECK:
        sink = (uint32_t)check_done(f);
        break;
      case S_PASS_IDLE:
        sink = (uint32_t)fw_pass_default(f);
        break;
      case S_PASS_IDLE_YIELD:
        f->yield = 1;
        sink = (uint32_t)fw_pass_default(f);
        break;
      case S_PASS_LEVEL_IDLE:
        sink = (uint32_t)fw_pass_level(f);
        break;
      case S_PRED_SPAWN: /* channel 0 is the deepest level; its above (channel 1) is idle */
        c->sh->ctrl_tail = c->ctrl_head + 10;
        sink = poll_one_channel_level(f, c, &v);
        break;
      case S_PRED_CONT:
        c->spawn = 0;
        c->sh->ctrl_tail = c->ctrl_head + 10;
        sink = poll_one_channel_level(f, c, &v);
        break;
      case S_LEVEL_RESET:
        level_pass_reset(f);
        break;
      case S_PASS_DISPATCH:
        c->sh->ctrl_tail = c->ctrl_head + 64;
        f->launched = 1;
        c->sh->waves_done = 0;
        *f->waves_done = 0;
        sink = (uint32_t)fw_pass_default(f);
        f->launched = 1; /* the dispatched wavefront "finishes" outside the count */
        break;
      default:
        return -1;
    }
  }
  return (int)checksum(f);
}

#ifdef HOSTED
#include <stdio.h>
static int num(const char *s) {
  int v = 0;
  while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
  return v;
}
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  printf("%d\n", run_scenario(num(argv[1]), num(argv[2]), num(argv[3])));
  return 0;
}
#endif
