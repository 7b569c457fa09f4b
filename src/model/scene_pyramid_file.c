/* scene_pyramid_file.c -- the bytes of a pyramid's file (scene_pyramid.h):
 *
 *   magic "MPROFPYR", version, 0 (u32 each), the trace's key (32 bytes),
 *   checksum (u64: FNV-1a over the whole file, itself read as zeros),
 *   file size (u64), t0, t1 (i64), columns, rows, row_count, seen,
 *   counter_limit, counter_count (u32), events, label_count, 0 (u64);
 *   then the finest level: cells [rows x columns] (u8), idle [columns]
 *   (u8), arrows [columns x 2] (from, to: i64; from_row, to_row, kind:
 *   u32), names [rows] (64 bytes), counters (name 64 bytes, id,
 *   last_column: u32, value, min_value, max_value: i64, then min, max per
 *   column: i64), labels (row, first, last: u32, text 64 bytes).
 *
 * Everything is little-endian.  A file is believed only whole: its size,
 * checksum and key, its range, columns, rows and counter limit those its
 * reader expects, every count and reference within the summary, and its
 * labels as mprof_cells_end() leaves them (by row, then along it, apart
 * but for a shared end column) and as wide as mprof_cells_label() makes
 * them: a frame's binary search over them relies on it. */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "scene_pyramid.h"

static const char magic[8] = {'M', 'P', 'R', 'O', 'F', 'P', 'Y', 'R'};
#define VERSION 1
#define CHECKSUM_AT MPROF_PYRAMID_CHECKSUM_AT
#define HEADER_BYTES MPROF_PYRAMID_HEADER
#define SIZE_AT 56
#define ARROW_BYTES 28
#define LABEL_BYTES (12 + MPROF_CELLS_NAME)
#define COUNTER_BYTES (MPROF_CELLS_NAME + 8 + 24)
/* What a file may hold at most (a bound on what a damaged one asks). */
#define MAX_COLUMNS (1u << 24)
#define MAX_ROWS (1u << 16)

typedef struct cursor_s {
  uint8_t *at;
  const uint8_t *end;
} cursor_t;

static void put(cursor_t *c, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) *c->at++ = (uint8_t)(v >> 8 * i);
}

static void put_bytes(cursor_t *c, const void *data, size_t n) {
  memcpy(c->at, data, n);
  c->at += n;
}

static uint64_t get(cursor_t *c, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)*c->at++ << 8 * i;
  return v;
}

static void get_bytes(cursor_t *c, void *data, size_t n) {
  memcpy(data, c->at, n);
  c->at += n;
}

uint64_t mprof_pyramid_checksum(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < size; i++) {
    uint8_t byte = i - CHECKSUM_AT < 8 ? 0 : data[i];
    h = (h ^ byte) * 0x100000001b3u;
  }
  return h;
}

/* The most labels a summary holds: each line named is at least
 * MPROF_CELLS_LABEL_COLUMNS wide, and the lines of a row share at most
 * the column where one ends and the next starts. */
static uint64_t most_labels(uint64_t columns, uint64_t rows) {
  return rows * (columns / (MPROF_CELLS_LABEL_COLUMNS - 1));
}

/* The file's size for these counts; 0 past what a file may hold. */
static uint64_t file_bytes(uint64_t columns, uint64_t rows,
                           uint64_t counter_count, uint64_t label_count) {
  if (columns > MAX_COLUMNS || rows > MAX_ROWS ||
      counter_count > MPROF_CELLS_COUNTERS ||
      label_count > most_labels(columns, rows))
    return 0;
  return HEADER_BYTES + rows * columns + columns +
         columns * MPROF_CELLS_ARROWS * ARROW_BYTES + rows * MPROF_CELLS_NAME +
         counter_count * (COUNTER_BYTES + 16 * columns) +
         label_count * LABEL_BYTES;
}

static void put_header(cursor_t *c, const mprof_cells_t *f, const uint8_t *key,
                       uint64_t size) {
  put_bytes(c, magic, sizeof magic);
  put(c, VERSION, 4);
  put(c, 0, 4);
  put_bytes(c, key, MPROF_PYRAMID_KEY);
  put(c, 0, 8); /* the checksum, once all is in */
  put(c, size, 8);
  put(c, (uint64_t)f->t0_ns, 8);
  put(c, (uint64_t)f->t1_ns, 8);
  put(c, f->columns, 4);
  put(c, f->rows, 4);
  put(c, f->row_count, 4);
  put(c, f->seen, 4);
  put(c, f->counter_limit, 4);
  put(c, f->counter_count, 4);
  put(c, f->events, 8);
  put(c, f->label_count, 8);
  put(c, 0, 8);
}

