/* test_relay.c -- the relay (src/read/relay.c) hands the caller every event
 * its thread puts, in order, each with its own text, whatever the sizes of
 * the puts (one event, a few, many batches' worth at once) and however
 * the two threads' paces differ: the events got are compared with those
 * made, one by one, field by field and text by text.  A put's events are
 * made in a buffer that the producer then overwrites, as the merge does
 * with a packet it decodes again.  The producer's error comes after its
 * events; a caller that stops early makes the producer's puts fail and
 * its thread end.  A producer's edit of its copies (what the streamed
 * analysis stamps there) is what the caller gets, and an edit that fails
 * hands on none of its put's events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mprof/read.h"

#define EVENTS 200000
#define PUT_MOST 9000 /* more than a batch */

/* Event i: its fields from i, a text of i % 23 bytes every third one
 * ("" every 19th, none otherwise). */
static mprof_event_t event_at(uint64_t i, char *text) {
  mprof_event_t ev;
  memset(&ev, 0, sizeof ev);
  ev.time_ticks = i * 7;
  ev.kind = (mprof_event_kind_t)(i % MPROF_EVENT_KIND_COUNT);
  ev.stream = (uint32_t)(i % 5);
  ev.thread = i ^ 0x55;
  ev.a = i + 1;
  ev.b = i * 3;
  ev.value = -(int64_t)i;
  if (i % 3 == 0) {
    ev.text_length = (size_t)snprintf(text, 32, "%0*llu", (int)(i % 23),
                                      (unsigned long long)i);
    ev.text = text;
  } else if (i % 19 == 0) {
    ev.text = text; /* empty */
  }
  return ev;
}

/* How many events each put carries: 1, 2, 3 .. then a long one. */
static size_t put_size(size_t k) { return k % 50 == 49 ? PUT_MOST : 1 + k % 7; }

/* The producer's events and their texts, overwritten put after put. */
static mprof_event_t buffer[PUT_MOST];
static char texts[PUT_MOST][32];

typedef struct producer_s {
  size_t events;    /* how many to make */
  int result;       /* what to return at the end */
  int put_failed;   /* a put failed (the caller stopped) */
  size_t made;      /* events put */
  int edit;         /* its puts edit their copies (edit_copies()) */
  size_t fail_at;   /* the edit of the put with this event fails */
  size_t bad_texts; /* copies whose text was not the relay's copy */
} producer_t;

/* An event's fields as edit_copies() leaves them. */
static void edited(mprof_event_t *ev) {
  ev->value = ~ev->value;
  ev->stream = (uint32_t)(ev->time_ticks / 7 % 3);
}

/* The producer's edit: every copy edited, in place (their texts are the
 * relay's copies: counted if one is the producer's); it fails for the put
 * that holds fail_at. */
static int edit_copies(void *context, mprof_event_t *copies, size_t count) {
  producer_t *p = context;
  for (size_t i = 0; i < count; i++) {
    const char *text = copies[i].text;
    if (text && text >= &texts[0][0] && text < &texts[0][0] + sizeof texts)
      p->bad_texts++;
    edited(&copies[i]);
  }
  return p->fail_at >= p->made && p->fail_at < p->made + count ? MPROF_ENOMEM
                                                               : 0;
}

static int produce(void *context, mprof_relay_t *relay) {
  producer_t *p = context;
  for (size_t k = 0; p->made < p->events; k++) {
    size_t n = put_size(k);
    if (n > p->events - p->made) n = p->events - p->made;
    for (size_t i = 0; i < n; i++) buffer[i] = event_at(p->made + i, texts[i]);
    int err = p->edit ? mprof_relay_put_edited(relay, buffer, n, edit_copies, p)
                      : mprof_relay_put(relay, buffer, n);
    memset(texts, '#', sizeof texts); /* the next packet, as it were */
    if (err) {
      p->put_failed = 1;
      return err;
    }
    p->made += n;
  }
  return p->result;
}

static void assert_same_event(const mprof_event_t *got, uint64_t i, int edit) {
  char text[32];
  mprof_event_t want = event_at(i, text);
  if (edit) edited(&want);
  assert_int_equal(got->time_ticks, want.time_ticks);
  assert_int_equal(got->kind, want.kind);
  assert_int_equal(got->stream, want.stream);
  assert_int_equal(got->thread, want.thread);
  assert_int_equal(got->a, want.a);
  assert_int_equal(got->b, want.b);
  assert_int_equal(got->value, want.value);
  assert_int_equal(got->text_length, want.text_length);
  assert_int_equal(got->text != NULL, want.text != NULL);
  if (want.text_length)
    assert_memory_equal(got->text, want.text, want.text_length);
}

/* Take every event, checking each; every `slow`th batch the caller
 * dawdles (the producer fills the ring and waits).  Returns the result
 * told at the end. */
static int take_all(mprof_relay_t *relay, size_t expected, unsigned slow,
                    int edit) {
  size_t seen = 0, batches = 0;
  const mprof_event_t *events;
  size_t count;
  int err;
  while (!(err = mprof_relay_get(relay, &events, &count)) && count) {
    for (size_t i = 0; i < count; i++)
      assert_same_event(&events[i], seen + i, edit);
    seen += count;
    if (slow && ++batches % slow == 0)
      for (volatile int spin = 0; spin < 200000; spin++) continue;
  }
  assert_int_equal(seen, expected);
  assert_null(events);
  assert_int_equal(count, 0);
  return err;
}

static void test_every_event_in_order(void **state) {
  (void)state;
  for (unsigned slow = 0; slow < 3; slow++) {
    producer_t p = {EVENTS, 0, 0, 0, 0, SIZE_MAX, 0};
    mprof_relay_t *relay;
    assert_int_equal(mprof_relay_start(produce, &p, 1 + slow * 3, &relay), 0);
    assert_int_equal(take_all(relay, EVENTS, slow, 0), 0);
    mprof_relay_stop(relay);
    assert_false(p.put_failed);
  }
}

