/* idtable.c -- the map of live ids, the queue of endings and the set of
 * retired ids that the one-pass readers share (idtable.h says how they
 * are laid out). */
#include "idtable.h"

#include <stdlib.h>
#include <string.h>

#include "mprof.h"

/* --- The map -------------------------------------------------------------- */

int mprof__idmap_grow(mprof__idmap_t *m) {
  size_t cap = m->cap < 512 ? 1024 : m->cap * 2;
  mprof__idslot_t *old = m->slots,
                  *grown = aligned_alloc(64, cap * sizeof *grown);
  if (!grown) return MPROF_ENOMEM;
  memset(grown, 0, cap * sizeof *grown);
  size_t old_cap = m->cap;
  m->slots = grown;
  m->cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].value) m->slots[mprof__idmap_slot(m, old[i].id)] = old[i];
  free(old);
  return 0;
}

void mprof__idmap_clear(mprof__idmap_t *m, size_t i) {
  size_t mask = m->cap - 1;
  for (size_t j = (i + 1) & mask; m->slots[j].value; j = (j + 1) & mask) {
    size_t home = mprof__idmap_home(m->slots[j].id, m->cap);
    if (((j - home) & mask) >= ((j - i) & mask)) {
      m->slots[i] = m->slots[j];
      i = j;
    }
  }
  m->slots[i] = (mprof__idslot_t){0, NULL};
  m->used--;
}

void mprof__idmap_free(mprof__idmap_t *m) {
  free(m->slots);
  *m = (mprof__idmap_t){NULL, 0, 0};
}

/* --- The endings ---------------------------------------------------------- */

int mprof__endings_grow(mprof__endings_t *q) {
  size_t cap = q->cap ? q->cap * 2 : 256;
  mprof__ending_t *grown = malloc(cap * sizeof *grown);
  if (!grown) return MPROF_ENOMEM;
  for (size_t i = 0; i < q->count; i++) grown[i] = *mprof__endings_at(q, i);
  free(q->at);
  *q = (mprof__endings_t){grown, 0, q->count, cap};
  return 0;
}

/* --- The set -------------------------------------------------------------- */

/* Make the page table twice as big.  0 or MPROF_ENOMEM. */
static int pages_grow(mprof__idset_t *s) {
  size_t cap = s->cap ? s->cap * 2 : 64;
  mprof__idpage_t *grown = calloc(cap, sizeof *grown);
  if (!grown) return MPROF_ENOMEM;
  for (size_t i = 0; i < s->cap; i++)
    if (s->pages[i].bits) {
      size_t j = mprof__idtable_hash(s->pages[i].key, cap);
      while (grown[j].bits) j = (j + 1) & (cap - 1);
      grown[j] = s->pages[i];
    }
  free(s->pages);
  s->pages = grown;
  s->cap = cap;
  return 0;
}

/* The page of key when it is not the last one used (NULL: none, or, with
 * make, no memory for it). */
static uint64_t *page_find(mprof__idset_t *s, uint64_t key, int make) {
  size_t mask = s->cap - 1;
  for (size_t i = s->cap ? mprof__idtable_hash(key, s->cap) : 0; s->cap;
       i = (i + 1) & mask) {
    if (!s->pages[i].bits) break;
    if (s->pages[i].key == key) return s->pages[i].bits;
  }
  if (!make || ((s->used + 1) * 2 > s->cap && pages_grow(s))) return NULL;
  uint64_t *bits = calloc(MPROF__IDSET_PAGE_WORDS, sizeof *bits);
  if (!bits) return NULL;
  size_t j = mprof__idtable_hash(key, s->cap);
  while (s->pages[j].bits) j = (j + 1) & (s->cap - 1);
  s->pages[j] = (mprof__idpage_t){key, bits};
  s->used++;
  return bits;
}

/* The bitmap page of id, made if `make`. */
static uint64_t *page_of(mprof__idset_t *s, uint64_t id, int make) {
  uint64_t key = id >> MPROF__IDSET_PAGE_BITS;
  if (s->last.bits && s->last.key == key) return s->last.bits;
  uint64_t *bits = page_find(s, key, make);
  if (bits) s->last = (mprof__idpage_t){key, bits};
  return bits;
}

int mprof__idset_has(mprof__idset_t *s, uint64_t id) {
  uint64_t *bits = page_of(s, id, 0);
  uint64_t bit = id & ((1u << MPROF__IDSET_PAGE_BITS) - 1);
  return bits && (bits[bit / 64] >> (bit % 64) & 1);
}

int mprof__idset_add_paged(mprof__idset_t *s, uint64_t id) {
  uint64_t *bits = page_of(s, id, 1);
  uint64_t bit = id & ((1u << MPROF__IDSET_PAGE_BITS) - 1);
  if (!bits) return MPROF_ENOMEM;
  bits[bit / 64] |= (uint64_t)1 << (bit % 64);
  return 0;
}

void mprof__idset_free(mprof__idset_t *s) {
  for (size_t i = 0; i < s->cap; i++) free(s->pages[i].bits);
  free(s->pages);
  *s = (mprof__idset_t){NULL, 0, 0, {0, NULL}};
}
