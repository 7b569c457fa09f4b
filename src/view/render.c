/* render.c -- paint the scene (scene.h) with cairo: each primitive
 * of the display list becomes cairo calls, in the palette's colours.
 * Every drawing rule lives in the scene; this file only paints, so the
 * window, --png and the browser viewer show the same picture.
 *
 * Speed: a horizontal or vertical line is the rectangle its butt-capped
 * stroke would cover, and a run of rectangles of one colour and alpha is
 * filled as one path (translucent ones only while they do not overlap, so
 * that nothing blends once where it would blend twice), side by side ones
 * merged into one: the same picture, to antialiasing at shared edges, for a
 * fraction of cairo's time (idle bands come as one translucent rectangle
 * per pixel column). */
#include <math.h>
#include <pango/pangocairo.h>

#include "view.h"

/* Label text size, in pixels (the browser viewer's canvas font size). */
#define TEXT_PX 10

static void set_colour(cairo_t *cr, uint32_t colour, float alpha) {
  uint32_t rgb =
      colour < MPROF_COLOUR_COUNT ? mprof_scene_palette[colour].rgb : 0;
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
  cairo_move_to(cr, p->x0,
                p->y0 -
                    pango_layout_get_baseline(layout) / (double)PANGO_SCALE);
  pango_cairo_show_layout(cr, layout);
}

/* The rectangles waiting to be filled in one colour and alpha: those in
 * cr's path, and the last one (x, y, w, h), still open to widening. */
typedef struct batch_s {
  cairo_t *cr;
  uint32_t colour;
  float alpha;
  int pending;
  double x, y, w, h;
} batch_t;

static void flush(batch_t *b) {
  if (!b->pending) return;
  cairo_rectangle(b->cr, b->x, b->y, b->w, b->h);
  set_colour(b->cr, b->colour, b->alpha);
  cairo_fill(b->cr);
  b->pending = 0;
}

/* Within rounding of each other, in pixels. */
#define SLACK 0.05

/* Whether the rectangle may join the batch: same colour and alpha, and if
 * translucent, clear of the last rectangle. */
static int joins(const batch_t *b, const mprof_prim_t *p, double x, double y,
                 double w, double h) {
  if (!b->pending || p->colour != b->colour || p->alpha != b->alpha) return 0;
  return p->alpha >= 1 || x + SLACK >= b->x + b->w || x + w <= b->x + SLACK ||
         y + SLACK >= b->y + b->h || y + h <= b->y + SLACK;
}

/* The rectangle a primitive covers, if it is one: 1, else 0. */
static int as_rect(const mprof_prim_t *p, double *x, double *y, double *w,
                   double *h) {
  double half = p->width / 2.0;
  if (p->kind == MPROF_PRIM_RECT ||
      (p->kind == MPROF_PRIM_LINE && p->y0 == p->y1) ||
      (p->kind == MPROF_PRIM_LINE && p->x0 == p->x1)) {
    int rect = p->kind == MPROF_PRIM_RECT, flat = !rect && p->y0 == p->y1;
    *x = fmin(p->x0, p->x1) - (rect || flat ? 0 : half);
    *y = fmin(p->y0, p->y1) - (rect || !flat ? 0 : half);
    *w = rect || flat ? fabs(p->x1 - p->x0) : p->width;
    *h = rect || !flat ? fabs(p->y1 - p->y0) : p->width;
    return 1;
  }
  return 0;
}

/* Add a rectangle of p's colour and alpha to the batch: widen the last
 * one if it continues it, else fill what cannot share its path first. */
static void batch_rect(batch_t *b, const mprof_prim_t *p, double x, double y,
                       double w, double h) {
  if (!joins(b, p, x, y, w, h)) {
    flush(b);
  } else if (fabs(y - b->y) < SLACK && fabs(h - b->h) < SLACK &&
             fabs(x - (b->x + b->w)) < SLACK) {
    b->w = x + w - b->x;
    return;
  } else {
    cairo_rectangle(b->cr, b->x, b->y, b->w, b->h);
  }
  *b = (batch_t){b->cr, p->colour, p->alpha, 1, x, y, w, h};
}

static void paint(batch_t *b, PangoLayout *layout, const mprof_prim_t *p,
                  const char *texts) {
  double x, y, w, h;
  if (as_rect(p, &x, &y, &w, &h)) {
    batch_rect(b, p, x, y, w, h);
    return;
  }
  flush(b);
  set_colour(b->cr, p->colour, p->alpha);
  if (p->kind == MPROF_PRIM_LINE) {
    cairo_set_line_width(b->cr, p->width);
    cairo_move_to(b->cr, p->x0, p->y0);
    cairo_line_to(b->cr, p->x1, p->y1);
    cairo_stroke(b->cr);
  } else if (p->kind == MPROF_PRIM_TEXT) {
    paint_text(b->cr, layout, p, texts + MPROF_PRIM_TEXT_OFFSET(p));
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

void mprof__view_paint(cairo_t *cr, const mprof_prim_t *prims, size_t count,
                       const char *texts) {
  cairo_save(cr);
  set_colour(cr, MPROF_COLOUR_BACKGROUND, 1);
  cairo_paint(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  PangoLayout *layout = new_layout(cr);
  batch_t batch = {.cr = cr};
  for (size_t i = 0; i < count; i++) paint(&batch, layout, &prims[i], texts);
  flush(&batch);
  g_object_unref(layout);
  cairo_restore(cr);
}

int mprof__view_draw(cairo_t *cr, mprof_timeline_t *tl, int pane) {
  int count = mprof_timeline_build(tl, pane);
  if (count < 0) return count == MPROF_EINVAL ? 0 : count; /* nothing to show */
  mprof__view_paint(cr, mprof_timeline_prims(tl, pane), (size_t)count,
                    mprof_timeline_text(tl, pane));
  return 0;
}
