/* cmd_dump.c -- `mprof dump TRACE...`: every event on one line, in time
 * order across the trace's streams (--raw: in stream and packet order, as
 * the reader delivers them): time since trace start (ns), stream, event,
 * fields, and the name of the thread where its label gives one.  Strings
 * are escaped, so the output is greppable and terminal-safe.  Several
 * traces (or the members of a merged one): a line "==> PATH <==" before
 * each one's events, as head(1) does. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: mprof dump [--ticks] [--raw] TRACE...\n"
    "Print one event per line: time stream event fields (strings escaped),\n"
    "in time order across the trace's OS-thread streams, each thread's\n"
    "first label at the end of the line as thread_name.  --raw: in stream order as\n"
    "the trace holds them, without names.  Time is in ns since the trace's\n"
    "first packet, or with --ticks the raw clock value (as babeltrace2's\n"
    "clock snapshots show it).  With several\n"
    "traces, a line ==> TRACE <== comes before each one's events, and an\n"
    "empty line between traces.\n"
    "examples:\n"
    "  mprof dump trace.ctf | less\n"
    "  mprof dump trace.ctf | grep uv_timer\n";

/* The command line's choices, and where the dump is. */
typedef struct dump_options_s {
  int raw_ticks;
  int raw_order;   /* stream order, no names */
  int headers;     /* several traces: say which one each is */
  int traces_done; /* traces dumped so far */
} dump_options_t;

/* A thread's name: its first label. */
typedef struct thread_name_s {
  uint64_t thread;
  size_t order; /* of the label in the trace, to keep the first */
  const char *text;
  size_t length;
} thread_name_t;

typedef struct names_s {
  thread_name_t *names;
  size_t count, capacity;
  int out_of_memory;
} names_t;

typedef struct dump_s {
  const mprof_trace_info_t *info;
  uint64_t start_ticks;
  int raw_ticks;
  const names_t *names; /* sorted by thread, first labels only; or NULL */
} dump_t;

static int note_label(void *context, const mprof_event_t *ev) {
  names_t *n = context;
  if (ev->kind != MPROF_EVENT_LABEL || n->out_of_memory) return 0;
  if (n->count == n->capacity) {
    size_t capacity = n->capacity ? 2 * n->capacity : 256;
    thread_name_t *grown = realloc(n->names, capacity * sizeof *grown);
    if (!grown) return n->out_of_memory = 1, 0;
    n->names = grown;
    n->capacity = capacity;
  }
  n->names[n->count] = (thread_name_t){ev->a, n->count, ev->text,
                                       ev->text_length};
  n->count++;
  return 0;
}

static int by_thread(const void *a, const void *b) {
  const thread_name_t *x = a, *y = b;
  return (x->thread > y->thread) - (x->thread < y->thread);
}

