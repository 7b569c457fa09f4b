/* stream_settle.c -- what a thread of the streaming analysis (stream.c)
 * leaves to it once it can change no more, and the result: each thread's
 * time (kept among the `top` longest-lived), its request figures (by
 * kind: count, failures, a sketch of the lives, the slowest), and at the
 * end the stalls, the requests left pending, the threads from before the
 * trace; then the threads the analysis names as a small model, and the
 * findings written by findings.c from it. */
#include <string.h>

#include "stream_internal.h"

/* --- Sketches ------------------------------------------------------------- */

/* The bucket of v >= 0: itself below 1024, else 128 a power of two. */
static size_t bucket_of(int64_t v) {
  if (v < 1024) return (size_t)v;
  int e = 63 - __builtin_clzll((uint64_t)v);
  return 1024 + (size_t)(e - 10) * 128 +
         (size_t)(((uint64_t)v >> (e - 7)) & 127);
}

/* The least value of bucket b. */
static int64_t bucket_floor(size_t b) {
  if (b < 1024) return (int64_t)b;
  size_t e = (b - 1024) / 128 + 10, m = (b - 1024) % 128;
  return (int64_t)((128 + m) << (e - 7));
}

int mprof__sketch_add(sketch_t *k, int64_t v) {
  if (v < 0) return 0;
  k->total++;
  if (!k->buckets && k->count < STREAM_EXACT) {
    if (mprof__grow(&k->values, &k->cap, k->count + 1, sizeof *k->values))
      return MPROF_ENOMEM;
    k->values[k->count++] = v;
    return 0;
  }
  if (!k->buckets) {
    if (!(k->buckets = calloc(SKETCH_BUCKETS, sizeof *k->buckets)))
      return MPROF_ENOMEM;
    for (size_t i = 0; i < k->count; i++) k->buckets[bucket_of(k->values[i])]++;
  }
  k->buckets[bucket_of(v)]++;
  /* the maximum stays exact: values[0] holds it */
  if (v > k->values[0]) k->values[0] = v;
  return 0;
}

void mprof__sketch_percentiles(sketch_t *k, int64_t out[4]) {
  static const unsigned qs[3] = {50, 90, 99};
  if (!k->buckets) {
    mprof__percentiles(k->values, k->count, out);
    return;
  }
  int64_t max = k->values[0];
  for (size_t i = 1; i < k->count; i++)
    if (k->values[i] > max) max = k->values[i];
  for (int q = 0; q < 3; q++) {
    uint64_t rank = mprof__rank_of((size_t)k->total, qs[q]), seen = 0;
    size_t b = 0;
    while (b + 1 < SKETCH_BUCKETS && seen + k->buckets[b] <= rank)
      seen += k->buckets[b++];
    out[q] = bucket_floor(b) < max ? bucket_floor(b) : max;
  }
  out[3] = max;
}

void mprof__sketch_free(sketch_t *k) {
  free(k->values);
  free(k->buckets);
}

/* --- One thread's figures ------------------------------------------------- */

static int never_ends(const sthread_t *t) {
  return t->ending == MPROF_ENDING_PENDING || (t->flags & MPROF_THREAD_STALLED);
}

/* When t stopped being able to wait; a thread still going while the
 * trace goes by ends later than anything settled now. */
static int64_t effective_end(const stream_t *s, const sthread_t *t,
                             int finished) {
  if (!never_ends(t)) return t->end_ns;
  return finished ? s->end_ns : INT64_MAX;
}

/* Add ns of waiting on `on` to the time's list (one entry per thread). */
static int wait_time(stime_t *st, sthread_t *on, int64_t ns, size_t *cap) {
  for (uint32_t k = 0; k < st->wait_count; k++)
    if (st->on[k] == on) {
      st->waits[k].ns += ns;
      return 0;
    }
  size_t on_cap = *cap;
  if (mprof__grow(&st->waits, cap, st->wait_count + 1, sizeof *st->waits) ||
      mprof__grow(&st->on, &on_cap, *cap, sizeof *st->on))
    return MPROF_ENOMEM;
  st->waits[st->wait_count] = (mprof_wait_t){0, ns};
  st->on[st->wait_count++] = mprof__stream_ref(on);
  return 0;
}

