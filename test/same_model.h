/* same_model.h -- a check shared by the cmocka tests of the merge
 * (test_merge.c, test_merge_sort.c): two models, one loaded and one fed
 * by other means, hold the same records, field by field, and the same
 * label texts.  Include after cmocka.h. */
#ifndef MPROF_TEST_SAME_MODEL_H
#define MPROF_TEST_SAME_MODEL_H

#include <stddef.h>

#include "mprof/model.h"

/* Two views hold as many records (count) and the same bytes in each, read
 * with the accessor at (none of these record types has padding). */
#define SAME_RECORDS(a, b, type, at, count)                                    \
  do {                                                                         \
    assert_int_equal((a)->count, (b)->count);                                  \
    for (size_t i_ = 0; i_ < (a)->count; i_++) {                               \
      type x_ = at(a, i_), y_ = at(b, i_);                                     \
      assert_memory_equal(&x_, &y_, sizeof x_);                                \
    }                                                                          \
  } while (0)

/* The two models hold the same: every array, the label texts as text. */
static inline void assert_same_model(const mprof_model_t *loaded,
                                     const mprof_model_t *reference) {
  const mprof_model_view_t *a = mprof_model_view(loaded);
  const mprof_model_view_t *b = mprof_model_view(reference);
  assert_int_equal(a->events, b->events);
  assert_int_equal(a->duration_ns, b->duration_ns);
  assert_int_equal(a->start_ticks, b->start_ticks);
  assert_int_equal(a->thread_count, b->thread_count);
  assert_memory_equal(a->threads, b->threads,
                      a->thread_count * sizeof *a->threads);
  SAME_RECORDS(a, b, mprof_arrow_t, mprof_arrow_at, arrow_count);
  SAME_RECORDS(a, b, mprof_span_t, mprof_running_at, running_count);
  SAME_RECORDS(a, b, mprof_sample_t, mprof_sample_at, sample_count);
  assert_int_equal(a->label_count, b->label_count);
  for (size_t i = 0; i < a->label_count; i++) {
    mprof_label_t la = mprof_label_at(a, i), lb = mprof_label_at(b, i);
    assert_int_equal(la.time_ns, lb.time_ns);
    assert_int_equal(la.thread, lb.thread);
    assert_string_equal(a->strings + la.text, b->strings + lb.text);
  }
}

#endif
