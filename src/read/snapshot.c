/* snapshot.c -- a consistent copy of a trace that a live process is still
 * writing (see "Commit protocol" in docs/FORMAT.md).
 *
 * Each packet is copied seqlock-style: read its slot state, then its
 * content_size, copy that many bytes, and read the slot state again.  The
 * copy is good if the generation did not change and the writer was not
 * setting the packet up; otherwise it is tried again, and after a few
 * tries dropped (the writer is overwriting it faster than we copy).  The
 * events inside a packet are append-only, so content_size bounds bytes
 * that are already written.  A packet whose header is being written (INIT)
 * holds no event of its new owner yet: it is copied as empty, at once, so a
 * writer killed at that instant leaves a trace that still checks clean.
 *
 * Also how the reader writes files: whole or not at all, a copy of a trace
 * (mprof_trace_save) or any other output (mprof_output_open).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "format.h"
#include "trace_internal.h"

#define COPY_TRIES 4

int mprof__source_read(const mprof__source_t *s, uint64_t offset, void *dst,
                       size_t n) {
  if (s->local) {
    memcpy(dst, s->local + offset, n);
    return 0;
  }
#ifdef __linux__
  struct iovec here = {dst, n};
  struct iovec there = {(void *)(uintptr_t)(s->address + offset), n};
  ssize_t got = process_vm_readv(s->pid, &here, 1, &there, 1, 0);
  if (got == (ssize_t)n) return 0;
  if (got >= 0) errno = EFAULT; /* a short read: part of it is unmapped */
#else /* WebAssembly (the browser viewer): no other process to read */
  errno = ENOSYS;
#endif
  return -1;
}

/* A u64 the writer may be changing.  Here: an acquire load.  In another
 * process the kernel copies bytes, not one atomic u64, so it is read until
 * two reads agree, or else the smaller of the last two is taken: the values
 * read this way only grow (content_size within a generation, the slot
 * state's generation), so the smaller one was already published. */
static int source_u64(const mprof__source_t *s, uint64_t offset,
                      uint64_t *value) {
  if (s->local) {
    *value = __atomic_load_n((const uint64_t *)(s->local + offset),
                             __ATOMIC_ACQUIRE);
    return 0;
  }
  uint64_t a = 0, b = 0;
  for (int attempt = 0; attempt < COPY_TRIES; attempt++) {
    if (mprof__source_read(s, offset, &a, 8) ||
        mprof__source_read(s, offset, &b, 8))
      return -1;
    if (a == b) break;
  }
  *value = a < b ? a : b;
  return 0;
}

/* Copy one packet (slot state at slot, bytes at packet) into dst.  Returns
 * 1 if copied (or empty: being set up), 0 if it had to be left out, -1 if
 * the source cannot be read. */
static int copy_packet(const mprof__source_t *src, uint64_t slot,
                       uint64_t packet, uint8_t *dst, uint64_t available) {
  uint64_t before = 0, after = 0;
  for (int attempt = 0; attempt < COPY_TRIES; attempt++) {
    if (source_u64(src, slot, &before)) return -1;
    if (before & MPROF__SLOT_INIT) break;
    uint64_t content_bits;
    if (source_u64(src, packet + MPROF__PH_CONTENT_SIZE, &content_bits))
      return -1;
    uint64_t content = content_bits / 8;
    if (content > available) content = available; /* a cut file */
    if (mprof__source_read(src, packet, dst,
                           content < MPROF__PACKET_HEADER_SIZE
                               ? MPROF__PACKET_HEADER_SIZE
                               : content))
      return -1;
    /* content_size as read, not as the header copy may have it later */
    mprof__put_u64(dst + MPROF__PH_CONTENT_SIZE, content_bits);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (source_u64(src, slot, &after)) return -1;
    if ((before >> MPROF__SLOT_GEN_SHIFT) == (after >> MPROF__SLOT_GEN_SHIFT) &&
        !(after & MPROF__SLOT_INIT))
      return 1;
    before = after;
  }
  memset(dst, 0, MPROF__PACKET_HEADER_SIZE);
  return (before & MPROF__SLOT_INIT) != 0;
}

/* --- Files written whole or not at all ------------------------------------ */

/* Whether path is (or links to) something other than a file or a
 * directory: a FIFO, a device (/dev/null, /dev/stdout), written in place,
 * never replaced. */