void mprof__stime_free(stime_t *st) {
  for (uint32_t k = 0; k < st->wait_count; k++) mprof__stream_unref(st->on[k]);
  free(st->waits);
  free(st->on);
  mprof__stream_unref(st->thread);
}

/* Is w a wait: a try_read, or, in a legacy trace with none, a read of an
 * input that was still pending when t began (analysis.c's read_wait()). */
static int wait_counts(const stream_t *s, const sthread_t *t,
                       const swait_t *w) {
  if (!w->legacy_read) return 1;
  return !s->try_reads && !never_ends(w->on) && w->on->end_ns > t->start_ns;
}

/* t's time, as the model's thread_times(). */
static int thread_time(const stream_t *s, sthread_t *t, int finished,
                       stime_t *st) {
  memset(st, 0, sizeof *st);
  st->thread = mprof__stream_ref(t);
  int64_t end = effective_end(s, t, finished), covered = t->start_ns;
  size_t cap = 0;
  st->time.life_ns = end - t->start_ns;
  st->time.running_ns = t->running_ns;
  for (size_t k = 0; k < t->wait_count; k++) {
    const swait_t *w = &t->waits[k];
    int64_t wait_end;
    if (!wait_counts(s, t, w)) continue;
    if (w->legacy_read)
      wait_end = w->on->end_ns < w->read_ns ? w->on->end_ns : w->read_ns;
    else
      wait_end = mprof__wait_settle(
          w->start_ns, effective_end(s, w->on, finished), end, w->read_ns);
    int64_t part = mprof__wait_part(&covered, w->start_ns, wait_end, end);
    if (!part) continue;
    st->time.waiting_ns += part;
    if (wait_time(st, w->on, part, &cap)) return MPROF_ENOMEM;
  }
  int64_t poll = 0;
  if (t->type == MPROF_LOOP && t->stream < t->poll_at_end.count)
    poll = t->poll_at_end.ns[t->stream] - (t->stream < t->poll_at_start.count
                                               ? t->poll_at_start.ns[t->stream]
                                               : 0);
  mprof__split_idle(&st->time, t->type == MPROF_LOOP, poll);
  return 0;
}

/* Does time a come before time b (the longer life, then the lower
 * index)? */
static int life_before(const stime_t *a, const stime_t *b) {
  if (a->time.life_ns != b->time.life_ns)
    return a->time.life_ns > b->time.life_ns;
  return a->thread->index < b->thread->index;
}

static void sift_down(stime_t *heap, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, last = i;
    if (l < n && life_before(&heap[last], &heap[l])) last = l;
    if (r < n && life_before(&heap[last], &heap[r])) last = r;
    if (last == i) return;
    stime_t tmp = heap[i];
    heap[i] = heap[last];
    heap[last] = tmp;
    i = last;
  }
}

static void sift_up(stime_t *heap, size_t i) {
  while (i > 0 && life_before(&heap[(i - 1) / 2], &heap[i])) {
    stime_t tmp = heap[i];
    heap[i] = heap[(i - 1) / 2];
    heap[(i - 1) / 2] = tmp;
    i = (i - 1) / 2;
  }
}

/* Could a thread of this life (and index) be among the top
 * longest-lived?  Most are not: their times are not worked out. */
static int may_keep_time(const stream_t *s, const sthread_t *t,
                         int64_t life_ns) {
  if (!s->top || s->time_count < s->top) return 1;
  const stime_t *last = &s->times[0];
  if (life_ns != last->time.life_ns) return life_ns > last->time.life_ns;
  return t->index < last->thread->index;
}

