/* capture.h -- what fired a capture of `mprof watch` (docs/watch.md):
 * the finding its sidecar DIR/capture-N.json names, beside the trace
 * DIR/capture-N.ctf, and the same finding among the capture's own, so
 * that the viewers open a capture on it.  Not installed: mprof's viewers
 * use it. */
#ifndef MPROF_CAPTURE_H
#define MPROF_CAPTURE_H

#include <stdint.h>

#include "mprof/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the viewers show above a capture's findings, then its summary. */
#define MPROF_CAPTURE_LINE "captured by mprof watch: "

/* How far from the trigger the capture's finding may start. */
#define MPROF_CAPTURE_SLACK_NS 1000000

typedef struct mprof_capture_s {
  char *kind;             /* the finding's kind, as mprof_finding_kind_name */
  char *summary;          /* its summary, as the watch told it */
  uint64_t trigger_ticks; /* its start, in trace clock ticks */
} mprof_capture_t;

/* Whether the trace at path is a capture: 1 with *out filled
 * (mprof_capture_free() it), 0 if no sidecar says so (path is no
 * PATH.ctf with a PATH.json beside it, or that JSON is no capture's), or
 * MPROF_ENOMEM. */
int mprof_capture_read(const char *path, mprof_capture_t *out);
void mprof_capture_free(mprof_capture_t *capture);

/* The index in analysis a (of the capture's model m) of the finding that
 * fired capture c: the one of its kind whose start is nearest the
 * trigger, within MPROF_CAPTURE_SLACK_NS; -1 if none is. */
long mprof_capture_finding(const mprof_capture_t *c, const mprof_model_t *m,
                           const mprof_analysis_t *a);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_CAPTURE_H */
