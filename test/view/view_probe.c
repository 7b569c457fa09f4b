/* view_probe.c -- what the viewer's tests hold pictures against: where the
 * scene puts a thread, and the colour of a pixel of a PNG.
 *
 *   view_probe where TRACE W H T0 T1 SCROLL NAME
 *       "ROW Y X0 X1 START END" for the first thread named NAME (its label, or
 *       type#id) in a W x H pane showing [T0, T1) ns (T1 -1: the view a
 *       window opens with, timeline.h's fit) scrolled by SCROLL px: its
 *       row, the row's y, its line's x from start to end, and its times
 *       in ns
 *   view_probe prims TRACE W H T0 T1 SCROLL [SEARCH]
 *       the display list the viewer paints for that view (the threads
 *       matching SEARCH marked), a primitive a line: "KIND COLOUR ROLE
 *       THREAD X0 Y0 X1 Y1 ALPHA WIDTH TEXT"
 *   view_probe fit TRACE W H
 *       "T0 T1 NAMES_PX BUSY0 BUSY1 DURATION" of the view a window opens
 *       with in a W x H pane: its range, its name column's width, the
 *       trace's busy part (mprof_scene_busy()) and its last event's time
 *   view_probe pixel PNG X Y
 *       "R G B" of pixel (X, Y)
 *   view_probe drawn PNG X0 X1 Y0 Y1
 *       "FIRST LAST": the first and last x in [X0, X1) of a pixel in rows
 *       [Y0, Y1) that is not a light grey (the background, a band or a
 *       tick over them), or "-1 -1"
 *   view_probe count PNG X Y W H RRGGBB
 *       how many pixels of the rectangle are that colour
 *   view_probe diff PNG PNG X Y W H [X2 Y2 [TOLERANCE]]
 *       how many pixels of the rectangle differ between the two (in the
 *       second, the rectangle of that size at X2, Y2), by more than
 *       TOLERANCE (default 0) summed over the channels: a picture painted
 *       on a display antialiases a few levels apart from one painted into
 *       an image
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

/* The view of argv's TRACE W H T0 T1 SCROLL as the viewer opens it, or
 * NULL; *doc gets the document. */
static mprof_timeline_t *open_view(char **argv, mprof_view_doc_t **doc) {
  if (mprof__view_doc_load(argv[0], NULL, NULL, NULL, NULL, doc)) return NULL;
  mprof_timeline_t *tl =
      mprof__view_timeline(doc, 1, atoi(argv[1]), atoi(argv[2]));
  double t1 = strtod(argv[4], NULL);
  if (tl && t1 >= 0) mprof_timeline_set_range(tl, strtod(argv[3], NULL), t1);
  if (tl) mprof_timeline_scroll_to(tl, strtod(argv[5], NULL));
  return tl;
}

static int where(char **argv) {
  mprof_view_doc_t *doc;
  mprof_timeline_t *tl = open_view(argv, &doc);
  if (!tl) return 1;
  const mprof_model_view_t *v = mprof_model_view(doc->model);
  mprof_viewport_t vp = mprof_timeline_viewport(tl, 0);
  int found = 0;
  for (uint32_t t = 1; t < v->thread_count && !found; t++) {
    char name[256];
    if (strcmp(mprof_model_thread_name(doc->model, t, name, sizeof name),
               argv[6]))
      continue;
    const mprof_thread_t *th = &v->threads[t];
    printf("%" PRIu32 " %.1f %.1f %.1f %" PRId64 " %" PRId64 "\n", th->row,
           mprof_scene_row_y(&vp, th->row), mprof_scene_x(&vp, th->start_ns),
           mprof_scene_x(&vp, th->end_ns), th->start_ns, th->end_ns);
    found = 1;
  }
  mprof_timeline_free(tl);
  mprof__view_doc_free(doc);
  return !found;
}

static int fit(char **argv) {
  mprof_view_doc_t *doc;
  char *args[] = {argv[0], argv[1], argv[2], "0", "-1", "0"};
  mprof_timeline_t *tl = open_view(args, &doc);
  if (!tl) return 1;
  int64_t busy0, busy1;
  mprof_scene_busy(doc->model, &busy0, &busy1);
  printf("%.0f %.0f %" PRIu32 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
         mprof_timeline_t0(tl), mprof_timeline_t1(tl),
         mprof_timeline_viewport(tl, 0).names_px, busy0, busy1,
         mprof_model_view(doc->model)->duration_ns);
  mprof_timeline_free(tl);
  mprof__view_doc_free(doc);
  return 0;
}

static int prims(char **argv, const char *search) {
  mprof_view_doc_t *doc;
  mprof_timeline_t *tl = open_view(argv, &doc);
  if (!tl) return 1;
  if (mprof_timeline_search(tl, search) < 0) return 1;
  int n = mprof_timeline_build(tl, 0);
  const mprof_prim_t *p = mprof_timeline_prims(tl, 0);
  const char *text = mprof_timeline_text(tl, 0);
  for (int i = 0; i < n; i++)
    printf("%u %u %u %u %.9g %.9g %.9g %.9g %.9g %.9g %s\n", p[i].kind,
           p[i].colour, MPROF_PRIM_ROLE(&p[i]), p[i].thread, p[i].x0, p[i].y0,
           p[i].x1, p[i].y1, p[i].alpha, p[i].width,
           p[i].kind == MPROF_PRIM_TEXT ? text + MPROF_PRIM_TEXT_OFFSET(&p[i])
                                        : "");
  mprof_timeline_free(tl);
  mprof__view_doc_free(doc);
  return n < 0;
}

