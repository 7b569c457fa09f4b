/* file.c -- the index file (docs/index.md): written whole under a
 * temporary name and renamed, read back checked whole before a byte of it
 * is believed, found beside the trace or in the cache directory.
 *
 * Layout, little-endian: a 128-byte header, then the streams (16 bytes
 * each), the packets (64), the levels (16: first bin, bins), the bins (24)
 * and the packets' own finest bins, the cells (16).  The checksum covers
 * every byte, its own field taken as zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_internal.h"

#define MAGIC "MPROFIDX"
#define VERSION 2
#define HEADER_SIZE 128
#define STREAM_SIZE 16
#define PACKET_SIZE 64
#define LEVEL_SIZE 16
#define BIN_SIZE 24
#define CELL_SIZE 16

enum { /* header fields' offsets */
       H_VERSION = 8,
       H_FLAGS = 12, /* bit 0: the trace was still being written */
       H_TRACE_SIZE = 16,
       H_TRACE_MTIME = 24,
       H_UUID = 32,
       H_STREAMS = 48,
       H_PACKETS = 56,
       H_LEVELS = 64,
       H_BINS = 72,
       H_START_TICKS = 80,
       H_CLOCK_FREQ = 88,
       H_FINEST_LOG2 = 96,
       H_EVENTS = 104,
       H_CHECKSUM = MPROF__INDEX_CHECKSUM_OFFSET,
       H_CELLS = 120
};

static uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static uint8_t *put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i);
  return p + 8;
}

static uint8_t *put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i);
  return p + 4;
}

/* FNV-1a taken a little-endian 64-bit word at a time: a byte at a time,
 * its chain of multiplies held the 52 MB index of a 100 M-event trace 50
 * ms on one core, while every other core waited.  Bytes past the last
 * whole word go in as one word more. */
uint64_t mprof__index_checksum(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325u;
  size_t i = 0;
  for (; i + 8 <= size; i += 8)
    h = (h ^ (i == H_CHECKSUM ? 0 : get64(data + i))) * 0x100000001b3u;
  if (i < size) {
    uint8_t tail[8] = {0};
    memcpy(tail, data + i, size - i);
    h = (h ^ get64(tail)) * 0x100000001b3u;
  }
  return h;
}

/* --- Writing -------------------------------------------------------------- */

static size_t file_size(const mprof_index_t *x) {
  return HEADER_SIZE + x->stream_count * STREAM_SIZE +
         x->packet_count * PACKET_SIZE + x->level_count * LEVEL_SIZE +
         x->bin_count * BIN_SIZE + x->cell_count * CELL_SIZE;
}

static void put_header(const mprof_index_t *x, uint8_t *h) {
  memcpy(h, MAGIC, 8);
  put32(h + H_VERSION, VERSION);
  put32(h + H_FLAGS, x->recording ? 1 : 0);
  put64(h + H_TRACE_SIZE, x->key.size);
  put64(h + H_TRACE_MTIME, (uint64_t)x->key.mtime_ns);
  memcpy(h + H_UUID, x->key.uuid, 16);
  put64(h + H_STREAMS, x->stream_count);
  put64(h + H_PACKETS, x->packet_count);
  put64(h + H_LEVELS, x->level_count);
  put64(h + H_BINS, x->bin_count);
  put64(h + H_START_TICKS, x->start_ticks);
  put64(h + H_CLOCK_FREQ, x->clock_freq_hz);
  put32(h + H_FINEST_LOG2, x->finest_log2_ns);
  put64(h + H_EVENTS, x->events);
  put64(h + H_CELLS, x->cell_count);
}

