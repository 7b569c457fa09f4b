/* html_spans.h -- the bytes of a trace that `mprof html` gives the page:
 * the spans between runs of HTML_ZERO_RUN zeros or more (packets never
 * written: most of a trace file can be), cut into slices.  The bytes are
 * handed in order, a block at a time, so that a trace read from its file
 * is never held whole. */
#ifndef MPROF_HTML_SPANS_H
#define MPROF_HTML_SPANS_H

#include <stddef.h>

/* Runs of zeros at least this long are left out of the page's copy. */
#define HTML_ZERO_RUN 4096

/* Bytes [start, end) of the trace, in slice `slice`: the spans are cut by
 * their running total, the first slice a quarter of the others (the page
 * draws it first: it comes sooner). */
typedef struct span_s {
  size_t start, end, slice;
} span_t;

/* Finds the spans of a trace's bytes handed to it in order. */
typedef struct spanner_s {
  span_t *spans;
  size_t count, cap;
  size_t slice, total, index, cut_at; /* the bytes cut so far, into slices */
  size_t region; /* where the bytes since the last long run of zeros start */
  size_t zeros;  /* where the run of zeros being read starts, or SIZE_MAX */
  size_t at;     /* the bytes handed so far */
  int failed;    /* memory ran out */
} spanner_t;

/* Start finding spans cut into slices of `slice` bytes. */
void spanner_start(spanner_t *s, size_t slice);

/* The next n bytes of the trace. */
void spanner_feed(spanner_t *s, const unsigned char *block, size_t n);

/* The spans (an array to free, *count of them), once all the bytes are
 * handed; NULL if memory ran out (s is then let go of too). */
span_t *spanner_end(spanner_t *s, size_t *count);

#endif
