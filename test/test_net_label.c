/* test_net_label.c -- the net_label and net_hash_label events
 * (docs/FORMAT.md, section 4.3): what mprof__label_net() and
 * mprof__label_net_hash() record, the reader gives back as a counter's
 * increase and the label text "HEAD OFFSET LENGTH" or "HEAD HASH LENGTH",
 * in their compact and wide forms, when the head falls out of the stream's
 * string table, when it cannot be interned, and through both ways of decoding
 * (per event, and into an array whose texts must outlive the decoding of other
 * packets), also by several OS threads at once; and that a head kept with
 * its string id (mprof__label_net_head()) reads back the same in every
 * stream and trace.
 */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../src/record/record.h"
#include "mprof.h"
#include "mprof/read.h"
#include "census_check.h"
#include "fake_clock_start.h"

static void *buffer_new(size_t size) {
  void *b = aligned_alloc(4096, size);
  assert_non_null(b);
  memset(b, 0xAB, size);
  return b;
}

/* Starts recording in buffer, running thread 42. */
static void start(void *buffer, size_t size, uint32_t packet_size) {
  assert_int_equal(fake_clock_start(buffer, size, packet_size,
                                    MPROF_RING_OVERWRITE, "test_net_label"),
                   0);
}

/* A new buffer of size bytes, recording (packet_size 0: the default). */
static void *recording(size_t size, uint32_t packet_size) {
  void *b = buffer_new(size);
  start(b, size, packet_size);
  return b;
}

/* The counter the labels below increase (0: none). */
static mprof_counter_t bytes;

static void label_net(uint64_t thread, const char *head, uint64_t offset,
                      uint64_t length) {
  size_t n = strlen(head);
  mprof__label_net(MPROF__NET_NOW, thread, head, n, mprof__label_hash(head, n),
                   bytes, offset, length);
}

static void label_net_hash(uint64_t thread, const char *head, uint64_t hash,
                           uint64_t length) {
  size_t n = strlen(head);
  mprof__label_net_hash(MPROF__NET_NOW, thread, head, n,
                        mprof__label_hash(head, n), bytes, hash, length);
}

/* The labels a trace holds, in decoding order, one array per packet
 * decoded first and read only after every packet is: the texts must stay
 * valid while the trace is open. */
typedef struct labels_s {
  char text[4096][2048];
  uint64_t thread[4096];
  size_t count;
  int64_t increased; /* the sum of the counter's increases */
  size_t increases;  /* how many, each just before its label */
} labels_t;

static labels_t got;

static int diags;
static void on_diag(void *context, const char *message) {
  (void)context;
  print_error("%s\n", message);
  diags++;
}

/* Read back the labels of the trace in buffer.  one_event: every
 * increase comes from a net_label event (none was written as text). */
static void read_labels(const void *buffer, size_t size, int one_event) {
  mprof_trace_t *trace;
  diags = 0;
  got.count = 0;
  got.increased = 0;
  got.increases = 0;
  assert_int_equal(
      mprof_trace_open_memory(buffer, size, "t", on_diag, NULL, &trace), 0);
  size_t packets = mprof_trace_packet_count(trace);
  mprof_event_t **events = calloc(packets, sizeof *events);
  size_t *counts = calloc(packets, sizeof *counts);
  assert_non_null(events);
  assert_non_null(counts);
  for (size_t i = 0; i < packets; i++) {
    size_t most = mprof_trace_packet_max_events(trace, i);
    events[i] = malloc((most + 1) * sizeof **events);
    assert_non_null(events[i]);
    int damaged = 1;
    counts[i] = mprof_trace_packet_decode(trace, i, events[i], most, &damaged);
    assert_int_equal(damaged, 0);
    check_census(trace, i, events[i], counts[i]);
  }
  for (size_t i = 0; i < packets; i++) {
    for (size_t k = 0; k < counts[i]; k++) {
      const mprof_event_t *ev = &events[i][k];
      if (ev->kind == MPROF_EVENT_COUNTER_INCREASE && ev->counter == bytes) {
        /* By the running thread; from a net_label event, at the time of
         * its label, which follows. */
        assert_int_equal(ev->thread, 42);
        if (one_event) {
          assert_true(k + 1 < counts[i]);
          assert_int_equal(ev[1].kind, MPROF_EVENT_LABEL);
          assert_int_equal(ev[1].time_ticks, ev->time_ticks);
        }
        got.increased += ev->value;
        got.increases++;
      }
      if (ev->kind != MPROF_EVENT_LABEL) continue;
      assert_true(got.count < 4096);
      assert_true(ev->text_length < 2048);
      memcpy(got.text[got.count], ev->text, ev->text_length);
      got.text[got.count][ev->text_length] = 0;
      got.thread[got.count++] = ev->a;
    }
    free(events[i]);
  }
  free(events);
  free(counts);
  mprof_trace_close(trace);
  assert_int_equal(diags, 0);
}

