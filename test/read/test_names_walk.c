/* test_names_walk.c -- the strings of the names packets, which opening a
 * trace finds by walking over the other events (src/read/decode.c): a
 * recorded trace with many interned labels has one of its names packets
 * cut at every byte, and the first byte of each of its events made an
 * unknown id.  Each damaged copy, opened from memory and from a file,
 * tells the damage in exactly one line (none where a cut falls between
 * events), keeps the packet up to its last whole event, gives every label
 * whose string came before the damage that string's text and the others
 * none, and counts in its census what decoding delivers.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in rel/in_memory.h */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/format/format.h"
#include "../census_check.h"
#include "../rel/in_memory.h"
#include "mprof.h"
#include "mprof/read.h"

#define TRACE_SIZE (128u * 1024u)
#define PACKET_SIZE 4096u
#define LABELS 90
#define MOST_EVENTS 4096

static uint8_t *trace;  /* the recorded trace, TRACE_SIZE bytes */
static char path[4096]; /* a file the damaged copies are written to */

static uint64_t clock_ticks;
static uint64_t fake_clock(void) { return clock_ticks += 10; }

/* Record threads labelled with LABELS distinct texts, each used twice (the
 * second time a reference to the string interned the first). */
static void record(void) {
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.size = TRACE_SIZE;
  config.packet_size = PACKET_SIZE;
  config.clock = fake_clock;
  config.clock_freq_hz = 1000000000u;
  config.name = "test_names_walk";
  trace = in_memory_start_with(config);
  assert_non_null(trace);
  for (int twice = 0; twice < 2; twice++)
    for (int i = 0; i < LABELS; i++) {
      char text[64];
      snprintf(text, sizeof text, "label %d%.*s\t\"q\"", i, i % 23,
               "-----------------------");
      uint64_t thread = mprof_create(MPROF_TASK);
      mprof_label(thread, text);
      mprof_resolve(thread);
    }
  mprof_stop();
}

/* A diagnostic collector: the lines, one after the other. */
typedef struct lines_s {
  char text[8192];
  int count;
} lines_t;

static void collect_line(void *context, const char *line) {
  lines_t *l = context;
  size_t used = strlen(l->text);
  snprintf(l->text + used, sizeof l->text - used, "%s\n", line);
  l->count++;
}

/* One event's text, as a copy (texts of a file point into its mapping). */
typedef struct text_s {
  uint64_t packet; /* the offset of the packet it is in */
  size_t offset;   /* of the text, in the bytes opened from memory */
  char bytes[64];
  size_t length;
} text_t;

/* What an opened copy gives: its lines, the names packet's kept bytes,
 * the texts of every label (in packet order), and the census checked. */
typedef struct opened_s {
  lines_t lines;
  uint64_t kept;
  text_t labels[4 * LABELS];
  size_t label_count;
  uint64_t packet;     /* the offset of the packet being decoded */
  const uint8_t *base; /* the bytes opened from memory */
} opened_t;

static int gather_label(void *context, const mprof_event_t *ev) {
  opened_t *o = context;
  if (ev->kind != MPROF_EVENT_LABEL) return 0;
  assert_true(o->label_count < 4 * LABELS);
  text_t *t = &o->labels[o->label_count++];
  t->packet = o->packet;
  t->offset = (size_t)((const uint8_t *)ev->text - o->base);
  t->length = ev->text_length;
  assert_true(t->length < sizeof t->bytes);
  memcpy(t->bytes, ev->text, t->length);
  return 0;
}

/* Open bytes (the trace, damaged) from memory or, written to a file, from
 * that file; names_offset: where the names packet lies. */
