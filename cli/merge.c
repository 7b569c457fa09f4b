/* merge.c -- `mprof merge A B -o DIR` (docs/FORMAT.md, "Merged traces")
 * writes DIR with one CTF trace directory per source trace (its clock
 * moved by that trace's offset, so babeltrace2 reads them all on one time
 * axis), the source trace itself as MEMBER/.mprof (babeltrace2 skips
 * hidden files) and the manifest DIR/mprof-merge
 * (mprof_trace_manifest_write).  The other commands take DIR where they
 * take a trace: the read library opens its members (mprof/read.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static int name_char_ok(char c) {
  return c && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-",
                     c);
}

/* --- Writing -------------------------------------------------------------- */

static const char help[] =
    "usage: mprof merge [--offset NAME=+-NS]... [--align] TRACE... -o DIR\n"
    "Put traces of several processes or machines into one merged trace DIR\n"
    "on one time axis: aligned by their wall-clock anchors, moved by\n"
    "--offset (NAME: a trace's path or file name), then, with --align, by\n"
    "the messages they exchanged.  babeltrace2 reads DIR as it is; mprof\n"
    "commands take DIR where they take a trace.\n";

/* The number after `key` in text (from `from` on); NULL if none. */
static char *number_after(char *from, const char *key, long long *value) {
  char *p = strstr(from, key);
  if (!p) return NULL;
  p += strlen(key);
  char *end;
  errno = 0;
  *value = strtoll(p, &end, 10);
  return end == p || errno ? NULL : p;
}

/* Move the clock of the CTF metadata at path by delta_ns: its offset_s and
 * offset (cycles) say when cycle 0 was. */
static int clock_move(const char *path, int64_t delta_ns) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  static char text[1 << 20];
  size_t size = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  if (size == sizeof text - 1) { /* larger than any we write */
    errno = EFBIG;
    return -1;
  }
  text[size] = 0;
  long long freq = 0, seconds = 0, cycles = 0;
  char *clock = strstr(text, "\nclock {");
  char *freq_at = clock ? number_after(clock, "\tfreq = ", &freq) : NULL;
  char *seconds_at =
      clock ? number_after(clock, "\toffset_s = ", &seconds) : NULL;
  char *cycles_at = clock ? number_after(clock, "\toffset = ", &cycles) : NULL;
  if (!freq_at || !seconds_at || !cycles_at || freq <= 0 ||
      seconds_at > cycles_at) {
    errno = EINVAL; /* no clock offset we understand */
    return -1;
  }
  __int128 ns = (__int128)seconds * 1000000000 +
                (__int128)cycles * 1000000000 / freq + delta_ns;
  __int128 new_seconds = ns / 1000000000 - (ns % 1000000000 < 0);
  __int128 rest_ns = ns - new_seconds * 1000000000;
  f = fopen(path, "wb");
  if (!f) return -1;
  fwrite(text, 1, (size_t)(seconds_at - text), f);
  fprintf(f, "%lld", (long long)new_seconds);
  char *after_seconds = strchr(seconds_at, ';');
  fwrite(after_seconds, 1, (size_t)(cycles_at - after_seconds), f);
  fprintf(f, "%lld", (long long)(rest_ns * freq / 1000000000));
  fputs(strchr(cycles_at, ';'), f);
  return fclose(f) ? -1 : 0;
}

/* A member name for path, unlike those of the i members before it. */
static void member_name(char **paths, int i, char *name, size_t size) {
  const char *slash = strrchr(paths[i], '/');
  const char *base = slash && slash[1] ? slash + 1 : paths[i];
  size_t n = 0;
  for (const char *p = base; *p && n + 12 < size; p++)
    name[n++] = name_char_ok(*p) ? *p : '_';
  if (n == 0) name[n++] = '_';
  if (name[0] == '.') name[0] = '_'; /* members are never hidden */
  name[n] = 0;
  for (int j = 0; j < i; j++) {
    char other[256];
    member_name(paths, j, other, sizeof other);
    if (!strcmp(other, name)) {
      snprintf(name + n, size - n, "-%d", i + 1);
      return;
    }
  }
}

/* Write member i of set, called name, into directory dir; 0 or -1 after
 * saying why. */
static int write_member(const cli_traces_t *set, int i, const char *dir,
                        const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int err = mprof_trace_write_ctf(set->traces[i], path, NULL, NULL);
  if (!err) {
    snprintf(path, sizeof path, "%s/%s/metadata", dir, name);
    err = clock_move(path, set->offsets_ns[i]);
  }
  if (!err) {
    snprintf(path, sizeof path, "%s/%s/.mprof", dir, name);
    err = mprof_trace_save(set->traces[i], path);
  }
  if (err) {
    fprintf(stderr, "mprof: merge: %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* The members and then the manifest that names them. */
static int merge_write(const cli_traces_t *set, const char *dir) {
  char path[4096], (*names)[256] = calloc((size_t)set->count, sizeof *names);
  const char **members = calloc((size_t)set->count, sizeof *members);
  int failed = !names || !members;
  if (failed) fprintf(stderr, "mprof: merge: out of memory\n");
  else if ((failed = mkdir(dir, 0755) < 0))
    fprintf(stderr, "mprof: merge: %s: %s\n", dir, strerror(errno));
  for (int i = 0; !failed && i < set->count; i++) {
    member_name(set->paths, i, names[i], sizeof names[i]);
    members[i] = names[i];
    failed = write_member(set, i, dir, names[i]);
  }
  snprintf(path, sizeof path, "%s/mprof-merge", dir);
  if (!failed && mprof_trace_manifest_write(path, members, set->offsets_ns,
                                            (size_t)set->count)) {
    fprintf(stderr, "mprof: merge: %s: %s\n", path, strerror(errno));
    failed = 1;
  }
  free(names);
  free(members);
  return failed ? CLI_FAILED : CLI_OK;
}

int cmd_merge(int argc, char **argv) {
  cli_combine_t combine = {.output = NULL};
  int code = cli_combine_options(&combine, argc, argv, help);
  if (code != CLI_OK || combine.help) return code;
  if (!combine.output || combine.format)
    return fputs(help, stderr), CLI_USAGE;
  int problems = 0;
  cli_traces_t set;
  mprof_model_t *m = NULL;
  cli_progress_t progress;
  cli_progress_start(&progress, "merge", 0);
  combine.progress = &progress;
  /* the model, even unaligned: traces that cannot share one are refused */
  code = cli_combine_load(&combine, &set, &problems, &m);
  cli_progress_finish(&progress);
  if (code == CLI_OK) code = merge_write(&set, combine.output);
  mprof_model_free(m);
  cli_traces_close(&set);
  return code == CLI_OK && problems ? CLI_DAMAGED : code;
}
