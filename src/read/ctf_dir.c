/* ctf_dir.c -- write a trace as a CTF 1.8 directory that babeltrace2 and
 * other CTF tools read: a metadata, and one file per stream with its
 * packets in packet_seq_num order.  Each packet is copied as recorded,
 * except that timestamp_end is made exact (a crashed or running writer
 * leaves it stale), packet_size is trimmed to the content, and a damaged
 * tail is cut off at the last good event.  An mprof trace keeps its own
 * metadata; a legacy one gets a new one (legacy_ctf.c).
 */
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

static int write_metadata(const mprof_trace_t *t, const char *directory) {
  char path[4096];
  snprintf(path, sizeof path, "%s/metadata", directory);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int err = t->legacy
                ? mprof__legacy_ctf_metadata(t, f)
                : write_all(f, t->info.metadata, t->info.metadata_size);
  return fclose(f) || err ? -1 : 0;
}

/* The header of mprof packet index as written, patched as described at
 * the top; returns the packet's good bytes. */
static uint64_t ctf_header(const mprof_trace_t *t, size_t index,
                           uint8_t *header) {
  const mprof_packet_info_t *pk = mprof_trace_packet(t, index);
  uint64_t end_ticks, good_bytes;
  mprof__sink_t sink = {NULL, NULL, NULL, 0, 0};
  mprof__packet_decode(t, index, &sink, &end_ticks, &good_bytes);
  memcpy(header, t->data + pk->offset, MPROF__PACKET_HEADER_SIZE);
  if (end_ticks < pk->timestamp_end && pk->timestamp_end >= pk->timestamp_begin &&
      good_bytes == pk->content_bytes)
    end_ticks = pk->timestamp_end; /* a closed packet keeps its own end */
  mprof__put_u64(header + MPROF__PH_TIMESTAMP_END, end_ticks);
  mprof__put_u64(header + MPROF__PH_CONTENT_SIZE, good_bytes * 8);
  mprof__put_u64(header + MPROF__PH_PACKET_SIZE, good_bytes * 8);
  return good_bytes;
}

/* Append packet index to f: its patched header, then its good events. */
static int write_packet(const mprof_trace_t *t, size_t index, FILE *f) {
  _Static_assert(
      (int)MPROF__LEGACY_HEADER_SIZE <= (int)MPROF__PACKET_HEADER_SIZE,
      "one buffer holds either header");
  uint8_t header[MPROF__PACKET_HEADER_SIZE];
  size_t header_size =
      t->legacy ? MPROF__LEGACY_HEADER_SIZE : MPROF__PACKET_HEADER_SIZE;
  uint64_t good_bytes = t->legacy ? mprof__legacy_ctf_header(t, index, header)
                                  : ctf_header(t, index, header);
  if (write_all(f, header, header_size)) return -1;
  return write_all(f, t->data + t->packets[index].offset + header_size,
                   good_bytes - header_size);
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

int mprof_trace_write_ctf(const mprof_trace_t *t, const char *directory,
                          mprof_progress_fn progress, void *context) {
  if (mkdir(directory, 0755) < 0 && errno != EEXIST) return MPROF_EIO;
  if (remove_old_streams(directory)) return MPROF_EIO;
  if (write_metadata(t, directory)) return MPROF_EIO;
  FILE *f = NULL;
  for (size_t i = 0; i < t->packet_count; i++) {
    const mprof_packet_info_t *pk = &t->packets[i];
    int new_stream = i == 0 ||
                     pk->stream_class != t->packets[i - 1].stream_class ||
                     pk->stream_instance != t->packets[i - 1].stream_instance;
    if (new_stream) {
      if (f && fclose(f)) return MPROF_EIO;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s_%llu", directory,
               pk->stream_class == MPROF__STREAM_RING ? "ring" : "names",
               (unsigned long long)pk->stream_instance);
      if (!(f = fopen(path, "wb"))) return MPROF_EIO;
    }
    if (write_packet(t, i, f)) {
      fclose(f);
      return MPROF_EIO;
    }
    if (progress) progress(context, i + 1, t->packet_count);
  }
  if (f && fclose(f)) return MPROF_EIO;
  return 0;
}
