/* mprof/index.h -- the sidecar index of a trace: what a viewer or a report
 * needs to know of a trace without decoding it (docs/index.md).
 *
 * One streaming pass over the packets, split across every core, writes
 * TRACE.mpidx beside the trace (or, where its directory cannot be
 * written, in $XDG_CACHE_HOME/mprof/): per packet its stream, offset,
 * event count and the time of its first and last event; and a pyramid of
 * event counts per stream per time bin, bins of 2^k ns at each level k,
 * from which a density is drawn at any zoom without decoding.  An index
 * names the trace it was built from (its size, modification time and
 * uuid) and carries a checksum: a stale, truncated or damaged one is
 * never believed, and is built again.
 *
 *   mprof_index_t *index;
 *   if (mprof_index_open(path, trace, 0, NULL, NULL, &index) == 0) {
 *     printf("%zu packets\n", mprof_index_packet_count(index));
 *     mprof_index_free(index);
 *   }
 */
#ifndef MPROF_INDEX_H
#define MPROF_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "read.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mprof_index_s mprof_index_t;

/* What an index is of: the trace file's size, modification time and
 * uuid.  An index whose key differs from its trace's is stale. */
typedef struct mprof_index_key_s {
  uint64_t size;
  int64_t mtime_ns;
  uint8_t uuid[16];
} mprof_index_key_t;

/* One packet of the trace, in the trace's order (mprof_trace_packet()). */
typedef struct mprof_index_packet_s {
  uint64_t offset;                  /* in the trace file */
  uint64_t first_ticks, last_ticks; /* its events' earliest and latest */
  uint64_t events;                  /* as decoding delivers them */
  uint64_t content_bytes;
  uint32_t stream;      /* into mprof_index_stream() */
  uint32_t damaged;     /* decoding stopped at damage */
  uint64_t header_hash; /* of its header's fields: another once the packet
                           grows, closes or is claimed again */
} mprof_index_packet_t;

typedef struct mprof_index_stream_s {
  uint32_t stream_class; /* 0 ring, 1 names */
  uint64_t instance;     /* the OS-thread stream number */
} mprof_index_stream_t;

/* Events of one stream in one time bin: [bin, bin + 1) x 2^log2_ns ns
 * after the index's start_ticks. */
typedef struct mprof_index_bin_s {
  uint64_t bin;
  uint64_t events;
  uint32_t stream;
  uint32_t reserved; /* 0 */
} mprof_index_bin_t;

/* The key of the trace file at path, and of trace opened from it.
 * Returns 0 or MPROF_EIO (errno set). */
int mprof_index_key(const char *path, const mprof_trace_t *trace,
                    mprof_index_key_t *key);

/* The key of the trace file at path from the file alone: its size and
 * modification time and the uuid of its trace header
 * (mprof_trace_read_head()), no packet read.  For a trace that
 * mprof_trace_open() reads unchanged, the key mprof_index_key() gives.
 * Returns 0, MPROF_EIO (errno set) or MPROF_EINVAL (not an mprof trace of
 * this version: a legacy trace has no key but its open's). */
int mprof_index_key_read(const char *path, mprof_index_key_t *key);

/* Whether keys a and b are the same: the same file at the same time,
 * as far as an index can tell. */
int mprof_index_key_equal(const mprof_index_key_t *a,
                          const mprof_index_key_t *b);

/* Build the index of trace in one pass, on threads OS threads (0: one per
 * core), with key as its key.  Returns 0 or MPROF_ENOMEM. */
int mprof_index_build(const mprof_trace_t *trace, const mprof_index_key_t *key,
                      unsigned threads, mprof_index_t **out);

/* Build the index of trace as mprof_index_build() does, taking from old,
 * an index of the same trace file at an earlier time (the recording going
 * on), every packet found at the same offset with the same header hash and
 * content size: under the commit protocol (docs/FORMAT.md section 9) its
 * bytes are those old counted.  Only new and changed packets are decoded
 * (mprof_index_packets_decoded()); the result is byte for byte what
 * mprof_index_build() gives.  old is not used at all (every packet is
 * decoded) unless it has trace's uuid, start and clock, and bins no finer
 * than trace's need.  Returns 0 or MPROF_ENOMEM. */
int mprof_index_extend(const mprof_index_t *old, const mprof_trace_t *trace,
                       const mprof_index_key_t *key, unsigned threads,
                       mprof_index_t **out);

/* Take an index from its bytes: checked whole (size, checksum, every
 * count and reference) and, if key is not NULL, against key.  Returns 0,
 * MPROF_EINVAL (not a good index: *why, if not NULL, says why), or
 * MPROF_ENOMEM. */
int mprof_index_parse(const void *data, size_t size,
                      const mprof_index_key_t *key, mprof_index_t **out,
                      const char **why);

/* The index file at path, taken as mprof_index_parse() does.  Returns as
 * it, or MPROF_EIO (cannot be read; errno set). */
int mprof_index_read(const char *path, const mprof_index_key_t *key,
                     mprof_index_t **out, const char **why);

/* Write index to path whole or not at all (a temporary name renamed over
 * it: concurrent writers never mix), as mprof_index_write_file() does.
 * Returns 0 or MPROF_EIO. */
int mprof_index_write(const mprof_index_t *index, const char *path);

/* Write size bytes to path as a sidecar file of a trace (its index, the
 * viewer's pyramid) is written: whole or not at all, under a temporary
 * name renamed over path, and only over a regular file or nothing -- a
 * FIFO or device at path, which mprof_output_open() would write in place
 * and wait on, is refused (errno EEXIST).  Returns 0 or MPROF_EIO (errno
 * set). */
