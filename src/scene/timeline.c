/* timeline.c -- the view state of both viewers (see timeline.h): the
 * range and its arithmetic (fit, zoom around a point, pan), each pane's
 * scroll, selection, search matches and counters graphed, the compare
 * alignment and shared counter scales, and the scene built from them. */
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"
#include "timeline.h"

/* Offsets beyond +-100 years (or NaN) are taken as 0. */
#define MAX_OFFSET_NS 3e18
/* reveal(): at least this much shown on each side of a thread. */
#define REVEAL_PAD_NS 1000.0

typedef struct pane_s {
  const mprof_model_t *model;
  mprof_scene_t *scene;
  int width, height;
  double scroll, offset;
  int selected;         /* -1: none */
  uint8_t *highlighted; /* per thread: selected and what it touched */
  uint8_t *matches;     /* per thread: search matches */
  long match_count;
  uint8_t *counters_shown;            /* per counter */
  int64_t *scale_lo, *scale_hi;       /* compare: shared scales (one block) */
  int64_t busy_start, busy_end;       /* mprof_scene_busy(): what fit shows */
  uint8_t legend[MPROF_COLOUR_COUNT]; /* per colour: in its legend */
} pane_t;

struct mprof_timeline_s {
  pane_t panes[MPROF_TIMELINE_PANES];
  int count;
  double t0, t1;
  char *search; /* the search text, or NULL */
  int diverged;
  mprof_divergence_t divergence;
  mprof_align_t align;
};

mprof_timeline_t *mprof_timeline_new(void) {
  mprof_timeline_t *tl = calloc(1, sizeof *tl);
  if (tl) tl->t1 = 1;
  return tl;
}

static void pane_free(pane_t *p) {
  mprof_scene_free(p->scene);
  free(p->highlighted);
  free(p->matches);
  free(p->counters_shown);
  free(p->scale_lo); /* scale_hi is in the same block */
  memset(p, 0, sizeof *p);
}

static void clear_panes(mprof_timeline_t *tl) {
  for (int i = 0; i < tl->count; i++) pane_free(&tl->panes[i]);
  tl->count = 0;
  tl->diverged = 0;
}

void mprof_timeline_free(mprof_timeline_t *tl) {
  if (!tl) return;
  clear_panes(tl);
  free(tl->search);
  free(tl);
}

/* A pane for model: every counter graphed, nothing selected or marked. */
static int pane_init(pane_t *p, const mprof_model_t *model) {
  const mprof_model_view_t *v = mprof_model_view(model);
  memset(p, 0, sizeof *p);
  p->model = model;
  p->selected = -1;
  p->highlighted = calloc(v->thread_count + 1, 1);
  p->matches = calloc(v->thread_count + 1, 1);
  p->counters_shown = malloc(v->counter_count + 1);
  if (!p->highlighted || !p->matches || !p->counters_shown ||
      mprof_scene_new(&p->scene)) {
    pane_free(p);
    return MPROF_ENOMEM;
  }
  memset(p->counters_shown, 1, v->counter_count + 1);
  mprof_scene_busy(model, &p->busy_start, &p->busy_end);
  mprof_colour_t legend[MPROF_COLOUR_COUNT];
  size_t n = mprof_scene_legend(model, legend);
  for (size_t i = 0; i < n; i++) p->legend[legend[i]] = 1;
  return 0;
}

static const mprof_model_view_t *view_of(const pane_t *p) {
  return mprof_model_view(p->model);
}

static int valid_pane(const mprof_timeline_t *tl, int pane) {
  return pane >= 0 && pane < tl->count;
}

static int valid_thread(const pane_t *p, int thread) {
  return thread >= 0 && (size_t)thread < view_of(p)->thread_count;
}

/* --- Search -----------------------------------------------------------------
 */

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Whether text holds query, ignoring ASCII case. */
static int contains(const char *text, const char *query) {
  for (; *text; text++) {
    size_t i = 0;
    while (query[i] &&
           lower((unsigned char)text[i]) == lower((unsigned char)query[i]))
      i++;
    if (!query[i]) return 1;
  }
  return 0;
}

