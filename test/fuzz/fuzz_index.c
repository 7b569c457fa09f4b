/* fuzz_index.c -- libFuzzer target over the index reader (mprof/index.h),
 * and the reader of the picture's pyramid beside it (.mppyr,
 * src/model/scene_pyramid.h) for bytes that start as one does: any
 * bytes, taken as an index file as they are, then again with their
 * checksum made right, so that mutations reach the checks behind it (the
 * counts, the levels, the bins' order and streams, the packets' own
 * cells; the pyramid's counts, range, arrows, names, labels and
 * counters).  A pyramid taken is one its header's size let be read, is
 * written back byte for byte the same, halved, and a frame drawn from it.
 * Nothing may crash or read out of bounds (ASan+UBSan); an index taken must
 * hold what its accessors promise: packets and bins naming streams that exist,
 * levels whose bins are sorted, each packet's cells in order and holding its
 * events, written and read back the same. `make check` runs it briefly from its
 * seeds (test/fuzz/corpus-index); `make fuzz` runs it at length. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index_internal.h"
#include "scene_pyramid.h"

/* Abort unless packet i's cells are in order and hold its events. */
static void walk_cells(const mprof_index_t *index, size_t i) {
  uint64_t events = 0;
  for (size_t c = index->cell_first[i]; c < index->cell_first[i + 1]; c++) {
    if (c > index->cell_first[i] &&
        index->cells[c - 1].bin >= index->cells[c].bin)
      abort();
    events += index->cells[c].events;
  }
  if (events != mprof_index_packet(index, i)->events) abort();
}

/* Abort unless every reference of the index holds. */
static void walk(const mprof_index_t *index) {
  size_t streams = mprof_index_stream_count(index);
  for (size_t i = 0; i < mprof_index_packet_count(index); i++) {
    if (mprof_index_packet(index, i)->stream >= streams) abort();
    walk_cells(index, i);
  }
  if (index->cell_first[index->packet_count] != index->cell_count) abort();
  for (size_t k = 0; k < mprof_index_level_count(index); k++) {
    const mprof_index_bin_t *bins;
    size_t n = mprof_index_level(index, k, NULL, &bins);
    for (size_t i = 0; i < n; i++) {
      if (bins[i].stream >= streams) abort();
      if (i && bins[i - 1].stream == bins[i].stream &&
          bins[i - 1].bin >= bins[i].bin)
        abort();
    }
  }
}

/* The whole file at path. */
static uint8_t *whole_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) abort();
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  rewind(f);
  uint8_t *data = malloc(*size + 1);
  if (fread(data, 1, *size, f) != *size) abort();
  fclose(f);
  return data;
}

/* Written out and read back, the index is taken again, and written the
 * same: every field is kept. */
static void round_trip(const mprof_index_t *index, const uint8_t *data,
                       size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/fuzz_index-%d.mpidx", (int)getpid());
  if (mprof_index_write(index, path)) return;
  mprof_index_t *back;
  if (mprof_index_read(path, mprof_index_key_of(index), &back, NULL)) abort();
  if (mprof_index_packet_count(back) != mprof_index_packet_count(index))
    abort();
  mprof_index_free(back);
  size_t written_size;
  uint8_t *written = whole_file(path, &written_size);
  if (written_size != size || memcmp(written, data, size)) abort();
  free(written);
  unlink(path);
}

static void take(const uint8_t *data, size_t size) {
  mprof_index_t *index;
  const char *why;
  if (mprof_index_parse(data, size, NULL, &index, &why)) {
    if (!why) abort(); /* a refusal says why */
    return;
  }
  walk(index);
  round_trip(index, data, size);
  mprof_index_free(index);
}

/* n little-endian bytes of data at `at`. */
static uint64_t field(const uint8_t *data, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)data[at + i] << 8 * i;
  return v;
}

/* Bytes as a pyramid's file, of the key and the shape they carry (their
 * range, columns, rows and counter limit). */
static void take_pyramid(const uint8_t *data, size_t size) {
  mprof_cells_t *finest;
  mprof_pyramid_t *pyramid;
  const char *why;
  mprof_pyramid_shape_t shape = {
      (int64_t)field(data, 64, 8), (int64_t)field(data, 72, 8),
      (uint32_t)field(data, 80, 4), (uint32_t)field(data, 84, 4),
      (uint32_t)field(data, 96, 4)};
  uint64_t said = 0;
  int refused_early = mprof_pyramid_size(data, &shape, &said, &why);
  if (refused_early && !why) abort();
  if (mprof_pyramid_parse(data, size, data + 16, &shape, &finest, &why)) {
    if (!why) abort();
    return;
  }
  if (refused_early || said != size) abort(); /* a good file read whole */
  uint8_t *written;
  size_t written_size;
  if (mprof_pyramid_bytes(finest, data + 16, &written, &written_size) ||
      written_size != size || memcmp(written, data, size))
    abort();
  free(written);
  if (mprof_pyramid_new(finest, 1, &pyramid)) return;
  mprof_cells_t *frame;
  int64_t t0 = pyramid->levels[0]->t0_ns, t1 = pyramid->levels[0]->t1_ns;
  if (!mprof_pyramid_frame(pyramid, t0 / 2 + t1 / 2, t1, 37, 1, 3, &frame))
    mprof_cells_free(frame);
  mprof_pyramid_free(pyramid);
}

typedef void (*take_fn)(const uint8_t *data, size_t size);
typedef uint64_t (*checksum_fn)(const uint8_t *data, size_t size);

/* Take bytes as they are, then with the checksum at `at` made right. */
static void take_both(const uint8_t *data, size_t size, take_fn take_them,
                      checksum_fn checksum, size_t at) {
  take_them(data, size);
  if (size < at + 8) return;
  uint8_t *fixed = malloc(size);
  memcpy(fixed, data, size);
  uint64_t sum = checksum(fixed, size);
  for (int i = 0; i < 8; i++) fixed[at + i] = (uint8_t)(sum >> 8 * i);
  take_them(fixed, size);
  free(fixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 128 && !memcmp(data, "MPROFPYR", 8))
    take_both(data, size, take_pyramid, mprof_pyramid_checksum,
              MPROF_PYRAMID_CHECKSUM_AT);
  else
    take_both(data, size, take, mprof__index_checksum,
              MPROF__INDEX_CHECKSUM_OFFSET);
  return 0;
}
