/* trace_big.c -- a trace file too big to map whole (bigger than the
 * address space a process may have: `ulimit -v`, a 32-bit reader).  Only
 * its head is mapped: the trace header, the metadata and the slot states,
 * which come before the packets; the packets are read with pread(), each
 * into a copy that lives as long as a decoding of it needs:
 *
 *   - one decoding to a callback (mprof_trace_packet_events()): a copy
 *     freed when it returns, so a pass over the whole trace holds one
 *     packet at a time;
 *   - the names packets, whose strings the labels point into, and a
 *     packet decoded into an array in place (mprof_trace_packet_decode()):
 *     a copy kept until the trace is closed, as the mapping's pages were.
 *
 * Such a trace is read, never copied whole: what needs all its bytes at
 * once (a window, a CTF directory, a save, a redaction) is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format.h"
#include "trace_internal.h"

/* What a damaged header's packets_offset leaves of the file to map: the
 * first 16 MiB, where the metadata and slot states of a trace lie. */
#define DAMAGED_HEAD_BYTES ((size_t)16 << 20)

/* The bytes before the packets of the mprof trace in fd (size bytes): its
 * header's packets_offset (where that lies outside the file, a head of
 * DAMAGED_HEAD_BYTES at most), or 0 if it is not an mprof trace. */
static size_t head_bytes(int fd, size_t size) {
  uint8_t header[MPROF__TH_PACKETS_OFFSET + 8];
  if (pread(fd, header, sizeof header, 0) != (ssize_t)sizeof header ||
      memcmp(header, MPROF__TRACE_MAGIC, 8) != 0)
    return 0;
  uint64_t packets_offset = mprof__get_u64(header + MPROF__TH_PACKETS_OFFSET);
  if (packets_offset >= sizeof header && packets_offset <= size)
    return (size_t)packets_offset;
  return size < DAMAGED_HEAD_BYTES ? size : DAMAGED_HEAD_BYTES;
}

void *mprof__map_trace(int fd, size_t size, size_t *map_size) {
  *map_size = size;
  void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map != MAP_FAILED) return map;
  size_t head = head_bytes(fd, size);
  if (!head) return MAP_FAILED;
  *map_size = head;
  return mmap(NULL, head, PROT_READ, MAP_SHARED, fd, 0);
}

const uint8_t *mprof__packet_kept(const mprof_trace_t *t, size_t index) {
  const mprof_packet_info_t *pk = &t->packets[index];
  if (!t->windowed) return t->data + pk->offset;
  if (!t->copies) return NULL;
  uint8_t **slot = &t->copies[index];
  uint8_t *copy = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (copy) return copy;
  uint8_t *made = malloc(pk->content_bytes);
  if (!made || mprof__packet_read(t, pk, made) < 0) {
    free(made);
    return NULL;
  }
  /* Two OS threads may make it at once: the first to publish wins. */
  if (__atomic_compare_exchange_n(slot, &copy, made, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    return made;
  free(made);
  return copy;
}

int mprof__copies_make(mprof_trace_t *t) {
  if (!t->windowed) return 0;
  t->copies = calloc(t->packet_count + 1, sizeof *t->copies);
  return t->copies ? 0 : MPROF_ENOMEM;
}

void mprof__copies_free(mprof_trace_t *t) {
  if (!t->copies) return;
  for (size_t i = 0; i < t->packet_count; i++) free(t->copies[i]);
  free(t->copies);
  t->copies = NULL;
}

int mprof__refuse_big(const mprof_trace_t *t, const char *what) {
  if (!t->windowed) return 0;
  errno = EFBIG;
  mprof__diag(t,
              "%s: the trace (%llu bytes) is bigger than this process may "
              "map; this needs it whole (raise `ulimit -v`)",
              what, (unsigned long long)t->size);
  return MPROF_ENOMEM;
}
