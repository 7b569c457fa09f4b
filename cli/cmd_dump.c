/* cmd_dump.c -- `mprof dump TRACE...`: every event on one line, in stream
 * and packet order: time since trace start (ns), stream, event, fields.
 * Strings are escaped, so the output is greppable and terminal-safe.
 * Several traces (or the members of a merged one): a line "==> PATH <=="
 * before each one's events, as head(1) does. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: mprof dump [--ticks] TRACE...\n"
    "Print one event per line: time stream event fields (strings escaped).\n"
    "Time is in ns since the trace's first packet, or with --ticks the raw\n"
    "clock value (as babeltrace2's clock snapshots show it).  With several\n"
    "traces, a line ==> TRACE <== comes before each one's events, and an\n"
    "empty line between traces.\n"
    "examples:\n"
    "  mprof dump trace.ctf | less\n"
    "  mprof dump trace.ctf | grep uv_timer\n";

/* The command line's choices, and where the dump is. */
typedef struct dump_options_s {
  int raw_ticks;
  int headers;     /* several traces: say which one each is */
  int traces_done; /* traces dumped so far */
} dump_options_t;

typedef struct dump_s {
  const mprof_trace_info_t *info;
  uint64_t start_ticks;
  int raw_ticks;
} dump_t;

static uint64_t ticks_to_ns(const mprof_trace_info_t *info, uint64_t ticks) {
  return (uint64_t)((__uint128_t)ticks * 1000000000u / info->clock_freq_hz);
}

static int print_event(void *context, const mprof_event_t *ev) {
  dump_t *d = context;
  uint64_t time = d->raw_ticks
                      ? ev->time_ticks
                      : ticks_to_ns(d->info, ev->time_ticks - d->start_ticks);
  printf("%" PRIu64 " %" PRIu32 " %s thread=%" PRIu64, time, ev->stream,
         mprof_event_kind_name(ev->kind), ev->thread);
  switch (ev->kind) {
  case MPROF_EVENT_CREATE_BY:
    printf(" child=%" PRIu64 " parent=%" PRIu64 " type=%s", ev->a, ev->b,
           mprof_type_name(ev->type));
    break;
  case MPROF_EVENT_CREATE:
    printf(" child=%" PRIu64 " type=%s", ev->a, mprof_type_name(ev->type));
    break;
  case MPROF_EVENT_BECOMES:
    printf(" old=%" PRIu64 " new=%" PRIu64, ev->a, ev->b);
    break;
  case MPROF_EVENT_SUSPEND:
    break;
  case MPROF_EVENT_GC:
    printf(" duration_ns=%" PRId64, ev->value);
    break;
  case MPROF_EVENT_STRING:
    printf(" id=%" PRIu32, ev->counter);
    break;
  case MPROF_EVENT_COUNTER_NAME:
  case MPROF_EVENT_COUNTER_INCREASE:
  case MPROF_EVENT_COUNTER_VALUE:
    printf(" counter=%" PRIu32, ev->counter);
    if (ev->kind != MPROF_EVENT_COUNTER_NAME) printf(" value=%" PRId64, ev->value);
    break;
  default:
    printf(" target=%" PRIu64, ev->a);
  }
  if (ev->text) {
    fputs(" text=\"", stdout);
    cli_put_escaped(stdout, ev->text, ev->text_length);
    fputc('"', stdout);
  }
  fputc('\n', stdout);
  return 0;
}

/* "==> PATH <==" (escaped), after an empty line unless it is the first. */
static void put_header(dump_options_t *options, const char *path) {
  if (options->traces_done++) fputc('\n', stdout);
  fputs("==> ", stdout);
  cli_put_escaped(stdout, path, strlen(path));
  fputs(" <==\n", stdout);
}

/* On a terminal the events scrolling by are the progress: a progress line
 * would only be torn by them. */
static void dump_trace(void *context, const char *path, mprof_trace_t *trace,
                       int *problems) {
  dump_options_t *options = context;
  if (options->headers) put_header(options, path);
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  dump_t d = {info, info->start_ticks, options->raw_ticks};
  cli_trace_events(trace, isatty(STDOUT_FILENO) ? NULL : "dump", print_event,
                   &d, problems);
}

int cmd_dump(int argc, char **argv) {
  static const struct option options[] = {{"help", no_argument, 0, 'h'},
                                          {"ticks", no_argument, 0, 't'},
                                          {0, 0, 0, 0}};
  dump_options_t chosen = {0, 0, 0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ht", options, NULL)) != -1) {
    if (c == 't') chosen.raw_ticks = 1;
    else if (c == 'h') return fputs(help, stdout), CLI_OK;
    else return cli_option_error("dump", argv, "ht");
  }
  if (optind >= argc) return cli_missing("dump", "TRACE", "trace.ctf");
  chosen.headers = argc - optind > 1 || mprof_trace_is_merged(argv[optind]);
  return cli_for_each_trace(argv + optind, argc - optind, dump_trace, &chosen);
}