static void put_body(cursor_t *c, const mprof_cells_t *f) {
  put_bytes(c, f->cells, (size_t)f->rows * f->columns);
  put_bytes(c, f->idle, f->columns);
  for (size_t k = 0; k < (size_t)f->columns * MPROF_CELLS_ARROWS; k++) {
    const mprof_cell_arrow_t *a = &f->arrows[k];
    put(c, (uint64_t)a->from_ns, 8);
    put(c, (uint64_t)a->to_ns, 8);
    put(c, a->from_row, 4);
    put(c, a->to_row, 4);
    put(c, a->kind, 4);
  }
  put_bytes(c, f->names, (size_t)f->rows * MPROF_CELLS_NAME);
  for (size_t i = 0; i < f->counter_count; i++) {
    const mprof_cell_counter_t *k = &f->counters[i];
    put_bytes(c, k->name, MPROF_CELLS_NAME);
    put(c, k->id, 4);
    put(c, k->last_column, 4);
    put(c, (uint64_t)k->value, 8);
    put(c, (uint64_t)k->min_value, 8);
    put(c, (uint64_t)k->max_value, 8);
    for (uint32_t x = 0; x < f->columns; x++) {
      put(c, (uint64_t)k->min[x], 8);
      put(c, (uint64_t)k->max[x], 8);
    }
  }
  for (size_t i = 0; i < f->label_count; i++) {
    const mprof_cell_label_t *l = &f->labels[i];
    put(c, l->row, 4);
    put(c, l->first, 4);
    put(c, l->last, 4);
    put_bytes(c, l->text, MPROF_CELLS_NAME);
  }
}

int mprof_pyramid_bytes(const mprof_cells_t *f,
                        const uint8_t key[MPROF_PYRAMID_KEY], uint8_t **data,
                        size_t *size) {
  uint64_t bytes =
      file_bytes(f->columns, f->rows, f->counter_count, f->label_count);
  *data = NULL;
  if (!bytes || bytes > SIZE_MAX || !(*data = malloc((size_t)bytes)))
    return MPROF_ENOMEM;
  cursor_t c = {*data, *data + bytes};
  put_header(&c, f, key, bytes);
  put_body(&c, f);
  uint64_t sum = mprof_pyramid_checksum(*data, (size_t)bytes);
  c.at = *data + CHECKSUM_AT;
  put(&c, sum, 8);
  *size = (size_t)bytes;
  return 0;
}

/* --- Reading -------------------------------------------------------------- */

typedef struct header_s {
  uint64_t size, events, label_count;
  int64_t t0, t1;
  uint32_t columns, rows, row_count, seen, counter_limit, counter_count;
} header_t;

static const char *take_header(const uint8_t *data, size_t size,
                               const uint8_t *key,
                               const mprof_pyramid_shape_t *shape,
                               header_t *h) {
  if (size < HEADER_BYTES || memcmp(data, magic, sizeof magic))
    return "not a pyramid file";
  cursor_t c = {(uint8_t *)data + sizeof magic, data + size};
  if (get(&c, 4) != VERSION) return "another version";
  if (get(&c, 4)) return "bad reserved field";
  if (memcmp(c.at, key, MPROF_PYRAMID_KEY)) return "of another trace";
  c.at += MPROF_PYRAMID_KEY;
  uint64_t sum = get(&c, 8);
  h->size = get(&c, 8);
  h->t0 = (int64_t)get(&c, 8), h->t1 = (int64_t)get(&c, 8);
  h->columns = (uint32_t)get(&c, 4), h->rows = (uint32_t)get(&c, 4);
  h->row_count = (uint32_t)get(&c, 4), h->seen = (uint32_t)get(&c, 4);
  h->counter_limit = (uint32_t)get(&c, 4);
  h->counter_count = (uint32_t)get(&c, 4);
  h->events = get(&c, 8), h->label_count = get(&c, 8);
  if (get(&c, 8)) return "bad reserved field";
  if (h->size != size) return "truncated";
  if (mprof_pyramid_checksum(data, size) != sum) return "damaged (checksum)";
  /* a span past half the int64 range would overflow a frame's sums */
  if (h->t1 <= h->t0 || (uint64_t)h->t1 - (uint64_t)h->t0 > INT64_MAX / 2)
    return "bad range";
  if (h->t0 != shape->t0_ns || h->t1 != shape->t1_ns) return "of another range";
  if (h->columns != shape->columns || h->rows != shape->rows ||
      h->counter_limit != shape->counter_limit)
    return "of another size";
  if (!h->columns || !h->rows || h->counter_limit > MPROF_CELLS_COUNTERS ||
      h->counter_count > h->counter_limit ||
      file_bytes(h->columns, h->rows, h->counter_count, h->label_count) != size)
    return "bad counts";
  return NULL;
}

static int named(const char *text) {
  return memchr(text, 0, MPROF_CELLS_NAME) != NULL;
}

static const char *take_arrows(cursor_t *c, mprof_cells_t *f) {
  for (size_t k = 0; k < (size_t)f->columns * MPROF_CELLS_ARROWS; k++) {
    mprof_cell_arrow_t *a = &f->arrows[k];
    a->from_ns = (int64_t)get(c, 8), a->to_ns = (int64_t)get(c, 8);
    a->from_row = (uint32_t)get(c, 4), a->to_row = (uint32_t)get(c, 4);
    a->kind = (uint32_t)get(c, 4);
    if (a->kind > MPROF_ARROW_KIND_COUNT ||
        (a->kind < MPROF_ARROW_KIND_COUNT &&
         (a->from_row >= f->rows || a->to_row >= f->rows)))
      return "bad arrow";
  }
  return NULL;
}

