/* html_spans.c -- the spans of a trace's bytes that `mprof html` gives the
 * page, found a block at a time (html_spans.h). */
#include "html_spans.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void spanner_start(spanner_t *s, size_t slice) {
  *s = (spanner_t){.slice = slice, .cut_at = slice / 4, .zeros = SIZE_MAX};
}

static void spanner_push(spanner_t *s, span_t span) {
  if (s->count == s->cap) {
    span_t *more =
        realloc(s->spans, (s->cap = s->cap ? s->cap * 2 : 64) * sizeof *more);
    if (!more) {
      s->failed = 1;
      return;
    }
    s->spans = more;
  }
  s->spans[s->count++] = span;
}

/* The bytes [at, end), cut where the running total reaches a slice's end. */
static void spanner_region(spanner_t *s, size_t at, size_t end) {
  while (at < end && !s->failed) {
    if (s->total == s->cut_at) {
      s->index++;
      s->cut_at += s->slice;
    }
    size_t cut =
        end - at < s->cut_at - s->total ? end : at + (s->cut_at - s->total);
    spanner_push(s, (span_t){at, cut, s->index});
    s->total += cut - at;
    at = cut;
  }
}

/* The next n bytes: each run of HTML_ZERO_RUN zeros or more ends a region (a
 * shorter one is part of it). */
void spanner_feed(spanner_t *s, const unsigned char *block, size_t n) {
  const unsigned char *p = block, *end = block + n;
  while (p < end) {
    if (s->zeros == SIZE_MAX) {
      const unsigned char *zero = memchr(p, 0, (size_t)(end - p));
      if (!zero) break;
      s->zeros = s->at + (size_t)(zero - block);
      p = zero + 1;
      continue;
    }
    while (p < end && !*p) p++;
    if (p == end) break;
    size_t at = s->at + (size_t)(p - block);
    if (at - s->zeros >= HTML_ZERO_RUN) {
      spanner_region(s, s->region, s->zeros);
      s->region = at;
    }
    s->zeros = SIZE_MAX;
    p++;
  }
  s->at += n;
}

span_t *spanner_end(spanner_t *s, size_t *count) {
  int long_run = s->zeros != SIZE_MAX && s->at - s->zeros >= HTML_ZERO_RUN;
  spanner_region(s, s->region, long_run ? s->zeros : s->at);
  if (s->failed || (!s->spans && !(s->spans = malloc(1)))) {
    free(s->spans);
    return NULL;
  }
  *count = s->count;
  return s->spans;
}
