/* progress.c -- "mprof: dump: 45% (packet 123/456)" on stderr while a
 * command works through a big trace.  Shown only on a terminal, and only
 * once the work has taken a second: scripts and short runs never see it.
 * Redrawn at most four times a second, and wiped when the work is done so
 * the command's own output starts on a clean line.  Work in phases (load
 * the model, then write it out) goes on in one line and one second:
 * "mprof: export: writing: 45% (item 123/456)".
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_DELAY_S 1.0
#define PROGRESS_PERIOD_S 0.25

static int line_shown; /* a progress line is on stderr now */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_start(cli_progress_t *p, const char *command, size_t total) {
  p->command = command && isatty(STDERR_FILENO) ? command : NULL;
  p->unit = "packet";
  p->total = total;
  p->done = 0;
  p->next_s = p->command ? now_s() + PROGRESS_DELAY_S : 0;
}

void cli_progress_phase(cli_progress_t *p, const char *command, size_t total,
                        const char *unit) {
  if (!command) cli_progress_wipe();
  if (!p || !p->command) return;
  p->command = command;
  p->unit = unit;
  p->total = total;
  p->done = 0;
  if (line_shown) p->next_s = 0; /* the line says the old phase: redraw */
}

/* The line ends by erasing what a longer line of an earlier phase left. */
void cli_progress_update(cli_progress_t *p, size_t done) {
  if (!p || !p->command) return;
  double now = now_s();
  if (now < p->next_s) return;
  p->next_s = now + PROGRESS_PERIOD_S;
  line_shown = 1;
  if (p->total)
    fprintf(stderr, "\rmprof: %s: %d%% (%s %zu/%zu)\033[K", p->command,
            (int)(100.0 * (double)done / (double)p->total), p->unit, done,
            p->total);
  else
    fprintf(stderr, "\rmprof: %s\033[K", p->command);
}

void cli_progress_step(cli_progress_t *p) {
  if (p && ++p->done % 1024 == 0) cli_progress_update(p, p->done);
}

void cli_progress_packets(void *context, size_t done, size_t total) {
  cli_progress_t *p = context;
  p->total = total;
  cli_progress_update(p, done);
}

void cli_progress_wipe(void) {
  if (line_shown) fputs("\r\033[K", stderr); /* to column 0, line erased */
  line_shown = 0;
}

void cli_progress_finish(cli_progress_t *p) {
  cli_progress_wipe();
  if (p) p->command = NULL;
}

void cli_trace_events(mprof_trace_t *trace, const char *command,
                      mprof_event_fn fn, void *context, int *problems) {
  size_t packets = mprof_trace_packet_count(trace);
  cli_progress_t progress;
  cli_progress_start(&progress, command, packets);
  for (size_t i = 0; i < packets; i++) {
    if (mprof_trace_packet_events(trace, i, fn, context) < 0) (*problems)++;
    cli_progress_update(&progress, i + 1);
  }
  cli_progress_finish(&progress);
}
