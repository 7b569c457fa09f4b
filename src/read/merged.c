/* merged.c -- merged traces: several traces on one time axis, named by a
 * manifest (docs/FORMAT.md, "Merged traces").  `mprof merge` writes one as
 * a directory, `mprof record` as a file beside a process tree's traces;
 * mprof_trace_open_merged() opens either (or one plain trace) as a set of
 * traces with the offset of each clock, what mprof_model_load_with() takes.
 * The reader trusts no manifest: a member is a name beside it, never a
 * path, and a bad line or an unreadable member is told and left out. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mprof/read.h"
#include "path_join.h"
#include "trace_internal.h"

static const char manifest_name[] = "mprof-merge";
static const char manifest_magic[] = "mprof-merge 1\n";
static const char manifest_prefix[] = "mprof-merge ";

static int is_directory(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where the manifest of merged trace path is: DIR/mprof-merge for a
 * directory, else path itself.  0, or -1 if it does not fit. */
static int manifest_path(const char *path, char *out, size_t size) {
  int n = is_directory(path) ? snprintf(out, size, "%s/%s", path, manifest_name)
                             : snprintf(out, size, "%s", path);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Only a regular file is looked into: the bytes read from a pipe would be
 * lost to the trace reader. */
int mprof_trace_is_merged(const char *path) {
  char manifest[4096], head[sizeof manifest_prefix - 1];
  if (!strcmp(path, "-") || manifest_path(path, manifest, sizeof manifest) ||
      !is_regular_file(manifest))
    return 0;
  FILE *f = fopen(manifest, "rb");
  if (!f) return 0;
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  return got == sizeof head && !memcmp(head, manifest_prefix, sizeof head);
}

/* A member name: a file or directory beside the manifest, never a path and
 * never hidden, one line of printable text. */
static int member_name_ok(const char *name) {
  size_t length = strlen(name);
  if (!length || length > 255 || *name == '.') return 0;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    if (*c < 0x20 || *c == 0x7f || *c == '/') return 0;
  return 1;
}

/* --- The set ------------------------------------------------------------ */

static char *copy_string(const char *text) {
  size_t size = strlen(text) + 1;
  char *copy = malloc(size);
  if (copy) memcpy(copy, text, size);
  return copy;
}

/* Room for one more trace in set: 0 or MPROF_ENOMEM. */
static int set_reserve(mprof_trace_set_t *set) {
  if (set->count < set->capacity) return 0;
  size_t capacity = set->capacity ? 2 * set->capacity : 4;
  mprof_trace_t **traces = realloc(set->traces, capacity * sizeof *traces);
  if (traces) set->traces = traces;
  char **paths = realloc(set->paths, capacity * sizeof *paths);
  if (paths) set->paths = paths;
  int64_t *offsets = realloc(set->offsets_ns, capacity * sizeof *offsets);
  if (offsets) set->offsets_ns = offsets;
  if (!traces || !paths || !offsets) return MPROF_ENOMEM;
  set->capacity = capacity;
  return 0;
}

/* Open the trace file at file and add it to set as path, at offset_ns. */
static int set_add_trace(mprof_trace_set_t *set, const char *path,
                         const char *file, int64_t offset_ns,
                         mprof_diag_fn diag, void *context) {
  char *name = copy_string(path);
  int err = name ? set_reserve(set) : MPROF_ENOMEM;
  if (!err)
    err = mprof_trace_open(file, diag, context, &set->traces[set->count]);
  if (err) {
    free(name);
    return err;
  }
  set->paths[set->count] = name;
  set->offsets_ns[set->count++] = offset_ns;
  return 0;
}

/* Parse "OFFSET_NS MEMBER" in line (its newline taken off): 0, or -1 if
 * malformed. */
static int parse_line(char *line, int64_t *offset_ns, char **member) {
  char *end;
  errno = 0;
  long long offset = strtoll(line, &end, 10);
  if (end == line || *end != ' ' || errno) return -1;
  *member = end + 1;
  *offset_ns = offset;
  return member_name_ok(*member) ? 0 : -1;
}

/* The directory a manifest's members are in (into dir; "" for the current
 * one). */
static void members_directory(const char *path, char *dir, size_t size) {
  const char *slash = strrchr(path, '/');
  if (is_directory(path))
    snprintf(dir, size, "%s", path);
  else
    snprintf(dir, size, "%.*s",
             !slash          ? 0
             : slash == path ? 1
                             : (int)(slash - path),
             path);
}

/* Why trace file (of member path, a directory if in_directory) cannot be
 * read, or NULL if it can: only a regular file is, opened without
 * following a link and without waiting for a FIFO's writer (which would
 * block every reader). */
static const char *member_problem(const char *file, int in_directory) {
  int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  int regular = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  int why = errno;
  if (fd >= 0) close(fd);
  if (regular) return NULL;
  if (in_directory)
    return "a directory, but not a member `mprof merge` wrote (no regular "
           ".mprof file in it)";
  if (fd >= 0) return "not a regular file";
  return why == ELOOP ? "a symbolic link (a member is a file beside its "
                        "manifest, never a link)"
                      : strerror(why);
}

/* Hand member name of the manifest in directory dir to fn: a trace file,
 * or a member directory that `mprof merge` wrote (its source trace is
 * MEMBER/.mprof); one that cannot be read is told and left out (*handed
 * counts those given to fn).  Both fit: dir is at most 4095 bytes, name
 * 255. */
static int call_member(mprof_member_fn fn, void *context, const char *dir,
                       const char *name, int64_t offset_ns, size_t *handed,
                       mprof_diag_fn diag, void *diag_context) {
  char path[4096 + 256], file[sizeof path + 8];
  struct stat st;
  int fits = !mprof__path_join(path, sizeof path, dir, name);
  int in_directory = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
  if (in_directory)
    fits = fits && !mprof__path_join(file, sizeof file, path, ".mprof");
  else
    fits = fits && !mprof__path_join(file, sizeof file, "", path);
  assert(fits);
  const char *problem = member_problem(file, in_directory);
  if (problem) {
    mprof__diag_to(diag, diag_context, "%s: %s", path, problem);
    return 0;
  }
  ++*handed;
  return fn(context, path, file, offset_ns);
}

/* Each member line of open manifest f (called manifest) to fn. */
static int each_line(FILE *f, const char *manifest, const char *dir,
                     mprof_member_fn fn, void *context, size_t *handed,
                     mprof_diag_fn diag, void *diag_context) {
  char line[512];
  int err = 0;
  for (int number = 2; !err && fgets(line, sizeof line, f); number++) {
    size_t length = strcspn(line, "\n");
    /* Longer than any line a member makes: skip the rest of it. */
    int long_line = !line[length] && length == sizeof line - 1;
    line[length] = 0;
    int64_t offset_ns;
    char *member;
    if (!long_line && !parse_line(line, &offset_ns, &member)) {
      err = call_member(fn, context, dir, member, offset_ns, handed, diag,
                        diag_context);
      continue;
    }
    mprof__diag_to(diag, diag_context,
                   "%s: line %d: want OFFSET_NS MEMBER; line skipped", manifest,
                   number);
    while (long_line && fgets(line, sizeof line, f) && !strchr(line, '\n')) {
    }
  }
  return err;
}

int mprof_trace_merged_members(const char *path, mprof_member_fn fn,
                               void *context, mprof_diag_fn diag,
                               void *diag_context) {
  char manifest[4096], dir[4096], line[sizeof manifest_magic + 1];
  if (manifest_path(path, manifest, sizeof manifest)) {
    mprof__diag_to(diag, diag_context, "%s: path too long", path);
    return MPROF_EINVAL;
  }
  FILE *f = fopen(manifest, "r");
  if (!f || !fgets(line, sizeof line, f) || strcmp(line, manifest_magic)) {
    mprof__diag_to(diag, diag_context, "%s: not a merged trace (%s)", manifest,
                   f ? "first line is not \"mprof-merge 1\"" : strerror(errno));
    if (f) fclose(f);
    return f ? MPROF_EINVAL : MPROF_EIO;
  }
  members_directory(path, dir, sizeof dir);
  size_t handed = 0;
  int err =
      each_line(f, manifest, dir, fn, context, &handed, diag, diag_context);
  fclose(f);
  if (!err && !handed) {
    mprof__diag_to(diag, diag_context, "%s: no member could be read", path);
    err = MPROF_EIO;
  }
  return err;
}

typedef struct adding_s {
  mprof_trace_set_t *set;
  mprof_diag_fn diag;
  void *context;
  size_t added;
} adding_t;

/* A member into the set; one that cannot be opened is left out (told). */
static int add_member(void *context, const char *path, const char *file,
                      int64_t offset_ns) {
  adding_t *adding = context;
  int err = set_add_trace(adding->set, path, file, offset_ns, adding->diag,
                          adding->context);
  if (!err) adding->added++;
  return err == MPROF_ENOMEM ? err : 0;
}

/* Add the members of merged trace path to set. */
static int set_add_merged(mprof_trace_set_t *set, const char *path,
                          mprof_diag_fn diag, void *context) {
  adding_t adding = {set, diag, context, 0};
  int err =
      mprof_trace_merged_members(path, add_member, &adding, diag, context);
  if (!err && !adding.added) {
    mprof__diag_to(diag, context, "%s: no member could be read", path);
    err = MPROF_EIO;
  }
  return err;
}

int mprof_trace_set_add(mprof_trace_set_t *set, const char *path,
                        mprof_diag_fn diag, void *context) {
  if (mprof_trace_is_merged(path))
    return set_add_merged(set, path, diag, context);
  return set_add_trace(set, path, path, 0, diag, context);
}

int mprof_trace_open_merged(const char *path, mprof_diag_fn diag, void *context,
                            mprof_trace_set_t *out) {
  memset(out, 0, sizeof *out);
  int err = mprof_trace_set_add(out, path, diag, context);
  if (err) mprof_trace_set_close(out);
  return err;
}

void mprof_trace_set_close(mprof_trace_set_t *set) {
  for (size_t i = 0; i < set->count; i++) {
    mprof_trace_close(set->traces[i]);
    free(set->paths[i]);
  }
  free(set->traces);
  free(set->paths);
  free(set->offsets_ns);
  memset(set, 0, sizeof *set);
}

/* --- Writing a manifest -------------------------------------------------- */

int mprof_trace_manifest_write(const char *path, const char *const *members,
                               const int64_t *offsets_ns, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (!member_name_ok(members[i])) {
      errno = EINVAL;
      return MPROF_EINVAL;
    }
  mprof_output_t out;
  if (mprof_output_open_file(&out, path)) return MPROF_EIO;
  fputs(manifest_magic, out.f);
  for (size_t i = 0; i < count; i++)
    fprintf(out.f, "%" PRId64 " %s\n", offsets_ns ? offsets_ns[i] : 0,
            members[i]);
  return mprof_output_close(&out, 1) ? MPROF_EIO : 0;
}

/* --- The process a trace came from -------------------------------------- */

int mprof_trace_process_name(const mprof_trace_t *trace, char *name,
                             size_t size) {
  static const char key[] = "\tprocname = \"";
  const mprof_trace_info_t *info = mprof_trace_info(trace);
  if (!info->metadata || !size) return -1; /* a legacy trace has none */
  const char *end = info->metadata + info->metadata_size;
  const char *at =
      memmem(info->metadata, info->metadata_size, key, sizeof key - 1);
  if (!at) return -1;
  at += sizeof key - 1;
  const char *quote = memchr(at, '"', (size_t)(end - at));
  if (!quote) return -1;
  size_t length = (size_t)(quote - at) < size ? (size_t)(quote - at) : size - 1;
  memcpy(name, at, length);
  name[length] = 0;
  return (int)length;
}