/* How many labels read back have exactly this thread and text. */
static size_t labels_equal(uint64_t thread, const char *text) {
  size_t n = 0;
  for (size_t i = 0; i < got.count; i++)
    n += got.thread[i] == thread && !strcmp(got.text[i], text);
  return n;
}

static void compact_and_wide_forms_read_back(void **state) {
  (void)state;
  size_t size = 1 << 20;
  void *b = recording(size, 0);
  const char *head = "net send tcp 127.0.0.1:5000 127.0.0.1:41234";
  label_net(7, head, 0, 16384);
  label_net(7, head, 16384, 5);
  label_net(7, head, (uint64_t)1 << 40, 0x7fffffff); /* wide: offset */
  label_net((uint64_t)1 << 33, head, 12, 34);        /* wide: thread */
  mprof_counter_t counted = bytes;
  bytes = 0; /* none: no increase; else the sum below would wrap */
  label_net(8, head, 99, UINT64_MAX); /* wide: length */
  bytes = counted;
  mprof_label(9, "write");
  mprof_stop();
  read_labels(b, size, 1);
  assert_int_equal(got.count, 6);
  assert_int_equal(got.increases, 4);
  assert_int_equal(got.increased, (int64_t)16384 + 5 + 0x7fffffff + 34);
  char want[256];
  assert_int_equal(labels_equal(7, "net send tcp 127.0.0.1:5000 "
                                   "127.0.0.1:41234 0 16384"),
                   1);
  assert_int_equal(labels_equal(7, "net send tcp 127.0.0.1:5000 "
                                   "127.0.0.1:41234 16384 5"),
                   1);
  assert_int_equal(labels_equal(7, "net send tcp 127.0.0.1:5000 "
                                   "127.0.0.1:41234 1099511627776 2147483647"),
                   1);
  assert_int_equal(labels_equal((uint64_t)1 << 33,
                                "net send tcp 127.0.0.1:5000 "
                                "127.0.0.1:41234 12 34"),
                   1);
  snprintf(want, sizeof want, "%s 99 %" PRIu64, head, UINT64_MAX);
  assert_int_equal(labels_equal(8, want), 1);
  assert_int_equal(labels_equal(9, "write"), 1);
  free(b);
}

/* "HEAD HASH LENGTH" of a net_hash_label, made apart from the recorder. */
static const char *hash_text(char *out, size_t size, const char *head,
                             uint64_t hash, uint64_t length) {
  snprintf(out, size, "%s %016" PRIx64 " %" PRIu64, head, hash, length);
  return out;
}

/* net_hash_label: all 64 bits of the hash in both forms, in 16 hex
 * digits, among net_label events of the same packet; a head too long to
 * intern gives the same text as a label. */
static void hash_labels_read_back(void **state) {
  (void)state;
  size_t size = 1 << 20;
  void *b = recording(size, 0);
  const char *head = "net recv udp 127.0.0.1:40000 0.0.0.0:53";
  const char *tcp = "net send tcp 10.0.0.1:1 10.0.0.2:2";
  char long_head[1001], want[1200];
  memset(long_head, 'u', sizeof long_head - 1);
  long_head[sizeof long_head - 1] = 0;
  label_net_hash(7, head, 0xfedcba9876543210u, 40);
  label_net(7, tcp, 3, 4);
  label_net_hash(7, head, 1, 0);
  label_net_hash((uint64_t)1 << 33, head, 0x0123456789abcdefu, 12);
  label_net_hash(8, head, UINT64_MAX, (uint64_t)1 << 32); /* wide: length */
  label_net_hash(9, long_head, 0xabcdef, 77);
  mprof_stop();
  read_labels(b, size, 0);
  assert_int_equal(got.count, 6);
  assert_int_equal(got.increases, 6);
  assert_int_equal(got.increased, 40 + 4 + 0 + 12 + ((int64_t)1 << 32) + 77);
  assert_int_equal(labels_equal(7, hash_text(want, sizeof want, head,
                                             0xfedcba9876543210u, 40)),
                   1);
  assert_string_equal(got.text[1], "net send tcp 10.0.0.1:1 10.0.0.2:2 3 4");
  assert_string_equal(got.text[2], "net recv udp 127.0.0.1:40000 0.0.0.0:53 "
                                   "0000000000000001 0");
  assert_int_equal(
      labels_equal((uint64_t)1 << 33,
                   hash_text(want, sizeof want, head, 0x0123456789abcdefu, 12)),
      1);
  assert_int_equal(labels_equal(8, hash_text(want, sizeof want, head,
                                             UINT64_MAX, (uint64_t)1 << 32)),
                   1);
  assert_int_equal(
      labels_equal(9, hash_text(want, sizeof want, long_head, 0xabcdef, 77)),
      1);
  free(b);
}