static int thread_matches(const pane_t *p, uint32_t t, const char *query) {
  const mprof_model_view_t *v = view_of(p);
  const mprof_thread_t *th = &v->threads[t];
  char name[256];
  if (contains(mprof_model_thread_name(p->model, t, name, sizeof name), query))
    return 1;
  for (uint32_t k = 0; k < th->label_count; k++)
    if (contains(v->strings + mprof_label_at(v, th->first_label + k).text,
                 query))
      return 1;
  return 0;
}

/* Mark pane p's threads matching tl's search text (the root never). */
static long mark_matches(const mprof_timeline_t *tl, pane_t *p) {
  const mprof_model_view_t *v = view_of(p);
  memset(p->matches, 0, v->thread_count);
  p->match_count = 0;
  for (uint32_t t = 1; tl->search && t < v->thread_count; t++)
    p->match_count += p->matches[t] = (uint8_t)thread_matches(p, t, tl->search);
  return p->match_count;
}

long mprof_timeline_search(mprof_timeline_t *tl, const char *text) {
  char *copy = NULL;
  if (text && *text) {
    size_t n = strlen(text) + 1;
    copy = malloc(n);
    if (!copy) return MPROF_ENOMEM;
    memcpy(copy, text, n);
  }
  free(tl->search);
  tl->search = copy;
  long total = 0;
  for (int i = 0; i < tl->count; i++) total += mark_matches(tl, &tl->panes[i]);
  return total;
}

int mprof_timeline_next_match(const mprof_timeline_t *tl, int pane, int after) {
  if (!valid_pane(tl, pane)) return -1;
  const pane_t *p = &tl->panes[pane];
  size_t n = view_of(p)->thread_count;
  for (size_t k = 1; k <= n; k++) {
    size_t i = ((size_t)(after < 0 ? 0 : after) + k) % n;
    if (p->matches[i]) return (int)i;
  }
  return -1;
}

/* --- Compare ----------------------------------------------------------------
 */

/* Pane p's counters on scales that hold other's values of the same name
 * too (mprof_scene_widen_scale()). */
static int share_scales(pane_t *p, const pane_t *other) {
  const mprof_model_view_t *v = view_of(p);
  size_t n = v->counter_count + 1;
  int64_t *lo = realloc(p->scale_lo, 2 * n * sizeof *lo);
  if (!lo) return MPROF_ENOMEM;
  p->scale_lo = lo;
  p->scale_hi = lo + n;
  for (uint32_t c = 0; c < v->counter_count; c++) {
    const char *name = v->strings + v->counters[c].name;
    p->scale_lo[c] = p->scale_hi[c] = 0;
    mprof_scene_widen_scale(p->model, name, &p->scale_lo[c], &p->scale_hi[c]);
    mprof_scene_widen_scale(other->model, name, &p->scale_lo[c],
                            &p->scale_hi[c]);
  }
  return 0;
}

static double wall_offset(const mprof_timeline_t *tl) {
  int64_t wa = view_of(&tl->panes[0])->wall_start_ns;
  int64_t wb = view_of(&tl->panes[1])->wall_start_ns;
  return wa && wb ? (double)(wb - wa) : 0;
}

static double align_offset(const mprof_timeline_t *tl, mprof_align_t how) {
  if (how == MPROF_ALIGN_WALL) return wall_offset(tl);
  if (how == MPROF_ALIGN_DIVERGENCE && tl->diverged)
    return (double)(tl->divergence.a_time_ns - tl->divergence.b_time_ns);
  return 0;
}

void mprof_timeline_align(mprof_timeline_t *tl, mprof_align_t how) {
  tl->align = how;
  for (int i = 0; i < tl->count; i++) {
    pane_t *p = &tl->panes[i];
    double offset = i ? align_offset(tl, how) : 0;
    p->offset = offset > -MAX_OFFSET_NS && offset < MAX_OFFSET_NS ? offset : 0;
    mprof_scene_compare(p->scene, (int64_t)p->offset, p->scale_lo, p->scale_hi);
  }
}

