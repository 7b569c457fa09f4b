/* cmd_index.c -- `mprof index TRACE...`: build or refresh each trace's
 * sidecar index (mprof/index.h) and say what it holds in one line. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"
#include "mprof/index.h"

static const char help[] =
    "usage: mprof index [--threads N] TRACE...\n"
    "Build the sidecar index of each trace (TRACE.mpidx beside it, or in\n"
    "$XDG_CACHE_HOME/mprof when its directory cannot be written): per\n"
    "packet its stream, offset, time range and event count, and events per\n"
    "stream in time bins of 2^k ns at every zoom level, which `mprof stats`\n"
    "reads instead of decoding.  A valid index is kept; one of the trace\n"
    "before it grew (still being recorded) is extended, decoding only the\n"
    "new and changed packets; a stale, truncated or damaged one is built\n"
    "again.  One line per trace.\n"
    "--threads N: decode on N OS threads (default: one per core).\n"
    "examples:\n"
    "  mprof index trace.ctf\n"
    "  mprof index --threads 1 big.ctf\n";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *found_words(mprof_index_found_t found) {
  switch (found) {
  case MPROF_INDEX_VALID: return "up to date";
  case MPROF_INDEX_BUILT: return "built";
  case MPROF_INDEX_EXTENDED: return "extended";
  case MPROF_INDEX_UNSAVED: return "built, not saved (no place to write)";
  }
  return "";
}

/* One line: what the index holds, and how it came. */
static void put_summary(const char *path, const mprof_index_t *index,
                        mprof_index_found_t found, double seconds) {
  unsigned finest = 0, top = 0;
  size_t levels = mprof_index_level_count(index);
  if (levels) {
    mprof_index_level(index, 0, &finest, NULL);
    mprof_index_level(index, levels - 1, &top, NULL);
  }
  cli_put_name(stdout, path);
  printf(": index %s: %zu packets, %" PRIu64 " events, %zu streams, %zu "
         "levels (bins of 2^%u to 2^%u ns)",
         found_words(found), mprof_index_packet_count(index),
         mprof_index_events(index), mprof_index_stream_count(index), levels,
         finest, top);
  if (found != MPROF_INDEX_VALID)
    printf(", %zu packets decoded", mprof_index_packets_decoded(index));
  if (found != MPROF_INDEX_VALID && seconds > 0)
    printf(", %.3f s, %.3g events/s", seconds,
           (double)mprof_index_events(index) / seconds);
  putchar('\n');
}

/* Index one trace file; returns its exit code. */
static int index_one(const char *path, unsigned threads) {
  int problems = 0;
  mprof_trace_t *trace;
  double start = now_s();
  if (cli_open_trace(path, &problems, &trace)) return CLI_FAILED;
  mprof_index_t *index;
  mprof_index_found_t found;
  const char *why;
  int err = mprof_index_open(path, trace, threads, &found, &why, &index);
  mprof_trace_close(trace);
  if (err)
    return cli_fail(CLI_FAILED, "index", path, "%s", mprof_strerror(err));
  if (why) {
    fputs("mprof index: ", stderr);
    cli_put_name(stderr, path);
    fprintf(stderr, ": the index there was not used: %s; built again\n", why);
  }
  put_summary(path, index, found, now_s() - start);
  mprof_index_free(index);
  return problems ? CLI_DAMAGED : CLI_OK;
}

int cmd_index(int argc, char **argv) {
  static const struct option options[] = {
      {"threads", required_argument, 0, 't'},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  int c;
  unsigned threads = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "t:h", options, NULL)) != -1) {
    if (c == 'h') return fputs(help, stdout), CLI_OK;
    if (c != 't') return cli_option_error("index", argv, "t:h");
    char *end;
    long n = strtol(optarg, &end, 10);
    if (*end || n < 1 || n > 1024)
      return cli_fail(CLI_USAGE, "index", optarg,
                      "--threads takes a number from 1 to 1024");
    threads = (unsigned)n;
  }
  if (optind >= argc) return cli_missing("index", "TRACE", "trace.ctf");
  int worst = CLI_OK;
  for (int i = optind; i < argc; i++) {
    int code = index_one(argv[i], threads);
    if (code > worst) worst = code;
  }
  return worst;
}
