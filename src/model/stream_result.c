/* stream_result.c -- the end of the streaming analysis (stream.c): the
 * threads still kept are settled in index order (stalls found as the
 * model's finish finds them), the threads the analysis names become a
 * small model, and the analysis is written against it: requests and
 * failures, stalls, times, and the findings (findings.c) that need no
 * more than these. */
#include <string.h>

#include "stream_internal.h"

static int by_index(const void *pa, const void *pb) {
  const sthread_t *a = *(sthread_t *const *)pa, *b = *(sthread_t *const *)pb;
  return (a->index > b->index) - (a->index < b->index);
}

/* A list of references. */
typedef struct list_s {
  sthread_t **at;
  size_t count, cap;
} list_t;

static int list_push(list_t *l, sthread_t *t) {
  if (!t || t == STREAM_ROOT) return 0;
  if (mprof__grow(&l->at, &l->cap, l->count + 1, sizeof *l->at))
    return MPROF_ENOMEM;
  l->at[l->count++] = mprof__stream_ref(t);
  return 0;
}

/* Sort by index, each once. */
static void list_sort(list_t *l) {
  if (l->count > 1) qsort(l->at, l->count, sizeof *l->at, by_index);
  size_t kept = 0;
  for (size_t i = 0; i < l->count; i++)
    if (kept && l->at[kept - 1] == l->at[i])
      mprof__stream_unref(l->at[i]);
    else
      l->at[kept++] = l->at[i];
  l->count = kept;
}

static void list_free(list_t *l) {
  for (size_t i = 0; i < l->count; i++) mprof__stream_unref(l->at[i]);
  free(l->at);
}

/* The threads not settled yet: in the table, waiting to retire, made
 * again, running. */
static int unsettled(stream_t *s, list_t *l) {
  int err = 0;
  for (size_t i = 0; !err && i < s->table.cap; i++)
    if (mprof__stream_slot(s, i) && !mprof__stream_slot(s, i)->settled)
      err = list_push(l, mprof__stream_slot(s, i));
  for (size_t k = 0; k < s->stream_count; k++) {
    const mprof__endings_t *q = &s->streams[k].ended;
    for (size_t i = 0; !err && i < q->count; i++)
      err = list_push(l, mprof__endings_at(q, i)->thread);
  }
  for (size_t i = 0; !err && i < s->orphan_count; i++)
    err = list_push(l, s->orphans[i]);
  /* merged ones: what they became may be retired, they may not */
  for (size_t i = 0, n = l->count; !err && i < n; i++)
    for (sthread_t *t = l->at[i]->becomes; !err && t; t = t->becomes)
      if (!t->settled) err = list_push(l, t);
  list_sort(l);
  return err;
}

/* The model's settle_endings(): stalls, then the pending tail. */
static int settle_endings(stream_t *s, list_t *l) {
  for (size_t i = 0; i < l->count; i++) {
    sthread_t *t = l->at[i];
    if (!(t->flags & MPROF_THREAD_SHOULD_RESOLVE)) continue;
    sthread_t *last = mprof__stream_follow(t);
    if (last->ending != MPROF_ENDING_PENDING) continue;
    t->flags |= MPROF_THREAD_STALLED;
    last->flags |= MPROF_THREAD_STALLED;
    last->ending = MPROF_ENDING_FAILED;
    last->end_ns = s->duration_ns;
    if (mprof__stream_text_set(last, TEXT_FAILURE, MODEL_STALLED_TEXT,
                               sizeof MODEL_STALLED_TEXT - 1))
      return MPROF_ENOMEM;
    if (mprof__grow(&s->stalls, &s->stall_cap, s->stall_count + 2,
                    sizeof *s->stalls))
      return MPROF_ENOMEM;
    s->stalls[s->stall_count++] = mprof__stream_ref(t);
    s->stalls[s->stall_count++] = mprof__stream_ref(last);
  }
  for (size_t i = 0; i < l->count; i++) {
    sthread_t *t = l->at[i];
    if (t->ending == MPROF_ENDING_PENDING) {
      int64_t tail = t->last_seen_ns + MODEL_PENDING_TAIL_NS;
      t->end_ns = tail < s->duration_ns ? tail : s->duration_ns;
    }
    if (t->end_ns < t->start_ns) t->end_ns = t->start_ns;
    if (t->type == MPROF_LOOP && !t->poll_at_end.ns &&
        mprof__stream_poll(s, s->end_ns, &t->poll_at_end))
      return MPROF_ENOMEM;
  }
  return 0;
}

