/* findings_requests.c -- the findings about requests (docs/analysis.md):
 * the thread pool's queue (pool_saturated), requests left pending
 * (leaked), failures retried again and again (retry_storm) and writes
 * that pile up (write_backlog). */
#include <string.h>

#include "findings_internal.h"

/* A retry storm: this many failures in a row, each request made again
 * within STORM_RETRY_NS of the failure before. */
#define STORM_FAILURES 5
#define STORM_RETRY_NS 1000000000
/* A write backlog: BACKLOG_WRITES (analysis_internal.h) writes pending at
 * once, each pending this long in all. */
#define BACKLOG_AGE_NS 100000000

/* --- The thread pool ------------------------------------------------------ */

typedef struct pool_s {
  const int64_t *queue_ns, *run_ns; /* by thread (the facts') */
  uint32_t size;                    /* OS threads the pool's work ran on */
} pool_t;

/* OS threads (streams) off the loops that ran work. */
static uint32_t pool_size(const finder_t *f, const pool_t *p) {
  uint8_t *seen = calloc(f->v->stream_count + 1, 1);
  uint32_t size = 0;
  if (!seen) return 0;
  for (size_t i = 0; i < f->v->running_count; i++) {
    mprof_span_t s = mprof_running_at(f->v, i);
    if (p->run_ns[s.thread] >= 0 && !f->loop_stream[s.stream] &&
        !seen[s.stream]) {
      seen[s.stream] = 1;
      size++;
    }
  }
  free(seen);
  return size;
}

static int pool_saturated(finder_t *f, const mprof__pool_t *p) {
  const mprof__late_t *worst = &p->longest[0];
  mprof__finding_begin(f, MPROF_FINDING_POOL_SATURATED, MPROF_SEVERITY_WARNING,
                       p->start_ns, p->end_ns);
  f->current.value_ns = worst->queue_ns;
  mprof__put_uint(&f->text, (uint64_t)p->late_count);
  mprof__put(&f->text,
             " work requests waited in the thread pool's queue longer than"
             " they ran (a pool of ");
  mprof__put_uint(&f->text, p->size);
  mprof__put(&f->text, p->size == 1 ? " thread" : " threads");
  mprof__put(&f->text, "); the longest, ");
  mprof__put_thread(&f->text, f->m, worst->thread);
  mprof__put(&f->text, ", waited ");
  mprof__put_duration(&f->text, worst->queue_ns);
  mprof__put(&f->text, " to run ");
  mprof__put_duration(&f->text, worst->run_ns);
  int err = 0;
  for (size_t k = 0; !err && k < p->longest_count; k++) {
    const mprof__late_t *l = &p->longest[k];
    int64_t ran = l->created_ns + l->queue_ns;
    err = mprof__finding_thread(f, l->thread);
    if (!err)
      err = mprof__finding_evidence(f, MPROF_EVIDENCE_QUEUED, l->thread,
                                    MPROF_NO_THREAD, 1, l->created_ns, ran);
    if (!err)
      err = mprof__finding_evidence(f, MPROF_EVIDENCE_RAN, l->thread,
                                    MPROF_NO_THREAD, 1, ran, ran + l->run_ns);
  }
  return err ? err : mprof__finding_commit(f);
}

int mprof__pool_add(mprof__pool_t *p, const mprof__late_t *late,
                    mprof__late_t *dropped) {
  if (!p->late_count || late->created_ns < p->start_ns)
    p->start_ns = late->created_ns;
  int64_t ran = late->created_ns + late->queue_ns + late->run_ns;
  if (!p->late_count || ran > p->end_ns) p->end_ns = ran;
  p->late_count++;
  size_t k =
      p->longest_count < POOL_LONGEST ? p->longest_count++ : POOL_LONGEST;
  int full = k == POOL_LONGEST;
  if (full) {
    if (!mprof__late_before(late, &p->longest[k - 1])) {
      *dropped = *late;
      return 1;
    }
    *dropped = p->longest[--k];
  }
  for (; k > 0 && mprof__late_before(late, &p->longest[k - 1]); k--)
    p->longest[k] = p->longest[k - 1];
  p->longest[k] = *late;
  return full;
}

