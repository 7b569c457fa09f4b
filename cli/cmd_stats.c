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
    "Summarise traces for a person: the program that wrote each, its events\n"
    "by type, threads, labels, counters, the time it spans and its size,\n"
    "times with units and rounded.  --json prints the exact values, one\n"
    "object per trace with: program (null for a legacy trace), events,\n"
    "events_by_type, threads, labels, counters (name -> final value),\n"
    "time_span_ns, discarded, bytes_per_event, packets, packets_overwritten\n"
    "(the oldest, lost when the ring wrapped), packets_missing, streams.\n"
    "examples:\n"
    "  mprof stats trace.ctf\n"
    "  mprof stats --json trace.ctf | jq .events\n";

/* A set of thread ids, kept as 64-id words: the key of a word is id / 64
 * (plus one: a key of 0 marks an empty slot) and its bits say which of its
 * ids were seen.  Recorders hand out ids from 1 up, so a trace's ids fill
 * few words, which stay in cache; open addressing, grows at half full. */
typedef struct id_word_s {
  uint64_t key, bits;
} id_word_t;

typedef struct id_set_s {
  id_word_t *words;
  size_t capacity, used; /* slots, and slots holding a word */
  uint64_t count;        /* ids in the set */
} id_set_t;

static id_word_t *id_set_slot(id_word_t *words, size_t capacity, uint64_t key) {
  size_t j = (key * 0x9E3779B97F4A7C15u) >> 20 & (capacity - 1);
  while (words[j].key && words[j].key != key) j = (j + 1) & (capacity - 1);
  return &words[j];
}

static int id_set_grow(id_set_t *set) {
  size_t capacity = set->capacity ? 2 * set->capacity : 1024;
  id_word_t *words = calloc(capacity, sizeof *words);
  if (!words) return -1;
  for (size_t i = 0; i < set->capacity; i++)
    if (set->words[i].key)
      *id_set_slot(words, capacity, set->words[i].key) = set->words[i];
  free(set->words);
  set->words = words;
  set->capacity = capacity;
  return 0;
}

static int id_set_add(id_set_t *set, uint64_t id) {
  if (id == MPROF_NONE) return 0;
  if (2 * (set->used + 1) > set->capacity && id_set_grow(set)) return -1;
  id_word_t *word = id_set_slot(set->words, set->capacity, (id >> 6) + 1);
  uint64_t bit = (uint64_t)1 << (id & 63);
  if (!word->key) {
    word->key = (id >> 6) + 1;
    set->used++;
  }
  if (!(word->bits & bit)) {
    word->bits |= bit;
    set->count++;
  }
  return 0;
}

/* A counter of an mprof trace (named by id): its value so far. */
typedef struct counter_value_s {
  int64_t value;
  int seen;
} counter_value_t;

typedef struct stats_s {
  uint64_t events, labels, first_ticks, last_ticks;
  uint64_t by_kind[MPROF_EVENT_KIND_COUNT];
  id_set_t threads;
  counter_value_t *by_id; /* mprof counters, indexed by id */
  size_t by_id_count;
  json_t *counter_names; /* counter id (as text) -> name */
  json_t *legacy_values; /* legacy counter name -> value */
  int out_of_memory;
} stats_t;

/* Legacy counters are named by text (made valid UTF-8, as JSON object keys
 * must be); their traces are small, so a JSON object holds their values. */
static void note_legacy_counter(stats_t *s, const mprof_event_t *ev) {
  json_t *name = cli_json_text(ev->text ? ev->text : "", ev->text_length);
  const char *key = json_string_value(name);
  json_int_t value = ev->value;
  json_t *old = json_object_get(s->legacy_values, key);
  if (ev->kind == MPROF_EVENT_COUNTER_INCREASE && old)
    value += json_integer_value(old);
  json_object_set_new(s->legacy_values, key, json_integer(value));
  json_decref(name);
}

