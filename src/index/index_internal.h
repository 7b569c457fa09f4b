/* index_internal.h -- the index in memory, shared by its builder
 * (build.c, extend.c) and its file's reader and writer (file.c). */
#ifndef MPROF_INDEX_INTERNAL_H
#define MPROF_INDEX_INTERNAL_H

#include "mprof/index.h"

/* The most levels a pyramid has: bins of 2^0 to 2^63 ns. */
#define MPROF__INDEX_LEVELS_MAX 64

/* A packet's events in one bin of the finest level. */
typedef struct mprof__index_cell_s {
  uint64_t bin, events;
} mprof__index_cell_t;

struct mprof_index_s {
  mprof_index_key_t key;
  uint64_t events;
  uint64_t start_ticks, clock_freq_hz;
  unsigned finest_log2_ns;
  mprof_index_stream_t *streams;
  size_t stream_count;
  mprof_index_packet_t *packets;
  size_t packet_count;
  mprof_index_bin_t *bins; /* every level's, finest first */
  size_t bin_count;
  size_t level_count;
  size_t level_first[MPROF__INDEX_LEVELS_MAX + 1]; /* level k's bins are
                                                      level_first[k] ..
                                                      level_first[k + 1] */
  /* Per packet, its own finest bins, sorted: what an extension keeps of
   * a packet that did not change, as the bins above sum over packets.
   * Packet i's are cells[cell_first[i] .. cell_first[i + 1]). */
  mprof__index_cell_t *cells;
  size_t *cell_first; /* packet_count + 1 of them */
  size_t cell_count;
  size_t packets_decoded;
  int recording; /* built from a trace still being written */
};

/* For each packet of trace, the number of old's packet that holds the same
 * bytes (the same offset, stream, content size and header hash), or
 * SIZE_MAX: into reuse[0 .. packets).  Returns 0 or -1 (no memory). */
int mprof__index_reuse(const mprof_index_t *old, const mprof_trace_t *trace,
                       size_t *reuse);

/* The finest level that index's cells make, summed per stream and bin,
 * into a new array (room for twice as many as its cells) of *count.
 * Returns 0 or -1 (no memory). */
int mprof__index_finest(const mprof_index_t *index, mprof_index_bin_t **out,
                        size_t *count);

/* The hash of a packet's header's fields (FNV-1a). */
uint64_t mprof__index_header_hash(const mprof_packet_info_t *packet);

/* The checksum of an index file's bytes (file.c): FNV-1a, 64 bits, over
 * its little-endian 64-bit words, its
 * own field read as zeros. */
uint64_t mprof__index_checksum(const uint8_t *data, size_t size);

/* Where the checksum lies in the file. */
#define MPROF__INDEX_CHECKSUM_OFFSET 112

#endif /* MPROF_INDEX_INTERNAL_H */