/* The index's bytes, in a new buffer of file_size(x). */
static uint8_t *serialise(const mprof_index_t *x) {
  size_t size = file_size(x);
  uint8_t *data = calloc(1, size), *p = data + HEADER_SIZE;
  if (!data) return NULL;
  put_header(x, data);
  for (size_t i = 0; i < x->stream_count; i++) {
    p = put32(p, x->streams[i].stream_class);
    p = put64(p + 4, x->streams[i].instance);
  }
  for (size_t i = 0; i < x->packet_count; i++) {
    const mprof_index_packet_t *k = &x->packets[i];
    p = put64(p, k->offset);
    p = put64(p, k->first_ticks);
    p = put64(p, k->last_ticks);
    p = put64(p, k->events);
    p = put64(p, k->content_bytes);
    p = put32(p, k->stream);
    p = put32(p, k->damaged);
    p = put64(p, k->header_hash);
    p = put64(p, x->cell_first[i + 1] - x->cell_first[i]);
  }
  for (size_t k = 0; k < x->level_count; k++) {
    p = put64(p, x->level_first[k]);
    p = put64(p, x->level_first[k + 1] - x->level_first[k]);
  }
  for (size_t i = 0; i < x->bin_count; i++) {
    p = put64(p, x->bins[i].bin);
    p = put64(p, x->bins[i].events);
    p = put32(p, x->bins[i].stream);
    p = put32(p, 0);
  }
  for (size_t i = 0; i < x->cell_count; i++) {
    p = put64(p, x->cells[i].bin);
    p = put64(p, x->cells[i].events);
  }
  put64(data + H_CHECKSUM, mprof__index_checksum(data, size));
  return data;
}

int mprof_index_write_file(const char *path, const void *data, size_t size) {
  mprof_output_t out;
  if (mprof_output_open_file(&out, path)) return MPROF_EIO;
  size_t written = fwrite(data, 1, size, out.f);
  return mprof_output_close(&out, written == size) ? MPROF_EIO : 0;
}

int mprof_index_write(const mprof_index_t *x, const char *path) {
  uint8_t *data = serialise(x);
  if (!data) return MPROF_ENOMEM;
  int err = mprof_index_write_file(path, data, file_size(x));
  free(data);
  return err;
}

/* --- Reading -------------------------------------------------------------- */

/* Where the header says the parts lie; 0, or a reason the sizes are not
 * those of an index of size bytes. */
static const char *check_sizes(const uint8_t *h, size_t size) {
  uint64_t streams = get64(h + H_STREAMS), packets = get64(h + H_PACKETS);
  uint64_t levels = get64(h + H_LEVELS), bins = get64(h + H_BINS);
  uint64_t cells = get64(h + H_CELLS);
  if (levels > MPROF__INDEX_LEVELS_MAX || streams > size / STREAM_SIZE ||
      packets > size / PACKET_SIZE || bins > size / BIN_SIZE ||
      cells > size / CELL_SIZE)
    return "its counts do not fit its size (truncated?)";
  if (HEADER_SIZE + streams * STREAM_SIZE + packets * PACKET_SIZE +
          levels * LEVEL_SIZE + bins * BIN_SIZE + cells * CELL_SIZE !=
      size)
    return "its size is not what its counts say (truncated?)";
  return NULL;
}

int mprof_index_key_equal(const mprof_index_key_t *a,
                          const mprof_index_key_t *b) {
  return a->size == b->size && a->mtime_ns == b->mtime_ns &&
         !memcmp(a->uuid, b->uuid, 16);
}

static mprof_index_key_t take_key(const uint8_t *data) {
  mprof_index_key_t key = {
      get64(data + H_TRACE_SIZE), (int64_t)get64(data + H_TRACE_MTIME), {0}};
  memcpy(key.uuid, data + H_UUID, 16);
  return key;
}

static const char *check_header(const uint8_t *data, size_t size,
                                const mprof_index_key_t *key) {
  if (size < HEADER_SIZE || memcmp(data, MAGIC, 8) != 0)
    return "not an mprof index";
  if (get32(data + H_VERSION) != VERSION) return "an index of another version";
  const char *why = check_sizes(data, size);
  if (why) return why;
  if (get64(data + H_CHECKSUM) != mprof__index_checksum(data, size))
    return "its checksum is wrong (damaged)";
  mprof_index_key_t its = take_key(data);
  if (key && !mprof_index_key_equal(&its, key))
    return "stale: the trace changed since it was built";
  if (get32(data + H_FLAGS) > 1 || get32(data + H_FINEST_LOG2 + 4))
    return "its reserved bits are not zero";
  /* a reader shifts 1 by each level's log2 (finest + level) */
  if (get64(data + H_CLOCK_FREQ) == 0 ||
      get32(data + H_FINEST_LOG2) + get64(data + H_LEVELS) > 64)
    return "bad clock frequency or bin width";
  return NULL;
}

static const char *take_streams(mprof_index_t *x, const uint8_t **p) {
  for (size_t i = 0; i < x->stream_count; i++, *p += STREAM_SIZE) {
    x->streams[i] = (mprof_index_stream_t){get32(*p), get64(*p + 8)};
    if (get32(*p + 4)) return "its reserved bits are not zero";
  }
  return NULL;
}

