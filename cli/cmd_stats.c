/* cmd_stats.c -- `mprof stats [--json] TRACE...`: what is in a trace, in
 * numbers: events by type, threads, labels, counters' final values, time
 * span, losses, size.  JSON (with jansson) for scripts, text for people. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mprof/census.h"
#include "mprof/index.h"

static const char help[] =
    "usage: mprof stats [--json] TRACE...\n"
    "Summarise traces for a person: the program that wrote each, its events\n"
    "by type, threads, labels, counters, the time it spans and its size,\n"
    "times with units and rounded.  --json prints the exact values, one\n"
    "object per trace with: program (null for a legacy trace), events,\n"
    "events_by_type, threads, labels, counters (name -> final value),\n"
    "time_span_ns, discarded, bytes_per_event, packets, packets_overwritten\n"
    "(the oldest, lost when the ring wrapped), packets_missing, streams;\n"
    "and threads_error (the relative standard error) where threads is an\n"
    "estimate: past 2^26 distinct ids a sketch counts them.  The packet\n"
    "figures come from the trace's index (mprof index) when it is valid.\n"
    "examples:\n"
    "  mprof stats trace.ctf\n"
    "  mprof stats --json trace.ctf | jq .events\n";

/* Counter values keyed by name (a counter whose name is missing is keyed
 * by its id), made valid UTF-8 as JSON object keys must be. */
static json_t *named_counters(const mprof_census_t *census) {
  json_t *out = json_object();
  size_t cursor = 0;
  mprof_census_counter_t counter;
  while (mprof_census_counter_next(census, &cursor, &counter)) {
    char id[24];
    snprintf(id, sizeof id, "%" PRIu32, counter.id);
    json_t *name = counter.name || !counter.id
                       ? cli_json_text(counter.name ? counter.name : "",
                                       counter.name_length)
                       : json_string(id);
    json_object_set_new(out, json_string_value(name),
                        json_integer((json_int_t)counter.value));
    json_decref(name);
  }
  return out;
}

/* The figures of the trace's packets: how many, their bytes, and the span
 * of their events in ticks, from the trace's valid index when it has one
 * (they are the same), else from the trace and the census. */
typedef struct packet_figures_s {
  size_t packets;
  uint64_t bytes, first_ticks, last_ticks;
} packet_figures_t;

static void figures_from_index(const mprof_index_t *index,
                               packet_figures_t *f) {
  f->packets = mprof_index_packet_count(index);
  f->bytes = 0;
  for (size_t i = 0; i < f->packets; i++)
    f->bytes += mprof_index_packet(index, i)->content_bytes;
  f->first_ticks = mprof_index_first_ticks(index);
  f->last_ticks = mprof_index_last_ticks(index);
}

static void packet_figures(const char *path, const mprof_trace_t *trace,
                           const mprof_census_t *census, packet_figures_t *f) {
  mprof_index_t *index;
  if (!mprof_index_find(path, trace, &index)) {
    figures_from_index(index, f);
    mprof_index_free(index);
    return;
  }
  f->packets = mprof_trace_packet_count(trace);
  f->bytes = 0;
  for (size_t i = 0; i < f->packets; i++)
    f->bytes += mprof_trace_packet(trace, i)->content_bytes;
  f->first_ticks = census->first_ticks;
  f->last_ticks = census->last_ticks;
}

static json_t *events_by_type(const mprof_census_t *census) {
  json_t *by_type = json_object();
  for (int k = 0; k < MPROF_EVENT_KIND_COUNT; k++)
    if (census->by_kind[k])
      json_object_set_new(by_type, mprof_event_kind_name((mprof_event_kind_t)k),
                          json_integer((json_int_t)census->by_kind[k]));
  return by_type;
}

/* The census of trace, one packet at a time.  Returns 0, or -1 without
 * memory (told). */
static int take_census(const char *path, const mprof_trace_t *trace,
                       mprof_census_t *census, int *problems) {
  if (mprof_census_init(census)) {
    cli_fail(CLI_FAILED, "stats", path, "out of memory");
    (*problems)++;
    return -1;
  }
  cli_progress_t progress;
  cli_progress_start(&progress, "stats", mprof_trace_packet_count(trace));
  *problems +=
      (int)mprof_census_trace(census, trace, cli_progress_packets, &progress);
  cli_progress_finish(&progress);
  if (census->out_of_memory) {
    fprintf(stderr, "mprof stats: %s: out of memory: counts are short\n", path);
    (*problems)++;
  }
  return 0;
}

static json_t *trace_stats(const char *path, mprof_trace_t *trace,
                           int *problems) {
  mprof_census_t census;
  if (take_census(path, trace, &census, problems)) return NULL;
  packet_figures_t f;
  packet_figures(path, trace, &census, &f);
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  double span_ns = (double)(f.last_ticks - f.first_ticks) * 1e9 /
                   (double)info->clock_freq_hz;
  char program[256];
  int named = mprof_trace_process_name(trace, program, sizeof program) >= 0;
  json_t *o = json_pack(
      "{s:s, s:o, s:I, s:o, s:I, s:I, s:o, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:b}",
      "trace", path, "program",
      named ? cli_json_text(program, strlen(program)) : json_null(), "events",
      (json_int_t)census.events, "events_by_type", events_by_type(&census),
      "threads", (json_int_t)census.threads, "labels",
      (json_int_t)census.labels, "counters", named_counters(&census),
      "time_span_ns", (json_int_t)span_ns, "discarded",
      (json_int_t)info->discarded, "bytes_per_event",
      census.events ? (double)f.bytes / (double)census.events : 0.0, "packets",
      (json_int_t)f.packets, "packets_overwritten",
      (json_int_t)info->packets_overwritten, "packets_missing",
      (json_int_t)info->packets_missing, "streams", (json_int_t)info->streams,
      "legacy", info->legacy);
  /* Only where the count is the sketch's estimate: exact counts print as
   * they always have. */
  if (census.threads_estimated)
    json_object_set_new(o, "threads_error", json_real(census.threads_error));
  mprof_census_free(&census);
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
  json_t *error = json_object_get(o, "threads_error");
  if (error)
    printf("  threads: about %lld (estimated: %.2g%% standard error)\n",
           (long long)number(o, "threads"), 100 * json_real_value(error));
  else
    printf("  threads: %lld\n", (long long)number(o, "threads"));
  printf("  labels: %lld\n", (long long)number(o, "labels"));
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
  if (!o) return;
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