/* Pixel (x, y) of png as 0xRRGGBB, or -1 outside it. */
static long pixel_at(cairo_surface_t *png, int x, int y) {
  if (cairo_surface_status(png) != CAIRO_STATUS_SUCCESS || x < 0 || y < 0 ||
      x >= cairo_image_surface_get_width(png) ||
      y >= cairo_image_surface_get_height(png))
    return -1;
  cairo_surface_flush(png);
  const unsigned char *row =
      cairo_image_surface_get_data(png) +
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

/* A light grey: the background, a band, an axis tick over them, the name
 * column (thread lines are black, or coloured). */
static int is_light_grey(long p) {
  long r = p >> 16 & 255, g = p >> 8 & 255, b = p & 255;
  return r == g && g == b && r > 128;
}

static int drawn(char **argv) {
  cairo_surface_t *png = cairo_image_surface_create_from_png(argv[0]);
  int x0 = atoi(argv[1]), x1 = atoi(argv[2]), y0 = atoi(argv[3]),
      y1 = atoi(argv[4]), first = -1, last = -1, missing = 0;
  for (int x = x0; x < x1; x++)
    for (int y = y0; y < y1; y++) {
      long p = pixel_at(png, x, y);
      missing |= p < 0;
      if (p < 0 || is_light_grey(p)) continue;
      if (first < 0) first = x;
      last = x;
    }
  cairo_surface_destroy(png);
  if (!missing) printf("%d %d\n", first, last);
  return missing;
}

static int count(char **argv) {
  cairo_surface_t *png = cairo_image_surface_create_from_png(argv[0]);
  int x0 = atoi(argv[1]), y0 = atoi(argv[2]), w = atoi(argv[3]),
      h = atoi(argv[4]);
  long want = strtol(argv[5], NULL, 16), n = 0, missing = 0;
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++) {
      long p = pixel_at(png, x, y);
      missing += p < 0;
      n += p == want;
    }
  cairo_surface_destroy(png);
  if (!missing) printf("%ld\n", n);
  return missing != 0;
}

/* How far apart two pixels are, summed over the channels. */
static long distance(long a, long b) {
  long d = 0;
  for (int shift = 0; shift < 24; shift += 8)
    d += labs((a >> shift & 255) - (b >> shift & 255));
  return d;
}

static int diff(char **argv, int moved, long tolerance) {
  cairo_surface_t *a = cairo_image_surface_create_from_png(argv[0]);
  cairo_surface_t *b = cairo_image_surface_create_from_png(argv[1]);
  int x0 = atoi(argv[2]), y0 = atoi(argv[3]), w = atoi(argv[4]),
      h = atoi(argv[5]);
  int dx = moved ? atoi(argv[6]) - x0 : 0, dy = moved ? atoi(argv[7]) - y0 : 0;
  long count = 0, missing = 0;
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++) {
      long pa = pixel_at(a, x, y), pb = pixel_at(b, x + dx, y + dy);
      missing += pa < 0 || pb < 0;
      count += distance(pa, pb) > tolerance;
    }
  cairo_surface_destroy(a);
  cairo_surface_destroy(b);
  if (!missing) printf("%ld\n", count);
  return missing != 0;
}

int main(int argc, char **argv) {
  if (argc == 9 && !strcmp(argv[1], "where")) return where(argv + 2);
  if ((argc == 8 || argc == 9) && !strcmp(argv[1], "prims"))
    return prims(argv + 2, argc == 9 ? argv[8] : NULL);
  if (argc == 5 && !strcmp(argv[1], "fit")) return fit(argv + 2);
  if (argc == 5 && !strcmp(argv[1], "pixel")) return pixel(argv + 2);
  if (argc == 7 && !strcmp(argv[1], "drawn")) return drawn(argv + 2);
  if (argc == 8 && !strcmp(argv[1], "count")) return count(argv + 2);
  if ((argc == 8 || argc == 10 || argc == 11) && !strcmp(argv[1], "diff"))
    return diff(argv + 2, argc >= 10, argc == 11 ? atol(argv[10]) : 0);
  fprintf(stderr, "usage: view_probe where TRACE W H T0 T1 SCROLL NAME\n"
                  "       view_probe prims TRACE W H T0 T1 SCROLL [SEARCH]\n"
                  "       view_probe fit TRACE W H\n"
                  "       view_probe pixel PNG X Y\n"
                  "       view_probe drawn PNG X0 X1 Y0 Y1\n"
                  "       view_probe count PNG X Y W H RRGGBB\n"
                  "       view_probe diff PNG PNG X Y W H [X2 Y2 [TOL]]\n");
  return 2;
}