/* --- Lost wake-ups ---------------------------------------------------------
 */

/* What w noted of condition's latest signal when it began waiting on it
 * (made by it, or its first try_read of it), or NULL if it never did. */
static const ssignal_t *signal_at_wait(const sthread_t *w,
                                       const sthread_t *condition) {
  if (w->creator == condition) return &w->at_creation;
  for (size_t k = 0; k < w->wait_count; k++)
    if (w->waits[k].on == condition && w->waits[k].counted)
      return &w->waits[k].sig;
  return NULL;
}

/* A wait of w that never ends, on a condition whose latest signal before
 * it found nobody waiting: analysis.c's find_lost_wakeups() for one
 * thread, from what the stream noted at the wait's start and at the
 * signal. */
static int find_lost_wakeup(stream_t *s, sthread_t *w) {
  if (w->ending != MPROF_ENDING_PENDING && !(w->flags & MPROF_THREAD_STALLED))
    return 0;
  sthread_t *creator = w->creator, *candidates[2] = {NULL, NULL};
  if (creator && creator != STREAM_ROOT &&
      (creator->type == MPROF_CONDITION || w->waited_for))
    candidates[0] = creator;
  for (size_t k = w->wait_count; k-- > 0 && !candidates[1];)
    if (!w->waits[k].legacy_read) candidates[1] = w->waits[k].on;
  for (int k = 0; k < 2; k++) {
    const ssignal_t *sig =
        candidates[k] ? signal_at_wait(w, candidates[k]) : NULL;
    if (!sig || !sig->from || !sig->nobody) continue;
    if (mprof__grow(&s->lost, &s->lost_cap, s->lost_count + 1, sizeof *s->lost))
      return MPROF_ENOMEM;
    slost_t *l = &s->lost[s->lost_count++];
    *l =
        (slost_t){mprof__stream_ref(candidates[k]), mprof__stream_ref(w), *sig};
    mprof__stream_ref(l->signal.from);
    break;
  }
  return 0;
}

/* --- The pool --------------------------------------------------------------
 */

/* The pool's size (OS threads off the loops that ran work) and its late
 * work: those that waited through as many first runs as it has threads,
 * or more, into s->saturated (their references moved there). */
static void pool_of(stream_t *s) {
  memset(&s->saturated, 0, sizeof s->saturated);
  for (size_t i = 0; i < s->stream_count; i++)
    if (s->streams[i].had_work && !s->streams[i].loop) s->saturated.size++;
  if (s->saturated.size >= POOL_BETWEEN) s->late++; /* not told apart */
  for (size_t b = 0; s->late_by && b < POOL_BETWEEN; b++) {
    mprof__pool_t *by = &s->late_by[b];
    for (size_t k = 0; k < by->longest_count; k++) {
      mprof__late_t dropped;
      if (b < s->saturated.size || !s->saturated.size)
        mprof__stream_unref(by->longest[k].ref);
      else if (mprof__pool_add(&s->saturated, &by->longest[k], &dropped))
        mprof__stream_unref(dropped.ref);
    }
    by->longest_count = 0;
  }
  size_t count = 0;
  int64_t start = 0, end = 0;
  for (size_t b = s->saturated.size;
       s->late_by && s->saturated.size && b < POOL_BETWEEN; b++) {
    const mprof__pool_t *by = &s->late_by[b];
    if (!by->late_count) continue;
    if (!count || by->start_ns < start) start = by->start_ns;
    if (!count || by->end_ns > end) end = by->end_ns;
    count += by->late_count;
  }
  s->saturated.late_count = count;
  s->saturated.start_ns = start;
  s->saturated.end_ns = end;
}

