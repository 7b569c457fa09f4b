/* test_index.c -- the sidecar index (mprof/index.h) and the census
 * (mprof/census.h) against the decoder, event by event.
 *
 *   test_index TRACE...
 *
 * For each trace: the index, built on one OS thread and on three, holds
 * per packet what decoding the packet one event at a time gives (its
 * count, first and last clock), and its pyramid's every level holds the
 * bins that the decoded events fall in, recounted here; written and read
 * back it is the same, and a byte changed, a cut or another trace's key
 * makes it refused.  A trace growing packet by packet (a copy of it whose
 * packets are put back one at a time, each first open and empty, then
 * whole) is extended at each step to what a fresh build gives, byte for
 * byte, decoding only the packet that came or changed.  The census counts what
 * the events say, and its distinct-thread sketch estimates within its
 * documented error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mprof/census.h"
#include "mprof/index.h"

static char **trace_paths;
static int trace_count;

static void quiet(void *context, const char *message) {
  (void)context;
  (void)message;
}

/* --- The decoder's view: every event, with its packet's stream ----------- */

typedef struct seen_s {
  uint64_t ns;     /* after the index's start */
  uint32_t stream; /* the index's number for it */
} seen_t;

typedef struct oracle_s {
  seen_t *events;
  size_t count, capacity;
  uint64_t first, last, packet_events;
  uint32_t stream;
  uint64_t start_ticks, freq;
} oracle_t;

static int see(void *context, const mprof_event_t *ev) {
  oracle_t *o = context;
  if (!o->packet_events || ev->time_ticks < o->first) o->first = ev->time_ticks;
  if (ev->time_ticks > o->last) o->last = ev->time_ticks;
  o->packet_events++;
  if (o->count == o->capacity) {
    o->capacity = o->capacity ? 2 * o->capacity : 1024;
    o->events = realloc(o->events, o->capacity * sizeof *o->events);
    assert_non_null(o->events);
  }
  uint64_t ticks =
      ev->time_ticks > o->start_ticks ? ev->time_ticks - o->start_ticks : 0;
  o->events[o->count++] =
      (seen_t){(uint64_t)((double)ticks * (1e9 / (double)o->freq)), o->stream};
  return 0;
}

/* Each packet of the index is what decoding it event by event gives. */
static void check_packets(const mprof_trace_t *trace,
                          const mprof_index_t *index, oracle_t *o) {
  size_t packets = mprof_trace_packet_count(trace);
  assert_int_equal(mprof_index_packet_count(index), packets);
  uint64_t total = 0;
  for (size_t i = 0; i < packets; i++) {
    const mprof_index_packet_t *p = mprof_index_packet(index, i);
    const mprof_packet_info_t *pk = mprof_trace_packet(trace, i);
    const mprof_index_stream_t *s = mprof_index_stream(index, p->stream);
    assert_int_equal(s->stream_class, pk->stream_class);
    assert_int_equal(s->instance, pk->stream_instance);
    assert_int_equal(p->offset, pk->offset);
    o->first = o->last = o->packet_events = 0;
    o->stream = p->stream;
    long n = mprof_trace_packet_events(trace, i, see, o);
    assert_int_equal(p->damaged, n < 0);
    assert_int_equal(p->events, o->packet_events);
    if (p->events) {
      assert_int_equal(p->first_ticks, o->first);
      assert_int_equal(p->last_ticks, o->last);
    }
    total += p->events;
  }
  assert_int_equal(mprof_index_events(index), total);
}

static int cell_order(const void *a, const void *b) {
  const mprof_index_bin_t *x = a, *y = b;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return x->bin < y->bin ? -1 : x->bin > y->bin;
}

/* Level k holds, per stream, the decoded events' bins of 2^log2 ns,
 * recounted here: one cell per event, sorted, runs summed. */
static void check_level(const mprof_index_t *index, size_t level,
                        const oracle_t *o) {
  unsigned log2_ns;
  const mprof_index_bin_t *bins;
  size_t n = mprof_index_level(index, level, &log2_ns, &bins);
  mprof_index_bin_t *want = calloc(o->count + 1, sizeof *want);
  for (size_t i = 0; i < o->count; i++)
    want[i] = (mprof_index_bin_t){o->events[i].ns >> log2_ns, 1,
                                  o->events[i].stream, 0};
  qsort(want, o->count, sizeof *want, cell_order);
  size_t kept = 0;
  for (size_t i = 0; i < o->count; i++)
    if (kept && !cell_order(&want[kept - 1], &want[i]))
      want[kept - 1].events++;
    else
      want[kept++] = want[i];
  assert_int_equal(n, kept);
  assert_memory_equal(bins, want, kept * sizeof *want);
  free(want);
}

