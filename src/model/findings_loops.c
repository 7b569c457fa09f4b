/* findings_loops.c -- the findings about loops, from their OS threads'
 * spans and idle bands (docs/analysis.md): a callback that held its loop
 * (loop_blocked) and a loop that went round without sleeping in its poll
 * (busy_loop).  A cheap walk of each loop's own spans and bands finds the
 * stretches worth a look; only their spans are put in time order. */
#include <string.h>

#include "findings_internal.h"

/* A loop is judged busy or not window by window: a busy window has this
 * many iterations at least (20,000 a second: a loop that sleeps in its
 * poll between events, however busy, makes a few thousand).  Wall-clock
 * time in the poll says nothing here: an OS thread that spins is
 * preempted, and that shows as time in the poll too. */
#define BUSY_WINDOW_NS 50000000
#define BUSY_MIN_ITERATIONS 1000

/* --- The loops' OS threads ------------------------------------------------ */

/* A loop stream's timeline: its running spans and idle bands in order. */
typedef struct item_s {
  int64_t start_ns, end_ns;
  uint32_t stream;
  uint32_t thread; /* running thread; MPROF_NO_THREAD: in poll */
} item_t;

typedef struct timeline_s {
  item_t *items;
  size_t count;
} timeline_t;

/* Sort items[0..n) by start, stably: a radix sort over 16 bits of the
 * start at a time (sorting a big trace's millions of spans by comparisons
 * took most of the analysis).  *items may be swapped for its copy.
 * Returns 0 or MPROF_ENOMEM. */
static int sort_by_start(item_t **items, size_t n) {
  int64_t latest = 0;
  for (size_t i = 0; i < n; i++)
    if ((*items)[i].start_ns > latest) latest = (*items)[i].start_ns;
  item_t *from = *items, *to = malloc((n + 1) * sizeof *to);
  uint32_t *first = malloc(65537 * sizeof *first);
  if (!to || !first) {
    free(to);
    free(first);
    return MPROF_ENOMEM;
  }
  for (unsigned shift = 0; shift < 64 && ((uint64_t)latest >> shift);
       shift += 16) {
    memset(first, 0, 65537 * sizeof *first);
    for (size_t i = 0; i < n; i++)
      first[(((uint64_t)from[i].start_ns >> shift) & 0xffff) + 1]++;
    for (size_t d = 0; d < 65536; d++) first[d + 1] += first[d];
    for (size_t i = 0; i < n; i++)
      to[first[((uint64_t)from[i].start_ns >> shift) & 0xffff]++] = from[i];
    item_t *swap = from;
    from = to;
    to = swap;
  }
  free(to);
  free(first);
  *items = from;
  return 0;
}

/* The stretches of a stream worth a detector's look, in order, apart. */
typedef struct range_s {
  int64_t start_ns, end_ns;
} range_t;

typedef struct ranges_s {
  range_t *at;
  size_t count, cap;
} ranges_t;

/* Add [start, end] after the ranges so far (joined to the last one where
 * they meet).  Returns 0 or MPROF_ENOMEM. */
static int range_add(ranges_t *r, int64_t start, int64_t end) {
  if (r->count && start <= r->at[r->count - 1].end_ns) {
    if (end > r->at[r->count - 1].end_ns) r->at[r->count - 1].end_ns = end;
    return 0;
  }
  if (mprof__grow(&r->at, &r->cap, r->count + 1, sizeof *r->at))
    return MPROF_ENOMEM;
  r->at[r->count++] = (range_t){start, end};
  return 0;
}

