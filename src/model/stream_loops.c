/* stream_loops.c -- the loop findings (loop_blocked, busy_loop) in one
 * pass: each OS-thread stream where a loop ran or slept feeds its running
 * spans and idle bands, as they close, to a scan of findings_loops.h,
 * which judges them as the model's analysis does (docs/analysis.md,
 * "Streaming").  What a scan keeps is bounded by its loop: the callbacks
 * of the iteration under way, those of a busy window, the findings. */
#include <string.h>

#include "stream_internal.h"

static void hold(void *ref, int up) {
  if (up)
    mprof__stream_ref(ref);
  else
    mprof__stream_unref(ref);
}

/* o's scan, begun at its loop's first presence (a band, or a loop thread
 * that ran): what ran before it is no loop's callback.  NULL: none yet,
 * or memory ran out (s->failed). */
static mprof__loop_scan_t *scan_of(stream_t *s, ostream_t *o, int presence) {
  if (o->scan || !presence) return o->scan;
  if (!(o->scan = malloc(sizeof *o->scan))) {
    s->failed = MPROF_ENOMEM;
    return NULL;
  }
  mprof__loop_scan_init(o->scan, &s->options,
                        (mprof__loop_thread_t){MPROF_NO_THREAD, NULL});
  o->scan->hold = hold;
  return o->scan;
}

static void feed(stream_t *s, mprof__loop_scan_t *scan,
                 const mprof__loop_item_t *item) {
  int err = mprof__loop_scan_item(scan, item);
  if (err) s->failed = err;
}

/* A thread from before the trace that ran up to an idle band: the model
 * takes it for a loop if it did so before half its stream's bands. */
static void note_sleeper(stream_t *s, ostream_t *o, int64_t band_start) {
  o->bands++;
  uint32_t t = o->span_preexisting;
  if (t == MPROF_NO_THREAD || o->span_end_ns != band_start) return;
  for (size_t k = 0; k < o->sleeper_count; k++)
    if (o->sleepers[k].index == t) {
      o->sleepers[k].runs++;
      return;
    }
  if (mprof__grow(&o->sleepers, &o->sleeper_cap, o->sleeper_count + 1,
                  sizeof *o->sleepers)) {
    s->failed = MPROF_ENOMEM;
    return;
  }
  o->sleepers[o->sleeper_count++] = (sleeper_t){t, 1};
}

/* Might the model take a thread from before the trace for o's loop?  A
 * stream with a loop thread is judged in stretches (the bands counted are
 * theirs): any that slept there might be. */
static int sleeper_loop(const ostream_t *o) {
  for (size_t k = 0; k < o->sleeper_count; k++)
    if (o->first_loop || (uint64_t)o->sleepers[k].runs * 2 >= o->bands)
      return 1;
  return 0;
}

static void feed_band(stream_t *s, ostream_t *o, int64_t start, int64_t end) {
  note_sleeper(s, o, start);
  mprof__loop_scan_t *scan = scan_of(s, o, 1);
  mprof__loop_item_t band = {start, end, 0, {MPROF_NO_THREAD, NULL}, 0, 0, 0};
  if (scan) feed(s, scan, &band);
}

/* The end of t's line as the model cuts its spans: a thread not ended is
 * seen until MODEL_PENDING_TAIL_NS after it was last seen (or later, if it is
 * seen again: at the end, when settle_endings() has ended it). */
static int64_t line_end(const sthread_t *t) {
  if (t->ending != MPROF_ENDING_PENDING)
    return t->end_ns > t->start_ns ? t->end_ns : t->start_ns;
  return t->last_seen_ns + MODEL_PENDING_TAIL_NS;
}

static void feed_span(stream_t *s, ostream_t *o, sthread_t *t, int64_t start,
                      int64_t end) {
  mprof__loop_scan_t *scan = scan_of(s, o, t->type == MPROF_LOOP);
  if (end > line_end(t)) end = line_end(t);
  if (end <= start) return;
  o->span_end_ns = end;
  o->span_preexisting =
      t->flags & MPROF_THREAD_PREEXISTING ? t->index : MPROF_NO_THREAD;
  mprof__loop_item_t item = {
      start, end, t->start_ns, {t->index, t}, t->type == MPROF_LOOP, 0, 0};
  mprof__loop_kinds(t->type, t->label, &item);
  if (item.loop && !o->first_loop) o->first_loop = mprof__stream_ref(t);
  if (scan) feed(s, scan, &item);
}

/* Is where held's span ends as the model cuts it known now (a band's is)?
 * A thread not ended may yet be seen again, its line then longer. */
static int cut_known(const held_t *h) {
  return !h->thread || h->thread->ending != MPROF_ENDING_PENDING ||
         h->end_ns <= line_end(h->thread);
}

/* Feed o's held spans and bands, in order, while their ends are known
 * (all of them at the end).  Past STREAM_RETIRE_EVENTS held, the first
 * goes on as its thread's line ends so far: the stream's findings are
 * then in doubt (counted late). */
static void feed_held(stream_t *s, ostream_t *o, int end) {
  while (o->held_first < o->held_count) {
    held_t *h = &o->held[o->held_first];
    if (!end && !cut_known(h)) {
      if (o->held_count - o->held_first < STREAM_RETIRE_EVENTS) break;
      o->loop_doubt = 1;
    }
    o->held_first++;
    if (!h->thread) {
      feed_band(s, o, h->start_ns, h->end_ns);
      continue;
    }
    feed_span(s, o, h->thread, h->start_ns, h->end_ns);
    mprof__stream_unref(h->thread);
  }
  if (o->held_first == o->held_count) o->held_first = o->held_count = 0;
}