static void check_pyramid(const mprof_index_t *index, const oracle_t *o) {
  size_t levels = mprof_index_level_count(index);
  assert_true(levels >= 1);
  for (size_t k = 0; k < levels; k++) check_level(index, k, o);
  /* The top level has one bin per stream. */
  const mprof_index_bin_t *top;
  size_t n = mprof_index_level(index, levels - 1, NULL, &top);
  for (size_t i = 1; i < n; i++)
    assert_true(top[i].stream != top[i - 1].stream);
}

/* --- The file: written, read back, and refused when it is not good ------- */

static char *temp_path(void) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/test_index-%d.mpidx", (int)getpid());
  return path;
}

static uint8_t *file_bytes(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  rewind(f);
  uint8_t *data = malloc(*size + 1);
  assert_int_equal(fread(data, 1, *size, f), *size);
  fclose(f);
  return data;
}

static void assert_refused(const uint8_t *data, size_t size,
                           const mprof_index_key_t *key, const char *because) {
  mprof_index_t *x;
  const char *why = NULL;
  assert_int_equal(mprof_index_parse(data, size, key, &x, &why), MPROF_EINVAL);
  assert_non_null(why);
  if (!strstr(why, because))
    fail_msg("refused for \"%s\", not \"%s\"", why, because);
}

static void check_file(const mprof_index_t *index) {
  const char *path = temp_path();
  assert_int_equal(mprof_index_write(index, path), 0);
  size_t size;
  uint8_t *data = file_bytes(path, &size);
  unlink(path);
  const mprof_index_key_t *key = mprof_index_key_of(index);
  mprof_index_t *back;
  assert_int_equal(mprof_index_parse(data, size, key, &back, NULL), 0);
  assert_int_equal(mprof_index_packet_count(back),
                   mprof_index_packet_count(index));
  for (size_t i = 0; i < mprof_index_packet_count(index); i++)
    assert_memory_equal(mprof_index_packet(back, i),
                        mprof_index_packet(index, i),
                        sizeof(mprof_index_packet_t));
  assert_int_equal(mprof_index_level_count(back),
                   mprof_index_level_count(index));
  mprof_index_free(back);
  mprof_index_key_t other = *key;
  other.mtime_ns++;
  assert_refused(data, size, &other, "stale");
  assert_refused(data, size - 1, key, "truncated");
  assert_refused(data, 100, key, "not an mprof index");
  for (size_t at = 128; at < size; at += size / 7 + 1) {
    data[at] ^= 4;
    assert_refused(data, size, key, "checksum");
    data[at] ^= 4;
  }
  free(data);
}

static void index_of_each_trace(void **state) {
  (void)state;
  for (int i = 0; i < trace_count; i++) {
    mprof_trace_t *trace;
    if (mprof_trace_open(trace_paths[i], quiet, NULL, &trace)) continue;
    mprof_index_key_t key;
    assert_int_equal(mprof_index_key(trace_paths[i], trace, &key), 0);
    for (unsigned threads = 1; threads <= 3; threads += 2) {
      mprof_index_t *index;
      assert_int_equal(mprof_index_build(trace, &key, threads, &index), 0);
      oracle_t o = {NULL,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    mprof_index_start_ticks(index),
                    mprof_index_clock_freq_hz(index)};
      check_packets(trace, index, &o);
      check_pyramid(index, &o);
      check_file(index);
      free(o.events);
      mprof_index_free(index);
    }
    mprof_trace_close(trace);
  }
}

/* --- A trace that grows --------------------------------------------------- */

/* The bytes index is written as. */
static uint8_t *index_bytes(const mprof_index_t *index, size_t *size) {
  const char *path = temp_path();
  assert_int_equal(mprof_index_write(index, path), 0);
  uint8_t *data = file_bytes(path, size);
  unlink(path);
  return data;
}

