/* bench_view.c -- can the desktop viewer keep up with a big trace?  Frame
 * times of `mprof view` drawing (scene + cairo painting, into an image
 * surface: what the window does per frame, minus the copy to the screen)
 * while panning and zooming a --events trace (default 10 M events),
 * against the 16 ms budget of a 60 Hz display.
 *
 *   mprof_bench_view [--rounds N] [--events N] [--dir DIR]
 *
 * The trace: a server holding 512 requests in flight, each waiting on an
 * I/O thread the loop resolves later, with a counter, so rows stay busy
 * across the whole trace.  Result lines (value: the median frame, ms):
 *   view_fit   frame_ms  frame_budget_16ms   the whole trace in view
 *   view_pan   frame_ms  frame_budget_16ms   dragging a 1/1000 window
 *   view_zoom  frame_ms  frame_budget_16ms   wheel zoom, in and back out
 * ratio <= 1 is the target.  frame_ms is wall-clock time; each case also
 * gives frame_cpu_ms, the CPU time of the drawing thread, which a machine
 * shared with other work inflates far less.  Model load time is a note on
 * stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "mprof.h"
#include "mprof/unix.h"
#include "view.h"

#define IN_FLIGHT 512
#define WIDTH 1600
#define HEIGHT 1000
#define BUDGET_MS 16.0

/* Record about `events` events: 9 per request. */
static const char *record(const char *dir, uint64_t events) {
  static char path[4096];
  static uint64_t io[IN_FLIGHT], req[IN_FLIGHT];
  bench_trace_path(path, sizeof path, dir, "view");
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = path;
  options.size = (size_t)events * 16 + (8u << 20);
  options.ring_mode = MPROF_RING_DISCARD;
  if (mprof_unix_start(&options)) {
    bench_note("cannot record into %s", path);
    exit(1);
  }
  mprof_counter_t in_flight = mprof_counter_make("in flight");
  uint64_t loop = mprof_create(MPROF_LOOP);
  for (uint64_t i = 0; i < events / 9; i++) {
    unsigned slot = (unsigned)(i % IN_FLIGHT);
    if (req[slot]) { /* the oldest request's I/O completes */
      mprof_switch(loop);
      mprof_resolve(io[slot]);
      mprof_switch(req[slot]);
      mprof_read(io[slot]);
      mprof_resolve(req[slot]);
      mprof_counter_increase(in_flight, -1);
    }
    req[slot] = mprof_create(MPROF_REQUEST);
    io[slot] = mprof_create(MPROF_FS);
    mprof_counter_increase(in_flight, 1);
  }
  mprof_unix_stop();
  return path;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Draw one frame; returns its wall-clock time in ms, its CPU time in
 * *cpu. */
static double frame(cairo_t *cr, mprof_timeline_t *tl, double *cpu) {
  uint64_t t = bench_now_ns();
  double c = cpu_ms();
  if (mprof__view_draw(cr, tl, 0)) exit(1);
  cairo_surface_flush(cairo_get_target(cr));
  *cpu = cpu_ms() - c;
  return (double)(bench_now_ns() - t) / 1e6;
}

typedef void (*move_fn)(mprof_timeline_t *tl, int step);

static void fit(mprof_timeline_t *tl, int step) { (void)tl, (void)step; }

static void pan(mprof_timeline_t *tl, int step) {
  mprof_timeline_pan(tl, 0, step % 40 < 20 ? -40 : 40, 0);
}

/* Zoom in 20 steps around moving points, then back out. */
static void zoom(mprof_timeline_t *tl, int step) {
  double x = (step * 97) % WIDTH;
  mprof_timeline_zoom(tl, 0, step % 40 < 20 ? 0.7 : 1 / 0.7, x);
}

/* The median of the rounds' median frame times, 40 frames a round, each
 * after move(); *cpu_median the same of CPU times. */
static double measure(cairo_t *cr, mprof_timeline_t *tl, move_fn move,
                      int rounds, double *cpu_median) {
  double medians[BENCH_MAX_ROUNDS], cpu_medians[BENCH_MAX_ROUNDS];
  double frames[40], cpus[40];
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < 40; i++) {
      move(tl, i);
      frames[i] = frame(cr, tl, &cpus[i]);
    }
    medians[r] = bench_median(frames, 40);
    cpu_medians[r] = bench_median(cpus, 40);
  }
  *cpu_median = bench_median(cpu_medians, rounds);
  return bench_median(medians, rounds);
}

int main(int argc, char **argv) {
  bench_args_t args;
  bench_parse_args(argc, argv, &args);
  const char *path = record(args.dir, args.events);
  uint64_t t = bench_now_ns();
  mprof_view_doc_t *doc;
  mprof_timeline_t *tl;
  if (mprof__view_doc_load(path, NULL, NULL, NULL, NULL, &doc) ||
      !(tl = mprof__view_timeline(&doc, 1, WIDTH, HEIGHT)))
    return 1;
  const mprof_model_view_t *v = mprof_model_view(doc->model);
  bench_note("%llu events, %zu threads, %u rows: model and analysis in %.2f s",
             (unsigned long long)v->events, v->thread_count, v->row_count,
             (double)(bench_now_ns() - t) / 1e9);
  unlink(path);
  cairo_surface_t *surface =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create(surface);
  static const struct {
    const char *name;
    move_fn move;
    int span_div;
  } cases[] = {
      {"view_fit", fit, 1}, {"view_pan", pan, 1000}, {"view_zoom", zoom, 1}};
  double d = (double)v->duration_ns;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    double t0 = cases[i].span_div == 1 ? 0 : d / 2;
    mprof_timeline_set_range(tl, t0, t0 + d / cases[i].span_div + 1);
    double cpu, ms = measure(cr, tl, cases[i].move, args.rounds, &cpu);
    bench_json(cases[i].name, "frame_ms", ms, "frame_budget_16ms", BUDGET_MS);
    bench_json(cases[i].name, "frame_cpu_ms", cpu, "frame_budget_16ms",
               BUDGET_MS);
  }
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  mprof_timeline_free(tl);
  mprof__view_doc_free(doc);
  return 0;
}
