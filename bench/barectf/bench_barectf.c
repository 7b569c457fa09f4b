/* bench_barectf.c -- mprof against a barectf-generated tracer, in one
 * process.
 *
 * barectf (config.yaml here, generated into the build directory) writes the
 * same event, two u32 fields, into 64 KiB packets of a 64 MiB buffer of the
 * same kind as mprof's; the platform below is the simplest ring: the clock
 * is the TSC, the back end is never full, and when barectf closes a packet
 * the next one opens at the next 64 KiB of the buffer, wrapping at its end.
 *
 * Line printed (the two loops by turns, medians of rounds; ratio = value /
 * baseline_value, lower is better):
 *   barectf  ns_per_event  mprof_becomes(a, b), started (64 MiB overwrite-
 *                          mode trace file, 64 KiB packets), vs
 *                          barectf_default_trace_becomes(ctx, a, b).
 *                          Target ratio <= 1.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <mprof/unix.h>

#include "../bench_util.h"
#include "barectf.h"

#define PACKET_SIZE (64u * 1024u)

static struct platform_s {
  struct barectf_default_ctx ctx;
  uint8_t *base;
  size_t count; /* packets in the buffer */
  size_t next;  /* packet the next open_packet uses */
  uint64_t packets;
} platform;

static uint64_t clock_get_value(void *data) {
  (void)data;
  return bench_ticks();
}

static int is_backend_full(void *data) {
  (void)data;
  return 0;
}

static void open_packet(void *data) {
  struct platform_s *p = data;
  barectf_packet_set_buf(&p->ctx, p->base + p->next * PACKET_SIZE, PACKET_SIZE);
  p->next = (p->next + 1) % p->count;
  barectf_default_open_packet(&p->ctx);
  p->packets++;
}

static void close_packet(void *data) {
  struct platform_s *p = data;
  barectf_default_close_packet(&p->ctx);
}

static BENCH_NOINLINE uint64_t loop_barectf(uint64_t n) {
  struct barectf_default_ctx *ctx = &platform.ctx;
  uint64_t t0 = bench_now_ns();
  for (uint64_t i = 0; i < n; i++) {
    uint32_t a = (uint32_t)(i & 1023) + 1;
    barectf_default_trace_becomes(ctx, a, a + 1);
  }
  return bench_now_ns() - t0;
}

int main(int argc, char **argv) {
  bench_args_t args;
  bench_parse_args(argc, argv, &args);
  uint64_t n = args.events;
  int rounds = args.rounds;
  double ns_m[BENCH_MAX_ROUNDS], ns_b[BENCH_MAX_ROUNDS];

  platform.base =
      bench_map_buffer(args.dir, "mprof-bench-barectf", BENCH_BUFFER_SIZE);
  platform.count = BENCH_BUFFER_SIZE / PACKET_SIZE;
  struct barectf_platform_callbacks callbacks = {
      .tsc_clock_get_value = clock_get_value,
      .is_backend_full = is_backend_full,
      .open_packet = open_packet,
      .close_packet = close_packet,
  };
  barectf_init(&platform.ctx, platform.base, PACKET_SIZE, callbacks, &platform);
  open_packet(&platform);

  const char *path = bench_start_mprof(args.dir, "mprof-bench-barectf");
  unlink(path);
  bench_compare(bench_loop_mprof, loop_barectf, n, rounds, ns_m, ns_b);
  mprof_unix_stop();
  bench_note_rounds("mprof_becomes", ns_m, rounds);
  bench_note_rounds("barectf", ns_b, rounds);
  bench_note_paired("barectf", ns_m, ns_b, rounds);
  uint32_t discarded = barectf_packet_events_discarded(&platform.ctx);
  if (discarded) bench_note("warning: barectf discarded %u events", discarded);
  double m = bench_median(ns_m, rounds), b = bench_median(ns_b, rounds);
  bench_note("mprof %.3f ns/event, barectf %.3f ns/event (%llu packets)", m, b,
             (unsigned long long)platform.packets);
  bench_json("barectf", "ns_per_event", m, "barectf", b);
  return 0;
}