/* Hold a span (thread t, a reference taken) or a band (t NULL) until the
 * spans before it are fed. */
static void hold_item(stream_t *s, ostream_t *o, sthread_t *t, int64_t start,
                      int64_t end) {
  if (mprof__grow(&o->held, &o->held_cap, o->held_count + 1, sizeof *o->held)) {
    s->failed = MPROF_ENOMEM;
    return;
  }
  o->held[o->held_count++] = (held_t){start, end, mprof__stream_ref(t)};
}

void mprof__stream_loop_band(stream_t *s, ostream_t *o, int64_t start,
                             int64_t end) {
  if (o->held_first == o->held_count) {
    feed_band(s, o, start, end);
    return;
  }
  hold_item(s, o, NULL, start, end);
  feed_held(s, o, 0);
}

void mprof__stream_loop_span(stream_t *s, ostream_t *o, sthread_t *t,
                             int64_t start, int64_t end) {
  /* the root runs nothing; a retired thread's line is long over */
  if (mprof__stream_fixed(t)) return;
  if (start < t->start_ns) start = t->start_ns;
  held_t span = {start, end, t};
  if (o->held_first == o->held_count && cut_known(&span)) {
    feed_span(s, o, t, start, end);
    return;
  }
  hold_item(s, o, t, start, end);
  feed_held(s, o, 0);
}

/* The scans' ends, once the threads not ended have their ends.  A
 * finding made before a loop thread ran on its stream names the first
 * that did (as the model's scan begins with it). */
int mprof__stream_loops_end(stream_t *s) {
  int err = 0;
  for (size_t i = 0; !err && i < s->stream_count; i++) {
    ostream_t *o = &s->streams[i];
    feed_held(s, o, 1);
    if ((err = s->failed) || !o->scan) continue;
    err = mprof__loop_scan_end(o->scan);
    for (size_t k = 0; !err && o->first_loop && k < o->scan->found_count; k++) {
      mprof__loop_finding_t *lf = &o->scan->found[k];
      if (lf->loop.index != MPROF_NO_THREAD) continue;
      lf->loop = (mprof__loop_thread_t){o->first_loop->index,
                                        mprof__stream_ref(o->first_loop)};
    }
  }
  return err;
}

/* Call fn on each thread that lf names.  Returns the first error fn
 * returns, or 0. */
static int each_thread(mprof__loop_finding_t *lf,
                       int (*fn)(void *, mprof__loop_thread_t *),
                       void *context) {
  int err = fn(context, &lf->loop);
  for (uint32_t k = 0; !err && k < lf->ran_count; k++)
    err = fn(context, &lf->ran[k].thread);
  for (uint32_t k = 0; !err && k < lf->waited_count; k++)
    err = fn(context, &lf->waited[k].thread);
  for (uint32_t k = 0; !err && k < lf->spinner_count; k++)
    err = fn(context, &lf->spinners[k].thread);
  return err;
}

/* The findings of the streams a loop ran on (the model looks at no
 * other). */
static int loop_stream(const ostream_t *o) { return o->scan && o->loop; }

/* A visit of a thread's record (a loop not known has none). */
typedef struct visit_s {
  int (*visit)(void *, sthread_t *);
  void *context;
} visit_t;

static int visit_record(void *context, mprof__loop_thread_t *t) {
  const visit_t *v = context;
  return t->ref ? v->visit(v->context, t->ref) : 0;
}

int mprof__stream_loop_threads(const stream_t *s,
                               int (*visit)(void *, sthread_t *),
                               void *context) {
  visit_t v = {visit, context};
  int err = 0;
  for (size_t i = 0; i < s->stream_count; i++) {
    const ostream_t *o = &s->streams[i];
    for (size_t k = 0; !err && loop_stream(o) && k < o->scan->found_count; k++)
      err = each_thread(&o->scan->found[k], visit_record, &v);
  }
  return err;
}

/* A thread of a finding as the named model's. */
static int to_named(void *context, mprof__loop_thread_t *t) {
  (void)context;
  if (t->ref) t->index = ((const sthread_t *)t->ref)->named;
  return 0;
}

int mprof__stream_loops_write(stream_t *s, const mprof_model_t *m,
                              const mprof_analysis_options_t *options,
                              mprof_analysis_t *out) {
  finder_t f = {.m = m, .v = &m->view, .options = options, .out = out};
  int err = 0;
  for (size_t i = 0; i < s->stream_count; i++) {
    const ostream_t *o = &s->streams[i];
    if (loop_stream(o) && ((o->first_loop && o->loop_doubt) || sleeper_loop(o)))
      s->late++;
    for (size_t k = 0; !err && loop_stream(o) && k < o->scan->found_count;
         k++) {
      mprof__loop_finding_t lf = o->scan->found[k];
      each_thread(&lf, to_named, NULL);
      err = mprof__loop_finding_write(&f, &lf);
    }
  }
  return err;
}

/* Everything goes at once (mprof__stream_free): no reference is dropped. */
void mprof__stream_loops_free(stream_t *s) {
  for (size_t i = 0; i < s->stream_count; i++) {
    mprof__loop_scan_t *scan = s->streams[i].scan;
    free(s->streams[i].sleepers);
    free(s->streams[i].held);
    if (!scan) continue;
    scan->hold = NULL;
    mprof__loop_scan_free(scan);
    free(scan);
  }
}
