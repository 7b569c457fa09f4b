/* stream_oracle.c -- the streaming analysis against the model's, field by
 * field, on one trace or a merged pair (test_stream.sh drives it):
 *
 *   stream_oracle TRACE [TRACE2]
 *
 * Threads are compared by their ids in the trace (the two results index
 * different thread lists); every section the streaming analysis fills
 * (mprof/model.h, mprof_stream_result_t) must be the model's, and the
 * stream must have met no late reference.  Prints the first difference
 * and exits 1; exits 0 and prints "same: ..." when all agree; exits 3
 * when a trace cannot be opened at all. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/model.h"

/* The models and analyses compared. */
typedef struct sides_s {
  const mprof_model_t *m, *n; /* the model's, the stream's named one */
  const mprof_analysis_t *a, *b;
} sides_t;

static int failed;

static void differ(const char *what, size_t i, int64_t model, int64_t stream) {
  if (failed++) return;
  printf("differ: %s [%zu]: model %" PRId64 ", stream %" PRId64 "\n", what, i,
         model, stream);
}

#define SAME(what, i, x, y)                                                    \
  do {                                                                         \
    if ((int64_t)(x) != (int64_t)(y))                                          \
      differ(what, i, (int64_t)(x), (int64_t)(y));                             \
  } while (0)

static uint64_t id_in(const mprof_model_t *m, uint32_t t) {
  return t == MPROF_NO_THREAD ? UINT64_MAX : mprof_model_view(m)->threads[t].id;
}

static void same_text(const char *what, size_t i, const char *x,
                      const char *y) {
  if (strcmp(x, y) && !failed++)
    printf("differ: %s [%zu]: model \"%s\", stream \"%s\"\n", what, i, x, y);
}

static void same_thread(const sides_t *s, const char *what, size_t i,
                        uint32_t x, uint32_t y) {
  char nx[256], ny[256];
  SAME(what, i, id_in(s->m, x), id_in(s->n, y));
  if (x == MPROF_NO_THREAD || y == MPROF_NO_THREAD) return;
  same_text(what, i, mprof_model_thread_name(s->m, x, nx, sizeof nx),
            mprof_model_thread_name(s->n, y, ny, sizeof ny));
  const char *lx = mprof_model_thread_label(s->m, x);
  const char *ly = mprof_model_thread_label(s->n, y);
  same_text(what, i, lx ? lx : "", ly ? ly : "");
}

static void same_requests(const sides_t *s) {
  const mprof_analysis_t *a = s->a, *b = s->b;
  SAME("request kinds", 0, a->request_count, b->request_count);
  for (size_t i = 0; !failed && i < a->request_count; i++) {
    const mprof_request_group_t *x = &a->requests[i], *y = &b->requests[i];
    same_text("request kind", i, a->text + x->name, b->text + y->name);
    SAME("type", i, x->type, y->type);
    SAME("count", i, x->count, y->count);
    SAME("failed", i, x->failed, y->failed);
    SAME("pending", i, x->pending, y->pending);
    SAME("p50", i, x->p50_ns, y->p50_ns);
    SAME("p90", i, x->p90_ns, y->p90_ns);
    SAME("p99", i, x->p99_ns, y->p99_ns);
    SAME("max", i, x->max_ns, y->max_ns);
    SAME("queue p50", i, x->queue_p50_ns, y->queue_p50_ns);
    SAME("queue max", i, x->queue_max_ns, y->queue_max_ns);
    SAME("run p50", i, x->run_p50_ns, y->run_p50_ns);
    SAME("run max", i, x->run_max_ns, y->run_max_ns);
    same_thread(s, "slowest", i, x->slowest, y->slowest);
    SAME("failures", i, x->failure_count, y->failure_count);
    for (uint32_t k = 0; !failed && k < x->failure_count; k++) {
      const mprof_failure_count_t *fx = &a->failures[x->first_failure + k];
      const mprof_failure_count_t *fy = &b->failures[y->first_failure + k];
      same_text("error", k, mprof_model_view(s->m)->strings + fx->error,
                mprof_model_view(s->n)->strings + fy->error);
      SAME("error count", k, fx->count, fy->count);
      same_thread(s, "error example", k, fx->example, fy->example);
    }
  }
}

/* Arrow x of the model and y of the stream's. */
static void same_arrow(const sides_t *s, const char *what, size_t i, uint32_t x,
                       uint32_t y) {
  mprof_arrow_t ax = mprof_arrow_at(mprof_model_view(s->m), x);
  mprof_arrow_t ay = mprof_arrow_at(mprof_model_view(s->n), y);
  SAME(what, i, ax.time_ns, ay.time_ns);
  SAME(what, i, ax.kind, ay.kind);
  same_thread(s, what, i, ax.from, ay.from);
  same_thread(s, what, i, ax.to, ay.to);
}

