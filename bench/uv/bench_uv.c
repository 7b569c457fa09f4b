/* bench_uv.c -- the cost of the libuv shim: uv_echo (a plain libuv echo
 * over loopback TCP) run by turns without and with libmprof_uv_preload.so
 * recording, each run bounded in messages and time.  One JSON line:
 * uv_echo bytes_per_s with the shim, against uv_echo_plain without;
 * target ratio >= 0.97.
 *
 *   mprof_bench_uv --echo UV_ECHO --shim SHIM [--rounds N] [--dir DIR]
 *                  [--messages N] [--size BYTES] [--trace-size SIZE]
 *
 * The shim records as `mprof record` does by default (MPROF_SIZE unset: an
 * 8 MiB ring, of which a run of 20000 messages fills about half, 206
 * bytes a message, so that every page of trace it writes is a first touch;
 * MPROF_TSC_HZ set), or into a trace of --trace-size.
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
  unsigned long messages, size;
  const char *trace_size; /* MPROF_SIZE, or NULL: the default */
} options_t;

static void usage(void) {
  fprintf(stderr, "usage: mprof_bench_uv --echo UV_ECHO --shim SHIM "
                  "[--rounds N] [--dir DIR] [--messages N] [--size BYTES] "
                  "[--trace-size SIZE]\n");
  exit(2);
}

static void parse(int argc, char **argv, options_t *o) {
  *o = (options_t){NULL, NULL, "/tmp", 15, 20000, 16384, NULL};
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
    else if (!strcmp(argv[i], "--trace-size") &&
             strspn(value, "0123456789KMG") == strlen(value)) /* no quoting */
      o->trace_size = value;
    else
      usage();
  }
  if (argc % 2 == 0 || !o->echo || !o->shim || o->rounds < 1 ||
      o->rounds > BENCH_MAX_ROUNDS || !o->messages || !o->size)
    usage();
}

/* One run of uv_echo (with the shim recording, or not): bytes per second
 * of its echo phase, or exits. */
static double run_echo(const options_t *o, int shim) {
  char command[8192];
  if (shim)
    snprintf(command, sizeof command,
             "LD_PRELOAD='%s' MPROF_TRACE='%s/bench-uv.ctf' MPROF_TSC_HZ=%llu "
             "%s%s '%s' %lu %lu 2000",
             o->shim, o->dir, (unsigned long long)mprof_unix_tsc_freq(),
             o->trace_size ? "MPROF_SIZE=" : "",
             o->trace_size ? o->trace_size : "", o->echo, o->messages, o->size);
  else
    snprintf(command, sizeof command, "'%s' %lu %lu 2000", o->echo, o->messages,
             o->size);
  FILE *child = popen(command, "r");
  unsigned long messages = 0;
  unsigned long long bytes = 0, ns = 0;
  int fields =
      child ? fscanf(child, "%lu %llu %llu", &messages, &bytes, &ns) : 0;
  if (!child || pclose(child) != 0 || fields != 3 || !ns) {
    bench_note("uv_echo failed: %s", command);
    exit(1);
  }
  return (double)bytes * 1e9 / (double)ns;
}

int main(int argc, char **argv) {
  options_t o;
  parse(argc, argv, &o);
  double plain[BENCH_MAX_ROUNDS], traced[BENCH_MAX_ROUNDS];
  for (int r = 0; r < o.rounds; r++) {
    /* by turns, the first of the pair alternating */
    if (r % 2) traced[r] = run_echo(&o, 1);
    plain[r] = run_echo(&o, 0);
    if (!(r % 2)) traced[r] = run_echo(&o, 1);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/bench-uv.ctf", o.dir);
  remove(path);
  bench_note_rounds("uv_echo plain bytes/s", plain, o.rounds);
  bench_note_rounds("uv_echo shim bytes/s", traced, o.rounds);
  bench_note_paired("uv_echo", traced, plain, o.rounds);
  bench_json("uv_echo", "bytes_per_s", bench_median(traced, o.rounds),
             "uv_echo_plain", bench_median(plain, o.rounds));
  return 0;
}
