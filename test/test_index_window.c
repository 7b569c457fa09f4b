/* test_index_window.c -- the model of a window of a trace, built from the
 * packets its index chooses (mprof_index_window(),
 * mprof_model_load_packets()), against the model of the whole trace.
 *
 *   test_index_window TRACE T0_NS T1_NS
 *
 * Every thread the window's model saw created inside [T0, T1) is the
 * whole model's thread of that id: created at the same time, by the same
 * creator, and within the window running in the same spans and at the
 * ends of the same arrows (kind, time, the other end's id).  The window's
 * model decodes fewer events than the trace holds.  Prints what it
 * compared.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/index.h"
#include "mprof/model.h"

static int failures;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL: " __VA_ARGS__);                                   \
      fputc('\n', stderr);                                                     \
      if (++failures > 10) exit(1);                                            \
    }                                                                          \
  } while (0)

/* A thing drawn for a thread, in terms both models share. */
typedef struct item_s {
  uint64_t thread; /* its id */
  int64_t start_ns, end_ns;
  uint64_t other; /* an arrow's other end's id (0: a span) */
  uint32_t kind;  /* an arrow's kind, and whether the thread is its head */
} item_t;

typedef struct items_s {
  item_t *items;
  size_t count, capacity;
} items_t;

static void push(items_t *list, item_t item) {
  if (list->count == list->capacity) {
    list->capacity = list->capacity ? 2 * list->capacity : 1024;
    list->items = realloc(list->items, list->capacity * sizeof *list->items);
    if (!list->items) exit(2);
  }
  list->items[list->count++] = item;
}

static int id_order(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int item_order(const void *a, const void *b) {
  return memcmp(a, b, sizeof(item_t));
}

/* The ids of the threads model saw created in [t0, t1), sorted. */
static uint64_t *created_inside(const mprof_model_t *model, int64_t t0,
                                int64_t t1, size_t *count) {
  const mprof_model_view_t *v = mprof_model_view(model);
  uint64_t *ids = calloc(v->thread_count + 1, sizeof *ids);
  size_t n = 0;
  for (size_t i = 1; i < v->thread_count; i++) {
    const mprof_thread_t *t = &v->threads[i];
    if (!(t->flags & MPROF_THREAD_PREEXISTING) && t->start_ns >= t0 &&
        t->start_ns < t1)
      ids[n++] = t->id;
  }
  qsort(ids, n, sizeof *ids, id_order);
  *count = n;
  return ids;
}

static int among(uint64_t id, const uint64_t *ids, size_t n) {
  return bsearch(&id, ids, n, sizeof *ids, id_order) != NULL;
}

/* What model draws in [t0, t1) for the threads ids: running spans cut to
 * the window, and arrows, sorted. */
static items_t drawn(const mprof_model_t *model, int64_t t0, int64_t t1,
                     const uint64_t *ids, size_t n) {
  const mprof_model_view_t *v = mprof_model_view(model);
  items_t list = {NULL, 0, 0};
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (s.thread == MPROF_NO_THREAD || s.end_ns <= t0 || s.start_ns >= t1)
      continue;
    uint64_t id = v->threads[s.thread].id;
    if (among(id, ids, n))
      push(&list, (item_t){id, s.start_ns > t0 ? s.start_ns : t0,
                           s.end_ns < t1 ? s.end_ns : t1, 0, 0});
  }
  for (size_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (a.time_ns < t0 || a.time_ns >= t1) continue;
    uint64_t from = v->threads[a.from].id, to = v->threads[a.to].id;
    if (among(from, ids, n))
      push(&list, (item_t){from, a.time_ns, a.time_ns, to, 2 * a.kind});
    if (among(to, ids, n))
      push(&list, (item_t){to, a.time_ns, a.time_ns, from, 2 * a.kind + 1});
  }
  qsort(list.items, list.count, sizeof *list.items, item_order);
  return list;
}