static int note_counter(stats_t *s, const mprof_event_t *ev) {
  char key[24];
  if (ev->kind == MPROF_EVENT_COUNTER_NAME) {
    snprintf(key, sizeof key, "%" PRIu32, ev->counter);
    json_object_set_new(s->counter_names, key,
                        cli_json_text(ev->text, ev->text_length));
    return 0;
  }
  if (!ev->counter) {
    note_legacy_counter(s, ev);
    return 0;
  }
  if (ev->counter >= s->by_id_count) {
    size_t count = (size_t)ev->counter + 1;
    counter_value_t *by_id = realloc(s->by_id, count * sizeof *by_id);
    if (!by_id) return -1;
    memset(by_id + s->by_id_count, 0, (count - s->by_id_count) * sizeof *by_id);
    s->by_id = by_id;
    s->by_id_count = count;
  }
  counter_value_t *c = &s->by_id[ev->counter];
  c->value = ev->kind == MPROF_EVENT_COUNTER_INCREASE ? c->value + ev->value
                                                      : ev->value;
  c->seen = 1;
  return 0;
}

static int note_event(void *context, const mprof_event_t *ev) {
  stats_t *s = context;
  if (!s->events || ev->time_ticks < s->first_ticks)
    s->first_ticks = ev->time_ticks;
  if (ev->time_ticks > s->last_ticks) s->last_ticks = ev->time_ticks;
  s->events++;
  s->by_kind[ev->kind]++;
  switch (ev->kind) {
  case MPROF_EVENT_COUNTER_NAME:
  case MPROF_EVENT_COUNTER_INCREASE:
  case MPROF_EVENT_COUNTER_VALUE:
    if (note_counter(s, ev)) s->out_of_memory = 1;
    return 0;
  case MPROF_EVENT_LABEL: s->labels++; break;
  case MPROF_EVENT_STRING:
  case MPROF_EVENT_GC:
  case MPROF_EVENT_SUSPEND: return 0;
  default: break;
  }
  int b = ev->kind == MPROF_EVENT_BECOMES || ev->kind == MPROF_EVENT_CREATE_BY;
  if (id_set_add(&s->threads, ev->thread) || id_set_add(&s->threads, ev->a) ||
      (b && id_set_add(&s->threads, ev->b)))
    s->out_of_memory = 1;
  return 0;
}

/* Counter values keyed by name (ids resolved through counter_name; a
 * counter whose name is missing is keyed by its id). */
static json_t *named_counters(const stats_t *s) {
  json_t *out = json_deep_copy(s->legacy_values);
  for (size_t id = 0; id < s->by_id_count; id++) {
    if (!s->by_id[id].seen) continue;
    char key[24];
    snprintf(key, sizeof key, "%zu", id);
    json_t *name = json_object_get(s->counter_names, key);
    json_object_set_new(out, name ? json_string_value(name) : key,
                        json_integer((json_int_t)s->by_id[id].value));
  }
  return out;
}