/* More heads than the stream's string table holds: heads fall out and are
 * defined again under new ids; every label keeps its own head. */
static void heads_evicted_and_defined_again(void **state) {
  (void)state;
  size_t size = 4 << 20;
  void *b = recording(size, 0);
  char head[64], want[96];
  for (int round = 0; round < 3; round++)
    for (int h = 0; h < 300; h++) {
      snprintf(head, sizeof head, "net recv tcp 10.0.0.%d:80 10.0.1.1:%d", h,
               1000 + h);
      label_net(100 + (uint64_t)h, head, (uint64_t)round * 1000, 10 + h);
    }
  mprof_stop();
  read_labels(b, size, 1);
  assert_int_equal(got.count, 900);
  assert_int_equal(got.increases, 900);
  for (int round = 0; round < 3; round++)
    for (int h = 0; h < 300; h++) {
      snprintf(want, sizeof want, "net recv tcp 10.0.0.%d:80 10.0.1.1:%d %d %d",
               h, 1000 + h, round * 1000, 10 + h);
      assert_int_equal(labels_equal(100 + (uint64_t)h, want), 1);
    }
  free(b);
}

/* A head too long to leave room for the numbers within the string limit
 * (1024-byte packets: 910 bytes) is written as a whole label, cut there;
 * so is every label once the names area is full and no head can be
 * interned (discard of string events). */
static void uninternable_heads_fall_back_to_text(void **state) {
  (void)state;
  size_t size = 64 << 10;
  void *b = recording(size, 1024);
  char head[1200];
  memset(head, 'h', sizeof head - 1);
  head[sizeof head - 1] = 0;
  label_net(3, head, 5, 6);
  char cut[1200];
  memcpy(cut, head, 910);
  cut[910] = 0;
  const char *early = "net recv tcp 10.9.9.9:1 10.2.0.1:2";
  label_net(5, early, 0, 1);
  /* Fill the names area with distinct heads until the ring takes them. */
  char other[64];
  for (int h = 0; h < 2000; h++) {
    snprintf(other, sizeof other, "net send tcp 10.1.%d.%d:1 10.2.0.1:2",
             h / 250, h % 250);
    label_net(4, other, (uint64_t)h, 1);
  }
  /* A head interned before: net_label events, the newest in the ring. */
  for (int i = 1; i <= 50; i++) label_net(5, early, (uint64_t)i, 1);
  mprof_stop();
  read_labels(b, size, 0);
  assert_int_equal(labels_equal(3, cut), 1);
  char want[96];
  size_t early_seen = 0;
  for (int i = 0; i <= 50; i++) {
    snprintf(want, sizeof want, "%s %d 1", early, i);
    early_seen += labels_equal(5, want);
  }
  assert_in_range(early_seen, 50, 51);
  /* The ring may have lost the oldest, never a text. */
  size_t seen = 0;
  for (int h = 0; h < 2000; h++) {
    snprintf(want, sizeof want, "net send tcp 10.1.%d.%d:1 10.2.0.1:2 %d 1",
             h / 250, h % 250, h);
    seen += labels_equal(4, want);
  }
  assert_int_equal(seen + 1 + early_seen, got.count);
  /* Written as text, a label may outlive its increase in the ring. */
  assert_true(got.increases <= got.count && got.increases > 100);
  assert_true(seen > 100);
  free(b);
}

