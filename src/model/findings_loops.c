/* findings_loops.c -- the findings about loops, from their OS threads'
 * spans and idle bands (docs/analysis.md): a callback that held its loop
 * (loop_blocked) and a loop that went round without sleeping in its poll
 * (busy_loop).  A cheap walk of each loop's own spans and bands finds the
 * stretches worth a look; only their spans are put in time order. */
#include <string.h>

#include "findings_loops.h"

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
    mprof_span_t s = mprof_running_at(v, i);
    if (s.stream == stream && in_ranges(ranges, s.start_ns, s.end_ns) &&
        timeline_add(tl, &cap,
                     (item_t){s.start_ns, s.end_ns, stream, s.thread}))
      return MPROF_ENOMEM;
  }
  for (size_t i = 0; i < v->band_count; i++) {
    mprof_band_t b = mprof_band_at(v, i);
    if (b.span.stream == stream && b.kind == MPROF_BAND_IDLE &&
        in_ranges(ranges, b.span.start_ns, b.span.end_ns) &&
        timeline_add(
            tl, &cap,
            (item_t){b.span.start_ns, b.span.end_ns, stream, MPROF_NO_THREAD}))
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

/* --- The judgement, item by item (findings_loops.h) ----------------------- */

/* Is thread `type` with first label `label` a handle of one of these
 * kinds? */
static int handle_kind(uint16_t type, const char *label,
                       const char *const *kinds) {
  if (type != MPROF_HANDLE || !label) return 0;
  for (; *kinds; kinds++)
    if (!strcmp(label, *kinds)) return 1;
  return 0;
}

/* A callback of a timer, or of an idle, prepare or check handle, does no
 * I/O (it keeps a loop iterating by itself).  A prepare handle's callback
 * runs just before the poll: the tracer's mark of the poll (where the
 * idle band begins) may come before it, so the poll lasts until the first
 * callback of another kind. */
void mprof__loop_kinds(uint16_t type, const char *label,
                       mprof__loop_item_t *item) {
  static const char *const alone[] = {"idle", "prepare", "check", NULL};
  static const char *const before[] = {"prepare", NULL};
  item->spins_alone = type == MPROF_TIMER || handle_kind(type, label, alone);
  item->before_poll = (uint8_t)handle_kind(type, label, before);
}

void mprof__loop_scan_init(mprof__loop_scan_t *scan,
                           const mprof_analysis_options_t *options,
                           mprof__loop_thread_t loop) {
  memset(scan, 0, sizeof *scan);
  scan->blocked_ns = options->loop_blocked_ns;
  scan->busy_ns = options->busy_loop_ns;
  scan->loop = loop;
  scan->loop_end_ns = scan->run_start_ns = -1;
  scan->streak_start_ns = scan->window_ns = scan->poll_start_ns = -1;
}

/* The scan keeps thread t; lets it go. */
static void keep(const mprof__loop_scan_t *scan, mprof__loop_thread_t t) {
  if (scan->hold && t.ref) scan->hold(t.ref, 1);
}

static void let_go(const mprof__loop_scan_t *scan, mprof__loop_thread_t t) {
  if (scan->hold && t.ref) scan->hold(t.ref, 0);
}

/* Let go of what a finding names. */
static void found_let_go(const mprof__loop_scan_t *scan,
                         const mprof__loop_finding_t *lf) {
  let_go(scan, lf->loop);
  for (uint32_t k = 0; k < lf->ran_count; k++) let_go(scan, lf->ran[k].thread);
  for (uint32_t k = 0; k < lf->waited_count; k++)
    let_go(scan, lf->waited[k].thread);
  for (uint32_t k = 0; k < lf->spinner_count; k++)
    let_go(scan, lf->spinners[k].thread);
}

void mprof__loop_scan_free(mprof__loop_scan_t *scan) {
  let_go(scan, scan->loop);
  for (uint32_t k = 0; k < scan->ran_count; k++)
    let_go(scan, scan->ran[k].thread);
  for (size_t k = 0; k < scan->touched_count; k++)
    if (scan->touched[k].runs > 1) let_go(scan, scan->touched[k].thread);
  for (size_t k = 0; k < scan->found_count; k++)
    found_let_go(scan, &scan->found[k]);
  free(scan->touched);
  free(scan->slots);
  free(scan->found);
  memset(scan, 0, sizeof *scan);
}

/* A new finding of kind over [start, end] naming the current loop.
 * Returns it, or NULL. */
static mprof__loop_finding_t *found_new(mprof__loop_scan_t *scan,
                                        mprof_finding_kind_t kind,
                                        int64_t start, int64_t end) {
  if (mprof__grow(&scan->found, &scan->found_cap, scan->found_count + 1,
                  sizeof *scan->found))
    return NULL;
  mprof__loop_finding_t *lf = &scan->found[scan->found_count++];
  memset(lf, 0, sizeof *lf);
  *lf = (mprof__loop_finding_t){
      .kind = kind, .start_ns = start, .end_ns = end, .loop = scan->loop};
  keep(scan, lf->loop);
  return lf;
}

/* --- loop_blocked --------------------------------------------------------- */

/* The run of callbacks ended: one that began where the loop handed over
 * and held it the threshold is a block, which then collects the
 * callbacks that wait until the loop's next poll. */
static int run_end(mprof__loop_scan_t *scan) {
  int64_t start = scan->run_start_ns, end = scan->run_end_ns;
  scan->run_start_ns = -1;
  if (start < 0 || start != scan->loop_end_ns || end - start < scan->blocked_ns)
    return 0;
  mprof__loop_finding_t *lf =
      found_new(scan, MPROF_FINDING_LOOP_BLOCKED, start, end);
  if (!lf) return MPROF_ENOMEM;
  memcpy(lf->ran, scan->ran, scan->ran_count * sizeof *scan->ran);
  lf->ran_count = scan->ran_count;
  for (uint32_t k = 0; k < lf->ran_count; k++) keep(scan, lf->ran[k].thread);
  lf->last_thread = scan->run_last;
  return 0;
}

/* Callback `item` ran after the blocks still collecting and before the
 * loop's next poll: each names it once (a finding names so many threads
 * at most, the loop and the one at fault among them). */
static void waited_add(const mprof__loop_scan_t *scan,
                       mprof__loop_finding_t *lf,
                       const mprof__loop_item_t *item) {
  if (item->loop || item->thread.index == lf->last_thread) return;
  for (uint32_t k = 0; k < lf->waited_count; k++)
    if (lf->waited[k].thread.index == item->thread.index) return;
  if (lf->waited_count == FINDING_THREADS + 2) return;
  int64_t from = item->thread_start_ns > lf->start_ns ? item->thread_start_ns
                                                      : lf->start_ns;
  lf->waited[lf->waited_count++] =
      (mprof__loop_span_t){item->thread, from, item->start_ns};
  keep(scan, item->thread);
}

static void collect_waited(mprof__loop_scan_t *scan,
                           const mprof__loop_item_t *item) {
  if (item->thread.index == MPROF_NO_THREAD) {
    scan->collecting_from = scan->found_count;
    return;
  }
  for (size_t k = scan->collecting_from; k < scan->found_count; k++)
    if (scan->found[k].kind == MPROF_FINDING_LOOP_BLOCKED)
      waited_add(scan, &scan->found[k], item);
}

/* A run of callbacks goes on, span after span, while the loop is away. */
static void run_step(mprof__loop_scan_t *scan, const mprof__loop_item_t *item) {
  if (scan->run_start_ns < 0) {
    scan->run_start_ns = item->start_ns;
    for (uint32_t k = 0; k < scan->ran_count; k++)
      let_go(scan, scan->ran[k].thread);
    scan->ran_count = 0;
  }
  scan->run_end_ns = item->end_ns;
  scan->run_last = item->thread.index;
  if (scan->ran_count < FINDING_EVIDENCE) {
    scan->ran[scan->ran_count++] =
        (mprof__loop_span_t){item->thread, item->start_ns, item->end_ns};
    keep(scan, item->thread);
  }
}

/* --- busy_loop ------------------------------------------------------------ */

/* The streak's entry for thread t (made if new).  Returns it, or NULL. */
static mprof__loop_runs_t *touched_of(mprof__loop_scan_t *scan,
                                      mprof__loop_thread_t t) {
  if (scan->touched_count * 2 >= scan->slot_cap) {
    size_t cap = scan->slot_cap ? scan->slot_cap * 2 : 64;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return NULL;
    for (size_t i = 0; i < scan->touched_count; i++) {
      size_t h = mprof__loop_touched_hash(scan->touched[i].thread.index, cap);
      while (slots[h]) h = (h + 1) & (cap - 1);
      slots[h] = (uint32_t)i + 1;
    }
    free(scan->slots);
    scan->slots = slots;
    scan->slot_cap = cap;
  }
  size_t h = mprof__loop_touched_hash(t.index, scan->slot_cap);
  for (; scan->slots[h]; h = (h + 1) & (scan->slot_cap - 1))
    if (scan->touched[scan->slots[h] - 1].thread.index == t.index)
      return &scan->touched[scan->slots[h] - 1];
  if (mprof__grow(&scan->touched, &scan->touched_cap, scan->touched_count + 1,
                  sizeof *scan->touched))
    return NULL;
  scan->slots[h] = (uint32_t)++scan->touched_count;
  scan->touched[scan->touched_count - 1] = (mprof__loop_runs_t){t, 0};
  return &scan->touched[scan->touched_count - 1];
}

/* Does a come before b among the spinners (more runs, then the first
 * touched)? */
static int spins_more(const mprof__loop_runs_t *a, const mprof__loop_runs_t *b,
                      size_t ia, size_t ib) {
  return a->runs != b->runs ? a->runs > b->runs : ia < ib;
}

/* The streak's spinners: the threads that ran in half its iterations or
 * more, most runs first, three at most. */
static void pick_spinners(const mprof__loop_scan_t *scan,
                          mprof__loop_finding_t *lf) {
  size_t best[3], n = 0;
  for (size_t i = 0; i < scan->touched_count; i++) {
    size_t at = n < 3 ? n++ : 3;
    while (at > 0 && spins_more(&scan->touched[i], &scan->touched[best[at - 1]],
                                i, best[at - 1])) {
      if (at < 3) best[at] = best[at - 1];
      at--;
    }
    if (at < 3) best[at] = i;
  }
  for (size_t k = 0; k < n; k++) {
    const mprof__loop_runs_t *r = &scan->touched[best[k]];
    if ((uint64_t)r->runs * 2 < scan->polls) break;
    lf->spinners[lf->spinner_count++] = *r;
    keep(scan, r->thread);
  }
}

/* The busy windows are over: a finding if they last long enough. */
static int streak_end(mprof__loop_scan_t *scan) {
  int err = 0;
  if (scan->streak_start_ns >= 0 &&
      scan->streak_end_ns - scan->streak_start_ns >= scan->busy_ns) {
    mprof__loop_finding_t *lf =
        found_new(scan, MPROF_FINDING_BUSY_LOOP, scan->streak_start_ns,
                  scan->streak_end_ns);
    if (lf) {
      lf->polls = scan->polls;
      lf->empty = scan->empty;
      pick_spinners(scan, lf);
    } else {
      err = MPROF_ENOMEM;
    }
  }
  if (scan->slot_cap)
    memset(scan->slots, 0, scan->slot_cap * sizeof *scan->slots);
  for (size_t k = 0; k < scan->touched_count; k++)
    if (scan->touched[k].runs > 1) let_go(scan, scan->touched[k].thread);
  scan->touched_count = 0;
  scan->polls = scan->empty = 0;
  scan->streak_start_ns = -1;
  return err;
}

/* The window that began at window_ns ends at now: busy (iterations
 * enough, nine in ten with no I/O) it joins the streak; else the streak
 * is over. */
static int window_end(mprof__loop_scan_t *scan, int64_t now) {
  int err = 0;
  if (scan->window_ns < 0) return 0;
  if (scan->window_polls >= BUSY_MIN_ITERATIONS &&
      (uint64_t)scan->window_empty * 10 >= (uint64_t)scan->window_polls * 9) {
    if (scan->streak_start_ns < 0) scan->streak_start_ns = scan->window_ns;
    scan->streak_end_ns = now;
    scan->polls += scan->window_polls;
    scan->empty += scan->window_empty;
  } else {
    err = streak_end(scan);
  }
  scan->window_ns = -1;
  return err;
}

/* A poll of the loop that began at start, in the current window (or the
 * first of a new one). */
static int streak_poll(mprof__loop_scan_t *scan, int64_t start) {
  int err = 0;
  if (scan->window_ns >= 0 && start - scan->window_ns >= BUSY_WINDOW_NS)
    err = window_end(scan, start);
  if (scan->window_ns < 0) {
    scan->window_ns = start;
    scan->window_polls = scan->window_empty = 0;
  }
  scan->window_polls++;
  scan->window_empty += !scan->productive;
  scan->productive = 0;
  return err;
}

/* A callback began where the loop handed over.  An iteration's poll is
 * its idle band; callbacks of prepare handles right after the band still
 * come before the poll. */
static int callback_ran(mprof__loop_scan_t *scan,
                        const mprof__loop_item_t *item) {
  int err = 0;
  if (scan->poll_start_ns >= 0 && !item->before_poll) {
    err = streak_poll(scan, scan->poll_start_ns);
    scan->poll_start_ns = -1;
  }
  if (err || scan->window_ns < 0) return err;
  if (!item->spins_alone) scan->productive = 1;
  mprof__loop_runs_t *r = touched_of(scan, item->thread);
  if (!r) return MPROF_ENOMEM;
  /* kept from its second run: one that ran once is no spinner (a busy
   * streak has 1000 iterations or more), and most callbacks run once */
  if (++r->runs == 2) keep(scan, r->thread);
  return 0;
}

/* --- A scan --------------------------------------------------------------- */

/* Callbacks that held the loop at least the threshold (a run of spans of
 * other threads that begins where the loop handed over and goes on, span
 * after span, until the loop is back), and stretches where the loop went
 * round and round, never sleeping in its poll, its iterations doing no
 * I/O. */
int mprof__loop_scan_item(mprof__loop_scan_t *scan,
                          const mprof__loop_item_t *item) {
  int band = item->thread.index == MPROF_NO_THREAD;
  int present = band || item->loop;
  int err = 0;
  if (scan->run_start_ns >= 0 &&
      (present || item->start_ns != scan->run_end_ns))
    err = run_end(scan);
  if (scan->collecting_from < scan->found_count) collect_waited(scan, item);
  if (err) return err;
  if (!present) {
    run_step(scan, item);
    return item->start_ns == scan->loop_end_ns ? callback_ran(scan, item) : 0;
  }
  if (band) {
    if (scan->poll_start_ns >= 0) err = streak_poll(scan, scan->poll_start_ns);
    scan->poll_start_ns = item->start_ns;
  } else {
    let_go(scan, scan->loop);
    scan->loop = item->thread;
    keep(scan, scan->loop);
  }
  scan->loop_end_ns = item->end_ns;
  return err;
}

int mprof__loop_scan_end(mprof__loop_scan_t *scan) {
  int err = scan->run_start_ns >= 0 ? run_end(scan) : 0;
  scan->collecting_from = scan->found_count;
  if (!err) err = window_end(scan, scan->loop_end_ns);
  if (!err) err = streak_end(scan);
  return err;
}

/* --- Writing a finding ---------------------------------------------------- */

static int write_blocked(finder_t *f, const mprof__loop_finding_t *lf) {
  int64_t start = lf->start_ns, end = lf->end_ns;
  uint32_t culprit = lf->ran[0].thread.index;
  mprof__finding_begin(f, MPROF_FINDING_LOOP_BLOCKED, MPROF_SEVERITY_WARNING,
                       start, end);
  f->current.value_ns = end - start;
  int err = mprof__finding_thread(f, culprit);
  if (!err) err = mprof__finding_thread(f, lf->loop.index);
  for (uint32_t k = 0; !err && k < lf->ran_count; k++)
    err = mprof__finding_evidence(f, MPROF_EVIDENCE_RAN,
                                  lf->ran[k].thread.index, MPROF_NO_THREAD, 1,
                                  lf->ran[k].start_ns, lf->ran[k].end_ns);
  uint32_t waited = 0;
  for (uint32_t k = 0; !err && k < lf->waited_count; k++) {
    const mprof__loop_span_t *w = &lf->waited[k];
    uint32_t before = f->current.thread_count;
    err = mprof__finding_thread(f, w->thread.index);
    if (!err && f->current.thread_count > before) {
      waited++;
      err = mprof__finding_evidence(f, MPROF_EVIDENCE_PENDING, w->thread.index,
                                    MPROF_NO_THREAD, 1, w->start_ns, w->end_ns);
    }
  }
  /* a block nothing waited for (a program's start-up work) delayed
   * nothing that the trace shows */
  if (!waited) f->current.severity = MPROF_SEVERITY_INFO;
  mprof__put(&f->text, "a callback of ");
  mprof__put_thread(&f->text, f->m, culprit);
  mprof__put(&f->text, " held ");
  mprof__put_thread(&f->text, f->m, lf->loop.index);
  mprof__put(&f->text, " for ");
  mprof__put_duration(&f->text, end - start);
  mprof__put(&f->text, " at ");
  mprof__put_duration(&f->text, start);
  mprof__put(&f->text, " without returning to it; ");
  mprof__put_uint(&f->text, waited);
  mprof__put(&f->text, waited == 1 ? " callback waited" : " callbacks waited");
  return err ? err : mprof__finding_commit(f);
}

static int write_busy(finder_t *f, const mprof__loop_finding_t *lf) {
  mprof__finding_begin(f, MPROF_FINDING_BUSY_LOOP, MPROF_SEVERITY_WARNING,
                       lf->start_ns, lf->end_ns);
  f->current.value_ns = lf->end_ns - lf->start_ns;
  mprof__put_thread(&f->text, f->m, lf->loop.index);
  mprof__put(&f->text, " never slept in its poll for ");
  mprof__put_duration(&f->text, lf->end_ns - lf->start_ns);
  mprof__put(&f->text, " from ");
  mprof__put_duration(&f->text, lf->start_ns);
  mprof__put(&f->text, " (");
  mprof__put_uint(&f->text, lf->polls);
  mprof__put(&f->text, " iterations, ");
  mprof__put_uint(&f->text, lf->empty);
  mprof__put(&f->text, " with no I/O): ");
  int err = 0;
  for (uint32_t k = 0; !err && k < lf->spinner_count; k++) {
    const mprof__loop_runs_t *sp = &lf->spinners[k];
    if (k) mprof__put(&f->text, ", ");
    mprof__put_thread(&f->text, f->m, sp->thread.index);
    mprof__put(&f->text, " ran ");
    mprof__put_uint(&f->text, sp->runs);
    mprof__put(&f->text, " times");
    err = mprof__finding_thread(f, sp->thread.index);
    if (!err)
      err = mprof__finding_evidence(f, MPROF_EVIDENCE_SPUN, sp->thread.index,
                                    MPROF_NO_THREAD, sp->runs, lf->start_ns,
                                    lf->end_ns);
  }
  if (!err) err = mprof__finding_thread(f, lf->loop.index);
  return err ? err : mprof__finding_commit(f);
}

int mprof__loop_finding_write(finder_t *f, const mprof__loop_finding_t *lf) {
  if (lf->loop.index == MPROF_NO_THREAD) return 0;
  return lf->kind == MPROF_FINDING_LOOP_BLOCKED ? write_blocked(f, lf)
                                                : write_busy(f, lf);
}

/* --- The model's timelines ------------------------------------------------ */

/* The first loop thread that runs in items[lo..hi), or NO (a timeline cut
 * to the places worth a look may begin with a band). */
static uint32_t first_loop(const finder_t *f, const item_t *items, size_t lo,
                           size_t hi) {
  for (size_t i = lo; i < hi; i++)
    if (items[i].thread != MPROF_NO_THREAD && f->is_loop[items[i].thread])
      return items[i].thread;
  return MPROF_NO_THREAD;
}

/* A timeline's item as the scan sees it. */
static mprof__loop_item_t scan_item(const finder_t *f, const item_t *it) {
  mprof__loop_item_t item = {
      it->start_ns, it->end_ns, 0, {it->thread, NULL}, 0, 0, 0};
  if (it->thread == MPROF_NO_THREAD) return item;
  const mprof_thread_t *th = &f->v->threads[it->thread];
  item.thread_start_ns = th->start_ns;
  item.loop = f->is_loop[it->thread];
  mprof__loop_kinds(th->type,
                    th->label_count
                        ? f->v->strings +
                              mprof_label_at(f->v, th->first_label).text
                        : NULL,
                    &item);
  return item;
}

/* Judge one stream's timeline and write its findings. */
static int scan_timeline(finder_t *f, const timeline_t *tl) {
  mprof__loop_scan_t scan;
  mprof__loop_thread_t loop = {first_loop(f, tl->items, 0, tl->count), NULL};
  mprof__loop_scan_init(&scan, f->options, loop);
  int err = 0;
  for (size_t i = 0; !err && i < tl->count; i++) {
    mprof__loop_item_t item = scan_item(f, &tl->items[i]);
    err = mprof__loop_scan_item(&scan, &item);
  }
  if (!err) err = mprof__loop_scan_end(&scan);
  for (size_t k = 0; !err && k < scan.found_count; k++)
    err = mprof__loop_finding_write(f, &scan.found[k]);
  mprof__loop_scan_free(&scan);
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

/* A band of stream: are the latest 50 ms crowded with bands? */
static int crowded(finder_t *f, presence_t *p, uint32_t stream,
                   const mprof_span_t *band) {
  p->bands_in_window++;
  for (;;) {
    mprof_band_t first = mprof_band_at(f->v, p->window_first);
    if (band->start_ns - first.span.start_ns < BUSY_WINDOW_NS) break;
    if (first.span.stream == stream && first.kind == MPROF_BAND_IDLE)
      p->bands_in_window--;
    p->window_first++;
  }
  return p->bands_in_window >= BUSY_MIN_ITERATIONS;
}

/* The loop's next span on stream from *k on (below end) into *s: 1, or 0
 * if none is left. */
static int next_loop_span(const mprof_model_view_t *v, uint32_t loop,
                          uint32_t stream, size_t *k, size_t end,
                          mprof_span_t *s) {
  for (; *k < end; ++*k) {
    *s = mprof_running_at(v, *k);
    if (s->thread == loop && s->stream == stream) return 1;
  }
  return 0;
}

/* The next idle band of stream from *b on into *s: 1, or 0 if none is
 * left. */
static int next_idle_band(const mprof_model_view_t *v, uint32_t stream,
                          size_t *b, mprof_span_t *s) {
  for (; *b < v->band_count; ++*b) {
    mprof_band_t band = mprof_band_at(v, *b);
    if (band.span.stream == stream && band.kind == MPROF_BAND_IDLE) {
      *s = band.span;
      return 1;
    }
  }
  return 0;
}

/* The stretches of a stream worth the detectors' look, into *r: gaps
 * between the loop's presences as long as a blocked loop.  A cheap walk
 * (the loop's own spans and the bands are in order already) that spares
 * a big trace's loops a timeline of all their spans.  A stream whose loop
 * is from before the trace, or that has 50 ms crowded with polls (it may
 * be busy), is looked at whole: busy windows follow one another from the
 * stream's first poll, so that a timeline cut would judge other windows
 * than the whole one (and than the streaming analysis). */
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
  mprof_span_t run = {0, 0, 0, 0}, band = {0, 0, 0, 0};
  int has_run = next_loop_span(v, loop, stream, &k, k_end, &run);
  int has_band = next_idle_band(v, stream, &b, &band);
  int err = 0;
  while (!err && (has_run || has_band)) {
    if (!has_band || (has_run && run.start_ns < band.start_ns)) {
      err = presence_at(f, &p, r, run.start_ns, run.end_ns, 0);
      k++;
      has_run = next_loop_span(v, loop, stream, &k, k_end, &run);
    } else {
      err = presence_at(f, &p, r, band.start_ns, band.end_ns, 1);
      if (!err && crowded(f, &p, stream, &band)) {
        r->count = 0;
        return range_add(r, 0, INT64_MAX);
      }
      b++;
      has_band = next_idle_band(v, stream, &b, &band);
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
      err = scan_timeline(f, &tl);
    }
    free(tl.items);
  }
  free(f->runs);
  free(f->is_loop);
  f->runs = NULL;
  f->is_loop = NULL;
  return err;
}