/* --- Wait cycles ---------------------------------------------------------- */

/* The cycles of waits open at the end, as analysis.c's find_cycles():
 * each thread that never ended points to what its latest wait still open
 * at the end waits on (the threads that never ended are all kept to the
 * end, with their waits), and a walk along them that comes back to
 * itself is a cycle; into s->cycles (members in s->cycle_threads). */
static int find_cycles(stream_t *s, const list_t *l) {
  for (size_t i = 0; i < l->count; i++) {
    sthread_t *t = l->at[i];
    t->next_wait = NULL;
    t->walk = 0;
    if (t->ending != MPROF_ENDING_PENDING && !(t->flags & MPROF_THREAD_STALLED))
      continue;
    int64_t end = s->end_ns; /* it never ends: its effective end */
    for (size_t k = 0; k < t->wait_count; k++) {
      const swait_t *w = &t->waits[k];
      int64_t on_end = w->on->ending == MPROF_ENDING_PENDING ||
                               (w->on->flags & MPROF_THREAD_STALLED)
                           ? s->end_ns
                           : w->on->end_ns;
      if (w->legacy_read ||
          mprof__wait_settle(w->start_ns, on_end, end, w->read_ns) < end)
        continue;
      t->next_wait = w->on;
      t->since_ns = w->start_ns;
    }
  }
  for (size_t i = 0; i < l->count && s->cycle_count < MPROF_CHAIN_LIMIT; i++) {
    sthread_t *u = l->at[i];
    while (u && !u->walk) {
      u->walk = 1;
      u = u->next_wait;
    }
    if (u && u->walk == 1) {
      sthread_t *w = u;
      size_t first = s->cycle_thread_count;
      mprof_chain_t cycle = {(uint32_t)first, 0, 0, s->end_ns};
      do {
        if (mprof__stream_keep(&s->cycle_threads, &s->cycle_thread_count,
                               &s->cycle_thread_cap, w))
          return MPROF_ENOMEM;
        if (w->since_ns > cycle.start_ns) cycle.start_ns = w->since_ns;
        cycle.length++;
        w = w->next_wait;
      } while (w != u && cycle.length < 10000);
      if (mprof__grow(&s->cycles, &s->cycle_cap, s->cycle_count + 1,
                      sizeof *s->cycles))
        return MPROF_ENOMEM;
      s->cycles[s->cycle_count++] = cycle;
    }
    for (u = l->at[i]; u && u->walk == 1; u = u->next_wait) u->walk = 2;
  }
  return 0;
}

/* --- The model of the threads named --------------------------------------- */

static int named_add_label(mprof_model_t *m, uint32_t thread,
                           const char *text) {
  mprof_label_t label = {0, thread, mprof__intern_text(m, text, strlen(text))};
  return mprof__label_push(m, &label);
}

/* One thread of the named model, at index m's count. */
static int named_add(mprof_model_t *m, sthread_t *t) {
  size_t n = m->view.thread_count;
  if (mprof__grow(&m->threads, &m->thread_cap, n + 1, sizeof *m->threads))
    return MPROF_ENOMEM;
  mprof_thread_t *th = &m->threads[n];
  memset(th, 0, sizeof *th);
  th->id = t->id;
  th->start_ns = t->start_ns;
  th->end_ns = t->end_ns;
  th->last_seen_ns = t->last_seen_ns;
  th->creator = t->creator ? t->creator->named : MPROF_ROOT_THREAD;
  if (th->creator == MPROF_NO_THREAD) th->creator = MPROF_ROOT_THREAD;
  th->becomes = MPROF_NO_THREAD;
  th->type = t->type;
  th->ending = t->ending;
  th->flags = t->flags;
  th->failure =
      t->failure ? mprof__intern_text(m, t->failure, strlen(t->failure)) : 0;
  th->first_label = (uint32_t)m->view.label_count;
  if (t->label) {
    if (named_add_label(m, (uint32_t)n, t->label)) return MPROF_ENOMEM;
    th->label_count++;
  }
  if (t->label && t->shown) {
    if (named_add_label(m, (uint32_t)n, t->shown)) return MPROF_ENOMEM;
    th->label_count++;
  }
  t->named = (uint32_t)n;
  m->view.thread_count = n + 1;
  return 0;
}

