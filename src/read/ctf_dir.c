/* ctf_dir.c -- write a trace as a CTF 1.8 directory that babeltrace2 and
 * other CTF tools read: a metadata, and one file per stream with its
 * packets in packet_seq_num order.  Each packet is copied as recorded,
 * except that timestamp_end is made exact (a crashed or running writer
 * leaves it stale), packet_size is trimmed to the content, a damaged tail
 * is cut off at the last good event, and events_discarded is moved so that
 * babeltrace2 reports every drop (write_stream), with one more stream for
 * the drops of OS threads that never had a packet.  An mprof trace keeps
 * its own metadata; a legacy one gets a new one (legacy_ctf.c).
 */
#define _POSIX_C_SOURCE 200809L /* lstat */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "trace_internal.h"

static int write_all(FILE *f, const void *data, size_t size) {
  return fwrite(data, 1, size, f) == size ? 0 : -1;
}

/* Start writing directory/name (whole or not at all).  Returns 0 or -1. */
static int output_open(mprof_output_t *out, const char *directory,
                       const char *name) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", directory, name) >=
      (int)sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return mprof_output_open(out, path) ? -1 : 0;
}

static int write_metadata(const mprof_trace_t *t, const char *directory) {
  mprof_output_t out;
  if (output_open(&out, directory, "metadata")) return -1;
  int err = t->legacy
                ? mprof__legacy_ctf_metadata(t, out.f)
                : write_all(out.f, t->info.metadata, t->info.metadata_size);
  return mprof_output_close(&out, !err) ? -1 : 0;
}

/* The header of mprof packet index as written, patched as described at
 * the top; returns the packet's good bytes. */
static uint64_t ctf_header(const mprof_trace_t *t, size_t index,
                           uint8_t *header) {
  const mprof_packet_info_t *pk = mprof_trace_packet(t, index);
  uint64_t end_ticks, good_bytes;
  mprof__sink_t sink = {NULL, NULL, NULL, 0, 0, 0, 0, NULL};
  mprof__packet_decode(t, index, &sink, &end_ticks, &good_bytes);
  memcpy(header, t->data + pk->offset, MPROF__PACKET_HEADER_SIZE);
  if (end_ticks < pk->timestamp_end &&
      pk->timestamp_end >= pk->timestamp_begin &&
      good_bytes == pk->content_bytes)
    end_ticks = pk->timestamp_end; /* a closed packet keeps its own end */
  mprof__put_u64(header + MPROF__PH_TIMESTAMP_END, end_ticks);
  mprof__put_u64(header + MPROF__PH_CONTENT_SIZE, good_bytes * 8);
  mprof__put_u64(header + MPROF__PH_PACKET_SIZE, good_bytes * 8);
  return good_bytes;
}

/* Append packet index to f: its patched header, then its good events.
 * An mprof packet's events_discarded is written as `discarded` (see
 * write_stream).  header gets the header as written. */
static int write_packet(const mprof_trace_t *t, size_t index, FILE *f,
                        uint64_t discarded,
                        uint8_t header[MPROF__PACKET_HEADER_SIZE]) {
  _Static_assert((int)MPROF__LEGACY_HEADER_SIZE <=
                     (int)MPROF__PACKET_HEADER_SIZE,
                 "one buffer holds either header");
  size_t header_size =
      t->legacy ? MPROF__LEGACY_HEADER_SIZE : MPROF__PACKET_HEADER_SIZE;
  uint64_t good_bytes = t->legacy ? mprof__legacy_ctf_header(t, index, header)
                                  : ctf_header(t, index, header);
  if (!t->legacy) mprof__put_u64(header + MPROF__PH_DISCARDED, discarded);
  if (write_all(f, header, header_size)) return -1;
  return write_all(f, t->data + t->packets[index].offset + header_size,
                   good_bytes - header_size);
}

/* Append an empty packet to f, after the one whose header is `after` (or
 * shaped as it, for a stream of its own): sequence number seq, at that
 * packet's end, counting `discarded` events dropped so far. */
static int write_drops_packet(FILE *f, const uint8_t *after, uint64_t seq,
                              uint64_t discarded) {
  uint8_t header[MPROF__PACKET_HEADER_SIZE];
  memcpy(header, after, sizeof header);
  memcpy(header + MPROF__PH_TIMESTAMP_BEGIN, after + MPROF__PH_TIMESTAMP_END,
         8);
  mprof__put_u64(header + MPROF__PH_CONTENT_SIZE, sizeof header * 8);
  mprof__put_u64(header + MPROF__PH_PACKET_SIZE, sizeof header * 8);
  mprof__put_u64(header + MPROF__PH_SEQ_NUM, seq);
  mprof__put_u64(header + MPROF__PH_DISCARDED, discarded);
  return write_all(f, header, sizeof header);
}

