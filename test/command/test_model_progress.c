/* test_model_progress.c -- mprof_model_load_with(): its progress function
 * is told of every packet, done rising by one to the total of all the
 * traces' packets, and the model is the one mprof_model_load_many() builds.
 *
 *   test_model_progress LEGACY.ctf TRACE.ctf   (net.ctf, a trace_gen trace)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mprof/model.h"

static const char *paths[2];

/* What the progress function was told. */
typedef struct told_s {
  size_t calls, last_done, total;
  int out_of_order; /* done did not rise by one, or total changed */
} told_t;

static void tell(void *context, size_t done, size_t total) {
  told_t *t = context;
  if (done != t->last_done + 1 || (t->calls && total != t->total))
    t->out_of_order = 1;
  t->calls++;
  t->last_done = done;
  t->total = total;
}

/* The models hold the same: counts, times, and every thread. */
static void assert_same_model(const mprof_model_t *a, const mprof_model_t *b) {
  const mprof_model_view_t *va = mprof_model_view(a), *vb = mprof_model_view(b);
  assert_int_equal(va->events, vb->events);
  assert_int_equal(va->thread_count, vb->thread_count);
  assert_int_equal(va->arrow_count, vb->arrow_count);
  assert_int_equal(va->running_count, vb->running_count);
  assert_int_equal(va->duration_ns, vb->duration_ns);
  for (size_t i = 0; i < va->thread_count; i++) {
    const mprof_thread_t *ta = &va->threads[i], *tb = &vb->threads[i];
    assert_int_equal(ta->id, tb->id);
    assert_int_equal(ta->start_ns, tb->start_ns);
    assert_int_equal(ta->end_ns, tb->end_ns);
    assert_int_equal(ta->creator, tb->creator);
    assert_int_equal(ta->row, tb->row);
    assert_int_equal(ta->ending, tb->ending);
  }
}

/* Load traces[0 .. count) both ways and compare. */
static void check_load(mprof_trace_t **traces, size_t count,
                       const int64_t *offsets_ns) {
  const mprof_trace_t *const *all = (const mprof_trace_t *const *)traces;
  size_t packets = 0;
  for (size_t i = 0; i < count; i++)
    packets += mprof_trace_packet_count(traces[i]);
  told_t told = {0, 0, 0, 0};
  mprof_model_load_options_t options = {offsets_ns, tell, &told};
  mprof_model_t *with, *many;
  assert_int_equal(mprof_model_load_with(all, count, &options, &with), 0);
  assert_int_equal(mprof_model_load_many(all, count, offsets_ns, &many), 0);
  assert_true(packets > 1);
  assert_int_equal(told.calls, packets);
  assert_int_equal(told.last_done, packets);
  assert_int_equal(told.total, packets);
  assert_false(told.out_of_order);
  assert_same_model(with, many);
  mprof_model_free(with);
  mprof_model_free(many);
}

static void test_progress_told_of_every_packet(void **state) {
  (void)state;
  mprof_trace_t *traces[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(mprof_trace_open(paths[i], NULL, NULL, &traces[i]), 0);
  check_load(&traces[0], 1, NULL); /* legacy */
  check_load(&traces[1], 1, NULL);
  mprof_trace_t *twice[2] = {traces[1], traces[1]};
  int64_t offsets_ns[2] = {0, 5000};
  check_load(twice, 2, offsets_ns);
  for (int i = 0; i < 2; i++) mprof_trace_close(traces[i]);
}

/* No options, or options with no function: mprof_model_load() exactly. */
static void test_no_options(void **state) {
  (void)state;
  mprof_trace_t *trace;
  assert_int_equal(mprof_trace_open(paths[1], NULL, NULL, &trace), 0);
  const mprof_trace_t *const *one = (const mprof_trace_t *const *)&trace;
  mprof_model_load_options_t nothing = {NULL, NULL, NULL};
  mprof_model_t *a, *b, *c;
  assert_int_equal(mprof_model_load_with(one, 1, NULL, &a), 0);
  assert_int_equal(mprof_model_load_with(one, 1, &nothing, &b), 0);
  assert_int_equal(mprof_model_load(trace, &c), 0);
  assert_same_model(a, c);
  assert_same_model(b, c);
  mprof_model_free(a);
  mprof_model_free(b);
  mprof_model_free(c);
  assert_int_equal(mprof_model_load_with(one, 0, NULL, &a), MPROF_EINVAL);
  mprof_trace_close(trace);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_model_progress LEGACY.ctf TRACE.ctf\n");
    return 2;
  }
  paths[0] = argv[1];
  paths[1] = argv[2];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_progress_told_of_every_packet),
      cmocka_unit_test(test_no_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
