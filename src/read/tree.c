/* tree.c -- the traces a traced process tree wrote.  Each process of the
 * tree writes a trace of its own beside its parent's: MPROF_TRACE's path
 * with "%p" as its pid, and ".PID" added for a forked child or a process
 * whose path was taken (docs/recording.md, "fork and exec").  `mprof
 * record` finds them here by name and age, sees which hold events, and
 * writes the manifest (merged.c) that reads them as one. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mprof/read.h"
#include "path_join.h"

static const char digits[] = "0123456789";

/* The number in text[0 .. length) (at most 18 digits). */
static long long number(const char *text, size_t length) {
  long long n = 0;
  for (size_t i = 0; i < length; i++) n = n * 10 + (text[i] - '0');
  return n;
}

/* Is name ".PID" repeated (or nothing)?  The last PID into *pid. */
static int match_suffixes(const char *name, long long *pid) {
  while (*name) {
    size_t length = strspn(name + 1, digits);
    if (*name != '.' || !length || length > 18) return 0;
    *pid = number(name + 1, length);
    name += 1 + length;
  }
  return 1;
}

/* Does name match pattern, each "%p" one pid (its value into *pid), then
 * ".PID" suffixes? */
static int match_name(const char *pattern, const char *name, long long *pid) {
  for (; *pattern; pattern++, name++) {
    if (pattern[0] == '%' && pattern[1] == 'p') {
      size_t length = strspn(name, digits);
      for (size_t k = length < 18 ? length : 18; k > 0; k--) {
        long long saved = *pid;
        *pid = number(name, k);
        if (match_name(pattern + 2, name + k, pid)) return 1;
        *pid = saved;
      }
      return 0;
    }
    if (*pattern != *name) return 0;
  }
  return match_suffixes(name, pid);
}

/* What packet's events say: how many, and whether any is more than the
 * names the shim declares at start (counters, strings). */
static void census(const mprof_trace_t *trace, mprof_tree_trace_t *out) {
  uint64_t counts[MPROF_EVENT_KIND_COUNT] = {0};
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++)
    out->events += mprof_trace_packet_census(trace, i, counts);
  out->empty = out->events ==
               counts[MPROF_EVENT_COUNTER_NAME] + counts[MPROF_EVENT_STRING];
}

/* Fill member from the trace at path (a file of the tree). */
static void describe(mprof_tree_trace_t *member, mprof_diag_fn diag,
                     void *context) {
  mprof_trace_t *trace;
  if (mprof_trace_open(member->path, diag, context, &trace)) {
    member->unreadable = 1;
    return;
  }
  census(trace, member);
  if (mprof_trace_process_name(trace, member->process, sizeof member->process) <
      0)
    member->process[0] = 0;
  mprof_trace_close(trace);
}

typedef struct found_s {
  mprof_tree_trace_t *traces;
  size_t count, capacity;
} found_t;

static int found_add(found_t *found, const char *dir, const char *name,
                     long long pid) {
  if (found->count == found->capacity) {
    size_t capacity = found->capacity ? 2 * found->capacity : 8;
    mprof_tree_trace_t *more = realloc(found->traces, capacity * sizeof *more);
    if (!more) return MPROF_ENOMEM;
    found->traces = more;
    found->capacity = capacity;
  }
  mprof_tree_trace_t *member = &found->traces[found->count];
  memset(member, 0, sizeof *member);
  size_t size = strlen(dir) + strlen(name) + 2;
  if (!(member->path = malloc(size))) return MPROF_ENOMEM;
  mprof__path_join(member->path, size, dir, name);
  member->pid = pid;
  found->count++;
  return 0;
}