static void open_copy(const uint8_t *bytes, int from_file,
                      uint64_t names_offset, opened_t *o) {
  memset(o, 0, sizeof *o);
  o->base = bytes;
  mprof_trace_t *t;
  if (from_file) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, TRACE_SIZE, f), TRACE_SIZE);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(mprof_trace_open(path, collect_line, &o->lines, &t), 0);
  } else {
    assert_int_equal(mprof_trace_open_memory(bytes, TRACE_SIZE, path,
                                             collect_line, &o->lines, &t),
                     0);
  }
  static mprof_event_t events[MOST_EVENTS];
  for (size_t i = 0; i < mprof_trace_packet_count(t); i++) {
    const mprof_packet_info_t *pk = mprof_trace_packet(t, i);
    if (pk->offset == names_offset) o->kept = pk->content_bytes;
    o->packet = pk->offset;
    mprof_trace_packet_events(t, i, gather_label, o);
    size_t n = mprof_trace_packet_decode(t, i, events, MOST_EVENTS, NULL);
    check_census(t, i, events, n);
  }
  mprof_trace_close(t);
}

/* The names packet under test: its offset, where its events begin and
 * end, and its events: strings (texts[k], the offset of the text) and
 * label references (texts[k] NONE), event k from starts[k] to ends[k]. */
#define NONE UINT64_MAX
typedef struct names_s {
  uint64_t offset, first, end;
  size_t count;
  uint64_t starts[4 * LABELS], ends[4 * LABELS], texts[4 * LABELS];
} names_t;

/* The next event of the names packet, after the one before it. */
static int gather_event(void *context, const mprof_event_t *ev) {
  names_t *n = context;
  assert_true(n->count < 4 * LABELS);
  uint64_t start = n->count ? n->ends[n->count - 1] : n->first;
  n->starts[n->count] = start;
  if (ev->kind == MPROF_EVENT_STRING) {
    /* a compact header and the string's 2-byte id before the text */
    uint64_t text = (uint64_t)((const uint8_t *)ev->text - trace);
    assert_int_equal(text, start + MPROF__COMPACT_HEADER_SIZE + 2);
    n->texts[n->count] = text;
    n->ends[n->count++] = text + ev->text_length + 1;
  } else {
    /* a label_ref: a compact header, the thread and the string's id */
    assert_int_equal(ev->kind, MPROF_EVENT_LABEL);
    n->texts[n->count] = NONE;
    n->ends[n->count++] = start + MPROF__COMPACT_HEADER_SIZE + 6;
  }
  return 0;
}

/* The first names packet with several strings; its events, which are
 * strings and label references one after the other (so their boundaries
 * are known). */
static void find_names(names_t *n) {
  mprof_trace_t *t;
  assert_int_equal(
      mprof_trace_open_memory(trace, TRACE_SIZE, "names", NULL, NULL, &t), 0);
  size_t strings = 0;
  for (size_t i = 0; i < mprof_trace_packet_count(t) && strings < 8; i++) {
    const mprof_packet_info_t *pk = mprof_trace_packet(t, i);
    if (pk->stream_class != MPROF__STREAM_NAMES) continue;
    memset(n, 0, sizeof *n);
    n->offset = pk->offset;
    n->first = pk->offset + MPROF__PACKET_HEADER_SIZE;
    n->end = pk->offset + pk->content_bytes;
    assert_true(mprof_trace_packet_events(t, i, gather_event, n) >= 0);
    assert_int_equal(n->count ? n->ends[n->count - 1] : n->first, n->end);
    strings = 0;
    for (size_t k = 0; k < n->count; k++) strings += n->texts[k] != NONE;
  }
  assert_true(strings >= 8);
  mprof_trace_close(t);
}

/* Whether a label of the undamaged trace is dropped (an event of the names
 * packet after the damage), or loses its text (its string is). */
static int label_dropped(const names_t *n, const text_t *l, size_t *j,
                         uint64_t kept_end) {
  if (l->packet != n->offset) return 0;
  while (n->texts[*j] != NONE) ++*j; /* the next label reference */
  return n->ends[(*j)++] > kept_end;
}