static const char *take_packets(mprof_index_t *x, const uint8_t **p) {
  for (size_t i = 0; i < x->packet_count; i++, *p += PACKET_SIZE) {
    const uint8_t *q = *p;
    mprof_index_packet_t *k = &x->packets[i];
    *k = (mprof_index_packet_t){get64(q),      get64(q + 8),  get64(q + 16),
                                get64(q + 24), get64(q + 32), get32(q + 40),
                                get32(q + 44), get64(q + 48)};
    if (k->stream >= x->stream_count) return "a packet names no stream";
    if (k->events && k->first_ticks > k->last_ticks)
      return "a packet ends before it begins";
    x->events += k->events;
    uint64_t cells = get64(q + 56);
    if (cells > x->cell_count - x->cell_first[i])
      return "its packets' cells are not its cells";
    x->cell_first[i + 1] = x->cell_first[i] + cells;
  }
  return x->cell_first[x->packet_count] == x->cell_count
             ? NULL
             : "its packets' cells are not its cells";
}

/* The levels must tile the bins in order, each sorted by (stream, bin),
 * naming streams that exist. */
static const char *take_levels(mprof_index_t *x, const uint8_t **p) {
  size_t next = 0;
  for (size_t k = 0; k < x->level_count; k++, *p += LEVEL_SIZE) {
    uint64_t first = get64(*p), count = get64(*p + 8);
    if (first != next || count > x->bin_count - next)
      return "its levels do not tile its bins";
    x->level_first[k] = next;
    next += count;
  }
  x->level_first[x->level_count] = next;
  return next == x->bin_count ? NULL : "its levels do not tile its bins";
}

static const char *take_bins(mprof_index_t *x, const uint8_t **p) {
  size_t level = 0;
  for (size_t i = 0; i < x->bin_count; i++, *p += BIN_SIZE) {
    mprof_index_bin_t *b = &x->bins[i];
    *b = (mprof_index_bin_t){get64(*p), get64(*p + 8), get32(*p + 16), 0};
    if (get32(*p + 20)) return "its reserved bits are not zero";
    if (b->stream >= x->stream_count) return "a bin names no stream";
    while (i >= x->level_first[level + 1]) level++;
    const mprof_index_bin_t *before = i > x->level_first[level] ? b - 1 : NULL;
    if (before && (before->stream > b->stream ||
                   (before->stream == b->stream && before->bin >= b->bin)))
      return "its bins are out of order";
  }
  return NULL;
}

/* Each packet's cells in order of bin, as many events as it has. */
static const char *take_cells(mprof_index_t *x, const uint8_t **p) {
  for (size_t i = 0; i < x->packet_count; i++) {
    uint64_t left = x->packets[i].events;
    for (size_t c = x->cell_first[i]; c < x->cell_first[i + 1];
         c++, *p += CELL_SIZE) {
      x->cells[c] = (mprof__index_cell_t){get64(*p), get64(*p + 8)};
      if (c > x->cell_first[i] && x->cells[c - 1].bin >= x->cells[c].bin)
        return "a packet's cells are out of order";
      if (x->cells[c].events > left) return "a packet's cells are not its";
      left -= x->cells[c].events;
    }
    if (left) return "a packet's cells are not its";
  }
  return NULL;
}

/* The finest level must be the packets' cells summed. */
static const char *check_finest(const mprof_index_t *x) {
  mprof_index_bin_t *want;
  size_t n;
  if (!x->level_count) return "it has no levels";
  if (mprof__index_finest(x, &want, &n)) return "no memory to check it";
  int same = n == x->level_first[1] && !memcmp(want, x->bins, n * sizeof *want);
  free(want);
  return same ? NULL : "its finest bins are not its packets' cells";
}

static int allocate(mprof_index_t *x) {
  x->streams = calloc(x->stream_count + 1, sizeof *x->streams);
  x->packets = calloc(x->packet_count + 1, sizeof *x->packets);
  x->bins = calloc(x->bin_count + 1, sizeof *x->bins);
  x->cells = calloc(x->cell_count + 1, sizeof *x->cells);
  x->cell_first = calloc(x->packet_count + 1, sizeof *x->cell_first);
  return x->streams && x->packets && x->bins && x->cells && x->cell_first ? 0
                                                                          : -1;
}

