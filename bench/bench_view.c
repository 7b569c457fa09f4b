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
 *
 * The same trace, then, as a trace too big to model (the budget forced to
 * 0) opens in the window (src/view/big.h), its index and pyramid built
 * once first (the time a note):
 *   gtk_big_first_frame  first_frame_ms  first_frame_budget_1000ms
 *       open (the index and pyramid read on the trace file's key, the
 *       levels halved: the trace itself is opened after the first frame,
 *       in the background, while the frames below are drawn) and draw
 *       the whole trace
 *   gtk_big_frame        frame_ms  frame_budget_16ms
 *       pan and zoom frames drawn from the pyramid, to 1/64 of the span
 * With MPROF_BENCH_VIEW_TRACE=.../NAME.ctf, only these two, named
 * gtk_big_first_frame_NAME and gtk_big_frame_NAME, of that trace (one
 * trace_gen makes at 100 M or 1 B events), with the budget the
 * environment's MPROF_VIEW_BUDGET_MIB gives (default 1024 MiB).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "big.h"
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

/* --- A trace too big to model ------------------------------------------- */

static double since_ms(uint64_t t) {
  return (double)(bench_now_ns() - t) / 1e6;
}

/* Open path's big view and draw its first frame on cr: the time in ms. */
static double first_frame(cairo_t *cr, const char *path, uint64_t budget,
                          mprof_view_big_t **big) {
  uint64_t t = bench_now_ns();
  if (mprof__view_big_open(path, budget, NULL, NULL, NULL, NULL, big) ||
      !*big || mprof__view_big_draw(cr, *big, WIDTH, HEIGHT))
    exit(1);
  cairo_surface_flush(cairo_get_target(cr));
  return since_ms(t);
}

/* Frame i of a round: zoom in 6 steps of 2 around the middle of the time
 * columns, pan both ways, zoom back out. */
static void big_move(mprof_view_big_t *big, int i) {
  if (i < 6)
    mprof__view_big_zoom(big, 0.5, WIDTH - 0.5 * (WIDTH - 120));
  else if (i < 34)
    mprof__view_big_pan(big, i % 14 < 7 ? -80 : 80);
  else
    mprof__view_big_zoom(big, 2, WIDTH - 0.5 * (WIDTH - 120));
}

/* The two lines of the big cases, named with suffix (may be ""). */
static void big_lines(const char *suffix, double first_ms, double frame_ms) {
  char first[96], frame[96];
  snprintf(first, sizeof first, "gtk_big_first_frame%s", suffix);
  snprintf(frame, sizeof frame, "gtk_big_frame%s", suffix);
  bench_json(first, "first_frame_ms", first_ms, "first_frame_budget_1000ms",
             1000);
  bench_json(frame, "frame_ms", frame_ms, "frame_budget_16ms", BUDGET_MS);
}

static void big_cases(cairo_t *cr, const char *path, uint64_t budget,
                      const char *suffix, int rounds) {
  mprof_view_big_t *big;
  double built = first_frame(cr, path, budget, &big);
  bench_note("%s: index and pyramid %s, first frame in %.0f ms", path,
             mprof__view_big_built(big) ? "made" : "read", built);
  mprof__view_big_free(big);
  double firsts[BENCH_MAX_ROUNDS], medians[BENCH_MAX_ROUNDS], frames[40];
  for (int r = 0; r < rounds; r++) {
    firsts[r] = first_frame(cr, path, budget, &big);
    for (int i = 0; i < 40; i++) {
      big_move(big, i);
      uint64_t t = bench_now_ns();
      if (mprof__view_big_draw(cr, big, WIDTH, HEIGHT)) exit(1);
      cairo_surface_flush(cairo_get_target(cr));
      frames[i] = since_ms(t);
      if (mprof__view_big_modelled(big)) bench_note("frame %d modelled", i);
    }
    medians[r] = bench_median(frames, 40);
    mprof__view_big_free(big);
  }
  big_lines(suffix, bench_median(firsts, rounds),
            bench_median(medians, rounds));
}

/* "_NAME" for a trace at .../NAME.ctf (at most size bytes). */
static void name_suffix(const char *path, char *out, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 4 && !strcmp(base + n - 4, ".ctf")) n -= 4;
  snprintf(out, size, "_%.*s", (int)n, base);
}

/* Remove path + suffix (the index, the pyramid). */
static void unlink_beside(const char *path, const char *suffix) {
  char beside[4200];
  snprintf(beside, sizeof beside, "%s%s", path, suffix);
  unlink(beside);
}

/* MPROF_VIEW_BUDGET_MIB in bytes, as `mprof view` reads it. */
static uint64_t view_budget(void) {
  const char *text = getenv("MPROF_VIEW_BUDGET_MIB");
  return (uint64_t)(text && *text ? strtoull(text, NULL, 10) : 1024) << 20;
}

int main(int argc, char **argv) {
  bench_args_t args;
  bench_parse_args(argc, argv, &args);
  cairo_surface_t *surface =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create(surface);
  const char *big_trace = getenv("MPROF_BENCH_VIEW_TRACE");
  if (big_trace) {
    char suffix[64];
    name_suffix(big_trace, suffix, sizeof suffix);
    big_cases(cr, big_trace, view_budget(), suffix, args.rounds);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    return 0;
  }
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
  mprof_timeline_free(tl);
  mprof__view_doc_free(doc);
  big_cases(cr, path, 0, "", args.rounds);
  unlink(path);
  unlink_beside(path, ".mpidx");
  unlink_beside(path, ".mppyr");
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  return 0;
}