static int by_time(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* When each work request first ran in the pool, sorted (its count in
 * *count). */
static int64_t *pool_starts(const finder_t *f, const pool_t *p, size_t *count) {
  int64_t *starts = malloc((f->v->thread_count + 1) * sizeof *starts);
  *count = 0;
  if (!starts) return NULL;
  for (uint32_t t = 1; t < f->v->thread_count; t++)
    if (p->run_ns[t] >= 0)
      starts[(*count)++] = f->v->threads[t].start_ns + p->queue_ns[t];
  qsort(starts, *count, sizeof *starts, by_time);
  return starts;
}

/* How many of the sorted times fall in (from, to). */
static size_t count_between(const int64_t *sorted, size_t n, int64_t from,
                            int64_t to) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= from)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t first = lo;
  for (hi = n; lo < hi;) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < to)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - first;
}

/* Work that waited in the queue longer than it ran (and a millisecond at
 * least) while the pool started as many other jobs as it has threads or
 * more (a job that only waited for the pool to start is not late), as
 * many such jobs as the pool has threads or more: the pool is too small
 * for what is asked of it. */
int mprof__find_pool(finder_t *f) {
  const mprof__pool_t *found = f->facts->pool;
  if (found)
    return found->size && found->late_count >= found->size
               ? pool_saturated(f, found)
               : 0;
  size_t n = f->v->thread_count, started = 0;
  pool_t p;
  memset(&p, 0, sizeof p);
  p.queue_ns = f->facts->queue_ns;
  p.run_ns = f->facts->run_ns;
  if (!p.queue_ns) return 0; /* no work ran */
  p.size = pool_size(f, &p);
  int64_t *starts = !p.size ? NULL : pool_starts(f, &p, &started);
  if (p.size && !starts) return MPROF_ENOMEM;
  mprof__pool_t late;
  mprof__late_t dropped;
  memset(&late, 0, sizeof late);
  late.size = p.size;
  for (uint32_t t = 1; starts && t < n; t++) {
    int64_t created = f->v->threads[t].start_ns, queue = p.queue_ns[t];
    if (p.run_ns[t] >= 0 && queue > p.run_ns[t] && queue >= POOL_LATE_NS &&
        count_between(starts, started, created, created + queue) >= p.size)
      (void)mprof__pool_add(
          &late, &(mprof__late_t){created, queue, p.run_ns[t], t, NULL},
          &dropped);
  }
  free(starts);
  return p.size && late.late_count >= p.size ? pool_saturated(f, &late) : 0;
}

/* --- Requests left pending ------------------------------------------------ */

/* One finding for the pending requests (the facts' list) of the kind of
 * the one at pending[at], from there on; done[] marks them. */
static int leaked(finder_t *f, size_t at, uint8_t *done) {
  const uint32_t *pending = f->facts->pending;
  uint32_t first = pending[at];
  char kind[128], other[128];
  mprof__request_kind(f->m, first, kind, sizeof kind);
  mprof__finding_begin(f, MPROF_FINDING_LEAKED, MPROF_SEVERITY_WARNING,
                       f->v->threads[first].start_ns, f->v->end_ns);
  uint32_t count = 0;
  int err = 0;
  for (size_t k = at; !err && k < f->facts->pending_count; k++) {
    uint32_t t = pending[k];
    if (done[k] || f->v->threads[t].type != f->v->threads[first].type) continue;
    mprof__request_kind(f->m, t, other, sizeof other);
    if (strcmp(kind, other)) continue;
    done[k] = 1;
    count++;
    err = mprof__finding_thread(f, t);
    if (!err)
      err =
          mprof__finding_evidence(f, MPROF_EVIDENCE_PENDING, t, MPROF_NO_THREAD,
                                  1, f->v->threads[t].start_ns, f->v->end_ns);
  }
  mprof__put_uint(&f->text, count);
  mprof__put(&f->text, " \"");
  mprof__put(&f->text, kind);
  mprof__put(&f->text, count == 1 ? "\" request was" : "\" requests were");
  mprof__put(&f->text, " still pending when the trace ended; the first, ");
  mprof__put_thread(&f->text, f->m, first);
  mprof__put(&f->text, ", made by ");
  mprof__put_thread(&f->text, f->m, f->v->threads[first].creator);
  mprof__put(&f->text, " at ");
  mprof__put_duration(&f->text, f->v->threads[first].start_ns);
  if (!err) err = mprof__finding_thread(f, f->v->threads[first].creator);
  return err ? err : mprof__finding_commit(f);
}