/* Every thread the analysis will name, and its creator. */
static int push_named(void *list, sthread_t *t) { return list_push(list, t); }

static int names_of(stream_t *s, list_t *l) {
  int err = 0;
  for (size_t i = 0; !err && i < s->time_count; i++) {
    err = list_push(l, s->times[i].thread);
    for (uint32_t k = 0; !err && k < s->times[i].wait_count; k++)
      err = list_push(l, s->times[i].on[k]);
  }
  for (size_t g = 0; !err && g < s->group_count; g++) {
    err = list_push(l, s->groups[g].slowest);
    for (size_t f = 0; !err && f < s->groups[g].failure_count; f++)
      err = list_push(l, s->groups[g].failures[f].example);
  }
  for (size_t i = 0; !err && i < s->pending_count; i++)
    err = list_push(l, s->pending[i]);
  for (size_t i = 0; !err && i < s->stall_count; i++) {
    const sthread_t *t = s->stalls[i];
    err = list_push(l, s->stalls[i]);
    for (uint32_t k = 0; !err && k < t->ring_count && k < MPROF_STALL_CONTEXT;
         k++)
      err = list_push(l, t->ring[k].other);
  }
  if (!err) err = list_push(l, s->first_preexisting);
  for (size_t k = 0; !err && k < s->saturated.longest_count; k++)
    err = list_push(l, s->saturated.longest[k].ref);
  for (size_t i = 0; !err && i < s->storm_count; i++) {
    sstorm_t *st = &s->storms[i];
    if (!st->worst_first) continue;
    /* a retired first gave its creator back: the storm names it */
    if (!st->worst_first->creator)
      st->worst_first->creator = mprof__stream_ref(st->worst_creator);
    err = list_push(l, st->worst_first) || list_push(l, st->worst_last)
              ? MPROF_ENOMEM
              : 0;
  }
  for (size_t i = 0; !err && i < s->cycle_thread_count; i++)
    err = list_push(l, s->cycle_threads[i]);
  if (!err) err = mprof__stream_loop_threads(s, push_named, l);
  for (size_t i = 0; !err && i < s->lost_count; i++)
    err = list_push(l, s->lost[i].condition) ||
                  list_push(l, s->lost[i].waiter) ||
                  list_push(l, s->lost[i].signal.from)
              ? MPROF_ENOMEM
              : 0;
  /* the writes pending at the peak, which write_backlog may name */
  for (size_t i = 0; !err && i < s->write_at_count; i++)
    err = list_push(l, s->writes[i]);
  for (size_t i = 0, n = l->count; !err && i < n; i++)
    err = list_push(l, l->at[i]->creator);
  list_sort(l);
  return err;
}

static int named_model(stream_t *s, list_t *l, mprof_model_t **out) {
  mprof_model_t *m = NULL; /* mprof_model_new() sets it on success only */
  int err = mprof_model_new(s->clock_freq_hz, s->legacy, &m);
  for (size_t i = 0; i < l->count; i++) l->at[i]->named = MPROF_NO_THREAD;
  for (size_t i = 0; !err && i < l->count; i++) err = named_add(m, l->at[i]);
  if (!err) err = mprof__records_publish(m);
  if (err) {
    mprof_model_free(m);
    return err;
  }
  m->finished = 1;
  m->view.threads = m->threads;
  m->view.strings = m->strings;
  m->view.events = s->events;
  m->view.discarded = s->discarded;
  m->view.duration_ns = s->duration_ns;
  m->view.end_ns = s->end_ns;
  m->view.start_ticks = s->start_ticks;
  m->view.stream_count = (uint32_t)s->stream_count;
  *out = m;
  return 0;
}