static int label_lost(const names_t *n, const text_t *l, uint64_t kept_end) {
  for (size_t k = 0; k < n->count; k++)
    if (n->texts[k] == l->offset) return n->ends[k] > kept_end;
  return 0;
}

/* Check a copy damaged in the names packet: events that end by `kept_end`
 * survive; `lines` lines tell it (one saying `what`). */
static void check_damaged(const names_t *n, const opened_t *whole,
                          const uint8_t *bytes, uint64_t kept_end, int lines,
                          const char *what) {
  opened_t in_memory, in_file;
  open_copy(bytes, 0, n->offset, &in_memory);
  open_copy(bytes, 1, n->offset, &in_file);
  assert_int_equal(in_memory.lines.count, lines);
  if (lines) assert_non_null(strstr(in_memory.lines.text, what));
  assert_string_equal(in_memory.lines.text, in_file.lines.text);
  assert_int_equal(in_memory.kept, kept_end - n->offset);
  assert_int_equal(in_file.kept, kept_end - n->offset);
  size_t labels = 0, j = 0;
  for (size_t k = 0; k < whole->label_count; k++) {
    const text_t *l = &whole->labels[k];
    if (label_dropped(n, l, &j, kept_end)) continue;
    int lost = label_lost(n, l, kept_end);
    assert_true(labels < in_memory.label_count);
    const text_t *m = &in_memory.labels[labels], *f = &in_file.labels[labels];
    labels++;
    assert_int_equal(m->length, lost ? 0 : l->length);
    assert_int_equal(f->length, m->length);
    assert_memory_equal(m->bytes, l->bytes, m->length);
    assert_memory_equal(f->bytes, l->bytes, m->length);
    if (!lost) assert_int_equal(m->offset, l->offset);
  }
  assert_int_equal(in_memory.label_count, labels);
  assert_int_equal(in_file.label_count, labels);
}

/* The names packet under test, the undamaged trace's labels, and room for
 * a damaged copy (set up before the tests). */
static names_t names;
static opened_t whole;
static uint8_t *bytes;

static int set_up(void **state) {
  (void)state;
  record();
  find_names(&names);
  open_copy(trace, 0, names.offset, &whole);
  assert_int_equal(whole.lines.count, 0);
  assert_true(whole.label_count >= 2 * LABELS);
  bytes = malloc(TRACE_SIZE);
  assert_non_null(bytes);
  return 0;
}

static int tear_down(void **state) {
  (void)state;
  unlink(path);
  free(bytes);
  free(trace);
  return 0;
}

static void test_cut_at_every_byte(void **state) {
  (void)state;
  size_t cut_mid_event = 0;
  for (uint64_t at = names.first + 1; at < names.end; at++) {
    memcpy(bytes, trace, TRACE_SIZE);
    mprof__put_u64(bytes + names.offset + MPROF__PH_CONTENT_SIZE,
                   (at - names.offset) * 8);
    uint64_t kept_end = names.first;
    for (size_t k = 0; k < names.count && names.ends[k] <= at; k++)
      kept_end = names.ends[k];
    cut_mid_event += kept_end != at;
    check_damaged(&names, &whole, bytes, kept_end, kept_end != at,
                  "runs past content_size");
  }
  assert_true(cut_mid_event > 8 * names.count);
}

static void test_unknown_id_at_every_event(void **state) {
  (void)state;
  for (size_t k = 0; k < names.count; k++) {
    memcpy(bytes, trace, TRACE_SIZE);
    uint8_t *header = bytes + names.starts[k];
    *header = (uint8_t)((*header & ~31u) | (MPROF__EV_COUNT + 2));
    check_damaged(&names, &whole, bytes, names.starts[k], 1,
                  "unknown event id");
  }
}

int main(void) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/test_names_walk.%d.ctf",
           dir && *dir ? dir : "/tmp", (int)getpid());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cut_at_every_byte),
      cmocka_unit_test(test_unknown_id_at_every_event),
  };
  return cmocka_run_group_tests(tests, set_up, tear_down);
}