int mprof__find_leaked(finder_t *f) {
  size_t n = f->facts->pending_count;
  uint8_t *done = calloc(n + 1, 1);
  if (!done) return MPROF_ENOMEM;
  int err = 0;
  for (size_t k = 0; !err && k < n; k++)
    if (!done[k]) err = leaked(f, k, done);
  free(done);
  return err;
}

/* --- Retry storms --------------------------------------------------------- */

typedef mprof__storm_t storm_t;

static int retry_storm(finder_t *f, const storm_t *st) {
  const mprof_thread_t *first = &f->v->threads[st->first];
  mprof__finding_begin(f, MPROF_FINDING_RETRY_STORM, MPROF_SEVERITY_WARNING,
                       first->start_ns, st->last_end_ns);
  mprof__put_uint(&f->text, st->count);
  mprof__put(&f->text, " \"");
  mprof__put(&f->text, st->kind);
  mprof__put(&f->text, "\" requests failed in a row with ");
  mprof__put(&f->text, f->v->strings + st->error);
  mprof__put(&f->text, ", each made again within ");
  mprof__put_duration(&f->text, STORM_RETRY_NS);
  mprof__put(&f->text, " of the failure before, over ");
  mprof__put_duration(&f->text, st->last_end_ns - first->start_ns);
  mprof__put(&f->text, ": the first, ");
  mprof__put_thread(&f->text, f->m, st->first);
  mprof__put(&f->text, ", made by ");
  mprof__put_thread(&f->text, f->m, first->creator);
  int err = mprof__finding_thread(f, st->first);
  if (!err) err = mprof__finding_thread(f, st->last);
  if (!err) err = mprof__finding_thread(f, first->creator);
  if (!err)
    err = mprof__finding_evidence(f, MPROF_EVIDENCE_RAN, st->first,
                                  MPROF_NO_THREAD, st->count, first->start_ns,
                                  st->last_end_ns);
  return err ? err : mprof__finding_commit(f);
}

/* The storm of request t's kind and error among storms[0..n), or n. */
static size_t storm_of(const finder_t *f, const storm_t *storms, size_t n,
                       const char *kind, uint32_t t) {
  const char *error = f->v->strings + f->v->threads[t].failure;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(storms[i].kind, kind) &&
        !strcmp(f->v->strings + storms[i].error, error))
      return i;
  return n;
}

void mprof__storm_step(storm_t *run, storm_t *worst, uint32_t t,
                       uint32_t creator, int64_t start_ns, int64_t end_ns) {
  /* a retry is made by the attempt before it (in its callback, before it
   * ended) or after that one failed, and soon after */
  if (!run->count || !(creator == run->last || start_ns >= run->last_end_ns) ||
      start_ns - run->last_end_ns > STORM_RETRY_NS) {
    run->first = t;
    run->count = 0;
  }
  run->count++;
  run->last = t;
  run->last_end_ns = end_ns;
  if (run->count > worst->count) *worst = *run;
}

/* The failed requests (in creation order): a kind that failed
 * STORM_FAILURES times in a row with one error, each made again within
 * STORM_RETRY_NS of the one before, is a storm; its longest run is told
 * once (the runs found already, where the facts carry them). */
int mprof__find_storms(finder_t *f) {
  int err = 0;
  for (size_t i = 0; !err && i < f->facts->storm_count; i++)
    if (f->facts->storms[i].count >= STORM_FAILURES)
      err = retry_storm(f, &f->facts->storms[i]);
  if (f->facts->storms) return err;
  storm_t *storms = NULL, *worst = NULL;
  size_t count = 0, cap = 0, worst_cap = 0;
  char kind[128];
  for (size_t k = 0; !err && k < f->facts->failed_count; k++) {
    uint32_t t = f->facts->failed[k];
    const mprof_thread_t *th = &f->v->threads[t];
    mprof__request_kind(f->m, t, kind, sizeof kind);
    size_t i = storm_of(f, storms, count, kind, t);
    if (i == count) {
      if (mprof__grow(&storms, &cap, count + 1, sizeof *storms) ||
          mprof__grow(&worst, &worst_cap, count + 1, sizeof *worst)) {
        err = MPROF_ENOMEM;
        break;
      }
      memset(&storms[i], 0, sizeof storms[i]);
      memcpy(storms[i].kind, kind, sizeof kind);
      storms[i].error = th->failure;
      worst[i] = storms[i];
      count++;
    }
    mprof__storm_step(&storms[i], &worst[i], t, th->creator, th->start_ns,
                      th->end_ns);
  }
  for (size_t i = 0; !err && i < count; i++)
    if (worst[i].count >= STORM_FAILURES) err = retry_storm(f, &worst[i]);
  free(storms);
  free(worst);
  return err;
}

