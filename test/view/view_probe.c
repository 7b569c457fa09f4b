/* view_probe.c -- what the viewer's tests hold pictures against: where the
 * scene puts a thread, and the colour of a pixel of a PNG.
 *
 *   view_probe where TRACE W H T0 T1 SCROLL NAME
 *       "ROW Y X0 X1 START END" for the first thread named NAME (its label, or
 *       type#id) in a W x H viewport of [T0, T1) ns (T1 -1: the trace's
 *       end) scrolled by SCROLL px, rows MPROF_VIEW_ROW_PX tall: its row,
 *       the row's y, its line's x from start to end, and its times in ns
 *   view_probe pixel PNG X Y
 *       "R G B" of pixel (X, Y)
 *   view_probe diff PNG PNG X Y W H
 *       how many pixels of the rectangle differ between the two
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

static int where(char **argv) {
  mprof_trace_t *trace;
  mprof_model_t *model;
  if (mprof_trace_open(argv[0], NULL, NULL, &trace)) return 1;
  int err = mprof_model_load(trace, &model);
  mprof_trace_close(trace);
  if (err) return 1;
  const mprof_model_view_t *v = mprof_model_view(model);
  int64_t t1 = strtoll(argv[4], NULL, 10);
  mprof_viewport_t vp = {strtoll(argv[3], NULL, 10), t1 < 0 ? v->duration_ns : t1,
                         (uint32_t)atoi(argv[1]), (uint32_t)atoi(argv[2]),
                         (uint32_t)atoi(argv[5]), MPROF_VIEW_ROW_PX};
  int found = 0;
  for (uint32_t t = 1; t < v->thread_count && !found; t++) {
    char name[256];
    if (strcmp(mprof_model_thread_name(model, t, name, sizeof name), argv[6])) continue;
    const mprof_thread_t *th = &v->threads[t];
    printf("%" PRIu32 " %.1f %.1f %.1f %" PRId64 " %" PRId64 "\n", th->row,
           mprof_scene_row_y(&vp, th->row), mprof_scene_x(&vp, th->start_ns),
           mprof_scene_x(&vp, th->end_ns), th->start_ns, th->end_ns);
    found = 1;
  }
  mprof_model_free(model);
  return !found;
}

/* Pixel (x, y) of png as 0xRRGGBB, or -1 outside it. */
static long pixel_at(cairo_surface_t *png, int x, int y) {
  if (cairo_surface_status(png) != CAIRO_STATUS_SUCCESS || x < 0 || y < 0 ||
      x >= cairo_image_surface_get_width(png) ||
      y >= cairo_image_surface_get_height(png))
    return -1;
  cairo_surface_flush(png);
  const unsigned char *row = cairo_image_surface_get_data(png) +
                             (size_t)y * (size_t)cairo_image_surface_get_stride(png);
  uint32_t p;
  memcpy(&p, row + 4 * (size_t)x, sizeof p); /* native-endian xRGB */
  return (long)(p & 0xffffff);
}

static int pixel(char **argv) {
  cairo_surface_t *png = cairo_image_surface_create_from_png(argv[0]);
  long p = pixel_at(png, atoi(argv[1]), atoi(argv[2]));
  cairo_surface_destroy(png);
  if (p >= 0) printf("%ld %ld %ld\n", p >> 16 & 255, p >> 8 & 255, p & 255);
  return p < 0;
}

static int diff(char **argv) {
  cairo_surface_t *a = cairo_image_surface_create_from_png(argv[0]);
  cairo_surface_t *b = cairo_image_surface_create_from_png(argv[1]);
  int x0 = atoi(argv[2]), y0 = atoi(argv[3]), w = atoi(argv[4]), h = atoi(argv[5]);
  long count = 0, missing = 0;
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++) {
      long pa = pixel_at(a, x, y), pb = pixel_at(b, x, y);
      missing += pa < 0 || pb < 0;
      count += pa != pb;
    }
  cairo_surface_destroy(a);
  cairo_surface_destroy(b);
  if (!missing) printf("%ld\n", count);
  return missing != 0;
}

int main(int argc, char **argv) {
  if (argc == 9 && !strcmp(argv[1], "where")) return where(argv + 2);
  if (argc == 5 && !strcmp(argv[1], "pixel")) return pixel(argv + 2);
  if (argc == 8 && !strcmp(argv[1], "diff")) return diff(argv + 2);
  fprintf(stderr, "usage: view_probe where TRACE W H T0 T1 SCROLL NAME\n"
                  "       view_probe pixel PNG X Y\n"
                  "       view_probe diff PNG PNG X Y W H\n");
  return 2;
}