typedef struct growth_s {
  uint8_t *whole, *copy; /* the trace, and what of it is put back */
  size_t size;
  uint64_t *offsets; /* its packets, in order of their first clock */
  size_t packets;
  mprof_index_t *before;
} growth_t;

static int first_clock_order(const void *a, const void *b) {
  const mprof_packet_info_t *x = *(const mprof_packet_info_t *const *)a;
  const mprof_packet_info_t *y = *(const mprof_packet_info_t *const *)b;
  return x->timestamp_begin < y->timestamp_begin ? -1
         : x->timestamp_begin > y->timestamp_begin
             ? 1
             : (x->offset > y->offset) - (x->offset < y->offset);
}

/* The trace at path, its packets zeroed in the copy (never written). */
static int growth_start(const char *path, growth_t *g) {
  mprof_trace_t *trace;
  if (mprof_trace_open(path, quiet, NULL, &trace)) return -1;
  if (mprof_trace_info(trace)->legacy) { /* packets of another layout */
    mprof_trace_close(trace);
    return -1;
  }
  g->whole = file_bytes(path, &g->size);
  g->copy = malloc(g->size);
  memcpy(g->copy, g->whole, g->size);
  g->packets = mprof_trace_packet_count(trace);
  const mprof_packet_info_t **order = calloc(g->packets + 1, sizeof *order);
  g->offsets = calloc(g->packets + 1, sizeof *g->offsets);
  for (size_t i = 0; i < g->packets; i++)
    order[i] = mprof_trace_packet(trace, i);
  qsort(order, g->packets, sizeof *order, first_clock_order);
  uint32_t packet_size = mprof_trace_info(trace)->packet_size;
  for (size_t i = 0; i < g->packets; i++) {
    g->offsets[i] = order[i]->offset;
    size_t bytes = g->size - order[i]->offset < packet_size
                       ? g->size - order[i]->offset
                       : packet_size;
    memset(g->copy + order[i]->offset, 0, bytes);
  }
  free(order);
  mprof_trace_close(trace);
  g->before = NULL;
  return 0;
}

static void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Packet k put back as a writer shows it just opened (open: no end, no
 * events yet) or whole.  Returns whether its bytes changed (a packet
 * that holds no event is whole once opened). */
static int put_back(growth_t *g, size_t k, int whole) {
  uint64_t at = g->offsets[k], bits;
  memcpy(&bits, g->whole + at + 48, 8);
  size_t bytes = bits / 8 <= g->size - at ? bits / 8 : g->size - at;
  if (bytes < 92) bytes = 92;
  uint8_t *was = malloc(bytes);
  memcpy(was, g->copy + at, bytes);
  memcpy(g->copy + at, g->whole + at, whole ? bytes : 92);
  if (!whole) {
    memcpy(g->copy + at + 40, g->copy + at + 32, 8); /* end = begin */
    put_u64(g->copy + at + 48, 92 * 8);
  }
  int changed = memcmp(was, g->copy + at, bytes) != 0;
  free(was);
  return changed;
}

/* One step: the copy's index extended from the one before is the fresh
 * build's, byte for byte, having decoded the changed packets (every
 * packet when the start or the bins' width moved under the one before). */
static void growth_step(growth_t *g, uint64_t step, size_t changed) {
  mprof_trace_t *trace;
  assert_int_equal(
      mprof_trace_open_memory(g->copy, g->size, "grown", quiet, NULL, &trace),
      0);
  mprof_index_key_t key = {g->size, (int64_t)step, {0}};
  memcpy(key.uuid, mprof_trace_info(trace)->uuid, 16);
  mprof_index_t *fresh, *extended;
  assert_int_equal(mprof_index_build(trace, &key, 2, &fresh), 0);
  assert_int_equal(mprof_index_extend(g->before, trace, &key, 2, &extended), 0);
  size_t fresh_size, extended_size;
  uint8_t *want = index_bytes(fresh, &fresh_size);
  uint8_t *got = index_bytes(extended, &extended_size);
  assert_int_equal(extended_size, fresh_size);
  assert_memory_equal(got, want, fresh_size);
  unsigned before_log2 = 0, fresh_log2 = 0;
  if (g->before) mprof_index_level(g->before, 0, &before_log2, NULL);
  mprof_index_level(fresh, 0, &fresh_log2, NULL);
  size_t packets = mprof_index_packet_count(fresh);
  int taken =
      g->before && before_log2 <= fresh_log2 &&
      mprof_index_start_ticks(g->before) == mprof_index_start_ticks(fresh);
  assert_int_equal(mprof_index_packets_decoded(fresh), packets);
  assert_int_equal(mprof_index_packets_decoded(extended),
                   taken ? changed : packets);
  free(want);
  free(got);
  mprof_index_free(fresh);
  mprof_index_free(g->before);
  g->before = extended;
  mprof_trace_close(trace);
}