static void test_producer_error_after_its_events(void **state) {
  (void)state;
  producer_t p = {12345, MPROF_ENOMEM, 0, 0, 0, SIZE_MAX, 0};
  mprof_relay_t *relay;
  assert_int_equal(mprof_relay_start(produce, &p, 2, &relay), 0);
  assert_int_equal(take_all(relay, 12345, 0, 0), MPROF_ENOMEM);
  mprof_relay_stop(relay);
}

static void test_edited_copies(void **state) {
  (void)state;
  for (unsigned slow = 0; slow < 2; slow++) {
    producer_t p = {EVENTS, 0, 0, 0, 1, SIZE_MAX, 0};
    mprof_relay_t *relay;
    assert_int_equal(mprof_relay_start(produce, &p, 2 + slow, &relay), 0);
    assert_int_equal(take_all(relay, EVENTS, slow, 1), 0);
    mprof_relay_stop(relay);
    assert_int_equal(p.bad_texts, 0);
  }
}

/* Take every event (edited) until the end: how many there were, and
 * the error told at the end in *err. */
static size_t take_edited(mprof_relay_t *relay, int *err) {
  size_t seen = 0;
  const mprof_event_t *events;
  size_t count;
  while (!(*err = mprof_relay_get(relay, &events, &count)) && count) {
    for (size_t i = 0; i < count; i++)
      assert_same_event(&events[i], seen + i, 1);
    seen += count;
  }
  return seen;
}

/* The put that holds fail_at fails in its edit: the caller gets every
 * event before that put, edited, then the error; so too where the put
 * is the first of all, with no event to hand on. */
static void test_failed_edit_hands_on_none(void **state) {
  (void)state;
  size_t fail_at[] = {60001, 0};
  for (size_t k = 0; k < 2; k++) {
    producer_t p = {EVENTS, 0, 0, 0, 1, fail_at[k], 0};
    mprof_relay_t *relay;
    assert_int_equal(mprof_relay_start(produce, &p, 2, &relay), 0);
    int err;
    size_t seen = take_edited(relay, &err);
    assert_int_equal(err, MPROF_ENOMEM);
    mprof_relay_stop(relay);
    assert_true(p.put_failed);
    assert_int_equal(seen, p.made); /* the put that failed: none of it */
    assert_true(p.made <= fail_at[k] && fail_at[k] - p.made < PUT_MOST);
  }
}

/* An edit that fails for its put's second text. */
static int fail_on_dead(void *context, mprof_event_t *copies, size_t count) {
  (void)context;
  for (size_t i = 0; i < count; i++)
    if (copies[i].text_length && !memcmp(copies[i].text, "DEAD", 4))
      return MPROF_ENOMEM;
  return 0;
}

/* Puts after a failed one: its texts leave no gap that later texts
 * would be pointed into when the batch's texts move (a long text). */
static int produce_after_failure(void *context, mprof_relay_t *relay) {
  (void)context;
  static char big[5000];
  memset(big, 'b', sizeof big);
  const char *words[] = {"first", "DEAD-DEAD-DEAD", "third", big};
  size_t lengths[] = {5, 14, 5, sizeof big};
  for (int i = 0; i < 4; i++) {
    mprof_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.a = (uint64_t)i;
    ev.text = words[i];
    ev.text_length = lengths[i];
    int err = mprof_relay_put_edited(relay, &ev, 1, fail_on_dead, NULL);
    if (err != (i == 1 ? MPROF_ENOMEM : 0)) return MPROF_EINVAL;
  }
  return 0;
}

static void test_puts_after_a_failed_edit(void **state) {
  (void)state;
  mprof_relay_t *relay;
  assert_int_equal(mprof_relay_start(produce_after_failure, NULL, 2, &relay),
                   0);
  const mprof_event_t *events;
  size_t count;
  assert_int_equal(mprof_relay_get(relay, &events, &count), 0);
  assert_int_equal(count, 3);
  assert_int_equal(events[0].a, 0);
  assert_memory_equal(events[0].text, "first", 5);
  assert_int_equal(events[1].a, 2);
  assert_memory_equal(events[1].text, "third", 5);
  assert_int_equal(events[2].a, 3);
  assert_int_equal(events[2].text_length, 5000);
  assert_int_equal(events[2].text[0], 'b');
  assert_int_equal(events[2].text[4999], 'b');
  assert_int_equal(mprof_relay_get(relay, &events, &count), 0);
  assert_int_equal(count, 0);
  mprof_relay_stop(relay);
}

static void test_caller_stops_early(void **state) {
  (void)state;
  producer_t p = {EVENTS * 10, 0, 0, 0, 0, SIZE_MAX, 0};
  mprof_relay_t *relay;
  assert_int_equal(mprof_relay_start(produce, &p, 2, &relay), 0);
  const mprof_event_t *events;
  size_t count;
  assert_int_equal(mprof_relay_get(relay, &events, &count), 0);
  assert_true(count > 0);
  assert_same_event(&events[0], 0, 0);
  mprof_relay_stop(relay); /* returns once the producer's thread ended */
  assert_true(p.put_failed);
  assert_true(p.made < EVENTS * 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_event_in_order),
      cmocka_unit_test(test_producer_error_after_its_events),
      cmocka_unit_test(test_caller_stops_early),
      cmocka_unit_test(test_edited_copies),
      cmocka_unit_test(test_failed_edit_hands_on_none),
      cmocka_unit_test(test_puts_after_a_failed_edit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
