/* merged_write.c -- write a merged trace directory (docs/FORMAT.md,
 * "Merged traces"), as `mprof merge` does: one CTF trace directory per
 * trace, its clock moved by that trace's offset so that babeltrace2 reads
 * them all on one time axis, the trace itself as MEMBER/.mprof (babeltrace2
 * skips hidden files), and the manifest DIR/mprof-merge that mprof reads
 * back (merged.c). */
#include <errno.h>
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

/* Write text, CTF metadata, to path with its clock moved by delta_ns. */
static int clock_rewrite(const char *path, char *text, int64_t delta_ns) {
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
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fwrite(text, 1, (size_t)(seconds_at - text), f);
  fprintf(f, "%lld", (long long)new_seconds);
  char *after_seconds = strchr(seconds_at, ';');
  fwrite(after_seconds, 1, (size_t)(cycles_at - after_seconds), f);
  fprintf(f, "%lld", (long long)(rest_ns * freq / 1000000000));
  fputs(strchr(cycles_at, ';'), f);
  return fclose(f) ? -1 : 0;
}

/* Move the clock of the CTF metadata at path by delta_ns: its offset_s and
 * offset (cycles) say when cycle 0 was. */
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
  int err = clock_rewrite(path, text, delta_ns);
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

/* Write member i of set, called name, into directory dir; 0, or
 * MPROF_EIO after telling which file failed and why. */
static int write_member(const mprof_trace_set_t *set, size_t i, const char *dir,
                        const char *name, mprof_diag_fn diag, void *context) {
  char path[4096 + 256 + 16];
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
  if (err) mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
  return err ? MPROF_EIO : 0;
}

/* Each member, then the manifest that names them. */
static int write_all(const mprof_trace_set_t *set, const char *dir,
                     char (*names)[256], const char **members,
                     mprof_diag_fn diag, void *context) {
  char path[4096 + 16];
  if (mkdir(dir, 0755) < 0) {
    mprof__diag_to(diag, context, "%s: %s", dir, strerror(errno));
    return MPROF_EIO;
  }
  for (size_t i = 0; i < set->count; i++) {
    member_name(set->paths, i, names[i], sizeof names[i]);
    members[i] = names[i];
    if (write_member(set, i, dir, names[i], diag, context)) return MPROF_EIO;
  }
  snprintf(path, sizeof path, "%s/mprof-merge", dir);
  if (mprof_trace_manifest_write(path, members, set->offsets_ns, set->count)) {
    mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
    return MPROF_EIO;
  }
  return 0;
}

int mprof_trace_merged_write(const mprof_trace_set_t *set, const char *dir,
                             mprof_diag_fn diag, void *context) {
  char(*names)[256] = calloc(set->count ? set->count : 1, sizeof *names);
  const char **members = calloc(set->count ? set->count : 1, sizeof *members);
  int err = names && members
                ? write_all(set, dir, names, members, diag, context)
                : MPROF_ENOMEM;
  free(names);
  free(members);
  return err;
}
