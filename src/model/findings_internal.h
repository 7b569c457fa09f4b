/* findings_internal.h -- what the files of the findings share
 * (findings.c, findings_loops.c, findings_requests.c): the finding being
 * made, its text, and the detectors' entry points. */
#ifndef MPROF_FINDINGS_INTERNAL_H
#define MPROF_FINDINGS_INTERNAL_H

#include "analysis_internal.h"

/* Threads and evidence kept per finding, at most. */
#define FINDING_THREADS 8
#define FINDING_EVIDENCE 16

/* A summary being written (cut at its size). */
typedef struct text_s {
  char buf[1024];
  size_t n;
} text_t;

/* The detectors' state: the model, what the analysis found, the finding
 * being made. */
typedef struct finder_s {
  const mprof_model_t *m;
  const mprof_model_view_t *v;
  const mprof_analysis_options_t *options;
  mprof_analysis_t *out;
  size_t cap_findings, cap_threads, cap_evidence;
  mprof_finding_t current; /* the finding being made */
  text_t text;             /* its summary */
  const mprof__facts_t *facts;
  const uint8_t *loop_stream; /* by stream index: a loop ran there */
  uint32_t *runs;             /* by thread: callbacks run (busy_loop) */
  uint8_t *is_loop;           /* by thread: a loop (its type, or it slept) */
} finder_t;

/* Append to a summary: a string; a number; ns as "148 ns", "12.3 us",
 * "62.1 ms" or "2.0 s"; a thread as "label" (type#id) or type#id. */
void mprof__put(text_t *t, const char *s);
void mprof__put_uint(text_t *t, uint64_t v);
void mprof__put_duration(text_t *t, int64_t ns);
void mprof__put_thread(text_t *t, const mprof_model_t *m, uint32_t thread);

/* Begin a finding of kind and severity about [start_ns, end_ns). */
void mprof__finding_begin(finder_t *f, mprof_finding_kind_t kind,
                          mprof_severity_t severity, int64_t start_ns,
                          int64_t end_ns);

/* Name a thread of the current finding (the first named is at fault);
 * once is enough.  Returns 0 or MPROF_ENOMEM. */
int mprof__finding_thread(finder_t *f, uint32_t t);

/* Add a piece of evidence to the current finding.  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__finding_evidence(finder_t *f, mprof_evidence_kind_t kind,
                            uint32_t thread, uint32_t arrow, uint32_t count,
                            int64_t start_ns, int64_t end_ns);

/* The current finding, with its summary, joins the list.  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__finding_commit(finder_t *f);

/* An error about thread t that never ended becomes an info that says it
 * cannot tell where t's end may be among what the trace misses. */
void mprof__unless_events_missing(finder_t *f, uint32_t t);

/* The detectors: each adds its findings.  Return 0 or MPROF_ENOMEM. */
int mprof__find_in_loops(finder_t *f); /* findings_loops.c */
int mprof__find_pool(finder_t *f);     /* findings_requests.c */
int mprof__find_storms(finder_t *f);
int mprof__find_backlog(finder_t *f);
int mprof__find_leaked(finder_t *f);

#endif /* MPROF_FINDINGS_INTERNAL_H */
