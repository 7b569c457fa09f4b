/* test_hostile_swap.c -- a merged trace's member swapped for a FIFO
 * between the check and the open never blocks a reader.  A thread keeps
 * replacing the member (by rename, so the name always exists) with a
 * regular trace, then a FIFO, while the main thread opens the manifest
 * again and again: each open either reads the trace or refuses the member
 * in one line ("not a regular file"), and none waits for a FIFO's writer
 * (an alarm fails the test if one does).  Then a FIFO given straight to
 * mprof_trace_open() is refused at once.
 *   test_hostile_swap TRACE DIR   (DIR is made if missing)
 */
#define _GNU_SOURCE /* pthread, mkfifo, alarm */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mprof/read.h"

#define OPENS 3000
#define SECONDS_ALLOWED 20
#define SEEN 20

static const char *dir;
static volatile int stop;
static char *trace_bytes;
static size_t trace_size;

static void fail(const char *what) {
  fprintf(stderr, "FAIL: %s\n", what);
  exit(1);
}

static void on_alarm(int sig) {
  (void)sig;
  static const char line[] = "FAIL: a reader blocked on the FIFO\n";
  write(2, line, sizeof line - 1);
  _exit(1);
}

static void path_in_dir(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
}

/* Put a regular copy of the trace, then a FIFO, at the member's name. */
static void *swap_member(void *arg) {
  (void)arg;
  char member[4096], regular[4096], fifo[4096];
  path_in_dir(member, sizeof member, "a.ctf");
  path_in_dir(regular, sizeof regular, "a.ctf.regular");
  path_in_dir(fifo, sizeof fifo, "a.ctf.fifo");
  while (!stop) {
    FILE *f = fopen(regular, "wb");
    if (!f || fwrite(trace_bytes, 1, trace_size, f) != trace_size) abort();
    fclose(f);
    if (rename(regular, member)) abort();
    if (mkfifo(fifo, 0600) || rename(fifo, member)) abort();
  }
  return NULL;
}

static void count_refusal(void *context, const char *line) {
  if (!strstr(line, "not a regular file") && !strstr(line, "No such file") &&
      !strstr(line, "no member could be read")) {
    fprintf(stderr, "FAIL: unexpected line: %s\n", line);
    exit(1);
  }
  ++*(int *)context;
}

static void read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail("cannot read the trace");
  fseek(f, 0, SEEK_END);
  trace_size = (size_t)ftell(f);
  rewind(f);
  trace_bytes = malloc(trace_size);
  if (!trace_bytes || fread(trace_bytes, 1, trace_size, f) != trace_size)
    fail("cannot read the trace");
  fclose(f);
}

static void write_manifest(char *path, size_t size) {
  path_in_dir(path, size, "swap.manifest");
  FILE *f = fopen(path, "w");
  if (!f || fputs("mprof-merge 1\n0 a.ctf\n", f) < 0 || fclose(f))
    fail("cannot write the manifest");
}

int main(int argc, char **argv) {
  if (argc != 3)
    return fputs("usage: test_hostile_swap TRACE DIR\n", stderr), 2;
  dir = argv[2];
  mkdir(dir, 0700);
  read_file(argv[1]);
  char manifest[4096];
  write_manifest(manifest, sizeof manifest);
  signal(SIGALRM, on_alarm);
  alarm(SECONDS_ALLOWED);

  pthread_t swapper;
  pthread_create(&swapper, NULL, swap_member, NULL);
  int opened = 0, refused = 0;
  /* At least OPENS, and until each way was seen often (the swapper may
   * wait for a core on a busy machine): the alarm bounds it. */
  for (int i = 0; i < OPENS || opened < SEEN || refused < SEEN; i++) {
    mprof_trace_set_t set;
    if (mprof_trace_open_merged(manifest, count_refusal, &refused, &set) == 0)
      opened++;
    mprof_trace_set_close(&set);
  }
  stop = 1;
  pthread_join(swapper, NULL);

  char fifo[4096];
  path_in_dir(fifo, sizeof fifo, "lone.fifo");
  unlink(fifo);
  if (mkfifo(fifo, 0600)) fail("mkfifo");
  int lines = 0;
  mprof_trace_t *trace;
  if (mprof_trace_open(fifo, count_refusal, &lines, &trace) != MPROF_EIO ||
      lines != 1)
    fail("a FIFO given to mprof_trace_open was not refused in one line");
  printf("swap: %d opens read the trace, %d refusals, none blocked\n", opened,
         refused);
  return 0;
}