static void same_stalls(const sides_t *s) {
  SAME("stalls", 0, s->a->stall_count, s->b->stall_count);
  for (size_t i = 0; !failed && i < s->a->stall_count; i++) {
    const mprof_stall_t *x = &s->a->stalls[i], *y = &s->b->stalls[i];
    same_thread(s, "stalled", i, x->thread, y->thread);
    same_thread(s, "stalled as", i, x->last, y->last);
    SAME("arrows before the stall", i, x->arrow_count, y->arrow_count);
    for (uint32_t k = 0; !failed && k < x->arrow_count; k++)
      same_arrow(s, "arrow before the stall", k,
                 s->a->arrow_refs[x->first_arrow + k],
                 s->b->arrow_refs[y->first_arrow + k]);
  }
}

static void same_cycles(const sides_t *s) {
  SAME("wait cycles", 0, s->a->cycle_count, s->b->cycle_count);
  for (size_t i = 0; !failed && i < s->a->cycle_count; i++) {
    const mprof_chain_t *x = &s->a->cycles[i], *y = &s->b->cycles[i];
    SAME("cycle length", i, x->length, y->length);
    SAME("cycle start", i, x->start_ns, y->start_ns);
    SAME("cycle end", i, x->end_ns, y->end_ns);
    for (uint32_t k = 0; !failed && k < x->length; k++)
      same_thread(s, "cycle member", k, s->a->chain_threads[x->first + k],
                  s->b->chain_threads[y->first + k]);
  }
}

static void same_lost_wakeups(const sides_t *s) {
  SAME("lost wake-ups", 0, s->a->lost_wakeup_count, s->b->lost_wakeup_count);
  for (size_t i = 0; !failed && i < s->a->lost_wakeup_count; i++) {
    const mprof_lost_wakeup_t *x = &s->a->lost_wakeups[i];
    const mprof_lost_wakeup_t *y = &s->b->lost_wakeups[i];
    same_thread(s, "lost wake-up's condition", i, x->condition, y->condition);
    same_thread(s, "lost wake-up's waiter", i, x->waiter, y->waiter);
    same_arrow(s, "lost wake-up's signal", i, x->signal_arrow, y->signal_arrow);
  }
}

/* The report's order: the longer life, then the lower index. */
static const mprof_analysis_t *sorting;
static int by_life(const void *pa, const void *pb) {
  const mprof_thread_time_t *x = &sorting->times[*(const uint32_t *)pa];
  const mprof_thread_time_t *y = &sorting->times[*(const uint32_t *)pb];
  if (x->life_ns != y->life_ns) return x->life_ns > y->life_ns ? -1 : 1;
  return (x->thread > y->thread) - (x->thread < y->thread);
}

static uint32_t *ordered(const mprof_analysis_t *a) {
  uint32_t *order = malloc(a->time_count * sizeof *order + 1);
  for (size_t i = 1; i < a->time_count; i++) order[i - 1] = (uint32_t)i;
  sorting = a;
  if (a->time_count > 2)
    qsort(order, a->time_count - 1, sizeof *order, by_life);
  return order;
}

static void same_times(const sides_t *s, size_t top) {
  uint32_t *ox = ordered(s->a), *oy = ordered(s->b);
  size_t n = s->a->time_count - 1;
  if (top && n > top) n = top;
  SAME("times kept", 0, n, s->b->time_count - 1);
  for (size_t i = 0; !failed && i < n; i++) {
    const mprof_thread_time_t *x = &s->a->times[ox[i]],
                              *y = &s->b->times[oy[i]];
    same_thread(s, "time of", i, x->thread, y->thread);
    SAME("life", i, x->life_ns, y->life_ns);
    SAME("running", i, x->running_ns, y->running_ns);
    SAME("waiting", i, x->waiting_ns, y->waiting_ns);
    SAME("in poll", i, x->in_poll_ns, y->in_poll_ns);
    SAME("not running", i, x->not_running_ns, y->not_running_ns);
    SAME("waits", i, x->wait_count, y->wait_count);
    for (uint32_t k = 0; !failed && k < x->wait_count; k++) {
      same_thread(s, "waited on", k, s->a->waits[x->first_wait + k].on,
                  s->b->waits[y->first_wait + k].on);
      SAME("waited", k, s->a->waits[x->first_wait + k].ns,
           s->b->waits[y->first_wait + k].ns);
    }
  }
  free(ox);
  free(oy);
}

/* The findings of the kinds the stream makes, in order. */
static int streamed_kind(uint32_t kind) {
  return kind == MPROF_FINDING_LOST_WAKEUP ||
         kind == MPROF_FINDING_WAIT_CYCLE || kind == MPROF_FINDING_STALLED ||
         kind == MPROF_FINDING_LEAKED || kind == MPROF_FINDING_CANNOT_TELL ||
         kind == MPROF_FINDING_WRITE_BACKLOG ||
         kind == MPROF_FINDING_RETRY_STORM ||
         kind == MPROF_FINDING_POOL_SATURATED ||
         kind == MPROF_FINDING_LOOP_BLOCKED || kind == MPROF_FINDING_BUSY_LOOP;
}

