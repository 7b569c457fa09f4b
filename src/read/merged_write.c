/* merged_write.c -- write a merged trace directory (docs/FORMAT.md,
 * "Merged traces"), as `mprof merge` does: one CTF trace directory per
 * trace, its clock moved by that trace's offset so that babeltrace2 reads
 * them all on one time axis, the trace itself as MEMBER/.mprof (babeltrace2
 * skips hidden files), and the manifest DIR/mprof-merge that mprof reads
 * back (merged.c). */
#define _GNU_SOURCE /* memmem, renameat2 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mprof/read.h"
#include "trace_internal.h"

static int name_char_ok(char c) {
  return c && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-",
                     c);
}

/* One field of a clock block, a line "\tKEY = N;": where N is and what
 * follows it (the ';'). */
typedef struct clock_field_s {
  const char *at, *after;
  long long value;
} clock_field_t;

/* Field key of the clock block [block, end): 0, or -1 unless it is there
 * exactly once as a whole line holding one decimal integer. */
static int clock_field(const char *block, const char *end, const char *key,
                       clock_field_t *field) {
  char line_start[32];
  snprintf(line_start, sizeof line_start, "\n\t%s = ", key);
  size_t length = strlen(line_start);
  const char *line = memmem(block, (size_t)(end - block), line_start, length);
  if (!line ||
      memmem(line + length, (size_t)(end - line - length), line_start, length))
    return -1;
  char *after;
  errno = 0;
  field->at = line + length;
  field->value = strtoll(field->at, &after, 10);
  field->after = after;
  return after == field->at || errno || after >= end || after[0] != ';' ||
                 after[1] != '\n'
             ? -1
             : 0;
}

/* The clock of CTF metadata text as mprof writes it: one block from
 * "clock {" at a line's start to the "};" that ends it, with freq > 0,
 * then offset_s, then offset (cycles).  0, or -1 if text has no such
 * clock. */
static int clock_fields(const char *text, clock_field_t *freq,
                        clock_field_t *seconds, clock_field_t *cycles) {
  static const char open[] = "clock {\n", close[] = "\n};";
  const char *block = !strncmp(text, open, sizeof open - 1)
                          ? text
                          : strstr(text, "\nclock {\n");
  const char *end = block ? strstr(block, close) : NULL;
  if (!end || strstr(end, "\nclock {")) return -1; /* none, or two clocks */
  return clock_field(block, end, "freq", freq) ||
                 clock_field(block, end, "offset_s", seconds) ||
                 clock_field(block, end, "offset", cycles) ||
                 freq->value <= 0 || seconds->after > cycles->at
             ? -1
             : 0;
}

/* The clock offset of fields moved by delta_ns, as whole seconds and
 * cycles of the rest: 0, or -1 if the seconds pass what CTF holds. */
static int clock_offset_moved(const clock_field_t *freq,
                              const clock_field_t *seconds,
                              const clock_field_t *cycles, int64_t delta_ns,
                              long long *new_seconds, long long *new_cycles) {
  const __int128 billion = 1000000000;
  __int128 ns = (__int128)seconds->value * billion +
                (__int128)cycles->value * billion / freq->value + delta_ns;
  __int128 whole = ns / billion - (ns % billion < 0);
  if (whole < INT64_MIN || whole > INT64_MAX) return -1;
  *new_seconds = (long long)whole;
  *new_cycles = (long long)((ns - whole * billion) * freq->value / billion);
  return 0;
}

/* Write text, CTF metadata, to path with its clock moved by delta_ns.
 * 0; -1 with errno set if the file cannot be written; 1 if text has no
 * clock it can move (path untouched). */
static int clock_rewrite(const char *path, const char *text, int64_t delta_ns) {
  clock_field_t freq, seconds, cycles;
  long long new_seconds, new_cycles;
  if (clock_fields(text, &freq, &seconds, &cycles) ||
      clock_offset_moved(&freq, &seconds, &cycles, delta_ns, &new_seconds,
                         &new_cycles))
    return 1;
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fwrite(text, 1, (size_t)(seconds.at - text), f);
  fprintf(f, "%lld", new_seconds);
  fwrite(seconds.after, 1, (size_t)(cycles.at - seconds.after), f);
  fprintf(f, "%lld", new_cycles);
  fputs(cycles.after, f);
  return fclose(f) ? -1 : 0;
}

/* Move the clock of the CTF metadata at path by delta_ns: its offset_s and
 * offset (cycles) say when cycle 0 was.  0, -1 (errno set) or 1 as
 * clock_rewrite returns. */
static int clock_move(const char *path, int64_t delta_ns) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  enum { MAX_METADATA_BYTES = 1 << 20 }; /* far more than any we write */
  char *text = malloc(MAX_METADATA_BYTES);
  size_t size = text ? fread(text, 1, MAX_METADATA_BYTES - 1, f) : 0;
  fclose(f);
  if (!text || size == MAX_METADATA_BYTES - 1) {
    free(text);
    errno = text ? EFBIG : ENOMEM;
    return -1;
  }
  text[size] = 0;
  int err = memchr(text, 0, size) ? 1 : clock_rewrite(path, text, delta_ns);
  free(text);
  return err;
}