/* Each thread created inside: the same start and creator in both. */
static void compare_threads(const mprof_model_t *whole,
                            const mprof_model_t *part, const uint64_t *ids,
                            size_t n) {
  const mprof_model_view_t *w = mprof_model_view(whole);
  const mprof_model_view_t *p = mprof_model_view(part);
  for (size_t i = 0; i < n; i++) {
    uint32_t a = mprof_model_find(whole, ids[i]);
    uint32_t b = mprof_model_find(part, ids[i]);
    EXPECT(a != MPROF_NO_THREAD, "thread %" PRIu64 " not in the whole", ids[i]);
    if (a == MPROF_NO_THREAD) continue;
    EXPECT(w->threads[a].start_ns == p->threads[b].start_ns,
           "thread %" PRIu64 " starts at %" PRId64 ", not %" PRId64, ids[i],
           p->threads[b].start_ns, w->threads[a].start_ns);
    EXPECT(w->threads[w->threads[a].creator].id ==
               p->threads[p->threads[b].creator].id,
           "thread %" PRIu64 ": another creator", ids[i]);
  }
}

static void compare_items(const items_t *want, const items_t *got) {
  EXPECT(want->count == got->count, "%zu spans and arrow ends, not %zu",
         got->count, want->count);
  for (size_t i = 0; i < want->count && i < got->count; i++) {
    const item_t *x = &want->items[i], *y = &got->items[i];
    EXPECT(!item_order(x, y),
           "item %zu: thread %" PRIu64 " %" PRId64 "..%" PRId64
           " other %" PRIu64 " kind %u, not thread %" PRIu64 " %" PRId64
           "..%" PRId64 " other %" PRIu64 " kind %u",
           i, y->thread, y->start_ns, y->end_ns, y->other, y->kind, x->thread,
           x->start_ns, x->end_ns, x->other, x->kind);
  }
}

/* The window's model, from the packets the index chooses. */
static mprof_model_t *window_model(const mprof_trace_t *trace,
                                   const mprof_index_t *index, int64_t t0,
                                   int64_t t1, size_t *packets) {
  uint64_t start = mprof_index_first_ticks(index);
  double per_ns = (double)mprof_index_clock_freq_hz(index) / 1e9;
  size_t *list, count;
  if (mprof_index_window(index, start + (uint64_t)((double)t0 * per_ns) - 1,
                         start + (uint64_t)((double)t1 * per_ns) + 1, &list,
                         &count))
    exit(2);
  mprof_model_t *model;
  if (mprof_model_load_packets(trace, list, count, start, &model)) exit(2);
  free(list);
  *packets = count;
  return model;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return fputs("usage: test_index_window TRACE T0 T1\n", stderr), 2;
  int64_t t0 = strtoll(argv[2], NULL, 10), t1 = strtoll(argv[3], NULL, 10);
  mprof_trace_t *trace;
  mprof_index_key_t key;
  mprof_index_t *index;
  mprof_model_t *whole;
  if (mprof_trace_open(argv[1], NULL, NULL, &trace) ||
      mprof_index_key(argv[1], trace, &key) ||
      mprof_index_build(trace, &key, 0, &index) ||
      mprof_model_load(trace, &whole))
    return fprintf(stderr, "FAIL: %s: cannot be read\n", argv[1]), 1;
  EXPECT(mprof_model_view(whole)->start_ticks == mprof_index_first_ticks(index),
         "the whole model counts from another clock than the index's first");
  size_t packets, n;
  mprof_model_t *part = window_model(trace, index, t0, t1, &packets);
  uint64_t *ids = created_inside(part, t0, t1, &n);
  EXPECT(n >= 100, "only %zu threads created in the window", n);
  compare_threads(whole, part, ids, n);
  items_t want = drawn(whole, t0, t1, ids, n),
          got = drawn(part, t0, t1, ids, n);
  compare_items(&want, &got);
  uint64_t events = mprof_model_view(part)->events;
  EXPECT(events < mprof_index_events(index) / 4,
         "the window's model took %" PRIu64 " of %" PRIu64 " events", events,
         mprof_index_events(index));
  printf("window %" PRId64 "..%" PRId64 " ns: %zu of %zu packets, %" PRIu64
         " of %" PRIu64 " events, %zu threads created in it, %zu spans and "
         "arrow ends the same\n",
         t0, t1, packets, mprof_index_packet_count(index), events,
         mprof_index_events(index), n, want.count);
  free(ids);
  free(want.items);
  free(got.items);
  mprof_model_free(part);
  mprof_model_free(whole);
  mprof_index_free(index);
  mprof_trace_close(trace);
  return failures ? 1 : 0;
}