/* --- The analysis --------------------------------------------------------- */

static int by_first(const void *pa, const void *pb) {
  const sgroup_t *a = pa, *b = pb;
  return (a->first > b->first) - (a->first < b->first);
}

static int by_count(const void *pa, const void *pb) {
  const mprof_request_group_t *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return (a->name > b->name) - (a->name < b->name);
}

static int by_example(const void *pa, const void *pb) {
  const sfailure_t *a = pa, *b = pb;
  return (a->example->index > b->example->index) -
         (a->example->index < b->example->index);
}

/* One kind of request, as the model's group_times() and group_failures(). */
static int write_group(const mprof_model_t *m, sgroup_t *g, size_t *cap,
                       mprof_analysis_t *out) {
  mprof_request_group_t r;
  memset(&r, 0, sizeof r);
  r.type = g->type;
  r.count = g->count;
  r.failed = g->failed;
  r.pending = g->pending;
  r.slowest = g->slowest->named;
  if (mprof__analysis_text(out, g->name, &r.name)) return MPROF_ENOMEM;
  int64_t p[4];
  mprof__sketch_percentiles(&g->lives, p);
  r.p50_ns = p[0];
  r.p90_ns = p[1];
  r.p99_ns = p[2];
  r.max_ns = p[3];
  r.queue_p50_ns = r.queue_max_ns = r.run_p50_ns = r.run_max_ns = -1;
  if (g->type == MPROF_WORK) {
    mprof__sketch_percentiles(&g->queues, p);
    r.queue_p50_ns = p[0];
    r.queue_max_ns = p[3];
    mprof__sketch_percentiles(&g->runs, p);
    r.run_p50_ns = p[0];
    r.run_max_ns = p[3];
  }
  if (g->failure_count > 1)
    qsort(g->failures, g->failure_count, sizeof *g->failures, by_example);
  r.first_failure = (uint32_t)out->failure_count;
  r.failure_count = (uint32_t)g->failure_count;
  for (size_t f = 0; f < g->failure_count; f++) {
    const sfailure_t *sf = &g->failures[f];
    if (mprof__grow(&out->failures, cap, out->failure_count + 1,
                    sizeof *out->failures))
      return MPROF_ENOMEM;
    out->failures[out->failure_count++] = (mprof_failure_count_t){
        mprof__intern_text((mprof_model_t *)m, sf->error, strlen(sf->error)),
        sf->count, sf->example->named};
  }
  out->requests[out->request_count++] = r;
  return 0;
}

static int write_requests(stream_t *s, const mprof_model_t *m,
                          mprof_analysis_t *out) {
  size_t cap = 0;
  if (s->group_count > 1)
    qsort(s->groups, s->group_count, sizeof *s->groups, by_first);
  out->requests = calloc(s->group_count + 1, sizeof *out->requests);
  if (!out->requests) return MPROF_ENOMEM;
  for (size_t g = 0; g < s->group_count; g++)
    if (write_group(m, &s->groups[g], &cap, out)) return MPROF_ENOMEM;
  if (out->request_count > 1)
    qsort(out->requests, out->request_count, sizeof *out->requests, by_count);
  return 0;
}

static int write_times(stream_t *s, mprof_analysis_t *out) {
  size_t waits = 0;
  for (size_t i = 0; i < s->time_count; i++) waits += s->times[i].wait_count;
  out->times = calloc(s->time_count + 1, sizeof *out->times);
  out->waits = malloc((waits + 1) * sizeof *out->waits);
  if (!out->times || !out->waits) return MPROF_ENOMEM;
  out->time_count = s->time_count + 1; /* times[0] is the root's */
  for (size_t i = 0; i < s->time_count; i++) {
    const stime_t *st = &s->times[i];
    mprof_thread_time_t *tt = &out->times[i + 1];
    *tt = st->time;
    tt->thread = st->thread->named;
    tt->first_wait = (uint32_t)out->wait_count;
    tt->wait_count = st->wait_count;
    for (uint32_t k = 0; k < st->wait_count; k++)
      out->waits[out->wait_count++] =
          (mprof_wait_t){st->on[k]->named, st->waits[k].ns};
  }
  return 0;
}