static const char *take_parts(mprof_index_t *x, const uint8_t *data) {
  const uint8_t *p = data + HEADER_SIZE;
  const char *why = take_streams(x, &p);
  if (!why) why = take_packets(x, &p);
  if (!why) why = take_levels(x, &p);
  if (!why) why = take_bins(x, &p);
  if (!why) why = take_cells(x, &p);
  if (!why) why = check_finest(x);
  if (!why && x->events != get64(data + H_EVENTS))
    why = "its event count is not its packets'";
  return why;
}

int mprof_index_parse(const void *bytes, size_t size,
                      const mprof_index_key_t *key, mprof_index_t **out,
                      const char **why) {
  const uint8_t *data = bytes;
  const char *problem = check_header(data, size, key);
  if (why) *why = problem;
  if (problem) return MPROF_EINVAL;
  mprof_index_t *x = calloc(1, sizeof *x);
  if (!x) return MPROF_ENOMEM;
  x->key = take_key(data);
  x->recording = get32(data + H_FLAGS) & 1;
  x->stream_count = get64(data + H_STREAMS);
  x->packet_count = get64(data + H_PACKETS);
  x->level_count = get64(data + H_LEVELS);
  x->bin_count = get64(data + H_BINS);
  x->cell_count = get64(data + H_CELLS);
  x->start_ticks = get64(data + H_START_TICKS);
  x->clock_freq_hz = get64(data + H_CLOCK_FREQ);
  x->finest_log2_ns = get32(data + H_FINEST_LOG2);
  if (allocate(x)) {
    mprof_index_free(x);
    return MPROF_ENOMEM;
  }
  problem = take_parts(x, data);
  if (why) *why = problem;
  if (problem) {
    mprof_index_free(x);
    return MPROF_EINVAL;
  }
  *out = x;
  return 0;
}

/* The whole of the file fd, of size bytes, into a new buffer. */
static uint8_t *read_whole(int fd, size_t size) {
  uint8_t *data = malloc(size ? size : 1);
  size_t done = 0;
  while (data && done < size) {
    ssize_t n = pread(fd, data + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += (size_t)n;
  }
  if (data && done == size) return data;
  free(data);
  return NULL;
}

int mprof_index_read(const char *path, const mprof_index_key_t *key,
                     mprof_index_t **out, const char **why) {
  if (why) *why = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) close(fd);
    return MPROF_EIO;
  }
  uint8_t *data = read_whole(fd, (size_t)st.st_size);
  close(fd);
  if (!data) {
    if (why) *why = "cannot be read";
    return MPROF_EIO;
  }
  int err = mprof_index_parse(data, (size_t)st.st_size, key, out, why);
  free(data);
  return err;
}

void mprof_index_free(mprof_index_t *x) {
  if (!x) return;
  free(x->streams);
  free(x->packets);
  free(x->bins);
  free(x->cells);
  free(x->cell_first);
  free(x);
}

/* --- What an index holds -------------------------------------------------- */

const mprof_index_key_t *mprof_index_key_of(const mprof_index_t *x) {
  return &x->key;
}

size_t mprof_index_packet_count(const mprof_index_t *x) {
  return x->packet_count;
}

const mprof_index_packet_t *mprof_index_packet(const mprof_index_t *x,
                                               size_t i) {
  return i < x->packet_count ? &x->packets[i] : NULL;
}

size_t mprof_index_stream_count(const mprof_index_t *x) {
  return x->stream_count;
}

const mprof_index_stream_t *mprof_index_stream(const mprof_index_t *x,
                                               size_t i) {
  return i < x->stream_count ? &x->streams[i] : NULL;
}

uint64_t mprof_index_events(const mprof_index_t *x) { return x->events; }

size_t mprof_index_packets_decoded(const mprof_index_t *x) {
  return x->packets_decoded;
}

uint64_t mprof_index_start_ticks(const mprof_index_t *x) {
  return x->start_ticks;
}

uint64_t mprof_index_clock_freq_hz(const mprof_index_t *x) {
  return x->clock_freq_hz;
}

size_t mprof_index_level_count(const mprof_index_t *x) {
  return x->level_count;
}

size_t mprof_index_level(const mprof_index_t *x, size_t level,
                         unsigned *log2_ns, const mprof_index_bin_t **bins) {
  if (level >= x->level_count) return 0;
  if (log2_ns) *log2_ns = x->finest_log2_ns + (unsigned)level;
  if (bins) *bins = x->bins + x->level_first[level];
  return x->level_first[level + 1] - x->level_first[level];
}
