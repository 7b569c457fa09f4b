/* window.c -- what of a trace a window of time needs, from its index
 * alone: the packets to decode to model the window (mprof_index_window()),
 * their bytes, and the clock the whole model counts time from, so that a model
 * of the window and one of the whole trace put an event at the same time.
 */
#include <stdlib.h>

#include "index_internal.h"

uint64_t mprof_index_first_ticks(const mprof_index_t *x) {
  uint64_t first = UINT64_MAX;
  for (size_t i = 0; i < x->packet_count; i++)
    if (x->packets[i].events && x->packets[i].first_ticks < first)
      first = x->packets[i].first_ticks;
  return first == UINT64_MAX ? 0 : first;
}

uint64_t mprof_index_last_ticks(const mprof_index_t *x) {
  uint64_t last = 0;
  for (size_t i = 0; i < x->packet_count; i++)
    if (x->packets[i].events && x->packets[i].last_ticks > last)
      last = x->packets[i].last_ticks;
  return last;
}

uint64_t mprof_index_content_bytes(const mprof_index_t *x,
                                   const size_t *packets, size_t count) {
  if (!packets) count = x->packet_count;
  uint64_t bytes = 0;
  for (size_t i = 0; i < count; i++) {
    size_t k = packets ? packets[i] : i;
    if (k < x->packet_count) bytes += x->packets[k].content_bytes;
  }
  return bytes;
}

/* Whether packet i is wanted: a names packet, one whose events reach
 * into [from, to], or the first of its stream past to (*past says
 * whether its stream had one already). */
static int wanted(const mprof_index_t *x, size_t i, uint64_t from, uint64_t to,
                  int *past) {
  const mprof_index_packet_t *p = &x->packets[i];
  if (x->streams[p->stream].stream_class != 0) return 1;
  if (!p->events) return 0;
  if (p->first_ticks > to) {
    int first_past = !*past;
    *past = 1;
    return first_past;
  }
  return p->last_ticks >= from;
}

int mprof_index_window(const mprof_index_t *x, uint64_t from_ticks,
                       uint64_t to_ticks, size_t **packets, size_t *count) {
  size_t *list = malloc((x->packet_count + 1) * sizeof *list), n = 0;
  if (!list) return MPROF_ENOMEM;
  int past = 0;
  for (size_t i = 0; i < x->packet_count; i++) {
    if (i && x->packets[i].stream != x->packets[i - 1].stream) past = 0;
    if (wanted(x, i, from_ticks, to_ticks, &past)) list[n++] = i;
  }
  *packets = list;
  *count = n;
  return 0;
}
