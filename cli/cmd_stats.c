/* cmd_stats.c -- `mprof stats [--json] TRACE...`: what is in a trace, in
 * numbers: events by type, threads, labels, counters' final values, time
 * span, losses, size.  JSON (with jansson) for scripts, text for people. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: mprof stats [--json] TRACE...\n"
    "Summarise traces.  --json prints one object per trace with: events,\n"
    "events_by_type, threads, labels, counters (name -> final value),\n"
    "time_span_ns, discarded, bytes_per_event, packets, streams.\n";

/* A set of thread ids: open addressing, grows at half full. */
typedef struct id_set_s {
  uint64_t *slots; /* 0 is "empty": MPROF_NONE is never a member */
  size_t capacity, count;
} id_set_t;

static int id_set_add(id_set_t *set, uint64_t id) {
  if (id == MPROF_NONE) return 0;
  if (2 * (set->count + 1) > set->capacity) {
    size_t capacity = set->capacity ? 2 * set->capacity : 1024;
    uint64_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < set->capacity; i++)
      if (set->slots[i]) {
        size_t j = (set->slots[i] * 0x9E3779B97F4A7C15u) & (capacity - 1);
        while (slots[j]) j = (j + 1) & (capacity - 1);
        slots[j] = set->slots[i];
      }
    free(set->slots);
    set->slots = slots;
    set->capacity = capacity;
  }
  size_t j = (id * 0x9E3779B97F4A7C15u) & (set->capacity - 1);
  while (set->slots[j] && set->slots[j] != id) j = (j + 1) & (set->capacity - 1);
  if (!set->slots[j]) {
    set->slots[j] = id;
    set->count++;
  }
  return 0;
}

typedef struct stats_s {
  uint64_t events, labels, first_ticks, last_ticks;
  uint64_t by_kind[MPROF_EVENT_KIND_COUNT];
  id_set_t threads;
  json_t *counter_names;  /* counter id (as text) -> name */
  json_t *counter_values; /* counter key (id as text, or legacy name) -> value */
} stats_t;

/* Counters are named by id in mprof traces and by text in legacy ones
 * (made valid UTF-8, as JSON object keys must be). */
static void counter_key(const mprof_event_t *ev, char *key, size_t size) {
  json_t *text = ev->counter || !ev->text
                     ? NULL
                     : cli_json_text(ev->text, ev->text_length);
  if (text)
    snprintf(key, size, "%s", json_string_value(text));
  else
    snprintf(key, size, "%" PRIu32, ev->counter);
  json_decref(text);
}

static void note_counter(stats_t *s, const mprof_event_t *ev) {
  char key[256];
  counter_key(ev, key, sizeof key);
  if (ev->kind == MPROF_EVENT_COUNTER_NAME) {
    json_object_set_new(s->counter_names, key,
                        cli_json_text(ev->text, ev->text_length));
    return;
  }
  json_int_t value = ev->value;
  json_t *old = json_object_get(s->counter_values, key);
  if (ev->kind == MPROF_EVENT_COUNTER_INCREASE && old)
    value += json_integer_value(old);
  json_object_set_new(s->counter_values, key, json_integer(value));
}

static int note_event(void *context, const mprof_event_t *ev) {
  stats_t *s = context;
  if (!s->events || ev->time_ticks < s->first_ticks) s->first_ticks = ev->time_ticks;
  if (ev->time_ticks > s->last_ticks) s->last_ticks = ev->time_ticks;
  s->events++;
  s->by_kind[ev->kind]++;
  switch (ev->kind) {
  case MPROF_EVENT_COUNTER_NAME:
  case MPROF_EVENT_COUNTER_INCREASE:
  case MPROF_EVENT_COUNTER_VALUE:
    note_counter(s, ev);
    return 0;
  case MPROF_EVENT_LABEL:
    s->labels++;
    break;
  case MPROF_EVENT_STRING:
  case MPROF_EVENT_GC:
  case MPROF_EVENT_SUSPEND:
    return 0;
  default:
    break;
  }
  id_set_add(&s->threads, ev->thread);
  id_set_add(&s->threads, ev->a);
  if (ev->kind == MPROF_EVENT_BECOMES || ev->kind == MPROF_EVENT_CREATE_BY)
    id_set_add(&s->threads, ev->b);
  return 0;
}

