/* idtable.h -- what the one-pass readers of a trace (the streaming
 * analysis, stream*.c; the streamed picture, scene_stream.c) keep of ids
 * in memory bounded by what is alive: a map from the ids of live threads
 * to their records, the queue of the threads that ended (a record is kept
 * a while after its end: a read of a resolved promise names it soon after)
 * and the set of the ids retired since.
 *
 * The map is open addressing with linear probes, kept at most a quarter
 * full, and a removal moves back the entries after the hole whose probes
 * pass it, so no tombstones pile up and the map never needs rebuilding
 * while it does not grow.  An OS thread makes its ids one after another and
 * names its latest ones most, so four ids in a row share a cache line of
 * slots, and the lines are spread by a multiplicative hash.
 *
 * The set is a bitmap page per 2^15 ids, the pages in a hash of their own;
 * ids retire in runs, so the page used last is remembered.
 */
#ifndef MPROF_IDTABLE_H
#define MPROF_IDTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "mprof.h"

typedef struct mprof__idslot_s {
  uint64_t id;
  void *value; /* NULL: empty */
} mprof__idslot_t;

typedef struct mprof__idmap_s {
  mprof__idslot_t *slots; /* a power of two of them, cache-line aligned */
  size_t cap, used;
} mprof__idmap_t;

/* A key spread over cap (a power of two) slots. */
static inline size_t mprof__idtable_hash(uint64_t id, size_t cap) {
  return (size_t)((id * 0x9e3779b97f4a7c15u) >> 32) & (cap - 1);
}

/* Where id's probe starts: four ids in a row in one line of slots. */
static inline size_t mprof__idmap_home(uint64_t id, size_t cap) {
  return (mprof__idtable_hash(id >> 2, cap) << 2 | (size_t)(id & 3)) &
         (cap - 1);
}

/* The slot holding id, or the empty one where it would go (the map must
 * have slots: mprof__idmap_reserve() once first). */
static inline size_t mprof__idmap_slot(const mprof__idmap_t *m, uint64_t id) {
  size_t mask = m->cap - 1, i = mprof__idmap_home(id, m->cap);
  while (m->slots[i].value && m->slots[i].id != id) i = (i + 1) & mask;
  return i;
}

/* What id maps to, or NULL. */
static inline void *mprof__idmap_get(const mprof__idmap_t *m, uint64_t id) {
  return m->slots[mprof__idmap_slot(m, id)].value;
}

/* Fetch the slots id's probe starts at into the cache, and the line after
 * them for the last id of its four (a removal looks at the slot after its
 * own). */
static inline void mprof__idmap_prefetch(const mprof__idmap_t *m, uint64_t id) {
  size_t home = mprof__idmap_home(id, m->cap);
  __builtin_prefetch(&m->slots[home], 1);
  if ((id & 3) == 3)
    __builtin_prefetch(&m->slots[(home + 1) & (m->cap - 1)], 1);
}

/* Make the map twice as big (the first one, of 1024 slots).  0 or
 * MPROF_ENOMEM. */
int mprof__idmap_grow(mprof__idmap_t *m);

/* Room for one more entry: the map made twice as big if a quarter full
 * (the first one at the first call).  0 or MPROF_ENOMEM. */
static inline int mprof__idmap_reserve(mprof__idmap_t *m) {
  return (m->used + 1) * 4 > m->cap ? mprof__idmap_grow(m) : 0;
}

/* Map id, whose slot is i (mprof__idmap_slot(), the map unchanged
 * since), to value (not NULL); returns what it mapped to before (NULL:
 * nothing). */
static inline void *mprof__idmap_put_at(mprof__idmap_t *m, size_t i,
                                        uint64_t id, void *value) {
  void *was = m->slots[i].value;
  if (!was) m->used++;
  m->slots[i] = (mprof__idslot_t){id, value};
  return was;
}

/* Map id to value (not NULL); returns what it mapped to before (NULL:
 * nothing).  Call mprof__idmap_reserve() first. */
static inline void *mprof__idmap_put(mprof__idmap_t *m, uint64_t id,
                                     void *value) {
  return mprof__idmap_put_at(m, mprof__idmap_slot(m, id), id, value);
}

/* Empty slot i (one that holds an entry). */
void mprof__idmap_clear(mprof__idmap_t *m, size_t i);

void mprof__idmap_free(mprof__idmap_t *m);

/* A thread that ended, at its OS thread's event count then. */
typedef struct mprof__ending_s {
  void *thread;
  uint64_t at_event;
} mprof__ending_t;

/* A ring of endings, oldest first, grown as it fills (cap a power of
 * two). */
typedef struct mprof__endings_s {
  mprof__ending_t *at;
  size_t first, count, cap;
} mprof__endings_t;

/* The ith ending of q from its oldest. */
static inline mprof__ending_t *mprof__endings_at(const mprof__endings_t *q,
                                                 size_t i) {
  return &q->at[(q->first + i) & (q->cap - 1)];
}

/* Make q's ring twice as big (256 the first).  0 or MPROF_ENOMEM. */
int mprof__endings_grow(mprof__endings_t *q);

/* Add an ending to q.  0 or MPROF_ENOMEM.  Inline: an ending a thread. */
static inline int mprof__endings_push(mprof__endings_t *q, void *thread,
                                      uint64_t at_event) {
  if (q->count == q->cap && mprof__endings_grow(q)) return MPROF_ENOMEM;
  *mprof__endings_at(q, q->count++) = (mprof__ending_t){thread, at_event};
  return 0;
}

/* Take q's oldest ending (q not empty): its thread. */
static inline void *mprof__endings_pop(mprof__endings_t *q) {
  void *thread = q->at[q->first].thread;
  q->first = (q->first + 1) & (q->cap - 1);
  q->count--;
  return thread;
}

#define MPROF__IDSET_PAGE_BITS 15
#define MPROF__IDSET_PAGE_WORDS ((1u << MPROF__IDSET_PAGE_BITS) / 64)

typedef struct mprof__idpage_s {
  uint64_t key;   /* id >> MPROF__IDSET_PAGE_BITS */
  uint64_t *bits; /* NULL: empty */
} mprof__idpage_t;

typedef struct mprof__idset_s {
  mprof__idpage_t *pages;
  size_t cap, used;
  mprof__idpage_t last; /* the page used last */
} mprof__idset_t;

/* Whether id is in the set. */
int mprof__idset_has(mprof__idset_t *s, uint64_t id);

/* Put id in the set, its page found (or made) in the page table.  0 or
 * MPROF_ENOMEM. */
int mprof__idset_add_paged(mprof__idset_t *s, uint64_t id);

/* Put id in the set.  0 or MPROF_ENOMEM.  Inline where ids retire in
 * runs: on the page used last. */
static inline int mprof__idset_add(mprof__idset_t *s, uint64_t id) {
  if (!s->last.bits || s->last.key != id >> MPROF__IDSET_PAGE_BITS)
    return mprof__idset_add_paged(s, id);
  uint64_t bit = id & ((1u << MPROF__IDSET_PAGE_BITS) - 1);
  s->last.bits[bit / 64] |= (uint64_t)1 << (bit % 64);
  return 0;
}

void mprof__idset_free(mprof__idset_t *s);

#endif