static int by_thread_then_order(const void *a, const void *b) {
  const thread_name_t *x = a, *y = b;
  int c = by_thread(a, b);
  return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Each thread's first label (the texts point into the open trace);
 * none if memory runs out (the dump goes on with ids only). */
static void names_collect(mprof_trace_t *trace, names_t *n) {
  size_t packets = mprof_trace_packet_count(trace), kept = 0;
  for (size_t i = 0; i < packets; i++)
    mprof_trace_packet_events(trace, i, note_label, n);
  if (n->out_of_memory) n->count = 0;
  qsort(n->names, n->count, sizeof *n->names, by_thread_then_order);
  for (size_t i = 0; i < n->count; i++)
    if (!kept || n->names[kept - 1].thread != n->names[i].thread)
      n->names[kept++] = n->names[i];
  n->count = kept;
}

static const thread_name_t *name_of(const names_t *n, uint64_t thread) {
  thread_name_t key = {thread, 0, NULL, 0};
  return n && n->count ? bsearch(&key, n->names, n->count, sizeof key, by_thread)
                       : NULL;
}

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
  const thread_name_t *name = name_of(d->names, ev->thread);
  if (name) { /* last, so that each field keeps its place in the line */
    fputs(" thread_name=\"", stdout);
    cli_put_escaped(stdout, name->text, name->length);
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

/* One stream in the time-ordered dump: its packets [next, end) still to
 * decode, and the events of the packet decoded last. */
typedef struct cursor_s {
  size_t next, end;
  mprof_event_t *events;
  size_t count, at, capacity;
} cursor_t;

/* Decode the stream's next packets until one has events: 1, or 0 when the
 * stream is done (or memory ran out: told, counted as a problem). */
static int cursor_fill(mprof_trace_t *trace, cursor_t *c, int *problems,
                       cli_progress_t *progress, size_t *decoded) {
  while (c->at == c->count && c->next < c->end) {
    size_t capacity = mprof_trace_packet_max_events(trace, c->next);
    if (capacity > c->capacity) {
      mprof_event_t *grown = realloc(c->events, capacity * sizeof *grown);
      if (!grown) {
        cli_fail(0, "dump", "memory", "out of it: the dump stops short");
        (*problems)++;
        return 0;
      }
      c->events = grown;
      c->capacity = capacity;
    }
    int damaged = 0;
    c->count = mprof_trace_packet_decode(trace, c->next++, c->events,
                                         capacity, &damaged);
    c->at = 0;
    *problems += damaged;
    cli_progress_update(progress, ++*decoded);
  }
  return c->at < c->count;
}

static int same_stream(const mprof_packet_info_t *a,
                       const mprof_packet_info_t *b) {
  return a->stream_class == b->stream_class &&
         a->stream_instance == b->stream_instance;
}

/* Every event of trace to print_event, the earliest of the streams' next
 * events first (each stream's packets are in order, and so are its
 * events; equal times go in stream order). */
static void events_in_time_order(mprof_trace_t *trace, dump_t *d,
                                 const char *command, int *problems) {
  size_t packets = mprof_trace_packet_count(trace), streams = 0, decoded = 0;
  cursor_t *cursors = calloc(packets ? packets : 1, sizeof *cursors);
  if (!cursors) {
    cli_fail(0, "dump", "memory", "out of it: nothing dumped");
    (*problems)++;
    return;
  }
  for (size_t i = 0; i < packets; i++) {
    if (!i || !same_stream(mprof_trace_packet(trace, i - 1),
                           mprof_trace_packet(trace, i)))
      cursors[streams++].next = i;
    cursors[streams - 1].end = i + 1;
  }
  cli_progress_t progress;
  cli_progress_start(&progress, command, packets);
  for (;;) {
    cursor_t *first = NULL;
    for (size_t s = 0; s < streams; s++)
      if (cursor_fill(trace, &cursors[s], problems, &progress, &decoded) &&
          (!first || cursors[s].events[cursors[s].at].time_ticks <
                         first->events[first->at].time_ticks))
        first = &cursors[s];
    if (!first) break;
    print_event(d, &first->events[first->at++]);
  }
  cli_progress_finish(&progress);
  for (size_t s = 0; s < streams; s++) free(cursors[s].events);
  free(cursors);
}

/* On a terminal the events scrolling by are the progress: a progress line
 * would only be torn by them. */
static void dump_trace(void *context, const char *path, mprof_trace_t *trace,
                       int *problems) {
  dump_options_t *options = context;
  if (options->headers) put_header(options, path);
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  const char *command = isatty(STDOUT_FILENO) ? NULL : "dump";
  names_t names = {NULL, 0, 0, 0};
  dump_t d = {info, info->start_ticks, options->raw_ticks, NULL};
  if (options->raw_order) {
    cli_trace_events(trace, command, print_event, &d, problems);
    return;
  }
  names_collect(trace, &names);
  d.names = &names;
  events_in_time_order(trace, &d, command, problems);
  free(names.names);
}

int cmd_dump(int argc, char **argv) {
  static const struct option options[] = {{"help", no_argument, 0, 'h'},
                                          {"ticks", no_argument, 0, 't'},
                                          {"raw", no_argument, 0, 'r'},
                                          {0, 0, 0, 0}};
  dump_options_t chosen = {0, 0, 0, 0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ht", options, NULL)) != -1) {
    if (c == 't') chosen.raw_ticks = 1;
    else if (c == 'r') chosen.raw_order = 1;
    else if (c == 'h') return fputs(help, stdout), CLI_OK;
    else return cli_option_error("dump", argv, "ht");
  }
  if (optind >= argc) return cli_missing("dump", "TRACE", "trace.ctf");
  chosen.headers = argc - optind > 1 || mprof_trace_is_merged(argv[optind]);
  return cli_for_each_trace(argv + optind, argc - optind, dump_trace, &chosen);
}