/* An arrow of a stall's context, with both its ends. */
typedef struct picked_s {
  int64_t time_ns;
  uint64_t seq;
  sthread_t *from, *to;
  uint32_t kind;
} picked_t;

static int by_seq(const void *pa, const void *pb) {
  const picked_t *a = pa, *b = pb;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Add t's ring to picked (count). */
static void ring_of(sthread_t *t, picked_t *picked, size_t *count) {
  for (uint32_t k = 0; k < t->ring_count && k < MPROF_STALL_CONTEXT; k++) {
    const sarrow_t *a = &t->ring[k];
    picked[(*count)++] =
        (picked_t){a->time_ns, a->seq, a->leaves ? t : a->other,
                   a->leaves ? a->other : t, a->kind};
  }
}

/* The model's settle_arrows(): a read of a thread that failed (not by
 * stalling) carries the exception. */
static uint32_t arrow_kind(const picked_t *a) {
  if (a->kind == MPROF_ARROW_READ && a->from->ending == MPROF_ENDING_FAILED &&
      !(a->from->flags & MPROF_THREAD_STALLED))
    return MPROF_ARROW_READ_FAILED;
  return a->kind;
}

/* A stall's context, as the model's stall_context(): the last arrows of
 * the thread and of what it became, in order, each once, the last
 * MPROF_STALL_CONTEXT; as arrows of the named model. */
static int stall_context(mprof_model_t *m, sthread_t *t, sthread_t *last,
                         mprof_stall_t *stall, size_t *cap_refs,
                         mprof_analysis_t *out) {
  picked_t picked[2 * MPROF_STALL_CONTEXT];
  size_t count = 0, unique = 0;
  ring_of(t, picked, &count);
  if (last != t) ring_of(last, picked, &count);
  qsort(picked, count, sizeof *picked, by_seq);
  for (size_t i = 0; i < count; i++)
    if (!unique || picked[unique - 1].seq != picked[i].seq)
      picked[unique++] = picked[i];
  size_t from = unique > MPROF_STALL_CONTEXT ? unique - MPROF_STALL_CONTEXT : 0;
  stall->first_arrow = (uint32_t)out->arrow_ref_count;
  stall->arrow_count = (uint32_t)(unique - from);
  for (size_t i = from; i < unique; i++) {
    mprof_arrow_t a = {picked[i].time_ns, picked[i].from->named,
                       picked[i].to->named, arrow_kind(&picked[i]), 0};
    uint32_t index = (uint32_t)m->view.arrow_count;
    if (mprof__arrow_push(m, &a) ||
        mprof__grow(&out->arrow_refs, cap_refs, out->arrow_ref_count + 1,
                    sizeof *out->arrow_refs))
      return MPROF_ENOMEM;
    out->arrow_refs[out->arrow_ref_count++] = index;
  }
  return mprof__records_publish(m);
}

static int write_stalls(stream_t *s, mprof_model_t *m, mprof_analysis_t *out) {
  size_t cap_refs = 0;
  out->stalls = calloc(s->stall_count / 2 + 1, sizeof *out->stalls);
  if (!out->stalls) return MPROF_ENOMEM;
  for (size_t i = 0; i + 1 < s->stall_count; i += 2) {
    mprof_stall_t stall = {s->stalls[i]->named, s->stalls[i + 1]->named, 0, 0};
    if (stall_context(m, s->stalls[i], s->stalls[i + 1], &stall, &cap_refs,
                      out))
      return MPROF_ENOMEM;
    out->stalls[out->stall_count++] = stall;
  }
  return 0;
}

/* The lost wake-ups, their signals as arrows of the named model. */
static int write_lost_wakeups(stream_t *s, mprof_model_t *m,
                              mprof_analysis_t *out) {
  out->lost_wakeups = calloc(s->lost_count + 1, sizeof *out->lost_wakeups);
  if (!out->lost_wakeups) return MPROF_ENOMEM;
  for (size_t i = 0; i < s->lost_count; i++) {
    const slost_t *l = &s->lost[i];
    mprof_arrow_t a = {l->signal.time_ns, l->signal.from->named,
                       l->condition->named, MPROF_ARROW_SIGNAL, 0};
    uint32_t index = (uint32_t)m->view.arrow_count;
    if (mprof__arrow_push(m, &a) || mprof__records_publish(m))
      return MPROF_ENOMEM;
    out->lost_wakeups[out->lost_wakeup_count++] =
        (mprof_lost_wakeup_t){l->condition->named, index, l->waiter->named};
  }
  return 0;
}

/* The wait cycles, their members as threads of the named model. */
static int write_cycles(const stream_t *s, mprof_analysis_t *out) {
  out->cycles = malloc((s->cycle_count + 1) * sizeof *out->cycles);
  out->chain_threads =
      malloc((s->cycle_thread_count + 1) * sizeof *out->chain_threads);
  if (!out->cycles || !out->chain_threads) return MPROF_ENOMEM;
  for (size_t i = 0; i < s->cycle_thread_count; i++)
    out->chain_threads[i] = s->cycle_threads[i]->named;
  out->chain_thread_count = s->cycle_thread_count;
  if (s->cycle_count) /* memcpy() must not be given the NULL of none */
    memcpy(out->cycles, s->cycles, s->cycle_count * sizeof *out->cycles);
  out->cycle_count = s->cycle_count;
  return 0;
}

/* The writes pending at the peak, by start, as findings_requests.c's
 * sweep finds them (write_backlog judges them). */
static mprof__write_t *backlog_writes(const stream_t *s) {
  mprof__write_t *writes = malloc((s->write_at_count + 1) * sizeof *writes);
  for (size_t i = 0; writes && i < s->write_at_count; i++) {
    const sthread_t *w = s->writes[i];
    int64_t end = w->ending == MPROF_ENDING_PENDING ? s->end_ns : w->end_ns;
    writes[i] = (mprof__write_t){w->start_ns, end, w->named};
  }
  return writes;
}

/* The facts findings.c reads, of the named model. */
static int write_findings(stream_t *s, const mprof_model_t *m,
                          const mprof_analysis_options_t *options,
                          mprof_analysis_t *out) {
  mprof__facts_t facts;
  memset(&facts, 0, sizeof facts);
  facts.loop_stream = calloc(m->view.stream_count + 1, 1);
  facts.pending = malloc((s->pending_count + 1) * sizeof *facts.pending);
  int err = !facts.loop_stream || !facts.pending ? MPROF_ENOMEM : 0;
  if (!err && s->pending_count > 1)
    qsort(s->pending, s->pending_count, sizeof *s->pending, by_index);
  for (size_t i = 0; !err && i < s->pending_count; i++)
    facts.pending[facts.pending_count++] = s->pending[i]->named;
  mprof__storm_t *storms = malloc((s->storm_count + 1) * sizeof *storms);
  if (!storms) err = MPROF_ENOMEM;
  for (size_t i = 0; !err && i < s->storm_count; i++) {
    const sstorm_t *st = &s->storms[i];
    storms[i] = st->worst;
    if (!st->worst_first) continue;
    storms[i].first = st->worst_first->named;
    storms[i].last = st->worst_last->named;
    storms[i].error =
        mprof__intern_text((mprof_model_t *)m, st->error, strlen(st->error));
  }
  facts.storms = storms;
  mprof__pool_t pool = s->saturated;
  for (size_t k = 0; k < pool.longest_count; k++)
    pool.longest[k].thread = ((const sthread_t *)pool.longest[k].ref)->named;
  facts.pool = &pool;
  facts.storm_count = err ? 0 : s->storm_count;
  mprof__write_t *writes = NULL;
  mprof__backlog_t backlog = {NULL, s->write_at_count, s->write_peak,
                              s->write_at};
  if (!err && s->write_total >= BACKLOG_WRITES) {
    if (!(writes = backlog_writes(s))) err = MPROF_ENOMEM;
    backlog.writes = writes;
    facts.backlog = &backlog;
  }
  facts.preexisting = s->preexisting;
  facts.first_preexisting =
      s->first_preexisting ? s->first_preexisting->named : 0;
  /* the loops' first: the other findings join them, then all are sorted */
  if (!err) err = mprof__stream_loops_write(s, m, options, out);
  if (!err) err = mprof__find_findings(m, options, &facts, out);
  mprof__facts_free(&facts);
  free(writes);
  free(storms);
  return err;
}

int mprof__stream_finish(stream_t *s, const mprof_analysis_options_t *options,
                         mprof_stream_result_t *out) {
  list_t left = {NULL, 0, 0}, named = {NULL, 0, 0};
  if (s->end_ns < s->duration_ns) s->end_ns = s->duration_ns;
  mprof__stream_close_streams(s);
  s->finished = 1;
  int err = unsettled(s, &left);
  if (!err) err = settle_endings(s, &left);
  if (!err) err = mprof__stream_loops_end(s);
  for (size_t i = 0; !err && i < left.count; i++)
    err = find_lost_wakeup(s, left.at[i]);
  if (!err) err = find_cycles(s, &left);
  if (!err) err = mprof__stream_storms(s, 1);
  for (size_t i = 0; !err && i < left.count; i++)
    err = mprof__stream_settle(s, left.at[i]);
  if (!err) pool_of(s); /* once every thread is settled */
  if (!err) err = names_of(s, &named);
  if (!err) err = named_model(s, &named, &out->named);
  mprof_analysis_t *a = &out->analysis;
  if (!err) err = write_requests(s, out->named, a);
  if (!err) err = write_times(s, a);
  if (!err) err = write_stalls(s, out->named, a);
  if (!err) err = write_lost_wakeups(s, out->named, a);
  if (!err) err = write_cycles(s, a);
  if (!err) err = write_findings(s, out->named, options, a);
  a->path_target = MPROF_NO_THREAD;
  out->thread_count = s->next_index - 1;
  out->late = s->late;
  list_free(&left);
  list_free(&named);
  return err;
}

/* Everything goes at once: the records with their blocks, so that no
 * reference is dropped one by one. */
void mprof__stream_free(stream_t *s) {
  mprof__idmap_free(&s->table);
  mprof__idset_free(&s->retired);
  free(s->orphans);
  mprof__stream_loops_free(s);
  for (size_t k = 0; k < s->stream_count; k++) free(s->streams[k].ended.at);
  free(s->streams);
  mprof__stamper_free(&s->stamp);
  for (size_t g = 0; g < s->group_count; g++) {
    sgroup_t *grp = &s->groups[g];
    free(grp->name);
    mprof__sketch_free(&grp->lives);
    mprof__sketch_free(&grp->queues);
    mprof__sketch_free(&grp->runs);
    for (size_t f = 0; f < grp->failure_count; f++)
      free(grp->failures[f].error);
    free(grp->failures);
  }
  free(s->groups);
  for (size_t i = 0; i < s->time_count; i++) {
    free(s->times[i].waits);
    free(s->times[i].on);
  }
  free(s->times);
  free(s->pending);
  free(s->writes);
  free(s->stalls);
  free(s->lost);
  free(s->cycles);
  free(s->cycle_threads);
  free(s->late_by);
  free(s->failures.at);
  free(s->requests_pending.at);
  for (size_t i = 0; i < s->storm_count; i++) free(s->storms[i].error);
  free(s->storms);
  mprof__stream_pool_free(&s->pool);
  free(s);
}

void mprof_stream_result_free(mprof_stream_result_t *r) {
  mprof_model_free(r->named);
  mprof_analysis_free(&r->analysis);
  memset(r, 0, sizeof *r);
}