/* mprof__label_net_head() of head, as label_net() does. */
static void label_net_kept(uint64_t thread, mprof__net_head_t *head,
                           uint64_t offset, uint64_t length) {
  mprof__label_net_head(MPROF__NET_NOW, thread, head, 0, offset, length);
}

static mprof__net_head_t kept;

static void *label_kept_elsewhere(void *unused) {
  (void)unused;
  label_net_kept(8, &kept, 5, 6);
  return NULL;
}

/* One label read back on thread: the kept head's, with offset and length. */
static void assert_kept_label(uint64_t thread, uint64_t offset,
                              uint64_t length) {
  char want[128];
  snprintf(want, sizeof want, "%.*s %" PRIu64 " %" PRIu64, (int)kept.length,
           kept.text, offset, length);
  assert_int_equal(labels_equal(thread, want), 1);
}

/* A kept head's string id holds only in the stream and the trace that
 * interned it: another OS thread, or a later trace, defines it again. */
static void kept_heads_hold_in_their_stream_only(void **state) {
  (void)state;
  size_t size = 1 << 20;
  const char *text = "net send tcp 10.0.0.1:1 10.0.0.2:2";
  kept = (mprof__net_head_t){
      text, strlen(text), mprof__label_hash(text, strlen(text)), 0, 0, 0};
  void *b = recording(size, 0);
  label_net_kept(7, &kept, 0, 5);
  pthread_t other;
  assert_int_equal(pthread_create(&other, NULL, label_kept_elsewhere, NULL), 0);
  pthread_join(other, NULL);
  label_net_kept(9, &kept, 11, 1);
  mprof_stop();
  read_labels(b, size, 0);
  assert_int_equal(got.count, 3);
  assert_kept_label(7, 0, 5);
  assert_kept_label(8, 5, 6);
  assert_kept_label(9, 11, 1);
  memset(b, 0xAB, size);
  start(b, size, 0);
  label_net_kept(10, &kept, 12, 3);
  mprof_stop();
  read_labels(b, size, 0);
  assert_int_equal(got.count, 1);
  assert_kept_label(10, 12, 3);
  free(b);
}

/* One OS thread's decoding of every packet: how many of its labels have
 * the text that label_net() gave their thread below. */
typedef struct decoder_arg_s {
  mprof_trace_t *trace;
  size_t good;
} decoder_arg_t;

static int count_good(void *context, const mprof_event_t *ev) {
  decoder_arg_t *arg = context;
  char want[96];
  if (ev->kind != MPROF_EVENT_LABEL) return 0;
  snprintf(want, sizeof want,
           "net send tcp 10.0.0.1:1 10.0.0.2:2 %" PRIu64 " 7", ev->a * 7);
  arg->good += ev->text_length == strlen(want) &&
               !memcmp(ev->text, want, ev->text_length);
  return 0;
}

static void *decode_all(void *context) {
  decoder_arg_t *arg = context;
  for (size_t i = 0; i < mprof_trace_packet_count(arg->trace); i++)
    mprof_trace_packet_events(arg->trace, i, count_good, arg);
  return NULL;
}

/* Four OS threads decode one trace at once: each packet's texts are made
 * once and shared, and every thread sees every label right. */
static void decoded_by_several_threads_at_once(void **state) {
  (void)state;
  size_t size = 1 << 20;
  void *b = recording(size, 4096);
  for (uint64_t i = 0; i < 5000; i++)
    label_net(i, "net send tcp 10.0.0.1:1 10.0.0.2:2", i * 7, 7);
  mprof_stop();
  mprof_trace_t *trace;
  assert_int_equal(mprof_trace_open_memory(b, size, "t", on_diag, NULL, &trace),
                   0);
  pthread_t threads[4];
  decoder_arg_t args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (decoder_arg_t){trace, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, decode_all, &args[i]),
                     0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    assert_int_equal(args[i].good, 5000);
  }
  mprof_trace_close(trace);
  free(b);
}

int main(void) {
  bytes = mprof_counter_make("bytes");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compact_and_wide_forms_read_back),
      cmocka_unit_test(hash_labels_read_back),
      cmocka_unit_test(heads_evicted_and_defined_again),
      cmocka_unit_test(uninternable_heads_fall_back_to_text),
      cmocka_unit_test(decoded_by_several_threads_at_once),
      cmocka_unit_test(kept_heads_hold_in_their_stream_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
