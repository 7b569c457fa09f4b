/* cmd_view.c -- `mprof view`: the desktop viewer.  Opens a window per trace
 * (GTK 3, src/view/), two traces one above the other with --compare, keeps
 * re-reading a live trace with --follow, or renders the same picture into a
 * PNG file with --png (no display needed): a capture of `mprof watch` framed
 * on the finding that fired it, which a line on standard output names. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../src/capture/capture.h"
#include "../src/scene/cells.h"
#include "../src/view/big.h"
#include "../src/view/view.h"
#include "cli.h"

static const char help[] =
    "usage: mprof view [--compare] [--follow] TRACE...\n"
    "       mprof view --png OUT.png [--width W] [--height H] [--range T0:T1]\n"
    "                  TRACE\n"
    "Show each trace in a window: every async thread a line, thick where it\n"
    "runs, arrows between them, idle bands and counter graphs, its busy part\n"
    "first (the quiet before and after: Fit shows how much at the axis's\n"
    "ends).  Drag to pan, wheel to zoom, double-click a thread for its\n"
    "details, ? for the keys.  A trace whose model would take over\n"
    "MPROF_VIEW_BUDGET_MIB (1024) MiB opens drawn from its level-of-detail\n"
    "pyramid (TRACE.mppyr, made in one pass the first time), the model of\n"
    "the packets in view once they fit a quarter of that.\n"
    "--compare  two traces one above the other on aligned time axes\n"
    "--follow   re-read traces a running program is writing, every second,\n"
    "           keeping the newest time in view\n"
    "--png      draw the picture into OUT.png instead: the timeline, W x H\n"
    "           (default 1200 x 800), and the legend under it, for the time\n"
    "           range T0:T1 (default: the busy part, as Fit shows), times\n"
    "           since the first event with a unit: ns, us, ms or s (ns if\n"
    "           none), e.g. --range 2ms:3.5ms, within the trace; of a trace\n"
    "           whose model would take over MPROF_VIEW_BUDGET_MIB (1024)\n"
    "           MiB, only the packets of the range, found by its index; or\n"
    "           with no range, the whole trace from a summary made in one\n"
    "           pass\n"
    "examples:\n"
    "  mprof view trace.ctf\n"
    "  mprof view --png first.png --range 0:5ms trace.ctf\n"
    "  mprof view captures/capture-1.ctf  # on the finding that fired it\n";

typedef struct view_args_s {
  const char *png;
  int width, height;
  int has_range;
  int64_t t0_ns, t1_ns;
  mprof_view_options_t options;
} view_args_t;

static int parse_range(const char *text, view_args_t *args) {
  const char *colon = strchr(text, ':');
  /* a bare number is ns */
  if (!colon || cli_parse_duration(text, colon, 1, &args->t0_ns) ||
      cli_parse_duration(colon + 1, colon + 1 + strlen(colon + 1), 1,
                         &args->t1_ns) ||
      args->t1_ns <= args->t0_ns)
    return -1;
  args->has_range = 1;
  return 0;
}

static int parse_size(const char *text, int *out) {
  char *end;
  long value = strtol(text, &end, 10);
  if (*end || value < 16 || value > 16384) return -1;
  *out = (int)value;
  return 0;
}

static int reads_stdin(char **paths, int count) {
  for (int i = 0; i < count; i++)
    if (!strcmp(paths[i], "-")) return 1;
  return 0;
}