/* Keep st among the top longest-lived (all for a top of 0). */
static int keep_time(stream_t *s, stime_t *st) {
  if (!s->top || s->time_count < s->top) {
    if (mprof__grow(&s->times, &s->time_cap, s->time_count + 1,
                    sizeof *s->times)) {
      mprof__stime_free(st);
      return MPROF_ENOMEM;
    }
    s->times[s->time_count++] = *st;
    sift_up(s->times, s->time_count - 1);
    return 0;
  }
  if (!life_before(st, &s->times[0])) {
    mprof__stime_free(st);
    return 0;
  }
  mprof__stime_free(&s->times[0]);
  s->times[0] = *st;
  sift_down(s->times, s->time_count, 0);
  return 0;
}

static sgroup_t *group_of(stream_t *s, const sthread_t *t) {
  char name[128];
  mprof__request_kind_of(t->label, t->type, name, sizeof name);
  for (size_t g = 0; g < s->group_count; g++)
    if (s->groups[g].type == t->type && !strcmp(s->groups[g].name, name))
      return &s->groups[g];
  if (mprof__grow(&s->groups, &s->group_cap, s->group_count + 1,
                  sizeof *s->groups))
    return NULL;
  sgroup_t *g = &s->groups[s->group_count];
  memset(g, 0, sizeof *g);
  g->type = t->type;
  g->first = t->index;
  g->slowest_ns = -1;
  if (!(g->name = mprof__stream_copy_text(name, strlen(name)))) return NULL;
  s->group_count++;
  return g;
}

static int group_failure(sgroup_t *g, sthread_t *t) {
  size_t f = 0;
  while (f < g->failure_count && strcmp(g->failures[f].error, t->failure)) f++;
  if (f == g->failure_count) {
    if (mprof__grow(&g->failures, &g->failure_cap, f + 1, sizeof *g->failures))
      return MPROF_ENOMEM;
    char *error = mprof__stream_copy_text(t->failure, strlen(t->failure));
    if (!error) return MPROF_ENOMEM;
    g->failures[g->failure_count++] = (sfailure_t){error, 0, NULL};
  }
  sfailure_t *fc = &g->failures[f];
  fc->count++;
  if (!fc->example || t->index < fc->example->index) {
    mprof__stream_unref(fc->example);
    fc->example = mprof__stream_ref(t);
  }
  return 0;
}

/* t's part in the requests, as the model's requests.c. */
static int count_request(stream_t *s, sthread_t *t, int finished) {
  sgroup_t *g = group_of(s, t);
  if (!g) return MPROF_ENOMEM;
  g->count++;
  if (t->index < g->first) g->first = t->index;
  int err = 0;
  if (never_ends(t))
    g->pending++;
  else
    err = mprof__sketch_add(&g->lives, t->end_ns - t->start_ns);
  int64_t life = effective_end(s, t, finished) - t->start_ns;
  if (life > g->slowest_ns ||
      (life == g->slowest_ns && t->index < g->slowest->index)) {
    mprof__stream_unref(g->slowest);
    g->slowest = mprof__stream_ref(t);
    g->slowest_ns = life;
  }
  if (!err && t->ending == MPROF_ENDING_FAILED && t->failure &&
      !(t->flags & MPROF_THREAD_STALLED)) {
    g->failed++;
    err = group_failure(g, t);
  }
  if (!err && t->type == MPROF_WORK && t->run_ns >= 0)
    err = mprof__sketch_add(&g->queues, t->queue_ns) ||
                  mprof__sketch_add(&g->runs, t->run_ns)
              ? MPROF_ENOMEM
              : 0;
  return err;
}

/* Work that waited in the pool's queue longer than it ran (and a
 * millisecond at least), kept by how many first runs it waited through:
 * the pool's size, known at the end, says which count. */