static const char *take_counters(cursor_t *c, mprof_cells_t *f,
                                 uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    char name[MPROF_CELLS_NAME];
    get_bytes(c, name, sizeof name);
    uint32_t id = (uint32_t)get(c, 4), index;
    if (!named(name)) return "bad counter name";
    int err = mprof_cells_counter(f, id, &index);
    if (err || index != i) return err == MPROF_ENOMEM ? "" : "bad counter";
    mprof_cell_counter_t *k = &f->counters[i];
    memcpy(k->name, name, sizeof name);
    k->last_column = (uint32_t)get(c, 4);
    k->value = (int64_t)get(c, 8);
    k->min_value = (int64_t)get(c, 8), k->max_value = (int64_t)get(c, 8);
    if (k->last_column >= f->columns && k->last_column != UINT32_MAX)
      return "bad counter column";
    for (uint32_t x = 0; x < f->columns; x++) {
      k->min[x] = (int64_t)get(c, 8);
      k->max[x] = (int64_t)get(c, 8);
    }
  }
  return NULL;
}

/* Whether label b comes after a: by row, then apart along the row
 * (first_label()'s search relies on it). */
static int follows(const mprof_cell_label_t *a, const mprof_cell_label_t *b) {
  return a->row < b->row || (a->row == b->row && a->last <= b->first);
}

static const char *take_labels(cursor_t *c, mprof_cells_t *f, uint64_t count) {
  if (count && !(f->labels = malloc((size_t)count * sizeof *f->labels)))
    return "";
  f->label_cap = (size_t)count;
  for (; f->label_count < count; f->label_count++) {
    mprof_cell_label_t *l = &f->labels[f->label_count];
    l->row = (uint32_t)get(c, 4);
    l->first = (uint32_t)get(c, 4), l->last = (uint32_t)get(c, 4);
    get_bytes(c, l->text, MPROF_CELLS_NAME);
    if (l->row >= f->rows || l->first > l->last || l->last >= f->columns ||
        l->last + 1 - l->first < MPROF_CELLS_LABEL_COLUMNS || !named(l->text))
      return "bad label";
    if (f->label_count && !follows(&f->labels[f->label_count - 1], l))
      return "labels out of order";
  }
  return NULL;
}

static const char *take_body(cursor_t *c, mprof_cells_t *f, const header_t *h) {
  get_bytes(c, f->cells, (size_t)f->rows * f->columns);
  get_bytes(c, f->idle, f->columns);
  for (uint32_t x = 0; x < f->columns; x++)
    if (f->idle[x] > 1) return "bad idle column";
  const char *why = take_arrows(c, f);
  if (why) return why;
  get_bytes(c, f->names, (size_t)f->rows * MPROF_CELLS_NAME);
  for (uint32_t r = 0; r < f->rows; r++)
    if (!named(f->names + (size_t)r * MPROF_CELLS_NAME)) return "bad row name";
  f->row_count = h->row_count, f->seen = h->seen, f->events = h->events;
  f->counter_limit = h->counter_limit;
  if ((why = take_counters(c, f, h->counter_count))) return why;
  return take_labels(c, f, h->label_count);
}

int mprof_pyramid_size(const uint8_t header[MPROF_PYRAMID_HEADER],
                       const mprof_pyramid_shape_t *shape, uint64_t *size,
                       const char **why) {
  *why = NULL;
  if (memcmp(header, magic, sizeof magic)) {
    *why = "not a pyramid file";
    return MPROF_EINVAL;
  }
  cursor_t c = {(uint8_t *)header + SIZE_AT, header + HEADER_BYTES};
  *size = get(&c, 8);
  uint64_t most = file_bytes(shape->columns, shape->rows, shape->counter_limit,
                             most_labels(shape->columns, shape->rows));
  if (*size >= HEADER_BYTES && *size <= most) return 0;
  *why = "bad size";
  return MPROF_EINVAL;
}

int mprof_pyramid_parse(const uint8_t *data, size_t size,
                        const uint8_t key[MPROF_PYRAMID_KEY],
                        const mprof_pyramid_shape_t *shape, mprof_cells_t **out,
                        const char **why) {
  header_t h;
  *out = NULL;
  if ((*why = take_header(data, size, key, shape, &h))) return MPROF_EINVAL;
  mprof_cells_t *f;
  int err = mprof_cells_new(h.t0, h.t1, h.columns, h.rows, &f);
  if (err) return err;
  cursor_t c = {(uint8_t *)data + HEADER_BYTES, data + size};
  if ((*why = take_body(&c, f, &h))) {
    mprof_cells_free(f);
    return **why ? MPROF_EINVAL : MPROF_ENOMEM;
  }
  *out = f;
  return 0;
}
