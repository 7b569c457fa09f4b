/* png.c -- `mprof view --png`: the window's picture, its timeline and
 * under it its legend, drawn into a cairo image surface and written as
 * PNG, with no display and no GTK. */
#include "view.h"

int mprof__view_png(mprof_timeline_t *tl, int pane, const char *png_path) {
  mprof_viewport_t vp = mprof_timeline_viewport(tl, pane);
  cairo_surface_t *surface =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)vp.width_px,
                                 (int)vp.height_px + MPROF_VIEW_LEGEND_PX);
  cairo_t *cr = cairo_create(surface);
  int err = cairo_status(cr) ? MPROF_ENOMEM : mprof__view_draw(cr, tl, pane);
  if (!err) {
    cairo_translate(cr, 0, vp.height_px);
    mprof__view_legend_paint(cr, tl, vp.width_px);
  }
  cairo_destroy(cr);
  if (!err &&
      cairo_surface_write_to_png(surface, png_path) != CAIRO_STATUS_SUCCESS)
    err = MPROF_EIO;
  cairo_surface_destroy(surface);
  return err;
}