/* --- Write backlogs ------------------------------------------------------- */

typedef mprof__write_t write_t;

static int by_write_start(const void *pa, const void *pb) {
  const write_t *a = pa, *b = pb;
  if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
  return (a->thread > b->thread) - (a->thread < b->thread);
}

/* peak writes pending at `at`, writes[oldest] the oldest of those that
 * stayed pending long. */
static int backlog(finder_t *f, const write_t *writes, size_t n, size_t peak,
                   int64_t at, size_t oldest) {
  uint32_t t = writes[oldest].thread;
  int64_t waited = writes[oldest].end_ns - writes[oldest].start_ns;
  mprof__finding_begin(f, MPROF_FINDING_WRITE_BACKLOG, MPROF_SEVERITY_WARNING,
                       writes[oldest].start_ns, writes[oldest].end_ns);
  f->current.value_ns = waited;
  mprof__put_uint(&f->text, peak);
  mprof__put(&f->text, " writes were pending at ");
  mprof__put_duration(&f->text, at);
  mprof__put(&f->text, ", the oldest, ");
  mprof__put_thread(&f->text, f->m, t);
  mprof__put(&f->text, " made by ");
  mprof__put_thread(&f->text, f->m, f->v->threads[t].creator);
  mprof__put(&f->text, ", pending ");
  mprof__put_duration(&f->text, waited);
  mprof__put(&f->text,
             " in all: the writer does not wait for its writes to complete");
  int err = mprof__finding_thread(f, t);
  if (!err) err = mprof__finding_thread(f, f->v->threads[t].creator);
  for (size_t k = oldest; !err && k < n && writes[k].start_ns <= at; k++)
    if (writes[k].end_ns > at)
      err = mprof__finding_evidence(f, MPROF_EVIDENCE_PENDING, writes[k].thread,
                                    MPROF_NO_THREAD, 1, writes[k].start_ns,
                                    writes[k].end_ns);
  return err ? err : mprof__finding_commit(f);
}

/* Of the writes pending at the peak, those that stayed pending
 * BACKLOG_AGE_NS or more in all: a backlog if BACKLOG_WRITES or more (a
 * burst that drains at once is none). */
static int judge_backlog(finder_t *f, const write_t *writes, size_t n,
                         size_t peak, int64_t at) {
  if (peak < BACKLOG_WRITES) return 0;
  size_t stuck = 0, oldest = n;
  for (size_t k = 0; k < n && writes[k].start_ns <= at; k++)
    if (writes[k].end_ns > at &&
        writes[k].end_ns - writes[k].start_ns >= BACKLOG_AGE_NS) {
      if (!stuck++) oldest = k;
    }
  return stuck >= BACKLOG_WRITES ? backlog(f, writes, n, peak, at, oldest) : 0;
}

/* The most writes pending at once, and when (the first time), judged. */
int mprof__find_backlog(finder_t *f) {
  const mprof__backlog_t *found = f->facts->backlog;
  if (found)
    return judge_backlog(f, found->writes, found->count, found->peak,
                         found->at);
  size_t n = f->facts->write_count;
  if (n < BACKLOG_WRITES) return 0;
  write_t *writes = malloc(n * sizeof *writes);
  int64_t *ends = malloc(n * sizeof *ends);
  int err = !writes || !ends ? MPROF_ENOMEM : 0;
  for (size_t k = 0; !err && k < n; k++) {
    const mprof_thread_t *th = &f->v->threads[f->facts->writes[k]];
    int64_t end =
        th->ending == MPROF_ENDING_PENDING ? f->v->end_ns : th->end_ns;
    writes[k] = (write_t){th->start_ns, end, f->facts->writes[k]};
    ends[k] = end;
  }
  size_t peak = 0, pending = 0, j = 0;
  int64_t at = 0;
  if (!err) {
    qsort(writes, n, sizeof *writes, by_write_start);
    qsort(ends, n, sizeof *ends, by_time);
  }
  for (size_t k = 0; !err && k < n; k++) {
    while (j < n && ends[j] <= writes[k].start_ns) j++, pending--;
    if (++pending > peak) {
      peak = pending;
      at = writes[k].start_ns;
    }
  }
  if (!err) err = judge_backlog(f, writes, n, peak, at);
  free(writes);
  free(ends);
  return err;
}
