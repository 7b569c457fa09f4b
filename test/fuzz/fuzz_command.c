/* fuzz_command.c -- libFuzzer target over one of mprof's commands, run
 * through the command's own entry point on the input as a trace file
 * (a memfd, named /proc/self/fd/N), writing to /dev/null.  What the reader
 * tells about damage is only told: the command must not crash, hang, read
 * out of bounds or leak (ASan+UBSan), whatever the trace holds.
 *
 * FUZZ_COMMAND (a compile definition) picks the command, one target each:
 *   1 export --format=chrome    2 export --format=otlp
 *   3 report, then report --json    4 html --single-file (the page's data)
 *   5 snapshot --core (the input as an ELF core dump)
 * Run with -close_fd_mask=3: the commands' own output is not wanted.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

/* The input as a file the commands can open by name; -1 if it cannot be
 * made. */
static int input_file(const uint8_t *data, size_t size, char *path,
                      size_t path_size) {
  int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
  if (fd < 0) return -1;
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)n;
  }
  snprintf(path, path_size, "/proc/self/fd/%d", fd);
  return fd;
}

/* Run command with argv (NULL-terminated), the trace's path where "TRACE"
 * stands. */
static void run(int (*command)(int, char **), const char *const *words,
                char *trace) {
  char *argv[8];
  int argc = 0;
  for (; words[argc] && argc < 7; argc++)
    argv[argc] = strcmp(words[argc], "TRACE") ? (char *)words[argc] : trace;
  argv[argc] = NULL;
  command(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  int fd = input_file(data, size, path, sizeof path);
  if (fd < 0) return 0;
#if FUZZ_COMMAND == 1
  static const char *const words[] = {"export", "--format=chrome", "TRACE",
                                      "-o",     "/dev/null",       NULL};
  run(cmd_export, words, path);
#elif FUZZ_COMMAND == 2
  static const char *const words[] = {"export", "--format=otlp", "TRACE",
                                      "-o",     "/dev/null",     NULL};
  run(cmd_export, words, path);
#elif FUZZ_COMMAND == 3
  static const char *const text[] = {"report", "TRACE", NULL};
  static const char *const json[] = {"report", "--json", "TRACE", NULL};
  run(cmd_report, text, path);
  run(cmd_report, json, path);
#elif FUZZ_COMMAND == 4
  static const char *const words[] = {"html", "--single-file", "TRACE",
                                      "-o",   "/dev/null",     NULL};
  run(cmd_html, words, path);
#elif FUZZ_COMMAND == 5
  static const char *const words[] = {"snapshot", "--core",    "TRACE",
                                      "-w",       "/dev/null", NULL};
  run(cmd_snapshot, words, path);
#else
#error "FUZZ_COMMAND: 1 to 5"
#endif
  close(fd);
  return 0;
}
