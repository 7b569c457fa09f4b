/* render.c -- paint the scene (mprof/scene.h) with cairo: each primitive
 * of the display list becomes one cairo call, in the palette's colours.
 * Every drawing rule lives in the scene; this file only paints, so the
 * window, --png and the browser viewer show the same picture. */
#include <pango/pangocairo.h>

#include "view.h"

/* Label text size, in pixels (the browser viewer's canvas font size). */
#define TEXT_PX 10

static void set_colour(cairo_t *cr, uint32_t colour, float alpha) {
  uint32_t rgb = colour < MPROF_COLOUR_COUNT ? mprof_scene_palette[colour].rgb : 0;
  cairo_set_source_rgba(cr, (rgb >> 16 & 255) / 255.0, (rgb >> 8 & 255) / 255.0,
                        (rgb & 255) / 255.0, alpha);
}

/* Text at baseline-left (x0, y0), cut with an ellipsis at x1 - x0. */
static void paint_text(cairo_t *cr, PangoLayout *layout, const mprof_prim_t *p,
                       const char *text) {
  char *safe = mprof__view_escape(text);
  pango_layout_set_text(layout, safe, -1);
  g_free(safe);
  pango_layout_set_width(layout, (int)((p->x1 - p->x0) * PANGO_SCALE));
  cairo_move_to(cr, p->x0, p->y0 - pango_layout_get_baseline(layout) / (double)PANGO_SCALE);
  pango_cairo_show_layout(cr, layout);
}

static void paint(cairo_t *cr, PangoLayout *layout, const mprof_prim_t *p,
                  const char *texts) {
  set_colour(cr, p->colour, p->alpha);
  switch (p->kind) {
  case MPROF_PRIM_LINE:
    cairo_set_line_width(cr, p->width);
    cairo_move_to(cr, p->x0, p->y0);
    cairo_line_to(cr, p->x1, p->y1);
    cairo_stroke(cr);
    break;
  case MPROF_PRIM_RECT:
    cairo_rectangle(cr, p->x0, p->y0, p->x1 - p->x0, p->y1 - p->y0);
    cairo_fill(cr);
    break;
  case MPROF_PRIM_TEXT:
    paint_text(cr, layout, p, texts + MPROF_PRIM_TEXT_OFFSET(p));
    break;
  }
}

static PangoLayout *new_layout(cairo_t *cr) {
  PangoLayout *layout = pango_cairo_create_layout(cr);
  PangoFontDescription *font = pango_font_description_from_string("Sans");
  pango_font_description_set_absolute_size(font, TEXT_PX * PANGO_SCALE);
  pango_layout_set_font_description(layout, font);
  pango_font_description_free(font);
  pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode(layout, TRUE);
  return layout;
}

int mprof__view_draw(cairo_t *cr, const mprof_view_doc_t *doc,
                     const mprof_view_state_t *state) {
  mprof_viewport_t vp = mprof__view_viewport(state);
  mprof_scene_options_t options = {state->highlighted, state->matches,
                                   state->counters_shown};
  int err = mprof_scene_build(state->scene, doc->model, &vp, &options);
  if (err) return err == MPROF_EINVAL ? 0 : err; /* nothing to show */
  size_t count;
  const mprof_prim_t *prims = mprof_scene_prims(state->scene, &count);
  const char *texts = mprof_scene_text(state->scene);
  cairo_save(cr);
  set_colour(cr, MPROF_COLOUR_BACKGROUND, 1);
  cairo_paint(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  PangoLayout *layout = new_layout(cr);
  for (size_t i = 0; i < count; i++) paint(cr, layout, &prims[i], texts);
  g_object_unref(layout);
  cairo_restore(cr);
  return 0;
}

uint32_t mprof__view_hit(const mprof_view_doc_t *doc,
                         const mprof_view_state_t *state, double x, double y) {
  mprof_viewport_t vp = mprof__view_viewport(state);
  return mprof_scene_hit(doc->model, &vp, x, y);
}