/* Write one ring or names stream: packets first .. end-1 of t.
 *
 * Drops.  A ring packet's events_discarded counts the drops up to its end,
 * those after its last event included (its writer found no free packet);
 * babeltrace2 reports count(n) - count(n - 1) between packets n - 1 and n,
 * and nothing for a stream's first packet.  So each packet is written with
 * the count its predecessor ended with (0 for the first), and a packet
 * whose own count is higher is followed by an empty packet at its end that
 * carries it: babeltrace2 then reports every drop, after the events it
 * followed. */
static int write_stream(const mprof_trace_t *t, size_t first, size_t end,
                        FILE *f, mprof_progress_fn progress, void *context) {
  uint8_t header[MPROF__PACKET_HEADER_SIZE];
  uint64_t before = 0;
  for (size_t i = first; i < end; i++) {
    if (write_packet(t, i, f, before, header)) return -1;
    if (progress) progress(context, i + 1, t->packet_count);
    if (!t->legacy) before = t->packets[i].events_discarded;
  }
  if (before > mprof__get_u64(header + MPROF__PH_DISCARDED) &&
      write_drops_packet(f, header, t->packets[end - 1].seq_num + 1, before))
    return -1;
  return 0;
}

/* Drops of OS threads that never had a ring packet: a ring stream of its
 * own, two empty packets at the trace's end that count 0 and then them. */
static int write_orphan_drops(const mprof_trace_t *t, const char *directory) {
  if (!t->orphan_discarded || !t->packet_count) return 0;
  uint64_t instance = 0, end_ticks = 0;
  for (size_t i = 0; i < t->packet_count; i++) {
    if (t->packets[i].stream_instance >= instance)
      instance = t->packets[i].stream_instance + 1;
    if (t->packets[i].timestamp_end > end_ticks)
      end_ticks = t->packets[i].timestamp_end;
  }
  uint8_t header[MPROF__PACKET_HEADER_SIZE];
  memcpy(header, t->data + t->packets[0].offset, sizeof header);
  mprof__put_u32(header + MPROF__PH_STREAM_ID, MPROF__STREAM_RING);
  mprof__put_u64(header + MPROF__PH_STREAM_INSTANCE, instance);
  mprof__put_u64(header + MPROF__PH_TIMESTAMP_END, end_ticks);
  mprof__put_u64(header + MPROF__PH_CURRENT_THREAD, 0);
  mprof__put_u32(header + MPROF__PH_OS_THREAD_ID, 0);
  char name[64];
  snprintf(name, sizeof name, "ring_%llu", (unsigned long long)instance);
  mprof_output_t out;
  if (output_open(&out, directory, name)) return -1;
  int err = write_drops_packet(out.f, header, 0, 0) ||
            write_drops_packet(out.f, header, 1, t->orphan_discarded);
  return mprof_output_close(&out, !err) ? -1 : 0;
}

/* Stream files of an earlier conversion into the same directory would be
 * read as part of this trace: remove them. */
static int remove_old_streams(const char *directory) {
  DIR *d = opendir(directory);
  if (!d) return -1;
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, "ring_", 5) || !strncmp(e->d_name, "names_", 6)) {
      snprintf(path, sizeof path, "%s/%s", directory, e->d_name);
      unlink(path);
    }
  return closedir(d);
}

/* Make directory (0700: it holds a trace) if it is not there.  One that
 * is a symbolic link is refused: its old streams would be removed, and
 * the trace written, wherever it points.  Returns 0 or -1 (errno set). */
static int make_directory(const char *directory) {
  struct stat st;
  if (mkdir(directory, 0700) == 0) return 0;
  if (errno != EEXIST || lstat(directory, &st)) return -1;
  if (S_ISLNK(st.st_mode))
    errno = ELOOP;
  else if (!S_ISDIR(st.st_mode))
    errno = ENOTDIR;
  else
    return 0;
  return -1;
}

int mprof_trace_write_ctf(const mprof_trace_t *t, const char *directory,
                          mprof_progress_fn progress, void *context) {
  if (mprof__refuse_big(t, "a CTF directory")) return MPROF_EIO;
  if (make_directory(directory)) return MPROF_EIO;
  if (remove_old_streams(directory)) return MPROF_EIO;
  if (write_metadata(t, directory)) return MPROF_EIO;
  for (size_t i = 0, end; i < t->packet_count; i = end) {
    const mprof_packet_info_t *pk = &t->packets[i];
    for (end = i + 1; end < t->packet_count &&
                      t->packets[end].stream_class == pk->stream_class &&
                      t->packets[end].stream_instance == pk->stream_instance;
         end++)
      ;
    char name[64];
    snprintf(name, sizeof name, "%s_%llu",
             pk->stream_class == MPROF__STREAM_RING ? "ring" : "names",
             (unsigned long long)pk->stream_instance);
    mprof_output_t out;
    if (output_open(&out, directory, name)) return MPROF_EIO;
    int err = write_stream(t, i, end, out.f, progress, context);
    if (mprof_output_close(&out, !err)) return MPROF_EIO;
  }
  return write_orphan_drops(t, directory) ? MPROF_EIO : 0;
}