/* Counter values keyed by name (ids resolved through counter_name). */
static json_t *named_counters(const stats_t *s) {
  json_t *out = json_object();
  const char *key;
  json_t *value;
  json_object_foreach(s->counter_values, key, value) {
    json_t *name = json_object_get(s->counter_names, key);
    json_object_set(out, name ? json_string_value(name) : key, value);
  }
  return out;
}

static json_t *trace_stats(const char *path, mprof_trace_t *trace, int *problems) {
  stats_t s;
  memset(&s, 0, sizeof s);
  s.counter_names = json_object();
  s.counter_values = json_object();
  uint64_t bytes = 0, discarded = 0;
  size_t packets = mprof_trace_packet_count(trace);
  for (size_t i = 0; i < packets; i++) {
    const mprof_packet_info_t *p = mprof_trace_packet(trace, i);
    bytes += p->content_bytes;
    /* events_discarded runs per stream: the stream's last packet has it. */
    const mprof_packet_info_t *next = mprof_trace_packet(trace, i + 1);
    if (!next || next->stream_instance != p->stream_instance ||
        next->stream_class != p->stream_class)
      discarded += p->events_discarded;
  }
  cli_trace_events(trace, "stats", note_event, &s, problems);
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  json_t *by_type = json_object();
  for (int k = 0; k < MPROF_EVENT_KIND_COUNT; k++)
    if (s.by_kind[k])
      json_object_set_new(by_type, mprof_event_kind_name((mprof_event_kind_t)k),
                          json_integer((json_int_t)s.by_kind[k]));
  double span_ns = (double)(s.last_ticks - s.first_ticks) * 1e9 /
                   (double)info->clock_freq_hz;
  json_t *o = json_pack(
      "{s:s, s:I, s:o, s:I, s:I, s:o, s:I, s:I, s:f, s:I, s:I, s:b}", "trace",
      path, "events", (json_int_t)s.events, "events_by_type", by_type,
      "threads", (json_int_t)s.threads.count, "labels", (json_int_t)s.labels,
      "counters", named_counters(&s), "time_span_ns", (json_int_t)span_ns,
      "discarded", (json_int_t)discarded, "bytes_per_event",
      s.events ? (double)bytes / (double)s.events : 0.0, "packets",
      (json_int_t)packets, "streams", (json_int_t)info->streams, "legacy",
      info->legacy);
  json_decref(s.counter_names);
  json_decref(s.counter_values);
  free(s.threads.slots);
  return o;
}

static void print_text(json_t *o) {
  printf("%s\n", json_string_value(json_object_get(o, "trace")));
  const char *key;
  json_t *value;
  json_object_foreach(o, key, value) {
    if (!strcmp(key, "trace")) continue;
    if (json_is_object(value)) {
      printf("  %s:\n", key);
      const char *k;
      json_t *v;
      json_object_foreach(value, k, v) {
        char *text = json_dumps(v, JSON_ENCODE_ANY);
        printf("    ");
        cli_put_escaped(stdout, k, strlen(k));
        printf(": %s\n", text);
        free(text);
      }
    } else {
      char *text = json_dumps(value, JSON_ENCODE_ANY);
      printf("  %s: %s\n", key, text);
      free(text);
    }
  }
}

static void print_stats(void *context, const char *path, mprof_trace_t *trace,
                        int *problems) {
  json_t *o = trace_stats(path, trace, problems);
  if (*(int *)context) {
    char *text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    puts(text);
    free(text);
  } else {
    print_text(o);
  }
  json_decref(o);
}

int cmd_stats(int argc, char **argv) {
  static const struct option options[] = {{"json", no_argument, 0, 'j'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int c, json = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
    if (c == 'j') json = 1;
    else if (c == 'h') return fputs(help, stdout), CLI_OK;
    else return fputs(help, stderr), CLI_USAGE;
  }
  if (optind >= argc) return fputs(help, stderr), CLI_USAGE;
  return cli_for_each_trace(argv + optind, argc - optind, print_stats, &json);
}
