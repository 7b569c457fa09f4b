/* outputs.c -- the commands that write what they read (`mprof ctf`,
 * `mprof snapshot`): to one path, or for several traces to DIR/NAME, NAME
 * the trace's file name (`stdin` for -).  Names are checked before any
 * work, so one output never overwrites another; DIR, which holds traces,
 * is made 0700; each output is written whole or not at all, never through
 * a symbolic link (mprof_output_open, in the reader).
 */
#define _XOPEN_SOURCE 700 /* strdup */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* 0, or CLI_FAILED after saying why: directory can take a new file. */
static int directory_writable(const char *command, const char *option,
                              const char *path, const char *directory) {
  struct stat st;
  if (stat(directory, &st) < 0)
    return cli_fail(CLI_FAILED, command, path,
                    "its directory %s: %s; make it, or name another %s",
                    directory, strerror(errno), option);
  if (!S_ISDIR(st.st_mode))
    return cli_fail(CLI_FAILED, command, path,
                    "%s is not a directory; name another %s", directory,
                    option);
  if (access(directory, W_OK | X_OK) < 0)
    return cli_fail(CLI_FAILED, command, path,
                    "its directory %s: %s; name another %s", directory,
                    strerror(errno), option);
  return CLI_OK;
}

int cli_output_check(const char *command, const char *option,
                     const char *path) {
  struct stat st;
  if (!*path)
    return cli_fail(CLI_USAGE, command, option, "an empty name; name a file");
  int exists = stat(path, &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    return cli_fail(CLI_FAILED, command, path,
                    "a directory, not a file; name a file in it, as %s %s/NAME",
                    option, path);
  /* a device or a pipe is written in place, not replaced */
  if (exists && !S_ISREG(st.st_mode))
    return access(path, W_OK)
               ? cli_fail(CLI_FAILED, command, path, "%s", strerror(errno))
               : CLI_OK;
  char *copy = strdup(path);
  if (!copy) return cli_fail(CLI_FAILED, command, path, "out of memory");
  int code = directory_writable(command, option, path, dirname(copy));
  free(copy);
  return code;
}

int cli_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return strcmp(a, "-") && strcmp(b, "-") && !stat(a, &sa) && !stat(b, &sb) &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static const char *output_name(const char *path) {
  if (!strcmp(path, "-")) return "stdin";
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* 0, or -1 if a path names no file or two paths would have one NAME. */
static int names_check(char **paths, int count, const char *command) {
  for (int i = 0; i < count; i++) {
    const char *name = output_name(paths[i]);
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
      cli_fail(0, command, paths[i], "names no file; give a trace file");
      return -1;
    }
    for (int j = 0; j < i; j++)
      if (!strcmp(name, output_name(paths[j]))) {
        cli_fail(0, command, paths[i],
                 "%s would be written as %s too; give "
                 "one of them another name",
                 paths[j], name);
        return -1;
      }
  }
  return 0;
}

int cli_output_prepare(const cli_output_t *output, char **paths, int count,
                       const char *command) {
  if (!output->directory) return CLI_OK;
  if (names_check(paths, count, command)) return CLI_USAGE;
  if (mkdir(output->directory, 0700) == 0 || errno == EEXIST) return CLI_OK;
  cli_fail(0, command, output->directory, "%s", strerror(errno));
  return CLI_FAILED;
}

typedef struct write_each_s {
  const cli_output_t *output;
  cli_write_fn write;
  int failed; /* an output could not be written */
} write_each_t;

static void write_one(void *context, const char *path, mprof_trace_t *trace,
                      int *problems) {
  (void)problems; /* the reader's diagnostics count them */
  write_each_t *each = context;
  const char *output = each->output->path;
  char buffer[4096];
  if (each->output->directory) {
    int n = snprintf(buffer, sizeof buffer, "%s/%s", each->output->directory,
                     output_name(path));
    if (n < 0 || (size_t)n >= sizeof buffer) {
      cli_fail(0, cli_command, output_name(path), "too long a path in %s",
               each->output->directory);
      each->failed = 1;
      return;
    }
    output = buffer;
  }
  if (each->write(trace, path, output)) each->failed = 1;
}

int cli_write_each(char **paths, int count, const cli_output_t *output,
                   cli_write_fn write) {
  write_each_t each = {output, write, 0};
  int code = cli_for_each_trace(paths, count, write_one, &each);
  return each.failed ? CLI_FAILED : code;
}