static void same_findings(const sides_t *s) {
  size_t j = 0;
  for (size_t i = 0; !failed && i < s->a->finding_count; i++) {
    const mprof_finding_t *x = &s->a->findings[i];
    if (!streamed_kind(x->kind)) continue;
    if (j >= s->b->finding_count) {
      differ("findings", i, (int64_t)s->a->finding_count, (int64_t)j);
      return;
    }
    const mprof_finding_t *y = &s->b->findings[j++];
    SAME("finding kind", i, x->kind, y->kind);
    SAME("severity", i, x->severity, y->severity);
    same_text("summary", i, s->a->text + x->summary, s->b->text + y->summary);
    SAME("finding start", i, x->start_ns, y->start_ns);
    SAME("finding end", i, x->end_ns, y->end_ns);
    SAME("finding value", i, x->value_ns, y->value_ns);
    SAME("finding threads", i, x->thread_count, y->thread_count);
    for (uint32_t k = 0; !failed && k < x->thread_count; k++)
      same_thread(s, "finding thread", k,
                  s->a->finding_threads[x->first_thread + k],
                  s->b->finding_threads[y->first_thread + k]);
    SAME("evidence", i, x->evidence_count, y->evidence_count);
    for (uint32_t k = 0; !failed && k < x->evidence_count; k++) {
      const mprof_evidence_t *ex = &s->a->evidence[x->first_evidence + k];
      const mprof_evidence_t *ey = &s->b->evidence[y->first_evidence + k];
      SAME("evidence kind", k, ex->kind, ey->kind);
      same_thread(s, "evidence thread", k, ex->thread, ey->thread);
      SAME("evidence count", k, ex->count, ey->count);
      SAME("evidence start", k, ex->start_ns, ey->start_ns);
      SAME("evidence end", k, ex->end_ns, ey->end_ns);
      if (ex->kind == MPROF_EVIDENCE_ARROW)
        same_arrow(s, "evidence arrow", k, ex->arrow, ey->arrow);
    }
  }
  SAME("findings", 0, j, s->b->finding_count);
}

static size_t count_kind(const mprof_analysis_t *a, uint32_t kind) {
  size_t n = 0;
  for (size_t i = 0; i < a->finding_count; i++)
    n += a->findings[i].kind == kind;
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: stream_oracle TRACE [TRACE2]\n");
    return 2;
  }
  mprof_trace_t *traces[2];
  int count = argc - 1;
  for (int i = 0; i < count; i++)
    if (mprof_trace_open(argv[i + 1], NULL, NULL, &traces[i])) {
      fprintf(stderr, "stream_oracle: %s: cannot open\n", argv[i + 1]);
      return 3;
    }
  const mprof_trace_t *const *list = (const mprof_trace_t *const *)traces;
  mprof_model_t *m;
  mprof_analysis_t a;
  mprof_stream_result_t r;
  mprof_stream_options_t options = {{0, 0, 0}, 10, NULL, NULL, NULL, NULL};
  if (mprof_model_load_many(list, (size_t)count, NULL, &m) ||
      mprof_model_analyse(m, &a) ||
      mprof_analysis_stream(list, (size_t)count, &options, &r)) {
    fprintf(stderr, "stream_oracle: %s: analysis failed\n", argv[1]);
    return 2;
  }
  const mprof_model_view_t *v = mprof_model_view(m),
                           *w = mprof_model_view(r.named);
  sides_t s = {m, r.named, &a, &r.analysis};
  SAME("late references", 0, 0, r.late);
  SAME("events", 0, v->events, w->events);
  SAME("threads", 0, v->thread_count - 1, r.thread_count);
  SAME("streams", 0, v->stream_count, w->stream_count);
  SAME("discarded", 0, v->discarded, w->discarded);
  SAME("duration", 0, v->duration_ns, w->duration_ns);
  SAME("end", 0, v->end_ns, w->end_ns);
  same_requests(&s);
  same_stalls(&s);
  same_lost_wakeups(&s);
  same_cycles(&s);
  same_times(&s, 10);
  same_findings(&s);
  if (!failed)
    printf("same: %" PRIu64 " events, %zu request kinds, %zu stalls, %zu "
           "findings, %zu loop_blocked, %zu busy_loop\n",
           v->events, a.request_count, a.stall_count, r.analysis.finding_count,
           count_kind(&r.analysis, MPROF_FINDING_LOOP_BLOCKED),
           count_kind(&r.analysis, MPROF_FINDING_BUSY_LOOP));
  mprof_stream_result_free(&r);
  mprof_analysis_free(&a);
  mprof_model_free(m);
  for (int i = 0; i < count; i++) mprof_trace_close(traces[i]);
  return failed ? 1 : 0;
}
