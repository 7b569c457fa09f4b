/* extend.c -- what an index of a trace that grew keeps of the index
 * before: the packets whose bytes are those it counted.  A recorder only
 * ever appends to a packet, publishing its content size as it goes, and
 * claims a packet again only under a new header (docs/FORMAT.md section
 * 9): a packet at the same offset, of the same stream and content size,
 * whose header's fields hash the same, holds the same events.  Anything
 * else is decoded again.
 */
#include <stdlib.h>

#include "index_internal.h"

static uint64_t hash_u64(uint64_t h, uint64_t value) {
  for (int i = 0; i < 8; i++)
    h = (h ^ (uint8_t)(value >> 8 * i)) * 0x100000001b3u;
  return h;
}

uint64_t mprof__index_header_hash(const mprof_packet_info_t *pk) {
  const uint64_t fields[] = {
      pk->stream_class,    pk->stream_instance,  pk->seq_num,
      pk->timestamp_begin, pk->timestamp_end,    pk->offset,
      pk->content_bytes,   pk->events_discarded, pk->current_thread,
      pk->os_thread_id,    (uint64_t)pk->cut};
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    h = hash_u64(h, fields[i]);
  return h;
}

/* One of old's packets, by offset: a table to search. */
typedef struct at_s {
  uint64_t offset;
  size_t packet;
} at_t;

static int offset_order(const void *a, const void *b) {
  const at_t *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The number of the packet at offset in by_offset[0 .. n), or SIZE_MAX. */
static size_t find_offset(const at_t *by_offset, size_t n, uint64_t offset) {
  size_t low = 0, high = n;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    if (by_offset[mid].offset < offset)
      low = mid + 1;
    else
      high = mid;
  }
  return low < n && by_offset[low].offset == offset ? by_offset[low].packet
                                                    : SIZE_MAX;
}

/* Whether old's packet j holds what packet pk does. */
static int same_packet(const mprof_index_t *old, size_t j,
                       const mprof_packet_info_t *pk) {
  const mprof_index_packet_t *p = &old->packets[j];
  const mprof_index_stream_t *s = &old->streams[p->stream];
  return p->content_bytes == pk->content_bytes &&
         s->stream_class == pk->stream_class &&
         s->instance == pk->stream_instance &&
         p->header_hash == mprof__index_header_hash(pk);
}

int mprof__index_reuse(const mprof_index_t *old, const mprof_trace_t *trace,
                       size_t *reuse) {
  size_t n = old->packet_count;
  at_t *by_offset = malloc((n + 1) * sizeof *by_offset);
  if (!by_offset) return -1;
  for (size_t j = 0; j < n; j++)
    by_offset[j] = (at_t){old->packets[j].offset, j};
  qsort(by_offset, n, sizeof *by_offset, offset_order);
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++) {
    const mprof_packet_info_t *pk = mprof_trace_packet(trace, i);
    size_t j = find_offset(by_offset, n, pk->offset);
    reuse[i] = j != SIZE_MAX && same_packet(old, j, pk) ? j : SIZE_MAX;
  }
  free(by_offset);
  return 0;
}
