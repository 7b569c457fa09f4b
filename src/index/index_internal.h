/* index_internal.h -- the index in memory, shared by its builder
 * (build.c) and its file's reader and writer (file.c). */
#ifndef MPROF_INDEX_INTERNAL_H
#define MPROF_INDEX_INTERNAL_H

#include "mprof/index.h"

/* The most levels a pyramid has: bins of 2^0 to 2^63 ns. */
#define MPROF__INDEX_LEVELS_MAX 64

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
  int recording; /* built from a trace still being written */
};

/* The checksum of an index file's bytes (file.c): FNV-1a, 64 bits, its
 * own field read as zeros. */
uint64_t mprof__index_checksum(const uint8_t *data, size_t size);

/* Where the checksum lies in the file. */
#define MPROF__INDEX_CHECKSUM_OFFSET 112

#endif /* MPROF_INDEX_INTERNAL_H */
