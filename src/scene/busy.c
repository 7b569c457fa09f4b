/* busy.c -- the busy part of a trace (mprof_scene_busy(), scene.h): what
 * fit frames, so that a burst after seconds of quiet fills the width.
 *
 * Two passes over the activity (running spans, arrows, labels, counter
 * samples): the first counts it into a histogram of the trace, from which
 * the lead and tail to leave out are found; the second finds the exact
 * first and last activity inside what is kept. */
#include <stdlib.h>

#include "scene.h"

#define BINS MPROF_SCENE_BUSY_BINS
/* A lead or tail left out holds at most this share of the activity. */
#define LEAD_SHARE 0.01

typedef struct histogram_s {
  int64_t end_ns;          /* the trace's end: bins cover [0, end_ns] */
  uint64_t count[BINS];    /* activity starting in each bin */
  int32_t cover[BINS + 1]; /* running spans: +1 at the first bin, -1 past
                              the last; summed, what is covered */
  uint64_t total;
} histogram_t;

static size_t bin_of(const histogram_t *h, int64_t t) {
  if (t <= 0) return 0;
  if (t >= h->end_ns) return BINS - 1;
  return (size_t)((double)t / (double)h->end_ns * BINS);
}

static void count_at(histogram_t *h, int64_t t) {
  h->count[bin_of(h, t)]++;
  h->total++;
}

static void fill(histogram_t *h, const mprof_model_view_t *v) {
  for (size_t i = 0; i < v->arrow_count; i++)
    count_at(h, mprof_arrow_at(v, i).time_ns);
  for (size_t i = 0; i < v->label_count; i++)
    count_at(h, mprof_label_at(v, i).time_ns);
  for (size_t i = 0; i < v->sample_count; i++)
    count_at(h, mprof_sample_at(v, i).time_ns);
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (s.thread == MPROF_ROOT_THREAD) continue;
    count_at(h, s.start_ns);
    h->cover[bin_of(h, s.start_ns)]++;
    h->cover[bin_of(h, s.end_ns) + 1]--;
  }
}

/* Whether each bin holds activity, into active[]. */
static void mark_active(const histogram_t *h, uint8_t *active) {
  int64_t covered = 0;
  for (size_t b = 0; b < BINS; b++) {
    covered += h->cover[b];
    active[b] = h->count[b] > 0 || covered > 0;
  }
}

/* The first bin of what is kept: after the last gap that a small lead
 * before it and a shorter rest after it allow (see scene.h). */
static size_t first_kept(const histogram_t *h, const uint8_t *active,
                         size_t first, size_t last) {
  size_t kept = first;
  uint64_t before = 0, allowed = (uint64_t)(h->total * LEAD_SHARE);
  for (size_t b = first; b <= last && before <= allowed;) {
    if (active[b]) {
      before += h->count[b++];
      continue;
    }
    size_t gap_end = b;
    while (!active[gap_end]) gap_end++; /* active[last] ends it */
    if (before <= allowed && gap_end - b > last + 1 - gap_end) kept = gap_end;
    b = gap_end;
  }
  return kept;
}

/* The last bin kept: first_kept() from the other end. */
static size_t last_kept(const histogram_t *h, const uint8_t *active,
                        size_t first, size_t last) {
  size_t kept = last;
  uint64_t after = 0, allowed = (uint64_t)(h->total * LEAD_SHARE);
  for (size_t b = last; b + 1 > first && after <= allowed;) {
    if (active[b]) {
      after += h->count[b];
      if (b-- == 0) break;
      continue;
    }
    size_t gap_start = b;
    while (!active[gap_start]) gap_start--; /* active[first] ends it */
    if (after <= allowed && b - gap_start > gap_start + 1 - first)
      kept = gap_start;
    b = gap_start;
  }
  return kept;
}

static void widen(int64_t t, int64_t lo_ns, int64_t hi_ns, int64_t *start,
                  int64_t *end) {
  if (t < lo_ns || t >= hi_ns) return;
  if (t < *start) *start = t;
  if (t > *end) *end = t;
}

/* The first and last activity within [lo_ns, hi_ns). */
static void exact_range(const mprof_model_view_t *v, int64_t lo_ns,
                        int64_t hi_ns, int64_t *start, int64_t *end) {
  *start = INT64_MAX;
  *end = INT64_MIN;
  for (size_t i = 0; i < v->arrow_count; i++)
    widen(mprof_arrow_at(v, i).time_ns, lo_ns, hi_ns, start, end);
  for (size_t i = 0; i < v->label_count; i++)
    widen(mprof_label_at(v, i).time_ns, lo_ns, hi_ns, start, end);
  for (size_t i = 0; i < v->sample_count; i++)
    widen(mprof_sample_at(v, i).time_ns, lo_ns, hi_ns, start, end);
  for (size_t i = 0; i < v->running_count; i++) {
    mprof_span_t s = mprof_running_at(v, i);
    if (s.thread == MPROF_ROOT_THREAD) continue;
    widen(s.start_ns, lo_ns, hi_ns, start, end);
    widen(s.end_ns, lo_ns, hi_ns, start, end);
  }
}

/* Where bin b begins, in ns. */
static int64_t bin_start(const histogram_t *h, size_t b) {
  return b == 0 ? INT64_MIN
                : (int64_t)((double)h->end_ns * (double)b / BINS + 0.5);
}

void mprof_scene_busy(const mprof_model_t *model, int64_t *start_ns,
                      int64_t *end_ns) {
  const mprof_model_view_t *v = mprof_model_view(model);
  *start_ns = 0;
  *end_ns = v->duration_ns;
  histogram_t *h = v->duration_ns > 0 ? calloc(1, sizeof *h) : NULL;
  uint8_t *active = h ? malloc(BINS) : NULL;
  if (active) {
    h->end_ns = v->duration_ns;
    fill(h, v);
    mark_active(h, active);
    size_t first = 0, last = BINS - 1;
    while (first < BINS && !active[first]) first++;
    while (last > first && !active[last]) last--;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (first < BINS) {
      /* each end's gap is weighed against the rest with the other end's
       * lead or tail left out: so both ends again once the other is cut */
      size_t a = first_kept(h, active, first, last);
      size_t b = last_kept(h, active, a, last);
      a = first_kept(h, active, first, b);
      b = last_kept(h, active, a, last);
      lo = bin_start(h, a);
      hi = b + 1 < BINS ? bin_start(h, b + 1) : INT64_MAX;
    }
    int64_t s, e;
    exact_range(v, lo, hi, &s, &e);
    if (s < e) *start_ns = s, *end_ns = e;
  }
  free(active);
  free(h);
}