static int count_late_work(stream_t *s, sthread_t *t) {
  if (t->type != MPROF_WORK || t->run_ns < 0 || t->queue_ns <= t->run_ns ||
      t->queue_ns < POOL_LATE_NS)
    return 0;
  if (!s->late_by && !(s->late_by = calloc(POOL_BETWEEN, sizeof *s->late_by)))
    return MPROF_ENOMEM;
  size_t b = t->between < POOL_BETWEEN ? t->between : POOL_BETWEEN - 1;
  mprof__late_t late = {t->start_ns, t->queue_ns, t->run_ns, t->index, t},
                dropped;
  mprof__stream_ref(t);
  if (mprof__pool_add(&s->late_by[b], &late, &dropped))
    mprof__stream_unref(dropped.ref);
  return 0;
}

int mprof__stream_settle(stream_t *s, sthread_t *t) {
  if (t->settled) return 0;
  if (t->overhang_count)
    mprof__stream_fold(s, t, t->end_ns > t->start_ns ? t->end_ns : t->start_ns,
                       1);
  t->settled = 1;
  int finished = s->finished, err = 0;
  if (may_keep_time(s, t, effective_end(s, t, finished) - t->start_ns)) {
    stime_t st;
    err = thread_time(s, t, finished, &st);
    if (err) {
      mprof__stime_free(&st);
      return err;
    }
    err = keep_time(s, &st);
  }
  if (!err && mprof__is_request_type(t->type) &&
      t->ending != MPROF_ENDING_MERGED)
    err = count_request(s, t, finished);
  if (!err) err = count_late_work(s, t);
  if (t->flags & MPROF_THREAD_PREEXISTING) {
    if (!s->preexisting++ || t->index < s->first_preexisting->index) {
      mprof__stream_unref(s->first_preexisting);
      s->first_preexisting = mprof__stream_ref(t);
    }
  } else if (!err && mprof__is_request_type(t->type) &&
             t->ending == MPROF_ENDING_PENDING &&
             !(t->flags & MPROF_THREAD_STALLED)) {
    err =
        mprof__stream_keep(&s->pending, &s->pending_count, &s->pending_cap, t);
  }
  mprof__stream_waits_clear(t);
  return err;
}

/* --- Retry storms --------------------------------------------------------- */

static int heap_before(const heap_entry_t *a, const heap_entry_t *b) {
  return a->thread->index < b->thread->index;
}

static int heap_push(heap_t *h, sthread_t *t, sthread_t *creator) {
  if (mprof__grow(&h->at, &h->cap, h->count + 1, sizeof *h->at))
    return MPROF_ENOMEM;
  size_t i = h->count++;
  h->at[i] = (heap_entry_t){mprof__stream_ref(t), mprof__stream_ref(creator)};
  while (i && heap_before(&h->at[i], &h->at[(i - 1) / 2])) {
    heap_entry_t tmp = h->at[i];
    h->at[i] = h->at[(i - 1) / 2];
    h->at[(i - 1) / 2] = tmp;
    i = (i - 1) / 2;
  }
  return 0;
}

static void heap_sift(heap_t *h, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, first = i;
    if (l < h->count && heap_before(&h->at[l], &h->at[first])) first = l;
    if (r < h->count && heap_before(&h->at[r], &h->at[first])) first = r;
    if (first == i) return;
    heap_entry_t tmp = h->at[i];
    h->at[i] = h->at[first];
    h->at[first] = tmp;
    i = first;
  }
}

/* Take the top off (its references are the caller's). */
static heap_entry_t heap_pop(heap_t *h) {
  heap_entry_t top = h->at[0];
  h->at[0] = h->at[--h->count];
  heap_sift(h, 0);
  return top;
}

/* Drop the requests that ended from the heap of those pending (done now
 * and then, so that one request pending long does not keep every later
 * one in it). */