/* Two panes: where they diverge, one scale per counter name, aligned at
 * the divergence if any. */
static int compare(mprof_timeline_t *tl, mprof_align_t how) {
  tl->diverged = tl->count == 2 &&
                 mprof_scene_diverge(tl->panes[0].model, tl->panes[1].model,
                                     &tl->divergence);
  if (tl->count == 2 && (share_scales(&tl->panes[0], &tl->panes[1]) ||
                         share_scales(&tl->panes[1], &tl->panes[0])))
    return MPROF_ENOMEM;
  mprof_timeline_align(tl, how);
  return 0;
}

const mprof_divergence_t *
mprof_timeline_divergence(const mprof_timeline_t *tl) {
  return tl->diverged ? &tl->divergence : NULL;
}

/* --- Models -----------------------------------------------------------------
 */

int mprof_timeline_show(mprof_timeline_t *tl, const mprof_model_t *a,
                        const mprof_model_t *b) {
  clear_panes(tl);
  const mprof_model_t *models[] = {a, a ? b : NULL};
  int err = 0;
  for (int i = 0; i < MPROF_TIMELINE_PANES && models[i] && !err; i++) {
    err = pane_init(&tl->panes[i], models[i]);
    if (!err) tl->count++;
  }
  if (!err) err = compare(tl, MPROF_ALIGN_DIVERGENCE);
  for (int i = 0; i < tl->count && !err; i++) mark_matches(tl, &tl->panes[i]);
  if (err) clear_panes(tl);
  return err;
}

/* What old showed of its model, on fresh's: size, scroll, counters
 * graphed (by index), the selected thread (by id: indexes change). */
static void carry_over(const pane_t *old, pane_t *fresh) {
  size_t counters = view_of(old)->counter_count;
  if (counters > view_of(fresh)->counter_count)
    counters = view_of(fresh)->counter_count;
  memcpy(fresh->counters_shown, old->counters_shown, counters);
  fresh->width = old->width;
  fresh->height = old->height;
  fresh->scroll = old->scroll;
  uint32_t t = old->selected < 0
                   ? MPROF_NO_THREAD
                   : mprof_model_find(fresh->model,
                                      view_of(old)->threads[old->selected].id);
  if (t == MPROF_NO_THREAD) return;
  fresh->selected = (int)t;
  mprof_scene_touched(fresh->model, t, fresh->highlighted);
}

int mprof_timeline_replace(mprof_timeline_t *tl, int pane,
                           const mprof_model_t *model) {
  pane_t fresh;
  if (!valid_pane(tl, pane) || pane_init(&fresh, model)) return MPROF_ENOMEM;
  carry_over(&tl->panes[pane], &fresh);
  pane_t old = tl->panes[pane];
  tl->panes[pane] = fresh;
  if (compare(tl, tl->align)) {
    pane_free(&tl->panes[pane]);
    tl->panes[pane] = old;
    compare(tl, tl->align);
    return MPROF_ENOMEM;
  }
  pane_free(&old);
  mark_matches(tl, &tl->panes[pane]);
  return 0;
}

int mprof_timeline_panes(const mprof_timeline_t *tl) { return tl->count; }

void mprof_timeline_resize(mprof_timeline_t *tl, int pane, int width,
                           int height) {
  if (!valid_pane(tl, pane)) return;
  tl->panes[pane].width = width > 0 ? width : 0;
  tl->panes[pane].height = height > 0 ? height : 0;
}

/* --- Range and scroll -------------------------------------------------------
 */

double mprof_timeline_t0(const mprof_timeline_t *tl) { return tl->t0; }

double mprof_timeline_t1(const mprof_timeline_t *tl) { return tl->t1; }

double mprof_timeline_scroll(const mprof_timeline_t *tl, int pane) {
  return valid_pane(tl, pane) ? tl->panes[pane].scroll : 0;
}

