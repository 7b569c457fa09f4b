/* path_join.h -- a file name in a directory, as the merged-trace reader
 * (merged.c) and the process-tree finder (tree.c) both name files beside a
 * manifest or a trace. */
#ifndef MPROF_PATH_JOIN_H
#define MPROF_PATH_JOIN_H

#include <stdio.h>

/* dir/name into out (name alone when dir is "", the current directory):
 * 0, or -1 if it does not fit. */
static inline int mprof__path_join(char *out, size_t size, const char *dir,
                                   const char *name) {
  int n = *dir ? snprintf(out, size, "%s/%s", dir, name)
               : snprintf(out, size, "%s", name);
  return n >= 0 && (size_t)n < size ? 0 : -1;
}

#endif /* MPROF_PATH_JOIN_H */