/* Options into args: 0, or the exit code of a usage error (told). */
static int parse_args(int argc, char **argv, view_args_t *args) {
  static const struct option options[] = {{"png", required_argument, 0, 'p'},
                                          {"width", required_argument, 0, 'W'},
                                          {"height", required_argument, 0, 'H'},
                                          {"range", required_argument, 0, 'r'},
                                          {"follow", no_argument, 0, 'f'},
                                          {"compare", no_argument, 0, 'c'},
                                          {"script", required_argument, 0, 's'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    int bad = 0;
    if (c == 'p')
      args->png = optarg;
    else if (c == 'W')
      bad = parse_size(optarg, &args->width);
    else if (c == 'H')
      bad = parse_size(optarg, &args->height);
    else if (c == 'r')
      bad = parse_range(optarg, args);
    else if (c == 'f')
      args->options.follow = 1;
    else if (c == 'c')
      args->options.compare = 1;
    else if (c == 's')
      args->options.script = optarg;
    else if (c == 'h')
      exit(fputs(help, stdout) == EOF ? CLI_FAILED : CLI_OK);
    else
      return cli_option_error("view", argv, "h");
    if (bad)
      return cli_fail(CLI_USAGE, "view",
                      c == 'r'   ? "--range"
                      : c == 'W' ? "--width"
                                 : "--height",
                      "%s: give %s", optarg,
                      c == 'r' ? "T0:T1 with T0 < T1, as 2ms:3.5ms"
                               : "a number of pixels, 16 to 16384");
  }
  int count = argc - optind;
  if (count < 1) return cli_missing("view", "TRACE", "trace.ctf");
  const char *what = args->png               ? "--png"
                     : args->options.compare ? "--compare"
                     : args->has_range       ? "--range"
                                             : "--follow";
  const char *why =
      args->png && count != 1               ? "draws one TRACE"
      : args->options.compare && count != 2 ? "takes two TRACEs"
      : args->png && (args->options.follow || args->options.compare)
          ? "draws no window: no --follow or --compare"
      : !args->png && args->has_range ? "goes with --png"
      : args->options.follow && reads_stdin(argv + optind, count)
          ? "re-reads files, not standard input"
          : NULL;
  if (why) return cli_fail(CLI_USAGE, "view", what, "%s", why);
  return args->png ? cli_output_check("view", "--png", args->png) : CLI_OK;
}

/* 0 if --range (if any) starts within the trace, else -1 after saying
 * so: a picture of a time with nothing in it would only puzzle. */
static int range_check(const view_args_t *args, const mprof_view_doc_t *doc) {
  const mprof_model_view_t *v = mprof_model_view(doc->model);
  int64_t end = v->end_ns > v->duration_ns ? v->end_ns : v->duration_ns;
  if (!args->has_range || args->t0_ns < end) return 0;
  cli_fail(0, "view", "--range",
           "starts after the trace ends, at %.3f ms; "
           "give a range within 0:%.3fms",
           end / 1e6, end / 1e6);
  return -1;
}

/* Where doc is a capture, say so ("captured by mprof watch: SUMMARY") and
 * show the finding that fired it in tl, its evidence highlighted. */
static void show_capture(mprof_timeline_t *tl, const mprof_view_doc_t *doc) {
  mprof_capture_t capture;
  if (mprof_capture_read(doc->path, &capture) != 1) return;
  fputs(MPROF_CAPTURE_LINE, stdout);
  cli_put_name(stdout, capture.summary);
  fputc('\n', stdout);
  long fired = mprof_capture_finding(&capture, doc->model, &doc->analysis);
  if (fired >= 0)
    mprof_timeline_show_finding(tl, 0, &doc->analysis, (int)fired);
  mprof_capture_free(&capture);
}

static int write_png(const view_args_t *args, mprof_view_doc_t *doc) {
  mprof_timeline_t *tl =
      mprof__view_timeline(&doc, 1, args->width, args->height);
  int err = tl ? 0 : MPROF_ENOMEM;
  if (!err) show_capture(tl, doc);
  if (!err && args->has_range)
    mprof_timeline_set_range(tl, (double)args->t0_ns, (double)args->t1_ns);
  if (!err) err = mprof__view_png(tl, 0, args->png);
  mprof_timeline_free(tl);
  if (err)
    fprintf(stderr, "mprof view: %s: %s\n", args->png, mprof_strerror(err));
  return err;
}

/* The memory a trace's whole model may take, in bytes: above it, --png
 * --range models only the packets of the range, --png draws the whole
 * from one pass, and the window opens on the trace's pyramid. */
static uint64_t model_budget(void) {
  const char *text = getenv("MPROF_VIEW_BUDGET_MIB");
  char *end;
  unsigned long long mib = text ? strtoull(text, &end, 10) : 0;
  if (!text || !*text || *end) mib = 1024;
  return mib > UINT64_MAX >> 20 ? UINT64_MAX : (uint64_t)mib << 20;
}

/* --png --range of a trace whose model would pass the budget, as the
 * document of the packets of the range (said on standard error): 0 and
 * *out NULL where the whole trace is loaded instead, or an mprof error. */
static int load_window_doc(const char *path, const view_args_t *args,
                           int *damaged, mprof_view_doc_t **out) {
  mprof_view_range_t w;
  uint64_t budget = model_budget();
  int err = mprof__view_range_doc(path, args->t0_ns, args->t1_ns, budget,
                                  cli_count_problem, damaged, &w, out);
  if (err || !*out) return err;
  fputs("mprof view: ", stderr);
  cli_put_name(stderr, path);
  fprintf(stderr,
          ": its model would take about %llu MiB, over %llu MiB: the range "
          "drawn from %zu of its %zu packets (its index)\n",
          (unsigned long long)(w.model_bytes >> 20),
          (unsigned long long)(budget >> 20), w.packets, w.packets_total);
  return 0;
}

/* --png of the whole of a trace whose model would pass the budget, drawn
 * from its summary, made in one pass (said on standard error): *drawn 0
 * where the whole trace is loaded instead.  Returns 0 or an mprof
 * error. */
static int write_whole_png(const char *path, const view_args_t *args,
                           int *damaged, int *drawn) {
  uint64_t budget = model_budget(), model_bytes = 0;
  mprof_cells_t *cells;
  cli_progress_t progress;
  cli_progress_start(&progress, "view", 0);
  int err = mprof__view_whole_cells(
      path, budget, args->width, args->height, cli_count_problem, damaged,
      cli_progress_packets, &progress, &model_bytes, &cells);
  cli_progress_finish(&progress);
  *drawn = cells != NULL;
  if (err) { /* problems of the trace itself were told as they were met */
    fputs("mprof view: ", stderr);
    cli_put_name(stderr, path);
    fprintf(stderr, ": cannot draw it in one pass: %s\n", mprof_strerror(err));
  }
  if (err || !cells) return err;
  fputs("mprof view: ", stderr);
  cli_put_name(stderr, path);
  fprintf(stderr,
          ": its model would take about %llu MiB, over %llu MiB: drawn from "
          "its %llu events in one pass\n",
          (unsigned long long)(model_bytes >> 20),
          (unsigned long long)(budget >> 20),
          (unsigned long long)cells->events);
  err = mprof__view_png_cells(cells, args->width, args->height, args->png);
  mprof_cells_free(cells);
  if (err)
    fprintf(stderr, "mprof view: %s: %s\n", args->png, mprof_strerror(err));
  return err;
}

/* The window's view of a trace whose model would pass the budget, from
 * its pyramid (said on standard error): 0 and *out NULL where the whole
 * trace is loaded instead, or an mprof error. */
static int open_big(const char *path, int *damaged, mprof_view_big_t **out) {
  uint64_t budget = model_budget();
  cli_progress_t progress;
  cli_progress_start(&progress, "view", 0);
  int err = mprof__view_big_open(path, budget, cli_count_problem, damaged,
                                 cli_progress_packets, &progress, out);
  cli_progress_finish(&progress);
  if (err || !*out) return err;
  fputs("mprof view: ", stderr);
  cli_put_name(stderr, path);
  fprintf(stderr,
          ": its model would take over %llu MiB: drawn from its pyramid "
          "(%s)\n",
          (unsigned long long)(budget >> 20),
          mprof__view_big_built(*out) ? "made in one pass" : "read");
  const char *refused = mprof__view_big_refused(*out);
  if (refused) {
    fputs("mprof view: ", stderr);
    cli_put_name(stderr, path);
    fprintf(stderr, ": the pyramid there was not used: %s; made again\n",
            refused);
  }
  return 0;
}

/* Trace path (a file, "-" or a merged trace) as a document. */
static int load_doc(const char *path, int *damaged, mprof_view_doc_t **out) {
  cli_progress_t progress;
  cli_progress_start(&progress, "view", 0);
  int err = mprof__view_doc_load(path, cli_count_problem, damaged,
                                 cli_progress_packets, &progress, out);
  cli_progress_finish(&progress);
  return err;
}

int cmd_view(int argc, char **argv) {
  view_args_t args = {.width = 1200, .height = 800, .options.follow_ms = 1000};
  int parsed = parse_args(argc, argv, &args);
  if (parsed) return parsed;
  int count = argc - optind, damaged = 0, code = CLI_OK;
  /* a window of its own, not compared or followed: a big trace's view */
  int bigs_allowed = !args.png && !args.options.compare && !args.options.follow;
  mprof_view_doc_t **docs = calloc((size_t)count, sizeof *docs);
  mprof_view_big_t **bigs = calloc((size_t)count, sizeof *bigs);
  if (!docs || !bigs) {
    free(docs);
    free(bigs);
    return CLI_FAILED;
  }
  for (int i = 0; i < count && code == CLI_OK; i++) {
    if ((code = cli_input_check("view", argv[optind + i]))) break;
    int drawn = 0;
    if (args.png && !args.has_range &&
        write_whole_png(argv[optind + i], &args, &damaged, &drawn))
      code = CLI_FAILED;
    if (drawn || code) {
      free(docs);
      free(bigs);
      return code == CLI_OK && damaged ? CLI_DAMAGED : code;
    }
    int err = args.png && args.has_range
                  ? load_window_doc(argv[optind + i], &args, &damaged, &docs[i])
              : bigs_allowed ? open_big(argv[optind + i], &damaged, &bigs[i])
                             : 0;
    if (!err && !docs[i] && !bigs[i])
      err = load_doc(argv[optind + i], &damaged, &docs[i]);
    if (err) {
      fprintf(stderr, "mprof view: %s: %s\n", argv[optind + i],
              mprof_strerror(err));
      code = CLI_FAILED;
    }
  }
  if (code == CLI_OK && args.png && range_check(&args, docs[0]))
    code = CLI_USAGE;
  else if (code == CLI_OK && args.png)
    code = write_png(&args, docs[0]) ? CLI_FAILED : CLI_OK;
  else if (code == CLI_OK)
    code = mprof__view_windows(docs, bigs, argv + optind, count, &args.options)
               ? CLI_FAILED
               : CLI_OK;
  for (int i = 0; i < count; i++) {
    mprof__view_doc_free(docs[i]);
    mprof__view_big_free(bigs[i]);
  }
  free(docs);
  free(bigs);
  return code == CLI_OK && damaged ? CLI_DAMAGED : code;
}