static void pending_compact(heap_t *h) {
  size_t kept = 0;
  for (size_t i = 0; i < h->count; i++)
    if (h->at[i].thread->ending == MPROF_ENDING_PENDING)
      h->at[kept++] = h->at[i];
    else
      mprof__stream_unref(h->at[i].thread);
  h->count = kept;
  for (size_t i = kept / 2; i-- > 0;) heap_sift(h, i);
}

/* Set *slot to a reference to t. */
static void hold(sthread_t **slot, sthread_t *t) {
  mprof__stream_ref(t);
  mprof__stream_unref(*slot);
  *slot = t;
}

/* Failed request t (made by creator) goes on its kind and error's storm,
 * in creation order, as findings_requests.c's mprof__find_storms(). */
static int storm_feed(stream_t *s, sthread_t *t, sthread_t *creator) {
  char kind[128];
  const char *error = t->failure ? t->failure : "";
  mprof__request_kind_of(t->label, t->type, kind, sizeof kind);
  size_t i = 0;
  while (i < s->storm_count && (strcmp(s->storms[i].run.kind, kind) ||
                                strcmp(s->storms[i].error, error)))
    i++;
  if (i == s->storm_count) {
    if (mprof__grow(&s->storms, &s->storm_cap, i + 1, sizeof *s->storms))
      return MPROF_ENOMEM;
    sstorm_t *st = &s->storms[i];
    memset(st, 0, sizeof *st);
    memcpy(st->run.kind, kind, sizeof kind);
    memcpy(st->worst.kind, kind, sizeof kind);
    if (!(st->error = mprof__stream_copy_text(error, strlen(error))))
      return MPROF_ENOMEM;
    s->storm_count++;
  }
  sstorm_t *st = &s->storms[i];
  uint32_t longest = st->worst.count;
  mprof__storm_step(&st->run, &st->worst, t->index, creator->index, t->start_ns,
                    t->end_ns);
  if (st->run.count == 1) {
    hold(&st->run_first, t);
    hold(&st->run_creator, creator);
  }
  hold(&st->run_last, t);
  if (st->worst.count != longest) {
    hold(&st->worst_first, st->run_first);
    hold(&st->worst_last, st->run_last);
    hold(&st->worst_creator, st->run_creator);
  }
  return 0;
}

int mprof__stream_storms(stream_t *s, int all) {
  heap_t *pending = &s->requests_pending;
  if (pending->count > 4096 && pending->count > 2 * s->pending_requests)
    pending_compact(pending);
  int err = 0;
  while (!err && s->failures.count) {
    const sthread_t *next = s->failures.at[0].thread;
    while (pending->count &&
           pending->at[0].thread->ending != MPROF_ENDING_PENDING) {
      heap_entry_t done = heap_pop(pending);
      mprof__stream_unref(done.thread);
    }
    if (!all && pending->count && pending->at[0].thread->index < next->index) {
      /* a request made before it may fail yet; past a bound, it goes on
       * anyway, and may be out of order */
      if (s->failures.count <= STREAM_EXACT) break;
      s->late++;
    }
    heap_entry_t e = heap_pop(&s->failures);
    err = storm_feed(s, e.thread, e.creator);
    mprof__stream_unref(e.thread);
    mprof__stream_unref(e.creator);
  }
  return err;
}

int mprof__stream_request_made(stream_t *s, sthread_t *t) {
  t->runs_before = s->first_runs;
  if (!mprof__is_request_type(t->type)) return 0;
  s->pending_requests++;
  return heap_push(&s->requests_pending, t, NULL);
}

int mprof__stream_request_ended(stream_t *s, sthread_t *t) {
  if (!mprof__is_request_type(t->type)) return 0;
  s->pending_requests--;
  if (t->ending == MPROF_ENDING_FAILED &&
      heap_push(&s->failures, t, t->creator ? t->creator : STREAM_ROOT))
    return MPROF_ENOMEM;
  return mprof__stream_storms(s, 0);
}