static void extension_of_each_trace(void **state) {
  (void)state;
  for (int i = 0; i < trace_count; i++) {
    growth_t g;
    if (growth_start(trace_paths[i], &g)) continue;
    uint64_t step = 0;
    for (size_t k = 0; k < g.packets; k++)
      for (int whole = 0; whole <= 1; whole++) {
        size_t changed = (size_t)put_back(&g, k, whole);
        growth_step(&g, ++step, changed);
      }
    mprof_index_free(g.before);
    free(g.whole);
    free(g.copy);
    free(g.offsets);
  }
}

/* --- The census ----------------------------------------------------------- */

typedef struct tally_s {
  uint64_t events, labels, by_kind[MPROF_EVENT_KIND_COUNT];
} tally_t;

static int tally(void *context, const mprof_event_t *ev) {
  tally_t *t = context;
  t->events++;
  t->by_kind[ev->kind]++;
  t->labels += ev->kind == MPROF_EVENT_LABEL;
  return 0;
}

static void census_of_each_trace(void **state) {
  (void)state;
  for (int i = 0; i < trace_count; i++) {
    mprof_trace_t *trace;
    if (mprof_trace_open(trace_paths[i], quiet, NULL, &trace)) continue;
    tally_t want = {0};
    for (size_t p = 0; p < mprof_trace_packet_count(trace); p++)
      mprof_trace_packet_events(trace, p, tally, &want);
    mprof_census_t census;
    assert_int_equal(mprof_census_init(&census), 0);
    mprof_census_trace(&census, trace, NULL, NULL);
    assert_int_equal(census.events, want.events);
    assert_int_equal(census.labels, want.labels);
    assert_memory_equal(census.by_kind, want.by_kind, sizeof want.by_kind);
    assert_false(census.threads_estimated);
    mprof_census_free(&census);
    mprof_trace_close(trace);
  }
}

/* Thread ids 1 .. n named by switch events, counted by a census whose
 * exact set holds at most exact_words words of 64 ids. */
static mprof_census_t census_of_ids(uint64_t n, size_t exact_words) {
  mprof_census_t census;
  assert_int_equal(mprof_census_init(&census), 0);
  census.exact_ids_max = exact_words;
  mprof_event_t ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = MPROF_EVENT_SWITCH;
  /* each id twice, far apart: a sketch counts an id once */
  for (int round = 0; round < 2; round++)
    for (uint64_t id = 1; id <= n; id++) {
      ev.a = id * 977;
      mprof_census_event(&census, &ev);
    }
  mprof_census_finish(&census);
  return census;
}

static void distinct_threads(void **state) {
  (void)state;
  mprof_census_t exact = census_of_ids(50000, (size_t)1 << 20);
  assert_false(exact.threads_estimated);
  assert_int_equal(exact.threads, 50000);
  assert_true(exact.threads_error == 0);
  mprof_census_free(&exact);
  for (uint64_t n = 3000; n <= 3000000; n *= 10) {
    mprof_census_t sketch = census_of_ids(n, 64);
    assert_true(sketch.threads_estimated);
    assert_true(sketch.threads_error == MPROF_CENSUS_THREADS_ERROR);
    /* within four standard errors */
    double error = ((double)sketch.threads - (double)n) / (double)n;
    if (error > 4 * MPROF_CENSUS_THREADS_ERROR ||
        error < -4 * MPROF_CENSUS_THREADS_ERROR)
      fail_msg("%llu ids estimated as %llu", (unsigned long long)n,
               (unsigned long long)sketch.threads);
    mprof_census_free(&sketch);
  }
}

int main(int argc, char **argv) {
  trace_paths = argv + 1;
  trace_count = argc - 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(index_of_each_trace),
      cmocka_unit_test(extension_of_each_trace),
      cmocka_unit_test(census_of_each_trace),
      cmocka_unit_test(distinct_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
