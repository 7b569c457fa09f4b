/* snapshot.c -- a consistent copy of a trace that a live process is still
 * writing (see "Commit protocol" in docs/FORMAT.md).
 *
 * Each packet is copied seqlock-style: read its slot state, then its
 * content_size, copy that many bytes, and read the slot state again.  The
 * copy is good if the generation did not change and the writer was not
 * setting the packet up; otherwise it is tried again, and after a few
 * tries dropped (the writer is overwriting it faster than we copy).  The
 * events inside a packet are append-only, so content_size bounds bytes
 * that are already written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "format.h"
#include "trace_internal.h"

#define COPY_TRIES 4

static uint64_t load_acquire_u64(const uint8_t *p) {
  return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

/* Copy packet i of src into dst.  Returns 1 if copied, 0 if it had to be
 * left empty. */
static int copy_packet(const uint8_t *src_slot, const uint8_t *src,
                       uint8_t *dst, uint64_t available) {
  for (int attempt = 0; attempt < COPY_TRIES; attempt++) {
    uint64_t before = load_acquire_u64(src_slot);
    if (before & MPROF__SLOT_INIT) continue;
    uint64_t content_bits = load_acquire_u64(src + MPROF__PH_CONTENT_SIZE);
    uint64_t content = content_bits / 8;
    if (content > available) content = available; /* a cut file */
    memcpy(dst, src, content < MPROF__PACKET_HEADER_SIZE
                         ? MPROF__PACKET_HEADER_SIZE : content);
    /* content_size as read, not as the header copy may have it later */
    mprof__put_u64(dst + MPROF__PH_CONTENT_SIZE, content_bits);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint64_t after = load_acquire_u64(src_slot);
    if ((before >> MPROF__SLOT_GEN_SHIFT) == (after >> MPROF__SLOT_GEN_SHIFT) &&
        !(after & MPROF__SLOT_INIT))
      return 1;
  }
  memset(dst, 0, MPROF__PACKET_HEADER_SIZE);
  return 0;
}

int mprof_trace_save(const mprof_trace_t *t, const char *path) {
  int to_stdout = strcmp(path, "-") == 0;
  int fd = to_stdout ? 1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return MPROF_EIO;
  size_t done = 0;
  while (done < t->size) {
    ssize_t n = write(fd, t->data + done, t->size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += (size_t)n;
  }
  int err = done == t->size ? 0 : MPROF_EIO;
  if (!to_stdout && close(fd) < 0) err = MPROF_EIO;
  return err;
}

int mprof__snapshot(mprof_trace_t *t) {
  size_t size = t->size;
  uint8_t *copy = mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) return MPROF_EIO;
  memcpy(copy, t->data, t->packets_offset);
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < t->info.packet_count; i++) {
    uint64_t offset = t->packets_offset + (uint64_t)i * t->info.packet_size;
    uint64_t available = t->size - offset;
    if (available > t->info.packet_size) available = t->info.packet_size;
    if (!copy_packet(t->data + t->slots_offset + 8 * (uint64_t)i,
                     t->data + offset, copy + offset, available))
      dropped++;
  }
  /* The copy is a finished trace: it will not change any more, and its
   * slot states (copied before the packets) say nothing about it. */
  mprof__put_u32(copy + MPROF__TH_STATE, MPROF__STATE_STOPPED);
  memset(copy + t->slots_offset, 0, 8 * (size_t)t->info.packet_count);
  if (dropped)
    mprof__diag(t, "%u packets changed faster than they could be copied; "
                "left out of the snapshot", dropped);
  t->info.metadata = (const char *)copy + (t->info.metadata - (const char *)t->data);
  if (t->map) munmap(t->map, t->map_size);
  t->map = copy;
  t->map_size = size;
  t->data = copy;
  return 0;
}