double mprof_timeline_offset(const mprof_timeline_t *tl, int pane) {
  return valid_pane(tl, pane) ? tl->panes[pane].offset : 0;
}

/* The name column's width in a pane `width` px wide. */
uint32_t mprof__scene_names_px(int width) {
  return width >= 4 * MPROF_SCENE_NAMES_PX ? MPROF_SCENE_NAMES_PX
                                           : (uint32_t)width / 4;
}

mprof_viewport_t mprof_timeline_viewport(const mprof_timeline_t *tl, int pane) {
  mprof_viewport_t vp = {0, 1, 0, 0, 0, MPROF_SCENE_ROW_PX, 0};
  if (!valid_pane(tl, pane)) return vp;
  const pane_t *p = &tl->panes[pane];
  vp.t0_ns = (int64_t)(tl->t0 - p->offset);
  vp.t1_ns = (int64_t)(tl->t1 - p->offset);
  vp.names_px = mprof__scene_names_px(p->width);
  vp.width_px = (uint32_t)p->width;
  vp.height_px = (uint32_t)p->height;
  vp.scroll_px = p->scroll > 0 ? (uint32_t)p->scroll : 0;
  return vp;
}

void mprof_timeline_set_range(mprof_timeline_t *tl, double t0, double t1) {
  double span = t1 - t0;
  if (!(span >= MPROF_TIMELINE_MIN_SPAN_NS)) span = MPROF_TIMELINE_MIN_SPAN_NS;
  tl->t0 = t0;
  tl->t1 = t0 + span;
}

void mprof_timeline_scroll_to(mprof_timeline_t *tl, double px) {
  for (int i = 0; i < tl->count; i++) {
    pane_t *p = &tl->panes[i];
    uint32_t rows = view_of(p)->row_count;
    double last = rows ? (double)(rows - 1) * MPROF_SCENE_ROW_PX : 0;
    p->scroll = px < 0 ? 0 : px > last ? last : px;
  }
}

void mprof_timeline_fit(mprof_timeline_t *tl) {
  double lo = 0, hi = 1;
  for (int i = 0; i < tl->count; i++) {
    const pane_t *p = &tl->panes[i];
    double start = p->offset + (double)p->busy_start;
    double end = p->offset + (double)p->busy_end;
    lo = i == 0 || start < lo ? start : lo;
    hi = i == 0 || end > hi ? end : hi;
  }
  double margin = (hi - lo) * MPROF_TIMELINE_FIT_MARGIN;
  mprof_timeline_set_range(tl, lo - margin, hi + margin);
  mprof_timeline_scroll_to(tl, 0);
}

/* Pane p's time range: where it starts (right of the name column) and
 * its width, at least 1 px (a pane not laid out yet). */
static double range_left(const mprof_timeline_t *tl, int pane) {
  return valid_pane(tl, pane) ? mprof__scene_names_px(tl->panes[pane].width)
                              : 0;
}

static double range_width(const mprof_timeline_t *tl, int pane) {
  double w = valid_pane(tl, pane) ? tl->panes[pane].width : 0;
  w -= range_left(tl, pane);
  return w > 0 ? w : 1;
}

void mprof_timeline_zoom(mprof_timeline_t *tl, int pane, double factor,
                         double x) {
  double w = range_width(tl, pane), span = tl->t1 - tl->t0;
  double at_px = x - range_left(tl, pane);
  double at = tl->t0 + span * at_px / w, new_span = span * factor;
  if (new_span < MPROF_TIMELINE_MIN_SPAN_NS)
    new_span = MPROF_TIMELINE_MIN_SPAN_NS;
  double t0 = at - new_span * at_px / w;
  mprof_timeline_set_range(tl, t0, t0 + new_span);
}

void mprof_timeline_zoom_middle(mprof_timeline_t *tl, double factor) {
  double middle = (tl->t0 + tl->t1) / 2, span = (tl->t1 - tl->t0) * factor;
  if (span < MPROF_TIMELINE_MIN_SPAN_NS) span = MPROF_TIMELINE_MIN_SPAN_NS;
  mprof_timeline_set_range(tl, middle - span / 2, middle + span / 2);
}

