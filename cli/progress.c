/* progress.c -- "mprof: dump: 45% (packet 123/456)" on stderr while a
 * command works through a big trace.  Shown only on a terminal, and only
 * once the work has taken a second: scripts and short runs never see it.
 * Redrawn at most four times a second, and wiped when the work is done so
 * the command's own output starts on a clean line.
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
  p->total = total;
  p->next_s = p->command ? now_s() + PROGRESS_DELAY_S : 0;
}

void cli_progress_update(cli_progress_t *p, size_t done) {
  if (!p->command) return;
  double now = now_s();
  if (now < p->next_s) return;
  p->next_s = now + PROGRESS_PERIOD_S;
  line_shown = 1;
  fprintf(stderr, "\rmprof: %s: %d%% (packet %zu/%zu)", p->command,
          (int)(100.0 * (double)done / (double)p->total), done, p->total);
}

void cli_progress_wipe(void) {
  if (line_shown) fputs("\r\033[K", stderr); /* to column 0, line erased */
  line_shown = 0;
}

void cli_progress_finish(cli_progress_t *p) {
  cli_progress_wipe();
  p->command = NULL;
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