/* Is dir/name a regular file changed at or after since_ns? */
static int changed_since(const char *dir, const char *name, int64_t since_ns) {
  char path[8192];
  struct stat st;
  if (mprof__path_join(path, sizeof path, dir, name) || stat(path, &st) < 0 ||
      !S_ISREG(st.st_mode))
    return 0;
  return (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec >=
         since_ns;
}

static int by_path(const void *a, const void *b) {
  return strcmp(((const mprof_tree_trace_t *)a)->path,
                ((const mprof_tree_trace_t *)b)->path);
}

/* Scan dir for the names that base (a file name pattern) and the top pid
 * make. */
static int scan(const char *dir, const char *base, long long top_pid,
                int64_t since_ns, found_t *found) {
  DIR *d = opendir(*dir ? dir : ".");
  if (!d) return MPROF_EIO;
  int err = 0;
  struct dirent *entry;
  while (!err && (entry = readdir(d))) {
    long long pid = top_pid;
    if (match_name(base, entry->d_name, &pid) &&
        changed_since(dir, entry->d_name, since_ns))
      err = found_add(found, dir, entry->d_name, pid);
  }
  closedir(d);
  return err;
}

/* pattern[0 .. length) with each "%p" as pid, into out: 0, or -1 if it
 * does not fit. */
static int expand(const char *pattern, size_t length, long long pid, char *out,
                  size_t size) {
  size_t n = 0;
  out[0] = 0;
  for (size_t i = 0; i < length; i++) {
    int is_pid = pattern[i] == '%' && i + 1 < length && pattern[i + 1] == 'p';
    int wrote = is_pid ? snprintf(out + n, size - n, "%lld", pid)
                       : snprintf(out + n, size - n, "%c", pattern[i]);
    if (wrote < 0 || (size_t)wrote >= size - n) return -1;
    n += (size_t)wrote;
    i += is_pid;
  }
  return 0;
}

/* pattern's directory (its "%p" as top_pid; "" for the current one) and
 * file name pattern. */
static int split(const char *pattern, long long top_pid, char *dir, size_t size,
                 const char **base) {
  const char *slash = strrchr(pattern, '/');
  *base = slash ? slash + 1 : pattern;
  if (!slash) return expand("", 0, top_pid, dir, size);
  return expand(pattern, (size_t)(slash - pattern) + (slash == pattern),
                top_pid, dir, size);
}

int mprof_trace_tree_find(const char *pattern, long long top_pid,
                          int64_t since_ns, mprof_diag_fn diag, void *context,
                          mprof_tree_trace_t **out, size_t *count) {
  char dir[4096];
  const char *base;
  found_t found = {0};
  *out = NULL;
  *count = 0;
  if (split(pattern, top_pid, dir, sizeof dir, &base)) return MPROF_EINVAL;
  int err = scan(dir, base, top_pid, since_ns, &found);
  if (err) {
    mprof_trace_tree_free(found.traces, found.count);
    return err;
  }
  if (found.count) /* traces is NULL when none was found */
    qsort(found.traces, found.count, sizeof *found.traces, by_path);
  for (size_t i = 0; i < found.count; i++)
    describe(&found.traces[i], diag, context);
  *out = found.traces;
  *count = found.count;
  return 0;
}

void mprof_trace_tree_free(mprof_tree_trace_t *traces, size_t count) {
  for (size_t i = 0; i < count; i++) free(traces[i].path);
  free(traces);
}

int mprof_trace_tree_manifest_write(const char *pattern, long long top_pid,
                                    const mprof_tree_trace_t *traces,
                                    size_t count, char *path, size_t size) {
  static const char suffix[] = ".manifest";
  size_t length = strlen(pattern);
  const char **members = calloc(count ? count : 1, sizeof *members);
  if (!members) return MPROF_ENOMEM;
  if (expand(pattern, length, top_pid, path, size - (sizeof suffix - 1))) {
    free(members);
    errno = ENAMETOOLONG;
    return MPROF_EINVAL;
  }
  strcat(path, suffix);
  size_t listed = 0;
  for (size_t i = 0; i < count; i++)
    if (!traces[i].empty && !traces[i].unreadable) {
      const char *slash = strrchr(traces[i].path, '/');
      members[listed++] = slash ? slash + 1 : traces[i].path;
    }
  int err = mprof_trace_manifest_write(path, members, NULL, listed);
  free(members);
  return err;
}