/* A member name for paths[i] (its file name in letters, digits, '.', '_'
 * and '-', never hidden), unlike those of the i members before it. */
static void member_name(char *const *paths, size_t i, char *name, size_t size) {
  const char *slash = strrchr(paths[i], '/');
  const char *base = slash && slash[1] ? slash + 1 : paths[i];
  size_t n = 0;
  for (const char *p = base; *p && n + 12 < size; p++)
    name[n++] = name_char_ok(*p) ? *p : '_';
  if (n == 0) name[n++] = '_';
  if (name[0] == '.') name[0] = '_';
  name[n] = 0;
  for (size_t j = 0; j < i; j++) {
    char other[256];
    member_name(paths, j, other, sizeof other);
    if (!strcmp(other, name)) {
      snprintf(name + n, size - n, "-%zu", i + 1);
      return;
    }
  }
}

static void say_nothing(void *context, const char *line) {
  (void)context;
  (void)line;
}

/* mprof_trace_write_ctf() of trace into directory, through a second view
 * of its bytes that tells nothing: the damage its decoding meets was told
 * when the trace was read. */
static int write_ctf_quietly(const mprof_trace_t *trace,
                             const char *directory) {
  mprof_trace_t *quiet;
  if (mprof__refuse_big(trace, "a merged trace")) return MPROF_EIO;
  int err = mprof_trace_open_memory(trace->data, trace->size, trace->name,
                                    say_nothing, NULL, &quiet);
  if (err) return err;
  err = mprof_trace_write_ctf(quiet, directory, NULL, NULL);
  mprof_trace_close(quiet);
  return err;
}

/* Write member i of set, called name, into directory dir; 0, or
 * MPROF_EIO after telling which file failed and why. */
static int write_member(const mprof_trace_set_t *set, size_t i, const char *dir,
                        const char *name, mprof_diag_fn diag, void *context) {
  char path[4096 + 256 + 16];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int err = write_ctf_quietly(set->traces[i], path);
  if (!err) {
    snprintf(path, sizeof path, "%s/%s/metadata", dir, name);
    err = clock_move(path, set->offsets_ns[i]);
  }
  if (err > 0) {
    mprof__diag_to(diag, context,
                   "%s: metadata: no clock block with freq, offset_s and "
                   "offset that can be moved",
                   set->paths[i]);
    return MPROF_EINVAL;
  }
  if (!err) {
    snprintf(path, sizeof path, "%s/%s/.mprof", dir, name);
    err = mprof_trace_save(set->traces[i], path);
  }
  if (err) mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
  return err ? MPROF_EIO : 0;
}

/* Each member, then the manifest that names them, into directory dir. */
static int write_all(const mprof_trace_set_t *set, const char *dir,
                     char (*names)[256], const char **members,
                     mprof_diag_fn diag, void *context) {
  char path[4096 + 16];
  for (size_t i = 0; i < set->count; i++) {
    member_name(set->paths, i, names[i], sizeof names[i]);
    members[i] = names[i];
    int err = write_member(set, i, dir, names[i], diag, context);
    if (err) return err;
  }
  snprintf(path, sizeof path, "%s/mprof-merge", dir);
  if (mprof_trace_manifest_write(path, members, set->offsets_ns, set->count)) {
    mprof__diag_to(diag, context, "%s: %s", path, mprof_output_error(errno));
    return MPROF_EIO;
  }
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  return remove(path);
}

void mprof__remove_tree(const char *path) {
  nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write the merged trace into a new directory beside dir, then rename it
 * to dir, which must not exist: a merge that fails leaves nothing, one
 * that succeeds never a partial directory.  The directory is 0700: it
 * holds traces. */
static int write_merged(const mprof_trace_set_t *set, const char *dir,
                        char (*names)[256], const char **members,
                        mprof_diag_fn diag, void *context) {
  char temporary[4096];
  size_t length = strlen(dir);
  while (length > 1 && dir[length - 1] == '/') length--;
  struct stat st;
  int exists = lstat(dir, &st) == 0;
  int fits = snprintf(temporary, sizeof temporary, "%.*s.tmp-XXXXXX",
                      (int)length, dir) < (int)sizeof temporary;
  if (exists || !fits || !mkdtemp(temporary)) {
    mprof__diag_to(diag, context, "%s: %s", dir,
                   strerror(exists  ? EEXIST
                            : !fits ? ENAMETOOLONG
                                    : errno));
    return MPROF_EIO;
  }
  int err = write_all(set, temporary, names, members, diag, context);
  if (!err && renameat2(AT_FDCWD, temporary, AT_FDCWD, dir, RENAME_NOREPLACE)) {
    mprof__diag_to(diag, context, "%s: %s", dir, strerror(errno));
    err = MPROF_EIO;
  }
  if (err) mprof__remove_tree(temporary);
  return err;
}

int mprof_trace_merged_write(const mprof_trace_set_t *set, const char *dir,
                             mprof_diag_fn diag, void *context) {
  char(*names)[256] = calloc(set->count ? set->count : 1, sizeof *names);
  const char **members = calloc(set->count ? set->count : 1, sizeof *members);
  int err = names && members
                ? write_merged(set, dir, names, members, diag, context)
                : MPROF_ENOMEM;
  free(names);
  free(members);
  return err;
}
