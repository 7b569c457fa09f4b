/* analysis_internal.h -- what the parts of the analysis share: analysis.c
 * (waits, times, stalls, lost wake-ups, chains, the critical path) calls
 * requests.c (latency and failures by kind of request) and findings.c
 * (the findings every view lists), which read what it found. */
#ifndef MPROF_ANALYSIS_INTERNAL_H
#define MPROF_ANALYSIS_INTERNAL_H

#include "model_internal.h"

/* The stream index thread t first ran on, or MPROF_NO_THREAD. */
uint32_t mprof__thread_stream(const mprof_model_t *m, uint32_t t);

/* Is a thread of this type a request (fs, write, connect, work, ...)? */
int mprof__is_request_type(uint16_t type);

/* The kind of request t is, as its group's name: its label without the
 * numbers, paths and addresses in it, into buf (NUL-terminated). */
void mprof__request_kind(const mprof_model_t *m, uint32_t t, char *buf,
                         size_t size);

/* Streams a loop ran on (a loop thread ran there, or, but in legacy
 * traces, something slept there in an idle band): loop[stream index] set
 * to 1 (stream_count bytes, zeroed by the caller). */
void mprof__loop_streams(const mprof_model_t *m, uint8_t *loop);

/* Each work request's wait in the pool's queue (creation to its first run
 * off a loop's OS thread) and its run time there, by thread index (-1:
 * not work, or never ran), in two arrays made for the caller to free.
 * Returns 0 or MPROF_ENOMEM. */
int mprof__pool_times(const mprof_model_t *m, int64_t **queue_ns,
                      int64_t **run_ns);

/* qsort's order of int64_t values, lowest first. */
int mprof__compare_int64(const void *a, const void *b);

/* Fill out->requests and out->failures (requests.c).  Returns 0 or
 * MPROF_ENOMEM. */
int mprof__summarise_requests(const mprof_model_t *m, mprof_analysis_t *out);

/* Fill out->findings from the rest of out, sorted most severe first
 * (findings.c).  Returns 0 or MPROF_ENOMEM. */
int mprof__find_findings(const mprof_model_t *m,
                         const mprof_analysis_options_t *options,
                         mprof_analysis_t *out);

/* Append a NUL-terminated text to out->text; its offset in *at.  Returns
 * 0 or MPROF_ENOMEM. */
int mprof__analysis_text(mprof_analysis_t *out, const char *text,
                         uint32_t *at);

#endif /* MPROF_ANALYSIS_INTERNAL_H */
