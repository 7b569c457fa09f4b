/* png.c -- `mprof view --png`: the window's picture, its timeline and
 * under it its legend, drawn into a cairo image surface and written as
 * PNG, with no display and no GTK; or the same kind of picture of a trace
 * too big to model, from its summary (src/scene/cells.h). */
#include "../scene/cells.h"
#include "view.h"

/* What a picture is drawn from: a view state's pane, or a summary. */
typedef struct picture_s {
  mprof_timeline_t *tl;
  int pane;
  const mprof_cells_t *cells;
} picture_t;

int mprof__view_paint_cells(cairo_t *cr, const mprof_cells_t *cells,
                            uint32_t width, uint32_t height,
                            uint32_t scroll_px) {
  mprof_scene_t *scene;
  mprof_viewport_t vp =
      mprof_scene_cells_viewport(cells, width, height, scroll_px);
  int err = mprof_scene_new(&scene);
  if (!err) err = mprof_scene_build_cells(scene, cells, &vp);
  if (!err) {
    size_t count;
    const mprof_prim_t *prims = mprof_scene_prims(scene, &count);
    mprof__view_paint(cr, prims, count, mprof_scene_text(scene));
  }
  mprof_scene_free(scene);
  return err;
}

void mprof__view_cells_legend(cairo_t *cr, const mprof_cells_t *cells,
                              double width) {
  mprof_colour_t colours[MPROF_COLOUR_COUNT];
  mprof__view_legend_colours(cr, colours,
                             mprof_scene_cells_legend(cells, colours), width);
}

/* The summary's picture and legend on cr, width x height above the
 * legend.  Returns 0 or an mprof error. */
static int draw_cells(cairo_t *cr, const mprof_cells_t *cells, uint32_t width,
                      uint32_t height) {
  int err = mprof__view_paint_cells(cr, cells, width, height, 0);
  if (!err) {
    cairo_translate(cr, 0, height);
    mprof__view_cells_legend(cr, cells, width);
  }
  return err;
}

static int draw(cairo_t *cr, const picture_t *pic, uint32_t width,
                uint32_t height) {
  if (pic->cells) return draw_cells(cr, pic->cells, width, height);
  int err = mprof__view_draw(cr, pic->tl, pic->pane);
  if (!err) {
    cairo_translate(cr, 0, height);
    mprof__view_legend_paint(cr, pic->tl, width);
  }
  return err;
}

static int write_png(const picture_t *pic, uint32_t width, uint32_t height,
                     const char *png_path) {
  cairo_surface_t *surface = cairo_image_surface_create(
      CAIRO_FORMAT_RGB24, (int)width, (int)height + MPROF_VIEW_LEGEND_PX);
  cairo_t *cr = cairo_create(surface);
  int err = cairo_status(cr) ? MPROF_ENOMEM : draw(cr, pic, width, height);
  cairo_destroy(cr);
  if (!err &&
      cairo_surface_write_to_png(surface, png_path) != CAIRO_STATUS_SUCCESS)
    err = MPROF_EIO;
  cairo_surface_destroy(surface);
  return err;
}

int mprof__view_png(mprof_timeline_t *tl, int pane, const char *png_path) {
  mprof_viewport_t vp = mprof_timeline_viewport(tl, pane);
  picture_t pic = {tl, pane, NULL};
  return write_png(&pic, vp.width_px, vp.height_px, png_path);
}

int mprof__view_png_cells(const mprof_cells_t *cells, int width, int height,
                          const char *png_path) {
  picture_t pic = {NULL, 0, cells};
  return write_png(&pic, (uint32_t)width, (uint32_t)height, png_path);
}
