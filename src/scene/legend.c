/* legend.c -- what a trace's legend lists (mprof_scene_legend(), scene.h):
 * the palette's colours that its display lists can show, found once from
 * the model, so that both viewers explain only what is there. */
#include "scene.h"

/* Which of the threads' colours the model's threads are drawn in. */
static void thread_colours(const mprof_model_view_t *v, uint8_t *present) {
  for (size_t i = 1; i < v->thread_count; i++) {
    const mprof_thread_t *t = &v->threads[i];
    if (t->ending != MPROF_ENDING_FAILED)
      present[MPROF_COLOUR_THREAD] = 1;
    else if (t->flags & MPROF_THREAD_STALLED)
      present[MPROF_COLOUR_STALLED] = 1;
    else
      present[MPROF_COLOUR_FAILED] = 1;
  }
}

static void running_colour(const mprof_model_view_t *v, uint8_t *present) {
  for (size_t i = 0; i < v->running_count && !present[MPROF_COLOUR_RUNNING];
       i++)
    present[MPROF_COLOUR_RUNNING] =
        mprof_running_at(v, i).thread != MPROF_ROOT_THREAD;
}

/* The arrow kinds the scene draws: an arrow from the root, or from a
 * thread to itself, is not drawn. */
static void arrow_colours(const mprof_model_view_t *v, uint8_t *present) {
  for (size_t i = 0; i < v->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (a.from != a.to && a.from != MPROF_ROOT_THREAD &&
        a.kind < MPROF_ARROW_KIND_COUNT)
      present[MPROF_COLOUR_ARROW + a.kind] = 1;
  }
}

static void band_colours(const mprof_model_view_t *v, uint8_t *present) {
  for (size_t i = 0; i < v->band_count; i++)
    present[mprof_band_at(v, i).kind == MPROF_BAND_GC ? MPROF_COLOUR_GC
                                                      : MPROF_COLOUR_IDLE] = 1;
}

size_t mprof_scene_legend(const mprof_model_t *model, mprof_colour_t *out) {
  const mprof_model_view_t *v = mprof_model_view(model);
  uint8_t present[MPROF_COLOUR_COUNT] = {0};
  thread_colours(v, present);
  running_colour(v, present);
  arrow_colours(v, present);
  band_colours(v, present);
  present[MPROF_COLOUR_COUNTER] = v->counter_count > 0;
  size_t n = 0;
  for (int c = 0; c < MPROF_COLOUR_COUNT; c++)
    if (present[c]) out[n++] = (mprof_colour_t)c;
  return n;
}
