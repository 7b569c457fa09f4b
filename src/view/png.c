/* png.c -- `mprof view --png`: the window's picture drawn into a cairo
 * image surface and written as PNG, with no display and no GTK. */
#include "view.h"

int mprof__view_png(const mprof_view_doc_t *doc,
                    const mprof_view_state_t *state, const char *png_path) {
  cairo_surface_t *surface =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, state->width, state->height);
  cairo_t *cr = cairo_create(surface);
  int err = cairo_status(cr) ? MPROF_ENOMEM : mprof__view_draw(cr, doc, state);
  cairo_destroy(cr);
  if (!err && cairo_surface_write_to_png(surface, png_path) != CAIRO_STATUS_SUCCESS)
    err = MPROF_EIO;
  cairo_surface_destroy(surface);
  return err;
}
