/* scene_internal.h -- what the scene's files share to build a display list
 * (scene.h): the scene's buffers, one build's frame, and the primitives and
 * parts of a picture that every build draws alike (the axis, the name
 * column, arrows): scene.c draws a model with them, cells.c the
 * summary of a trace too big to model (src/model/scene_stream.h). */
#ifndef MPROF_SCENE_INTERNAL_H
#define MPROF_SCENE_INTERNAL_H

#include "scene.h"

struct mprof_scene_s {
  mprof_prim_t *prims;
  size_t count, capacity;
  char *text;
  size_t text_length, text_capacity;
  mprof_lod_item_t *items;    /* query answers, width_px * 2 */
  int64_t *col_min, *col_max; /* counter columns, width_px */
  size_t item_capacity;
  int failed;          /* an allocation failed during the build */
  int64_t axis_offset; /* see mprof_scene_compare() */
  const int64_t *counter_lo, *counter_hi; /* likewise */
};

/* What one build reads (model and view NULL for a summary's). */
typedef struct frame_s {
  mprof_scene_t *scene;
  const mprof_model_t *model;
  const mprof_model_view_t *view;
  const mprof_viewport_t *vp;
  const mprof_scene_options_t *opt;
  int64_t ns_per_px;
  double rows_bottom; /* rows end here; counter strips below */
} frame_t;

/* Start a build of scene in vp into *f: the list emptied, no options, the
 * rows to the viewport's bottom.  Returns 0, MPROF_EINVAL (an empty
 * viewport) or MPROF_ENOMEM. */
int mprof__scene_begin(frame_t *f, mprof_scene_t *scene,
                       const mprof_viewport_t *vp);
/* End it: runs that continue one another merged.  Returns 0 or
 * MPROF_ENOMEM (some primitive could not be kept). */
int mprof__scene_end(mprof_scene_t *scene);

/* The name column's width in a pane width px wide. */
uint32_t mprof__scene_names_px(int width);

/* Primitives: alpha 1, width 1 unless set. */
void mprof__scene_line(frame_t *f, mprof_colour_t colour,
                       mprof_prim_role_t role, float x0, float y0, float x1,
                       float y1, float width, uint32_t thread);
mprof_prim_t *mprof__scene_rect(frame_t *f, mprof_colour_t colour,
                                mprof_prim_role_t role, float x0, float y0,
                                float x1, float y1);
void mprof__scene_text(frame_t *f, mprof_colour_t colour,
                       mprof_prim_role_t role, float x, float y,
                       float max_width, const char *str, uint32_t thread);

/* x of t, held a little outside the time range. */
float mprof__scene_clamp_x(const frame_t *f, int64_t t);
/* An arrow of kind (arrow `index`) from (x0, y0) to (x1, y1), unless both
 * ends are out of the rows' part: long ones fade, and dim multiplies its
 * alpha. */
void mprof__scene_arrow(frame_t *f, uint32_t kind, uint32_t index, float x0,
                        float y0, float x1, float y1, float dim);
/* The time axis: ticks at round times, and their times. */
void mprof__scene_axis(frame_t *f);
/* Whether two counters share a scale: their names the same up to a '#'. */
int mprof__scene_same_scale(const char *a, const char *b);
/* Counter c's strip from top: its values' range per pixel column
 * (col_min, col_max, the time range's width) on the scale [lo, hi], and
 * its name. */
void mprof__scene_counter(frame_t *f, uint32_t c, const char *name,
                          const int64_t *col_min, const int64_t *col_max,
                          int64_t lo, int64_t hi, float top);
/* The name column's background and edge; returns whether rows are tall
 * enough for names. */
int mprof__scene_name_column(frame_t *f);
/* Whether a row whose middle is at y is whole in the rows' part. */
int mprof__scene_row_whole(const frame_t *f, float y);
/* A row's name (its thread's, or MPROF_NO_THREAD) in the name column. */
void mprof__scene_row_name(frame_t *f, float y, const char *name,
                           uint32_t thread);

#endif /* MPROF_SCENE_INTERNAL_H */