int mprof_index_write_file(const char *path, const void *data, size_t size);

/* Where the index of the trace at trace_path lives: beside it
 * (TRACE.mpidx), or with cache nonzero in $XDG_CACHE_HOME/mprof (else
 * ~/.cache/mprof), named after the trace's absolute path.  Returns 0, or
 * MPROF_EINVAL (the path does not fit in size bytes). */
int mprof_index_path(const char *trace_path, int cache, char *path,
                     size_t size);

/* What mprof_index_open() did. */
typedef enum mprof_index_found_e {
  MPROF_INDEX_VALID,    /* a valid index was there */
  MPROF_INDEX_BUILT,    /* built, and written */
  MPROF_INDEX_EXTENDED, /* the trace grew: the index there extended to it,
                           and written */
  MPROF_INDEX_UNSAVED   /* built, but neither place could be written */
} mprof_index_found_t;

/* The index of trace, opened from trace_path: a valid one read from
 * beside it or from the cache, else built (threads as for
 * mprof_index_build) and written beside it, or in the cache when its
 * directory cannot be written.  An index there of the same trace file,
 * before it grew (same uuid, no smaller, its packets' headers unchanged),
 * is extended (mprof_index_extend()) rather than built again.  *found (if not
 * NULL) says which, and *why (if not NULL) why an index there was not believed
 * (NULL: none was there).  Returns 0, MPROF_EIO or MPROF_ENOMEM. */
int mprof_index_open(const char *trace_path, const mprof_trace_t *trace,
                     unsigned threads, mprof_index_found_t *found,
                     const char **why, mprof_index_t **out);

/* The valid index of the trace at trace_path, if one is there; never
 * builds.  Returns 0, or MPROF_EINVAL (none, or not valid). */
int mprof_index_find(const char *trace_path, const mprof_trace_t *trace,
                     mprof_index_t **out);

/* The valid index of the trace file at trace_path, beside it or in the
 * cache, believed on its key alone: key is the file's as
 * mprof_index_key_read() gives it (size, modification time and uuid, as
 * every index is checked against), and the trace is neither opened nor
 * read -- what opening a trace of 150,000 packets first costs, reading
 * their headers, is spared.  mprof_index_find() also compares the index's
 * packets with an open trace's; mprof_index_agrees() does so later, once
 * the trace is open.  Never builds.  Returns 0, or MPROF_EINVAL (none
 * there, or none valid of that key: *why, if not NULL, says why the first
 * one there was not believed, NULL where none was there). */
int mprof_index_find_keyed(const char *trace_path, const mprof_index_key_t *key,
                           mprof_index_t **out, const char **why);

/* Whether index is of trace's packets as they are: as many, at the same
 * offsets, of the same content sizes and header hashes (what
 * mprof_index_find() and mprof_index_open() check before they believe an
 * index of the same key). */
int mprof_index_agrees(const mprof_index_t *index, const mprof_trace_t *trace);

void mprof_index_free(mprof_index_t *index);

const mprof_index_key_t *mprof_index_key_of(const mprof_index_t *index);
size_t mprof_index_packet_count(const mprof_index_t *index);
const mprof_index_packet_t *mprof_index_packet(const mprof_index_t *index,
                                               size_t i);
size_t mprof_index_stream_count(const mprof_index_t *index);
const mprof_index_stream_t *mprof_index_stream(const mprof_index_t *index,
                                               size_t i);
/* How many packets were decoded to make index: all of them for a build,
 * the new and changed ones for an extension, none for an index read. */
size_t mprof_index_packets_decoded(const mprof_index_t *index);
/* Every event of the packets. */
uint64_t mprof_index_events(const mprof_index_t *index);
/* The content bytes of the packets packets[0 .. count) (numbers in
 * mprof_index_packet() order; packets NULL: all of them), a number past
 * the index's packets counting none: what
 * mprof_model_bytes_of_content() weighs. */
uint64_t mprof_index_content_bytes(const mprof_index_t *index,
                                   const size_t *packets, size_t count);
/* The clock value bins count from, and the clock's frequency. */
uint64_t mprof_index_start_ticks(const mprof_index_t *index);
uint64_t mprof_index_clock_freq_hz(const mprof_index_t *index);

/* The clock of the earliest and the latest event of the packets (0 if
 * none).  A model of the whole trace counts time from the first
 * (mprof_model_view()->start_ticks), unless a packet's events come out of
 * time order. */
uint64_t mprof_index_first_ticks(const mprof_index_t *index);
uint64_t mprof_index_last_ticks(const mprof_index_t *index);

/* The packets a model of the trace's part [from_ticks, to_ticks] is built
 * from (mprof_model_load_packets()): of each ring stream, those whose
 * events reach into it, and the first after it, whose events end what
 * runs at its end; and every names packet, which name threads of any
 * time.  Their numbers (in mprof_trace_packet() order, ascending) into a
 * new array *packets (free() it) of *count.  Returns 0 or MPROF_ENOMEM. */
int mprof_index_window(const mprof_index_t *index, uint64_t from_ticks,
                       uint64_t to_ticks, size_t **packets, size_t *count);

/* The pyramid's levels, finest first: level k's bins are 2^log2_ns ns
 * wide, twice the width of level k - 1's; the last level has one bin per
 * stream.  Its bins, ordered by stream then bin, only those holding
 * events, are (*bins)[0 .. return value). */
size_t mprof_index_level_count(const mprof_index_t *index);
size_t mprof_index_level(const mprof_index_t *index, size_t level,
                         unsigned *log2_ns, const mprof_index_bin_t **bins);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_INDEX_H */