void mprof_timeline_shift(mprof_timeline_t *tl, double share) {
  double shift = (tl->t1 - tl->t0) * share;
  mprof_timeline_set_range(tl, tl->t0 + shift, tl->t1 + shift);
}

void mprof_timeline_pan(mprof_timeline_t *tl, int pane, double dx, double dy) {
  double shift = dx * (tl->t1 - tl->t0) / range_width(tl, pane);
  mprof_timeline_set_range(tl, tl->t0 - shift, tl->t1 - shift);
  mprof_timeline_scroll_to(tl, mprof_timeline_scroll(tl, pane) - dy);
}

/* --- Selection --------------------------------------------------------------
 */

int mprof_timeline_hit(const mprof_timeline_t *tl, int pane, double x,
                       double y) {
  if (!valid_pane(tl, pane) || tl->panes[pane].width <= 0) return -1;
  mprof_viewport_t vp = mprof_timeline_viewport(tl, pane);
  uint32_t t = mprof_scene_hit(tl->panes[pane].model, &vp, x, y);
  return t == MPROF_NO_THREAD ? -1 : (int)t;
}

int mprof_timeline_select(mprof_timeline_t *tl, int pane, int thread) {
  for (int i = 0; i < tl->count; i++) {
    pane_t *p = &tl->panes[i];
    p->selected = -1;
    memset(p->highlighted, 0, view_of(p)->thread_count);
  }
  if (!valid_pane(tl, pane) || !valid_thread(&tl->panes[pane], thread))
    return 0;
  pane_t *p = &tl->panes[pane];
  p->selected = thread;
  return (int)mprof_scene_touched(p->model, (uint32_t)thread, p->highlighted);
}

int mprof_timeline_selected(const mprof_timeline_t *tl, int pane) {
  return valid_pane(tl, pane) ? tl->panes[pane].selected : -1;
}

/* Show pane p's [start_ns, end_ns) with share of its span (at least
 * min_pad) on each side, and thread's row a third down the pane. */
static void bring_into_view(mprof_timeline_t *tl, const pane_t *p,
                            uint32_t thread, int64_t start_ns, int64_t end_ns,
                            double share, double min_pad) {
  double start = (double)start_ns + p->offset;
  double end = (double)end_ns + p->offset;
  double pad = (end - start) * share;
  if (pad < min_pad) pad = min_pad;
  mprof_timeline_set_range(tl, start - pad, end + pad);
  uint32_t row = view_of(p)->threads[thread].row;
  mprof_timeline_scroll_to(tl,
                           (double)row * MPROF_SCENE_ROW_PX - p->height / 3.0);
}

int mprof_timeline_reveal(mprof_timeline_t *tl, int pane, int thread) {
  if (!valid_pane(tl, pane) || !valid_thread(&tl->panes[pane], thread))
    return 0;
  const pane_t *p = &tl->panes[pane];
  const mprof_thread_t *t = &view_of(p)->threads[thread];
  bring_into_view(tl, p, (uint32_t)thread, t->start_ns, t->end_ns, 0.25,
                  REVEAL_PAD_NS);
  return mprof_timeline_select(tl, pane, thread);
}

/* Mark thread t in p's highlight (MPROF_NO_THREAD and strangers ignored);
 * returns 1 if it was not marked yet. */
static int mark(pane_t *p, uint32_t t) {
  if (t >= view_of(p)->thread_count || p->highlighted[t]) return 0;
  p->highlighted[t] = 1;
  return 1;
}

/* Mark what finding f names: its threads, its evidence's threads and
 * both ends of its arrows.  Returns how many were marked. */