static json_t *trace_stats(const char *path, mprof_trace_t *trace,
                           int *problems) {
  stats_t s;
  memset(&s, 0, sizeof s);
  s.counter_names = json_object();
  s.legacy_values = json_object();
  uint64_t bytes = 0;
  size_t packets = mprof_trace_packet_count(trace);
  for (size_t i = 0; i < packets; i++)
    bytes += mprof_trace_packet(trace, i)->content_bytes;
  cli_trace_events(trace, "stats", note_event, &s, problems);
  if (s.out_of_memory) {
    fprintf(stderr, "mprof stats: %s: out of memory: counts are short\n", path);
    (*problems)++;
  }
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  json_t *by_type = json_object();
  for (int k = 0; k < MPROF_EVENT_KIND_COUNT; k++)
    if (s.by_kind[k])
      json_object_set_new(by_type, mprof_event_kind_name((mprof_event_kind_t)k),
                          json_integer((json_int_t)s.by_kind[k]));
  double span_ns = (double)(s.last_ticks - s.first_ticks) * 1e9 /
                   (double)info->clock_freq_hz;
  char program[256];
  int named = mprof_trace_process_name(trace, program, sizeof program) >= 0;
  json_t *o = json_pack(
      "{s:s, s:o, s:I, s:o, s:I, s:I, s:o, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:b}",
      "trace", path, "program",
      named ? cli_json_text(program, strlen(program)) : json_null(), "events",
      (json_int_t)s.events, "events_by_type", by_type, "threads",
      (json_int_t)s.threads.count, "labels", (json_int_t)s.labels, "counters",
      named_counters(&s), "time_span_ns", (json_int_t)span_ns, "discarded",
      (json_int_t)info->discarded, "bytes_per_event",
      s.events ? (double)bytes / (double)s.events : 0.0, "packets",
      (json_int_t)packets, "packets_overwritten",
      (json_int_t)info->packets_overwritten, "packets_missing",
      (json_int_t)info->packets_missing, "streams", (json_int_t)info->streams,
      "legacy", info->legacy);
  json_decref(s.counter_names);
  json_decref(s.legacy_values);
  free(s.threads.words);
  free(s.by_id);
  return o;
}

static json_int_t number(json_t *o, const char *key) {
  return json_integer_value(json_object_get(o, key));
}

/* A time in ns with the unit that keeps it short: 5.899 s, 12.3 ms. */
static void put_duration(json_int_t ns) {
  if (ns >= 1000000000)
    printf("%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000)
    printf("%.3f ms", (double)ns / 1e6);
  else if (ns >= 1000)
    printf("%.3f us", (double)ns / 1e3);
  else
    printf("%lld ns", (long long)ns);
}

/* Each NAME: VALUE of an object of counts, indented. */
static void put_counts(const char *title, json_t *counts) {
  const char *name;
  json_t *value;
  printf("  %s:%s\n", title, json_object_size(counts) ? "" : " none");
  json_object_foreach(counts, name, value) {
    printf("    ");
    cli_put_escaped(stdout, name, strlen(name));
    printf(": %lld\n", (long long)json_integer_value(value));
  }
}

/* The object of trace_stats() for a person: the program first, times with
 * units, sizes rounded; counts stay exact. */
static void print_text(json_t *o) {
  json_t *program = json_object_get(o, "program");
  cli_put_name(stdout, json_string_value(json_object_get(o, "trace")));
  fputs(": ", stdout);
  if (json_is_string(program)) {
    fputs("program ", stdout);
    cli_put_escaped(stdout, json_string_value(program),
                    json_string_length(program));
  } else {
    fputs("a legacy trace (it names no program)", stdout);
  }
  printf("\n  events: %lld over ", (long long)number(o, "events"));
  put_duration(number(o, "time_span_ns"));
  putchar('\n');
  put_counts("events by type", json_object_get(o, "events_by_type"));
  printf("  threads: %lld\n  labels: %lld\n", (long long)number(o, "threads"),
         (long long)number(o, "labels"));
  put_counts("counters (final values)", json_object_get(o, "counters"));
  printf("  discarded: %lld\n", (long long)number(o, "discarded"));
  printf("  size: %.1f bytes per event\n",
         json_real_value(json_object_get(o, "bytes_per_event")));
  printf("  packets: %lld (%lld overwritten when the ring wrapped, %lld "
         "missing)\n  streams: %lld\n",
         (long long)number(o, "packets"),
         (long long)number(o, "packets_overwritten"),
         (long long)number(o, "packets_missing"),
         (long long)number(o, "streams"));
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
    if (c == 'j')
      json = 1;
    else if (c == 'h')
      return fputs(help, stdout), CLI_OK;
    else
      return cli_option_error("stats", argv, "jh");
  }
  if (optind >= argc) return cli_missing("stats", "TRACE", "trace.ctf");
  return cli_for_each_trace(argv + optind, argc - optind, print_stats, &json);
}