static int is_special(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* mprof_output_open(), or with in_place 0 mprof_output_open_file(). */
static int output_open(mprof_output_t *out, const char *path, int in_place) {
  memset(out, 0, sizeof *out);
  if (!strcmp(path, "-")) {
    out->f = stdout;
    return 0;
  }
  int special = is_special(path);
  if (special && !in_place) {
    errno = EEXIST;
    return MPROF_EIO;
  }
  if (special) {
    snprintf(out->path, sizeof out->path, "%s", path);
    out->f = fopen(path, "wb");
    return out->f ? 0 : MPROF_EIO;
  }
  const char *slash = strrchr(path, '/');
  int dir = slash ? (int)(slash + 1 - path) : 0;
  if (snprintf(out->path, sizeof out->path, "%s", path) >=
          (int)sizeof out->path ||
      snprintf(out->temp, sizeof out->temp, "%.*s.%s.XXXXXX", dir, path,
               path + dir) >= (int)sizeof out->temp) {
    errno = ENAMETOOLONG;
    return MPROF_EIO;
  }
  int fd = mkstemp(out->temp);
  if (fd >= 0 && (out->f = fdopen(fd, "wb"))) return 0;
  int saved = errno;
  if (fd >= 0) {
    close(fd);
    unlink(out->temp);
  }
  errno = saved;
  return MPROF_EIO;
}

int mprof_output_open(mprof_output_t *out, const char *path) {
  return output_open(out, path, 1);
}

int mprof_output_open_file(mprof_output_t *out, const char *path) {
  return output_open(out, path, 0);
}

const char *mprof_output_error(int why) {
  return why == EEXIST ? "not a regular file" : strerror(why);
}

int mprof_output_close(mprof_output_t *out, int complete) {
  int write_failed = fflush(out->f) || ferror(out->f);
  if (out->f == stdout) return write_failed || !complete ? MPROF_EIO : 0;
  int close_failed = fclose(out->f);
  if (!out->temp[0]) /* written in place */
    return write_failed || close_failed || !complete ? MPROF_EIO : 0;
  if (!write_failed && !close_failed && complete &&
      rename(out->temp, out->path) == 0)
    return 0;
  int saved = errno;
  unlink(out->temp);
  errno = saved;
  return MPROF_EIO;
}

/* --- A copy of a trace ---------------------------------------------------- */

/* A write from a trace's mapping failed with EFAULT: its file shrank, and
 * the kernel met a page past the new end.  Touching the pages of what is
 * left to write makes the guard (trace.c) put zeros there, which can then
 * be written. */
static void touch_pages(const uint8_t *bytes, size_t size) {
  for (size_t at = 0; at < size; at += 4096)
    (void)*(const volatile uint8_t *)(bytes + at);
}

/* mprof_trace_save(), or with in_place 0 mprof_trace_save_file(). */
static int trace_save(const mprof_trace_t *t, const char *path, int in_place) {
  mprof_output_t out;
  if (mprof__refuse_big(t, "a copy")) return MPROF_EIO;
  if (output_open(&out, path, in_place)) return MPROF_EIO;
  int fd = fileno(out.f);
  size_t done = 0;
  int touched = 0;
  while (done < t->size) {
    ssize_t n = write(fd, t->data + done, t->size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EFAULT && t->map && !touched++) {
      touch_pages(t->data + done, t->size - done);
      continue;
    }
    if (n <= 0) break;
    done += (size_t)n;
  }
  mprof__tell_shrank(t);
  return mprof_output_close(&out, done == t->size);
}

int mprof_trace_save(const mprof_trace_t *t, const char *path) {
  return trace_save(t, path, 1);
}

int mprof_trace_save_file(const mprof_trace_t *t, const char *path) {
  return trace_save(t, path, 0);
}

int mprof__snapshot_copy(const mprof__source_t *src,
                         const mprof__layout_t *layout, uint8_t **out,
                         uint32_t *dropped) {
  uint8_t *copy = mmap(NULL, layout->size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) return MPROF_ENOMEM;
  int err = mprof__source_read(src, 0, copy, layout->packets_offset);
  *dropped = 0;
  for (uint32_t i = 0; i < layout->packet_count && !err; i++) {
    uint64_t offset =
        layout->packets_offset + (uint64_t)i * layout->packet_size;
    uint64_t available = layout->size - offset;
    if (available > layout->packet_size) available = layout->packet_size;
    int copied = copy_packet(src, layout->slots_offset + 8 * (uint64_t)i,
                             offset, copy + offset, available);
    if (copied < 0) err = 1;
    if (copied == 0) (*dropped)++;
  }
  if (err) {
    munmap(copy, layout->size);
    return MPROF_EIO;
  }
  /* The copy is a finished trace: it will not change any more, and its
   * slot states (copied before the packets) say nothing about it. */
  mprof__put_u32(copy + MPROF__TH_STATE, MPROF__STATE_STOPPED);
  memset(copy + layout->slots_offset, 0, 8 * (size_t)layout->packet_count);
  *out = copy;
  return 0;
}

void mprof__diag_dropped(const mprof_trace_t *t, uint32_t dropped) {
  if (dropped)
    mprof__diag(t,
                "%u packets changed faster than they could be copied; "
                "left out of the snapshot",
                dropped);
}

int mprof__snapshot(mprof_trace_t *t) {
  mprof__source_t src = {t->data, 0, 0};
  mprof__layout_t layout = {t->size, t->packets_offset, t->slots_offset,
                            t->info.packet_count, t->info.packet_size};
  uint8_t *copy;
  uint32_t dropped;
  int err = mprof__snapshot_copy(&src, &layout, &copy, &dropped);
  if (err) return err;
  mprof__diag_dropped(t, dropped);
  t->info.metadata =
      (const char *)copy + (t->info.metadata - (const char *)t->data);
  mprof__unguard(t);
  if (t->map) munmap(t->map, t->map_size);
  t->map = copy;
  t->map_size = layout.size;
  t->data = copy;
  return 0;
}
