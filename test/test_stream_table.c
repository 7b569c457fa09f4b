/* test_stream_table.c -- the streaming analysis's table of live ids and
 * its bitmap of retired ids (src/model/stream_table.c) against plain
 * lists: ids made in runs (an OS thread's) and at random, set, replaced
 * and removed oldest first and at random, through the table's growth;
 * after each change the id changed names what the list says, and now and
 * then every id does, and ids never set name nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/stream_internal.h"

#define OPS 400000
#define MOST_LIVE 6000
#define ID_SPACE (1u << 22)

static int failed;

typedef struct live_s {
  uint64_t id;
  sthread_t *t;
} live_t;

static live_t live[MOST_LIVE];
static size_t live_count;

static uint64_t next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

static void expect(int ok, const char *what, uint64_t id, size_t op) {
  if (ok) return;
  if (failed++ < 10)
    fprintf(stderr, "FAIL: op %zu: id %llu: %s\n", op, (unsigned long long)id,
            what);
}

static size_t live_find(uint64_t id) {
  for (size_t i = 0; i < live_count; i++)
    if (live[i].id == id) return i;
  return SIZE_MAX;
}

/* A new id: the next of one of four runs, or one at random. */
static uint64_t new_id(uint64_t *state, uint64_t runs[4]) {
  uint64_t r = next_random(state);
  if (r % 8 == 0) return 1 + (r >> 8) % (ID_SPACE - 1);
  return runs[r % 4]++;
}

static void set(stream_t *s, uint64_t id, size_t op) {
  sthread_t *t = mprof__stream_record_new(s);
  if (!t || mprof__stream_table_set(s, id, t)) {
    expect(0, "out of memory", id, op);
    return;
  }
  t->id = id;
  size_t i = live_find(id);
  if (i == SIZE_MAX) i = live_count++;
  live[i] = (live_t){id, t};
  expect(mprof__stream_table_get(s, id) == t, "set, not found", id, op);
}

static void drop(stream_t *s, size_t i, size_t op) {
  live_t gone = live[i];
  sthread_t *other = mprof__stream_record_new(s);
  /* removing what the id does not name leaves it */
  mprof__stream_table_remove(s, gone.id, other);
  expect(mprof__stream_table_get(s, gone.id) == gone.t, "removed by another",
         gone.id, op);
  mprof__stream_ref(other);
  mprof__stream_unref(other);
  mprof__stream_table_remove(s, gone.id, gone.t);
  memmove(&live[i], &live[i + 1], (live_count - i - 1) * sizeof *live);
  live_count--;
  expect(!mprof__stream_table_get(s, gone.id), "removed, still found", gone.id,
         op);
}

static void check_all(const stream_t *s, uint64_t *state, size_t op) {
  for (size_t i = 0; i < live_count; i++)
    expect(mprof__stream_table_get(s, live[i].id) == live[i].t, "lost",
           live[i].id, op);
  expect(s->table.used == live_count, "count differs", live_count, op);
  for (int k = 0; k < 64; k++) {
    uint64_t id = ID_SPACE + next_random(state) % ID_SPACE;
    expect(!mprof__stream_table_get(s, id), "never set, found", id, op);
  }
}

static void check_table(void) {
  stream_t *s = calloc(1, sizeof *s);
  if (!s || mprof__stream_table_rebuild(s)) {
    fprintf(stderr, "FAIL: out of memory\n");
    exit(1);
  }
  uint64_t state = 0x9e3779b97f4a7c15u;
  uint64_t runs[4] = {1, 1 + 65536, 1 + 2 * 65536, 1 + 3 * 65536};
  for (size_t op = 0; op < OPS && !failed; op++) {
    uint64_t r = next_random(&state) % 16;
    /* the table fills to its most, then stays near it */
    size_t most = op < OPS / 4 ? MOST_LIVE : MOST_LIVE / 2;
    if (live_count && (live_count >= most || r < 6))
      drop(s, r < 4 ? 0 : next_random(&state) % live_count, op);
    else if (live_count && r < 8)
      set(s, live[next_random(&state) % live_count].id, op);
    else
      set(s, new_id(&state, runs), op);
    if (op % 4096 == 0) check_all(s, &state, op);
  }
  check_all(s, &state, OPS);
  mprof__stream_free(s);
}

/* Ids in runs and at random retired; each is then one, and no other. */
static void check_retired(void) {
  stream_t *s = calloc(1, sizeof *s);
  uint8_t *added = calloc(ID_SPACE, 1);
  if (!s || !added) {
    fprintf(stderr, "FAIL: out of memory\n");
    exit(1);
  }
  uint64_t state = 12345, runs[4] = {1, 70000, 1u << 20, 3u << 20};
  for (size_t op = 0; op < OPS && !failed; op++) {
    uint64_t id = new_id(&state, runs) % ID_SPACE;
    if (mprof__idset_add(&s->retired, id)) expect(0, "out of memory", id, op);
    added[id] = 1;
    uint64_t probe = next_random(&state) % ID_SPACE;
    expect(mprof__idset_has(&s->retired, probe) == added[probe],
           "retired differs", probe, op);
  }
  for (uint64_t id = 0; id < ID_SPACE && !failed; id++)
    expect(mprof__idset_has(&s->retired, id) == added[id], "retired differs",
           id, OPS);
  free(added);
  mprof__stream_free(s);
}

int main(void) {
  check_table();
  check_retired();
  if (failed) return 1;
  printf("the id table and the retired ids agree with plain lists\n");
  return 0;
}
