/* pick.c -- what is under the pointer, what a thread touched, and where
 * two runs first differ (scene.h): the questions the viewers ask of what
 * the scene draws. */
#include <string.h>

#include "scene.h"

/* --- Picking
 * ------------------------------------------------------------------- */

/* Threads of a row do not overlap: the earliest one reaching into the
 * range is the one at its left edge, if any. */
uint32_t mprof_scene_row_thread(const mprof_model_t *model,
                                const mprof_viewport_t *vp, uint32_t row) {
  mprof_lod_item_t first;
  int64_t span = vp->t1_ns - vp->t0_ns;
  return mprof_model_row_threads(model, row, vp->t0_ns, vp->t1_ns, span, &first,
                                 1)
             ? first.first
             : MPROF_NO_THREAD;
}

uint32_t mprof_scene_hit(const mprof_model_t *model, const mprof_viewport_t *vp,
                         double x, double y) {
  double row_f = (y - MPROF_SCENE_AXIS_PX + vp->scroll_px) / vp->row_height_px;
  const mprof_model_view_t *v = mprof_model_view(model);
  if (row_f < 0 || row_f >= v->row_count || vp->width_px <= vp->names_px)
    return MPROF_NO_THREAD;
  if (x < vp->names_px)
    return mprof_scene_row_thread(model, vp, (uint32_t)row_f);
  int64_t ns_per_px = mprof_scene_time(vp, vp->names_px + 1.0) - vp->t0_ns;
  if (ns_per_px < 1) ns_per_px = 1;
  int64_t t = mprof_scene_time(vp, x), reach = ns_per_px * MPROF_SCENE_HIT_PX;
  mprof_lod_item_t items[16];
  size_t n = mprof_model_row_threads(model, (uint32_t)row_f, t - reach,
                                     t + reach + 1, 1, items, 16);
  uint32_t best = MPROF_NO_THREAD;
  int64_t best_gap = INT64_MAX;
  for (size_t k = 0; k < n; k++) {
    const mprof_thread_t *th = &v->threads[items[k].first];
    int64_t gap = t < th->start_ns ? th->start_ns - t
                  : t > th->end_ns ? t - th->end_ns
                                   : 0;
    if (gap < best_gap) best = items[k].first, best_gap = gap;
  }
  return best;
}

/* Mark one thread (never the root, which is not drawn). */
static size_t mark(uint8_t *marks, uint32_t thread, size_t count) {
  if (thread == MPROF_ROOT_THREAD || thread >= count || marks[thread]) return 0;
  marks[thread] = 1;
  return 1;
}

size_t mprof_scene_touched(const mprof_model_t *model, uint32_t thread,
                           uint8_t *marks) {
  const mprof_model_view_t *v = mprof_model_view(model);
  size_t n = v->thread_count, added = 0;
  if (thread >= n) return 0;
  const mprof_thread_t *t = &v->threads[thread];
  added += mark(marks, thread, n);
  added += mark(marks, t->creator, n);
  added += mark(marks, t->becomes, n);
  for (size_t i = 0; i < n; i++)
    if (v->threads[i].becomes == thread) added += mark(marks, (uint32_t)i, n);
  for (size_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (a.from == thread) added += mark(marks, a.to, n);
    if (a.to == thread) added += mark(marks, a.from, n);
  }
  return added;
}

/* --- Comparing two runs
 * --------------------------------------------------------- */

/* A thread's first label, or "". */
static const char *first_label(const mprof_model_view_t *v, uint32_t t) {
  const mprof_thread_t *th = &v->threads[t];
  return th->label_count ? v->strings + mprof_label_at(v, th->first_label).text
                         : "";
}

static int same_end(const mprof_model_view_t *va, uint32_t ta,
                    const mprof_model_view_t *vb, uint32_t tb) {
  return va->threads[ta].type == vb->threads[tb].type &&
         (ta == MPROF_ROOT_THREAD) == (tb == MPROF_ROOT_THREAD) &&
         strcmp(first_label(va, ta), first_label(vb, tb)) == 0;
}

static void divergence_side(const mprof_model_view_t *v, size_t i,
                            int64_t *time_ns, uint32_t *thread) {
  if (i < v->arrow_count) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    *time_ns = a.time_ns;
    *thread = a.to;
  } else {
    *time_ns = v->duration_ns;
    *thread = MPROF_NO_THREAD;
  }
}

int mprof_scene_diverge(const mprof_model_t *a, const mprof_model_t *b,
                        mprof_divergence_t *out) {
  const mprof_model_view_t *va = mprof_model_view(a), *vb = mprof_model_view(b);
  size_t i = 0;
  for (; i < va->arrow_count && i < vb->arrow_count; i++) {
    mprof_arrow_t x = mprof_arrow_at(va, i), y = mprof_arrow_at(vb, i);
    if (x.kind != y.kind || !same_end(va, x.from, vb, y.from) ||
        !same_end(va, x.to, vb, y.to))
      break;
  }
  if (i == va->arrow_count && i == vb->arrow_count) return 0;
  out->index = i;
  divergence_side(va, i, &out->a_time_ns, &out->a_thread);
  divergence_side(vb, i, &out->b_time_ns, &out->b_thread);
  return 1;
}
