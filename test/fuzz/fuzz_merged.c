/* fuzz_merged.c -- libFuzzer targets over merged traces, through the
 * commands' own entry points.  The command must not crash, hang, read out
 * of bounds or leak (ASan+UBSan), whatever its input holds.
 *
 * FUZZ_MERGED (a compile definition) picks the target:
 *   1 `merge A B -o DIR`: the input is two traces, the first 4 bytes
 *     (little-endian) the size of A, then A, then B; each trace's metadata
 *     (its clock, which merge moves) is in its bytes.  DIR is removed
 *     after each run.
 *   2 a manifest: the input as the text of DIR/fuzz.manifest, read by
 *     `check` and `report`.  DIR holds what a manifest may name: two
 *     traces (a.ctf, b.ctf, copies of FUZZ_MEMBER_A and FUZZ_MEMBER_B), a
 *     member directory as `merge` writes one (m, with m/.mprof), a FIFO
 *     (fifo.ctf), a plain directory (dir.ctf) and a symbolic link to
 *     a.ctf (link.ctf).
 * Run with -close_fd_mask=3: the commands' own output is not wanted.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/read/trace_internal.h"
#include "cli.h"

static char directory[] = "/tmp/fuzz-merged-XXXXXX";

static void remove_directory(void) { mprof__remove_tree(directory); }

/* Run command with argv (NULL-terminated words). */
static void run(int (*command)(int, char **), const char *const *words) {
  char *argv[8];
  int argc = 0;
  for (; words[argc] && argc < 7; argc++) argv[argc] = (char *)words[argc];
  argv[argc] = NULL;
  command(argc, argv);
}

#if FUZZ_MERGED == 1

/* size bytes of data as a file the commands can open by name (a memfd,
 * /proc/self/fd/N); its descriptor, or -1. */
static int input_file(const uint8_t *data, size_t size, char *path,
                      size_t path_size) {
  int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (size && write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return -1;
  }
  snprintf(path, path_size, "/proc/self/fd/%d", fd);
  return fd;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (!mkdtemp(directory)) abort();
  atexit(remove_directory);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  size_t first = (size_t)(data[0] | data[1] << 8 | data[2] << 16 |
                          (uint32_t)data[3] << 24) %
                 (size - 3);
  char a[64], b[64], out[sizeof directory + 8];
  int fd_a = input_file(data + 4, first, a, sizeof a);
  int fd_b = input_file(data + 4 + first, size - 4 - first, b, sizeof b);
  snprintf(out, sizeof out, "%s/out", directory);
  if (fd_a >= 0 && fd_b >= 0) {
    const char *const words[] = {"merge", a, b, "-o", out, NULL};
    run(cmd_merge, words);
    mprof__remove_tree(out);
  }
  if (fd_a >= 0) close(fd_a);
  if (fd_b >= 0) close(fd_b);
  return 0;
}

#elif FUZZ_MERGED == 2

static char manifest[sizeof directory + 16];

/* Write size bytes of data to path; 0 or -1. */
static int write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t done = fwrite(data, 1, size, f);
  return fclose(f) || done != size ? -1 : 0;
}

/* Copy the file at from to path (in directory); 0 or -1. */
static int copy_file(const char *from, const char *path) {
  FILE *f = fopen(from, "rb");
  if (!f) return -1;
  static char bytes[1 << 20];
  size_t size = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  return write_file(path, bytes, size);
}

/* DIR's members, as described at the top; 0 or -1. */
static int make_members(void) {
  char path[sizeof directory + 16], target[sizeof path];
#define AT(name) (snprintf(path, sizeof path, "%s/%s", directory, name), path)
  if (copy_file(FUZZ_MEMBER_A, AT("a.ctf")) ||
      copy_file(FUZZ_MEMBER_B, AT("b.ctf")) || mkdir(AT("m"), 0700) ||
      copy_file(FUZZ_MEMBER_B, AT("m/.mprof")) ||
      mkfifo(AT("fifo.ctf"), 0600) || mkdir(AT("dir.ctf"), 0700))
    return -1;
  snprintf(target, sizeof target, "%s/a.ctf", directory);
  return symlink(target, AT("link.ctf"));
#undef AT
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (!mkdtemp(directory)) abort();
  atexit(remove_directory);
  if (make_members()) abort();
  snprintf(manifest, sizeof manifest, "%s/fuzz.manifest", directory);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (write_file(manifest, data, size)) return 0;
  const char *const check[] = {"check", manifest, NULL};
  const char *const report[] = {"report", manifest, NULL};
  run(cmd_check, check);
  run(cmd_report, report);
  return 0;
}

#else
#error "FUZZ_MERGED: 1 or 2"
#endif