static int mark_finding(pane_t *p, const mprof_analysis_t *a,
                        const mprof_finding_t *f) {
  const mprof_model_view_t *v = view_of(p);
  int marked = 0;
  for (uint32_t i = 0; i < f->thread_count; i++)
    marked += mark(p, a->finding_threads[f->first_thread + i]);
  for (uint32_t i = 0; i < f->evidence_count; i++) {
    const mprof_evidence_t *e = &a->evidence[f->first_evidence + i];
    marked += mark(p, e->thread);
    if (e->kind == MPROF_EVIDENCE_ARROW && e->arrow < v->arrow_count) {
      mprof_arrow_t arrow = mprof_arrow_at(v, e->arrow);
      marked += mark(p, arrow.from) + mark(p, arrow.to);
    }
  }
  return marked;
}

/* Whether finding f of a can be shown in p: its thread and evidence
 * indexes inside a and p's model. */
static int valid_finding(const pane_t *p, const mprof_analysis_t *a,
                         const mprof_finding_t *f) {
  return f->thread_count > 0 &&
         f->first_thread + (size_t)f->thread_count <= a->finding_thread_count &&
         f->first_evidence + (size_t)f->evidence_count <= a->evidence_count &&
         a->finding_threads[f->first_thread] < view_of(p)->thread_count;
}

int mprof_timeline_show_finding(mprof_timeline_t *tl, int pane,
                                const mprof_analysis_t *analysis, int finding) {
  if (!valid_pane(tl, pane) || !analysis || finding < 0 ||
      (size_t)finding >= analysis->finding_count)
    return 0;
  pane_t *p = &tl->panes[pane];
  const mprof_finding_t *f = &analysis->findings[finding];
  if (!valid_finding(p, analysis, f)) return 0;
  uint32_t first = analysis->finding_threads[f->first_thread];
  bring_into_view(tl, p, first, f->start_ns, f->end_ns,
                  MPROF_TIMELINE_FIT_MARGIN, MPROF_TIMELINE_FINDING_PAD_NS);
  mprof_timeline_select(tl, pane, -1);
  p->selected = (int)first;
  return mark_finding(p, analysis, f);
}

void mprof_timeline_show_counter(mprof_timeline_t *tl, int pane, int counter,
                                 int shown) {
  if (valid_pane(tl, pane) && counter >= 0 &&
      (size_t)counter < view_of(&tl->panes[pane])->counter_count)
    tl->panes[pane].counters_shown[counter] = shown != 0;
}

/* --- Building ---------------------------------------------------------------
 */

int mprof_timeline_build(mprof_timeline_t *tl, int pane) {
  if (!valid_pane(tl, pane)) return MPROF_EINVAL;
  pane_t *p = &tl->panes[pane];
  mprof_viewport_t vp = mprof_timeline_viewport(tl, pane);
  const int64_t *divergence = !tl->diverged ? NULL
                              : pane == 0   ? &tl->divergence.a_time_ns
                                            : &tl->divergence.b_time_ns;
  mprof_scene_options_t options = {p->selected >= 0 ? p->highlighted : NULL,
                                   p->match_count ? p->matches : NULL,
                                   p->counters_shown, divergence};
  int err = mprof_scene_build(p->scene, p->model, &vp, &options);
  size_t count;
  mprof_scene_prims(p->scene, &count);
  return err ? err : (int)count;
}

int mprof_timeline_legend(const mprof_timeline_t *tl, int i) {
  for (int c = 0; c < MPROF_COLOUR_COUNT; c++) {
    int shown = c == MPROF_COLOUR_DIVERGENCE && tl->diverged;
    for (int k = 0; k < tl->count; k++) shown |= tl->panes[k].legend[c];
    if (shown && i-- == 0) return c;
  }
  return -1;
}

const mprof_prim_t *mprof_timeline_prims(const mprof_timeline_t *tl, int pane) {
  size_t count;
  return valid_pane(tl, pane) ? mprof_scene_prims(tl->panes[pane].scene, &count)
                              : NULL;
}

const char *mprof_timeline_text(const mprof_timeline_t *tl, int pane) {
  return valid_pane(tl, pane) ? mprof_scene_text(tl->panes[pane].scene) : "";
}
