/* cmd_dump.c -- `mprof dump TRACE...`: every event on one line, in time
 * order across the trace's streams (--raw: in stream and packet order, as
 * the reader delivers them): time since trace start (ns), stream, event,
 * fields, and the name of the thread once its first label gave one.  Strings
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
    "in time order across the trace's OS-thread streams, ending with\n"
    "thread_name once a label has named the thread.  --raw: in stream\n"
    "order as the trace holds them, unnamed.  Time is in ns since the trace's\n"
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
  const char *text; /* NULL: an empty slot */
  size_t length;
} thread_name_t;

/* The names of the threads whose labels the dump has printed so far, an
 * open-addressing table (a power of two of slots, at most half full). */
typedef struct names_s {
  thread_name_t *slots;
  size_t capacity, used;
} names_t;

typedef struct dump_s {
  const mprof_trace_info_t *info;
  uint64_t start_ticks;
  int raw_ticks;
  names_t *names; /* NULL: no names (--raw) */
} dump_t;

static thread_name_t *slot_of(thread_name_t *slots, size_t capacity,
                              uint64_t thread) {
  size_t i = (size_t)(thread * 0x9e3779b97f4a7c15u) & (capacity - 1);
  while (slots[i].text && slots[i].thread != thread)
    i = (i + 1) & (capacity - 1);
  return &slots[i];
}

static const thread_name_t *name_of(const names_t *n, uint64_t thread) {
  if (!n || !n->used) return NULL;
  const thread_name_t *slot = slot_of(n->slots, n->capacity, thread);
  return slot->text ? slot : NULL;
}

/* A label names its thread, if nothing named it before; without memory
 * for the table, the dump goes on with the names it has. */
static void name_note(names_t *n, const mprof_event_t *ev) {
  if (ev->kind != MPROF_EVENT_LABEL || name_of(n, ev->a)) return;
  if (2 * (n->used + 1) > n->capacity) {
    size_t capacity = n->capacity ? 2 * n->capacity : 256;
    thread_name_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return;
    for (size_t i = 0; i < n->capacity; i++)
      if (n->slots[i].text)
        *slot_of(slots, capacity, n->slots[i].thread) = n->slots[i];
    free(n->slots);
    n->slots = slots;
    n->capacity = capacity;
  }
  *slot_of(n->slots, n->capacity, ev->a) =
      (thread_name_t){ev->a, ev->text ? ev->text : "", ev->text_length};
  n->used++;
}

static uint64_t ticks_to_ns(const mprof_trace_info_t *info, uint64_t ticks) {
  return (uint64_t)((__uint128_t)ticks * 1000000000u / info->clock_freq_hz);
}

static int print_event(void *context, const mprof_event_t *ev) {
  dump_t *d = context;
  if (d->names) name_note(d->names, ev);
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
  case MPROF_EVENT_SUSPEND: break;
  case MPROF_EVENT_GC: printf(" duration_ns=%" PRId64, ev->value); break;
  case MPROF_EVENT_STRING: printf(" id=%" PRIu32, ev->counter); break;
  case MPROF_EVENT_COUNTER_NAME:
  case MPROF_EVENT_COUNTER_INCREASE:
  case MPROF_EVENT_COUNTER_VALUE:
    printf(" counter=%" PRIu32, ev->counter);
    if (ev->kind != MPROF_EVENT_COUNTER_NAME)
      printf(" value=%" PRId64, ev->value);
    break;
  default: printf(" target=%" PRIu64, ev->a);
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
    c->count = mprof_trace_packet_decode(trace, c->next++, c->events, capacity,
                                         &damaged);
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
  names_t names = {NULL, 0, 0};
  dump_t d = {info, info->start_ticks, options->raw_ticks, NULL};
  if (options->raw_order) {
    cli_trace_events(trace, command, print_event, &d, problems);
    return;
  }
  d.names = &names;
  events_in_time_order(trace, &d, command, problems);
  free(names.slots);
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
    if (c == 't')
      chosen.raw_ticks = 1;
    else if (c == 'r')
      chosen.raw_order = 1;
    else if (c == 'h')
      return fputs(help, stdout), CLI_OK;
    else
      return cli_option_error("dump", argv, "ht");
  }
  if (optind >= argc) return cli_missing("dump", "TRACE", "trace.ctf");
  chosen.headers = argc - optind > 1 || mprof_trace_is_merged(argv[optind]);
  return cli_for_each_trace(argv + optind, argc - optind, dump_trace, &chosen);
}