/* Does [start, end] meet one of the ranges? */
static int in_ranges(const ranges_t *r, int64_t start, int64_t end) {
  size_t lo = 0, hi = r->count;
  while (lo < hi) { /* the first range that ends at start or later */
    size_t mid = lo + (hi - lo) / 2;
    if (r->at[mid].end_ns < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < r->count && r->at[lo].start_ns <= end;
}

/* Append item to the timeline.  Returns 0 or MPROF_ENOMEM. */
static int timeline_add(timeline_t *tl, size_t *cap, item_t item) {
  if (mprof__grow(&tl->items, cap, tl->count + 1, sizeof *tl->items))
    return MPROF_ENOMEM;
  tl->items[tl->count++] = item;
  return 0;
}

/* The spans and idle bands of one stream a loop ran on, within the
 * ranges, by time: one pass over the spans, one over the bands. */
static int build_timeline(finder_t *f, uint32_t stream, const ranges_t *ranges,
                          timeline_t *tl) {
  const mprof_model_view_t *v = f->v;
  size_t cap = 0;
  for (size_t i = 0; i < v->running_count; i++) {
    const mprof_span_t *s = &v->running[i];
    if (s->stream == stream && in_ranges(ranges, s->start_ns, s->end_ns) &&
        timeline_add(tl, &cap,
                     (item_t){s->start_ns, s->end_ns, stream, s->thread}))
      return MPROF_ENOMEM;
  }
  for (size_t i = 0; i < v->band_count; i++) {
    const mprof_span_t *s = &v->bands[i].span;
    if (s->stream == stream && v->bands[i].kind == MPROF_BAND_IDLE &&
        in_ranges(ranges, s->start_ns, s->end_ns) &&
        timeline_add(tl, &cap,
                     (item_t){s->start_ns, s->end_ns, stream, MPROF_NO_THREAD}))
      return MPROF_ENOMEM;
  }
  return sort_by_start(&tl->items, tl->count);
}

/* The loops of one stream's timeline: besides the threads of type loop
 * (marked already), threads from before the trace (whose creation, and so
 * type, a ring overwrote) that went to sleep in half the stream's idle
 * bands or more.  Uses f->runs, left zeroed. */
static void mark_loops(finder_t *f, const timeline_t *tl) {
  uint32_t bands = 0;
  for (size_t i = 1; i < tl->count; i++) {
    const item_t *before = &tl->items[i - 1], *band = &tl->items[i];
    if (band->thread != MPROF_NO_THREAD) continue;
    bands++;
    if (before->thread != MPROF_NO_THREAD && before->end_ns == band->start_ns &&
        (f->v->threads[before->thread].flags & MPROF_THREAD_PREEXISTING))
      f->runs[before->thread]++;
  }
  for (size_t i = 0; i < tl->count; i++) {
    uint32_t t = tl->items[i].thread;
    if (t == MPROF_NO_THREAD || !f->runs[t]) continue;
    f->is_loop[t] = (uint64_t)f->runs[t] * 2 >= bands;
    f->runs[t] = 0;
  }
}

/* Is the loop there (running itself, or in its poll) during item i? */
static int loop_present(const finder_t *f, const item_t *i) {
  return i->thread == MPROF_NO_THREAD || f->is_loop[i->thread];
}

/* The callbacks that ran after items[end] and before the loop's next poll
 * waited while the loop was held: name them. */
static int waiting_meanwhile(finder_t *f, const item_t *items, size_t end,
                             size_t hi, int64_t held_from, uint32_t *waited) {
  int err = 0;
  for (size_t k = end + 1; !err && k < hi && items[k].thread != MPROF_NO_THREAD;
       k++) {
    uint32_t t = items[k].thread;
    if (loop_present(f, &items[k]) || t == items[end].thread) continue;
    const mprof_thread_t *th = &f->v->threads[t];
    int64_t from = th->start_ns > held_from ? th->start_ns : held_from;
    uint32_t before = f->current.thread_count;
    err = mprof__finding_thread(f, t);
    if (!err && f->current.thread_count > before) {
      (*waited)++;
      err =
          mprof__finding_evidence(f, MPROF_EVIDENCE_PENDING, t, MPROF_NO_THREAD,
                                  1, from, items[k].start_ns);
    }
  }
  return err;
}

/* items[first..last] ran from the loop's hand back to it, too long. */
static int loop_blocked(finder_t *f, const item_t *items, size_t first,
                        size_t last, size_t hi, uint32_t loop) {
  int64_t start = items[first].start_ns, end = items[last].end_ns;
  mprof__finding_begin(f, MPROF_FINDING_LOOP_BLOCKED, MPROF_SEVERITY_WARNING,
                       start, end);
  f->current.value_ns = end - start;
  int err = mprof__finding_thread(f, items[first].thread);
  if (!err) err = mprof__finding_thread(f, loop);
  for (size_t k = first; !err && k <= last; k++)
    err = mprof__finding_evidence(f, MPROF_EVIDENCE_RAN, items[k].thread,
                                  MPROF_NO_THREAD, 1, items[k].start_ns,
                                  items[k].end_ns);
  uint32_t waited = 0;
  if (!err) err = waiting_meanwhile(f, items, last, hi, start, &waited);
  /* a block nothing waited for (a program's start-up work) delayed
   * nothing that the trace shows */
  if (!waited) f->current.severity = MPROF_SEVERITY_INFO;
  mprof__put(&f->text, "a callback of ");
  mprof__put_thread(&f->text, f->m, items[first].thread);
  mprof__put(&f->text, " held ");
  mprof__put_thread(&f->text, f->m, loop);
  mprof__put(&f->text, " for ");
  mprof__put_duration(&f->text, end - start);
  mprof__put(&f->text, " at ");
  mprof__put_duration(&f->text, start);
  mprof__put(&f->text, " without returning to it; ");
  mprof__put_uint(&f->text, waited);
  mprof__put(&f->text, waited == 1 ? " callback waited" : " callbacks waited");
  return err ? err : mprof__finding_commit(f);
}

/* The first loop thread that runs in items[lo..hi), or NO (a timeline cut
 * to the places worth a look may begin with a band). */
static uint32_t first_loop(const finder_t *f, const item_t *items, size_t lo,
                           size_t hi) {
  for (size_t i = lo; i < hi; i++)
    if (items[i].thread != MPROF_NO_THREAD && f->is_loop[items[i].thread])
      return items[i].thread;
  return MPROF_NO_THREAD;
}

/* Callbacks on one loop stream (items[lo..hi)) that held the loop at
 * least the threshold: a run of spans of other threads that begins where
 * the loop handed over and goes on, span after span, until the loop is
 * back. */
static int find_blocked(finder_t *f, const item_t *items, size_t lo,
                        size_t hi) {
  int64_t loop_end = -1;
  uint32_t loop = first_loop(f, items, lo, hi);
  for (size_t i = lo; i < hi;) {
    if (loop_present(f, &items[i])) {
      loop_end = items[i].end_ns;
      if (items[i].thread != MPROF_NO_THREAD) loop = items[i].thread;
      i++;
      continue;
    }
    size_t last = i;
    while (last + 1 < hi && !loop_present(f, &items[last + 1]) &&
           items[last + 1].start_ns == items[last].end_ns)
      last++;
    if (loop != MPROF_NO_THREAD && items[i].start_ns == loop_end &&
        items[last].end_ns - items[i].start_ns >= f->options->loop_blocked_ns) {
      int err = loop_blocked(f, items, i, last, hi, loop);
      if (err) return err;
    }
    i = last + 1;
  }
  return 0;
}

/* Is thread t a handle of one of these kinds (its first label)? */
static int handle_kind(const finder_t *f, uint32_t t,
                       const char *const *kinds) {
  const mprof_thread_t *th = &f->v->threads[t];
  if (th->type != MPROF_HANDLE || !th->label_count) return 0;
  const char *label = f->v->strings + f->v->labels[th->first_label].text;
  for (; *kinds; kinds++)
    if (!strcmp(label, *kinds)) return 1;
  return 0;
}

/* Does a callback of thread t do no I/O: a timer, or an idle, prepare or
 * check handle (what keeps a loop iterating by itself)? */
static int spins_alone(const finder_t *f, uint32_t t) {
  static const char *const kinds[] = {"idle", "prepare", "check", NULL};
  return f->v->threads[t].type == MPROF_TIMER || handle_kind(f, t, kinds);
}

/* A prepare handle's callback runs just before the poll: the tracer's
 * mark of the poll (where the idle band begins) may come before it, so
 * the poll lasts until the first callback of another kind. */
static int runs_before_poll(const finder_t *f, uint32_t t) {
  static const char *const kinds[] = {"prepare", NULL};
  return handle_kind(f, t, kinds);
}

/* The busy windows of one loop, one after the other, and the window
 * being judged. */
typedef struct streak_s {
  int64_t start_ns, end_ns; /* the busy windows so far (start -1: none) */
  uint32_t polls, empty;    /* their iterations, those with no I/O callback */
  int64_t window_ns;        /* the window's start, or -1 */
  uint32_t window_polls, window_empty;
  int productive;    /* the current iteration ran an I/O callback */
  uint32_t *touched; /* threads whose runs[] it raised */
  size_t touched_count, touched_cap;
  uint32_t loop;
} streak_t;

static int by_runs_desc(const finder_t *f, uint32_t a, uint32_t b) {
  return f->runs[a] > f->runs[b];
}

/* The streak's spinners (threads that ran in half its iterations or
 * more), most runs first, into the current finding. */
static int name_spinners(finder_t *f, streak_t *s) {
  for (size_t i = 1; i < s->touched_count; i++)
    for (size_t j = i;
         j > 0 && by_runs_desc(f, s->touched[j], s->touched[j - 1]); j--) {
      uint32_t tmp = s->touched[j];
      s->touched[j] = s->touched[j - 1];
      s->touched[j - 1] = tmp;
    }
  int err = 0;
  for (size_t i = 0; !err && i < s->touched_count && i < 3; i++) {
    uint32_t t = s->touched[i];
    if (f->runs[t] * 2 < s->polls) break;
    if (i) mprof__put(&f->text, ", ");
    mprof__put_thread(&f->text, f->m, t);
    mprof__put(&f->text, " ran ");
    mprof__put_uint(&f->text, f->runs[t]);
    mprof__put(&f->text, " times");
    err = mprof__finding_thread(f, t);
    if (!err)
      err = mprof__finding_evidence(f, MPROF_EVIDENCE_SPUN, t, MPROF_NO_THREAD,
                                    f->runs[t], s->start_ns, s->end_ns);
  }
  return err;
}

static int busy_loop(finder_t *f, streak_t *s) {
  mprof__finding_begin(f, MPROF_FINDING_BUSY_LOOP, MPROF_SEVERITY_WARNING,
                       s->start_ns, s->end_ns);
  f->current.value_ns = s->end_ns - s->start_ns;
  mprof__put_thread(&f->text, f->m, s->loop);
  mprof__put(&f->text, " never slept in its poll for ");
  mprof__put_duration(&f->text, s->end_ns - s->start_ns);
  mprof__put(&f->text, " from ");
  mprof__put_duration(&f->text, s->start_ns);
  mprof__put(&f->text, " (");
  mprof__put_uint(&f->text, s->polls);
  mprof__put(&f->text, " iterations, ");
  mprof__put_uint(&f->text, s->empty);
  mprof__put(&f->text, " with no I/O): ");
  int err = name_spinners(f, s);
  if (!err) err = mprof__finding_thread(f, s->loop);
  return err ? err : mprof__finding_commit(f);
}

/* The busy windows are over: a finding if they last long enough. */
static int streak_end(finder_t *f, streak_t *s) {
  int err = 0;
  if (s->start_ns >= 0 && s->loop != MPROF_NO_THREAD &&
      s->end_ns - s->start_ns >= f->options->busy_loop_ns)
    err = busy_loop(f, s);
  for (size_t i = 0; i < s->touched_count; i++) f->runs[s->touched[i]] = 0;
  s->touched_count = 0;
  s->polls = s->empty = 0;
  s->start_ns = -1;
  return err;
}

/* The window that began at s->window_ns ends at now: busy (iterations
 * enough, nine in ten with no I/O) it joins the streak; else the streak
 * is over. */
static int window_end(finder_t *f, streak_t *s, int64_t now) {
  int err = 0;
  if (s->window_ns < 0) return 0;
  if (s->window_polls >= BUSY_MIN_ITERATIONS &&
      (uint64_t)s->window_empty * 10 >= (uint64_t)s->window_polls * 9) {
    if (s->start_ns < 0) s->start_ns = s->window_ns;
    s->end_ns = now;
    s->polls += s->window_polls;
    s->empty += s->window_empty;
  } else {
    err = streak_end(f, s);
  }
  s->window_ns = -1;
  return err;
}

/* A callback of t began in the streak. */
static int streak_run(finder_t *f, streak_t *s, uint32_t t) {
  if (!spins_alone(f, t)) s->productive = 1;
  if (f->runs[t]++ == 0) {
    if (mprof__grow(&s->touched, &s->touched_cap, s->touched_count + 1,
                    sizeof *s->touched))
      return MPROF_ENOMEM;
    s->touched[s->touched_count++] = t;
  }
  return 0;
}

/* A poll of the loop that began at start, in the current window (or the
 * first of a new one). */
static int streak_poll(finder_t *f, streak_t *s, int64_t start) {
  int err = 0;
  if (s->window_ns >= 0 && start - s->window_ns >= BUSY_WINDOW_NS)
    err = window_end(f, s, start);
  if (s->window_ns < 0) {
    s->window_ns = start;
    s->window_polls = s->window_empty = 0;
  }
  s->window_polls++;
  s->window_empty += !s->productive;
  s->productive = 0;
  return err;
}

/* Stretches of one loop stream (items[lo..hi)) where the loop went round
 * and round, never sleeping in its poll, and its iterations did no I/O.
 * An iteration's poll is its idle band; callbacks of prepare handles
 * right after the band still come before the poll. */
static int find_busy(finder_t *f, const item_t *items, size_t lo, size_t hi) {
  streak_t s;
  memset(&s, 0, sizeof s);
  s.loop = first_loop(f, items, lo, hi);
  s.start_ns = s.window_ns = -1;
  int err = 0;
  int64_t loop_end = -1, poll_start = -1;
  for (size_t i = lo; !err && i < hi; i++) {
    const item_t *it = &items[i];
    if (it->thread == MPROF_NO_THREAD) {
      if (poll_start >= 0) err = streak_poll(f, &s, poll_start);
      poll_start = it->start_ns;
      loop_end = it->end_ns;
    } else if (loop_present(f, it)) {
      s.loop = it->thread;
      loop_end = it->end_ns;
    } else if (it->start_ns == loop_end) {
      if (poll_start >= 0 && !runs_before_poll(f, it->thread)) {
        err = streak_poll(f, &s, poll_start);
        poll_start = -1;
      }
      if (!err && s.window_ns >= 0) err = streak_run(f, &s, it->thread);
    }
  }
  if (!err) err = window_end(f, &s, loop_end);
  if (!err) err = streak_end(f, &s);
  free(s.touched);
  return err;
}

/* The loop's presences on a stream (its own spans and its idle bands),
 * in time order, as they are walked. */
typedef struct presence_s {
  int64_t end_ns;      /* of the latest presence so far (-1: none) */
  int64_t gap_from_ns; /* a long gap began here, until the next band
                          ends (-1: none open) */
  size_t bands_in_window, window_first; /* bands of the latest 50 ms */
} presence_t;

/* The loop is present during [start, end] (a band if band): a gap as long
 * as a blocked loop before it opens a range, up to the end of the band
 * after it (the callbacks that waited run before it). */
static int presence_at(finder_t *f, presence_t *p, ranges_t *r, int64_t start,
                       int64_t end, int band) {
  int err = 0;
  if (p->end_ns >= 0 && start - p->end_ns >= f->options->loop_blocked_ns &&
      p->gap_from_ns < 0)
    p->gap_from_ns = p->end_ns;
  if (band && p->gap_from_ns >= 0) {
    err = range_add(r, p->gap_from_ns, end);
    p->gap_from_ns = -1;
  }
  if (end > p->end_ns) p->end_ns = end;
  return err;
}

/* A band of stream: a window of 50 ms crowded with bands is a range. */
static int band_at(finder_t *f, presence_t *p, ranges_t *r, uint32_t stream,
                   const mprof_span_t *band) {
  const mprof_band_t *bands = f->v->bands;
  p->bands_in_window++;
  while (band->start_ns - bands[p->window_first].span.start_ns >=
         BUSY_WINDOW_NS) {
    if (bands[p->window_first].span.stream == stream &&
        bands[p->window_first].kind == MPROF_BAND_IDLE)
      p->bands_in_window--;
    p->window_first++;
  }
  if (p->bands_in_window < BUSY_MIN_ITERATIONS) return 0;
  return range_add(r, bands[p->window_first].span.start_ns, band->end_ns);
}

/* The stretches of a stream worth the detectors' look, into *r: gaps
 * between the loop's presences as long as a blocked loop, and windows
 * crowded with polls.  A cheap walk (the loop's own spans and the bands
 * are in order already) that spares a big trace's loops a timeline of
 * all their spans.  A stream whose loop is from before the trace is
 * looked at whole. */
static int places_to_look(finder_t *f, uint32_t stream, ranges_t *r) {
  const mprof_model_view_t *v = f->v;
  const mprof_model_t *m = f->m;
  uint32_t loop = MPROF_NO_THREAD;
  for (size_t k = 0; k < f->facts->loop_count && loop == MPROF_NO_THREAD; k++)
    if (mprof__thread_stream(m, f->facts->loops[k]) == stream)
      loop = f->facts->loops[k];
  if (loop == MPROF_NO_THREAD) return range_add(r, 0, INT64_MAX);
  presence_t p = {-1, -1, 0, 0};
  uint32_t row = v->threads[loop].row;
  size_t k = m->row_running_first[row], k_end = m->row_running_first[row + 1];
  size_t b = 0;
  int err = 0;
  while (!err) {
    while (k < k_end &&
           (v->running[k].thread != loop || v->running[k].stream != stream))
      k++;
    while (b < v->band_count && (v->bands[b].span.stream != stream ||
                                 v->bands[b].kind != MPROF_BAND_IDLE))
      b++;
    if (k == k_end && b == v->band_count) break;
    if (b == v->band_count ||
        (k < k_end && v->running[k].start_ns < v->bands[b].span.start_ns)) {
      err = presence_at(f, &p, r, v->running[k].start_ns, v->running[k].end_ns,
                        0);
      k++;
    } else {
      const mprof_span_t *band = &v->bands[b++].span;
      err = presence_at(f, &p, r, band->start_ns, band->end_ns, 1);
      if (!err) err = band_at(f, &p, r, stream, band);
    }
  }
  if (!err && p.gap_from_ns >= 0) err = range_add(r, p.gap_from_ns, INT64_MAX);
  return err;
}

/* The per-thread arrays of the loops' detectors, made for the first
 * stream that needs them.  Returns 0 or MPROF_ENOMEM. */
static int loop_arrays(finder_t *f) {
  if (f->runs) return 0;
  f->runs = calloc(f->v->thread_count + 1, sizeof *f->runs);
  f->is_loop = calloc(f->v->thread_count + 1, 1);
  if (!f->runs || !f->is_loop) return MPROF_ENOMEM;
  for (size_t k = 0; k < f->facts->loop_count; k++)
    f->is_loop[f->facts->loops[k]] = 1;
  return 0;
}

int mprof__find_in_loops(finder_t *f) {
  int err = 0;
  for (uint32_t stream = 0; !err && stream < f->v->stream_count; stream++) {
    timeline_t tl = {NULL, 0};
    ranges_t ranges = {NULL, 0, 0};
    if (!f->loop_stream[stream]) continue;
    err = places_to_look(f, stream, &ranges);
    if (!err && ranges.count) err = loop_arrays(f);
    if (!err && ranges.count) err = build_timeline(f, stream, &ranges, &tl);
    free(ranges.at);
    if (!err) {
      mark_loops(f, &tl);
      err = find_blocked(f, tl.items, 0, tl.count);
    }
    if (!err) err = find_busy(f, tl.items, 0, tl.count);
    free(tl.items);
  }
  free(f->runs);
  free(f->is_loop);
  f->runs = NULL;
  f->is_loop = NULL;
  return err;
}
