/* fd_takeover.c MODE TRACE OWN -- a program, recording into TRACE through
 * MPROF_TRACE, that takes the trace's descriptor as programs do with
 * descriptors they did not open, for test_fd_takeover.sh:
 *   dup2    dup2()s its own file OWN over the trace's descriptor, records
 *           many tasks (new packets, each prepared through the descriptor),
 *           then writes "bye" through the taken number: OWN must hold
 *           exactly what the program wrote, and the trace its last task;
 *   close   removes TRACE's name and closes the trace's descriptor: no way
 *           back to the file, so recording drops its events, in one line.
 * Prints "tasks N" and exits 0 when the program's own files are right. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mprof.h"

#define TASKS 200000

/* The descriptor open on the file at path; -1 if none. */
static int fd_of(const char *path) {
  struct stat want, st;
  if (stat(path, &want) < 0) return -1;
  DIR *dir = opendir("/proc/self/fd");
  int found = -1;
  for (struct dirent *e; dir && (e = readdir(dir));) {
    int fd = atoi(e->d_name);
    if (fd != dirfd(dir) && fstat(fd, &st) == 0 && st.st_dev == want.st_dev &&
        st.st_ino == want.st_ino)
      found = fd;
  }
  if (dir) closedir(dir);
  return found;
}

static void record_tasks(int count, const char *last_label) {
  for (int i = 0; i < count; i++) {
    uint64_t task = mprof_create(MPROF_TASK);
    mprof_label(task, i == count - 1 ? last_label : "task");
    mprof_resolve(task);
  }
  printf("tasks %d\n", count);
}

/* Whether the file at path holds exactly text. */
static int holds(const char *path, const char *text) {
  char buf[64] = {0};
  int fd = open(path, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
  if (fd >= 0) close(fd);
  struct stat st;
  return n == (ssize_t)strlen(text) && !strcmp(buf, text) &&
         stat(path, &st) == 0 && st.st_size == n;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  const char *mode = argv[1], *trace = argv[2], *own_path = argv[3];
  int taken = fd_of(trace);
  if (taken < 0) {
    fprintf(stderr, "fd_takeover: no descriptor on %s\n", trace);
    return 1;
  }
  if (!strcmp(mode, "dup2")) {
    int own = open(own_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (own < 0 || write(own, "hello\n", 6) != 6 || dup2(own, taken) < 0)
      return 1;
    close(own);
    record_tasks(TASKS, "last task");
    if (write(taken, "bye\n", 4) != 4) return 1;
    close(taken);
    return holds(own_path, "hello\nbye\n") ? 0 : 1;
  }
  if (!strcmp(mode, "close")) {
    unlink(trace);
    close(taken);
    record_tasks(TASKS, "last task");
    return 0;
  }
  return 2;
}
