/* bench_uv.c -- the cost of the libuv shim: uv_echo (a plain libuv echo
 * over loopback TCP) run by turns without and with libmprof_uv_preload.so
 * recording, each run bounded in messages and time.  Two JSON lines, each
 * the shim's bytes_per_s against uv_echo_plain's without it, target ratio
 * >= 0.97:
 *
 *   uv_echo              a server that has run for a while: each run first
 *                        echoes --warmup messages (default 50000, some
 *                        10 MiB of trace) that the figures leave out, so the
 *                        8 MiB ring has wrapped and its pages are mapped;
 *   uv_echo_first_touch  a server just started: no warm-up, the run fills
 *                        about half the ring, so every page of trace it
 *                        writes is a first touch (allocated and faulted in).
 *
 *   mprof_bench_uv --echo UV_ECHO --shim SHIM [--rounds N] [--dir DIR]
 *                  [--messages N] [--size BYTES] [--warmup N]
 *
 * The shim records as `mprof record` does by default (MPROF_SIZE unset: an
 * 8 MiB ring, 206 bytes a message; MPROF_TSC_HZ set).  A traced run that
 * leaves no trace (the shim ran untraced) fails the bench.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mprof/unix.h>

#include "../bench_util.h"

typedef struct options_s {
  const char *echo, *shim, *dir;
  int rounds;
  unsigned long messages, size, warmup;
} options_t;

static void usage(void) {
  fprintf(stderr, "usage: mprof_bench_uv --echo UV_ECHO --shim SHIM "
                  "[--rounds N] [--dir DIR] [--messages N] [--size BYTES] "
                  "[--warmup N]\n");
  exit(2);
}

static void parse(int argc, char **argv, options_t *o) {
  *o = (options_t){NULL, NULL, "/tmp", 15, 20000, 16384, 50000};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *value = argv[i + 1];
    if (!strcmp(argv[i], "--echo"))
      o->echo = value;
    else if (!strcmp(argv[i], "--shim"))
      o->shim = value;
    else if (!strcmp(argv[i], "--dir"))
      o->dir = value;
    else if (!strcmp(argv[i], "--rounds"))
      o->rounds = atoi(value);
    else if (!strcmp(argv[i], "--messages"))
      o->messages = strtoul(value, NULL, 10);
    else if (!strcmp(argv[i], "--size"))
      o->size = strtoul(value, NULL, 10);
    else if (!strcmp(argv[i], "--warmup"))
      o->warmup = strtoul(value, NULL, 10);
    else
      usage();
  }
  if (argc % 2 == 0 || !o->echo || !o->shim || o->rounds < 1 ||
      o->rounds > BENCH_MAX_ROUNDS || !o->messages || !o->size)
    usage();
}

/* One run of uv_echo (with the shim recording into trace, or not) after
 * `warmup` messages: bytes per second of its echo phase, or exits. */
static double run_echo(const options_t *o, const char *trace,
                       unsigned long warmup) {
  char command[8192];
  if (trace)
    snprintf(command, sizeof command,
             "LD_PRELOAD='%s' MPROF_TRACE='%s' MPROF_TSC_HZ=%llu "
             "'%s' %lu %lu 2000 %lu",
             o->shim, trace, (unsigned long long)mprof_unix_tsc_freq(), o->echo,
             o->messages, o->size, warmup);
  else
    snprintf(command, sizeof command, "'%s' %lu %lu 2000 %lu", o->echo,
             o->messages, o->size, warmup);
  FILE *child = popen(command, "r");
  unsigned long messages = 0;
  unsigned long long bytes = 0, ns = 0;
  int fields =
      child ? fscanf(child, "%lu %llu %llu", &messages, &bytes, &ns) : 0;
  if (!child || pclose(child) != 0 || fields != 3 || !ns) {
    bench_note("uv_echo failed: %s", command);
    exit(1);
  }
  if (trace && remove(trace) != 0) {
    bench_note("%s: no trace: the shim did not record", trace);
    exit(1);
  }
  return (double)bytes * 1e9 / (double)ns;
}

/* Rounds of plain and traced runs after `warmup` messages, by turns (the
 * first of each pair alternating), and the JSON line `name`. */
static void bench_echo(const options_t *o, const char *name,
                       unsigned long warmup) {
  double plain[BENCH_MAX_ROUNDS], traced[BENCH_MAX_ROUNDS];
  char trace[4096];
  snprintf(trace, sizeof trace, "%s/bench-uv.ctf", o->dir);
  for (int r = 0; r < o->rounds; r++) {
    if (r % 2) traced[r] = run_echo(o, trace, warmup);
    plain[r] = run_echo(o, NULL, warmup);
    if (!(r % 2)) traced[r] = run_echo(o, trace, warmup);
  }
  char what[256];
  snprintf(what, sizeof what, "%s plain bytes/s", name);
  bench_note_rounds(what, plain, o->rounds);
  snprintf(what, sizeof what, "%s shim bytes/s", name);
  bench_note_rounds(what, traced, o->rounds);
  bench_note_paired(name, traced, plain, o->rounds);
  bench_json(name, "bytes_per_s", bench_median(traced, o->rounds),
             "uv_echo_plain", bench_median(plain, o->rounds));
}

int main(int argc, char **argv) {
  options_t o;
  parse(argc, argv, &o);
  bench_echo(&o, "uv_echo", o.warmup);
  bench_echo(&o, "uv_echo_first_touch", 0);
  return 0;
}
