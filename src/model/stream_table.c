/* stream_table.c -- the streaming analysis's records (stream.c): made in
 * blocks the stream owns and counted by reference, their texts and waits
 * in pieces of slabs it owns; the table of the live ones by id, which
 * holds references (the map itself, and the set of the ids retired, are
 * idtable.c's). */
#include <stddef.h>
#include <string.h>

#include "stream_internal.h"

/* --- Pieces --------------------------------------------------------------- */

#define SLAB_PIECES 256

/* A piece of `size` bytes from p, or NULL. */
static void *piece_get(pieces_t *p, size_t size) {
  void *piece = p->free;
  if (piece) {
    memcpy(&p->free, piece, sizeof p->free);
    return piece;
  }
  if (!p->slab_count || p->used == SLAB_PIECES) {
    char *slab = malloc(SLAB_PIECES * size);
    if (!slab || mprof__grow(&p->slabs, &p->slab_cap, p->slab_count + 1,
                             sizeof *p->slabs)) {
      free(slab);
      return NULL;
    }
    p->slabs[p->slab_count++] = slab;
    p->used = 0;
  }
  return p->slabs[p->slab_count - 1] + size * p->used++;
}

static void piece_put(pieces_t *p, void *piece) {
  memcpy(piece, &p->free, sizeof p->free);
  p->free = piece;
}

static void pieces_free(pieces_t *p) {
  for (size_t i = 0; i < p->slab_count; i++) free(p->slabs[i]);
  free(p->slabs);
}

/* Where t keeps its text `which`. */
static char **text_of(sthread_t *t, unsigned which) {
  return which == TEXT_LABEL   ? &t->label
         : which == TEXT_SHOWN ? &t->shown
                               : &t->failure;
}

/* Drop t's text `which`: a long one (long_texts says which, so that the
 * text, out of cache by then, is not read) was malloc()ed, a short one
 * is a piece. */
static void text_drop(sthread_t *t, unsigned which) {
  char **text = text_of(t, which);
  if (!*text) return;
  if (t->long_texts & which)
    free(*text);
  else
    piece_put(&t->pool->texts, *text);
  *text = NULL;
  t->long_texts &= (uint8_t)~which;
}

int mprof__stream_text_set(sthread_t *t, unsigned which, const char *text,
                           size_t length) {
  text_drop(t, which);
  int is_long = length >= SHORT_TEXT;
  char *copy =
      is_long ? malloc(length + 1) : piece_get(&t->pool->texts, SHORT_TEXT);
  if (!copy) return MPROF_ENOMEM;
  if (length) memcpy(copy, text, length);
  copy[length] = 0;
  *text_of(t, which) = copy;
  if (is_long) t->long_texts |= (uint8_t)which;
  return 0;
}

/* Give back t's array of waits (most threads have none). */
static void waits_release(sthread_t *t) {
  if (t->wait_cap == FIRST_WAITS)
    piece_put(&t->pool->waits, t->waits);
  else if (t->waits)
    free(t->waits);
}

int mprof__stream_waits_grow(sthread_t *t) {
  if (t->wait_count < t->wait_cap) return 0;
  size_t cap = t->wait_cap ? t->wait_cap * 2 : FIRST_WAITS;
  if (cap > SIZE_MAX / 2 / sizeof *t->waits) return MPROF_ENOMEM;
  swait_t *grown = cap == FIRST_WAITS
                       ? piece_get(&t->pool->waits, cap * sizeof *grown)
                       : malloc(cap * sizeof *grown);
  if (!grown) return MPROF_ENOMEM;
  if (t->wait_count) memcpy(grown, t->waits, t->wait_count * sizeof *grown);
  waits_release(t);
  t->waits = grown;
  t->wait_cap = cap;
  return 0;
}

/* --- Records -------------------------------------------------------------- */

sthread_t mprof__stream_root_thread = {.index = MPROF_ROOT_THREAD, .refs = 1};

/* What a retired id names: a thread that ended long ago, inert (its line
 * is over: what runs it adds nothing, it waits on nothing). */
sthread_t mprof__stream_retired_thread = {.index = MPROF_NO_THREAD,
                                          .refs = 1,
                                          .ending = MPROF_ENDING_RESOLVED,
                                          .settled = 1};

void mprof__stream_waits_clear(sthread_t *t) {
  for (size_t k = 0; k < t->wait_count; k++) {
    mprof__stream_unref(t->waits[k].on);
    mprof__stream_unref(t->waits[k].sig.from);
  }
  waits_release(t);
  t->waits = NULL;
  t->wait_count = t->wait_cap = 0;
}

/* Free what a record owns (not the records it names): a loop's polls
 * and spans past a line's end are rare, so they are looked at first. */
static void record_clear(sthread_t *t) {
  if (t->overhangs) free(t->overhangs);
  if (t->poll_at_start.ns) free(t->poll_at_start.ns);
  if (t->poll_at_end.ns) free(t->poll_at_end.ns);
  text_drop(t, TEXT_LABEL);
  text_drop(t, TEXT_SHOWN);
  text_drop(t, TEXT_FAILURE);
}

void mprof__stream_record_free(sthread_t *t) {
  mprof__stream_unref(t->creator);
  mprof__stream_unref(t->becomes);
  mprof__stream_unref(t->signal.from);
  mprof__stream_unref(t->at_creation.from);
  mprof__stream_waits_clear(t);
  mprof__stream_ring_clear(t);
  record_clear(t);
  pool_t *pool = t->pool;
  /* a line at a time: one memset() this long becomes `rep stos`, slower
   * to start than the stores, once a record for every few events */
  for (size_t line = 0; line < offsetof(sthread_t, ring); line += 64)
    memset((char *)t + line, 0, 64);
  t->pool = pool;
  t->creator = pool->free; /* the free list's link */
  pool->free = t;
}

/* A zeroed record from s's pool, or NULL. */
sthread_t *mprof__stream_record_new(stream_t *s) {
  pool_t *pool = &s->pool;
  sthread_t *t = pool->free;
  if (t) {
    pool->free = t->creator;
    t->creator = NULL;
    return t;
  }
  if (!pool->block_count || pool->used == POOL_BLOCK) {
    sthread_t *block = aligned_alloc(64, POOL_BLOCK * sizeof *block);
    if (block) memset(block, 0, POOL_BLOCK * sizeof *block);
    if (!block || mprof__grow(&pool->blocks, &pool->block_cap,
                              pool->block_count + 1, sizeof *pool->blocks)) {
      free(block);
      return NULL;
    }
    pool->blocks[pool->block_count++] = block;
    pool->used = 0;
  }
  t = &pool->blocks[pool->block_count - 1][pool->used++];
  t->pool = pool;
  return t;
}

void mprof__stream_pool_free(pool_t *pool) {
  for (size_t b = 0; b < pool->block_count; b++) {
    size_t n = b + 1 == pool->block_count ? pool->used : POOL_BLOCK;
    for (size_t i = 0; i < n; i++)
      if (pool->blocks[b][i].refs) record_clear(&pool->blocks[b][i]);
    free(pool->blocks[b]);
  }
  free(pool->blocks);
  pieces_free(&pool->texts);
  pieces_free(&pool->waits);
}

char *mprof__stream_copy_text(const char *text, size_t length) {
  char *s = malloc(length + 1);
  if (!s) return NULL;
  memcpy(s, text, length);
  s[length] = 0;
  return s;
}

/* --- Ids: the live table, and the ids retired ----------------------------- */

/* The table's (or the retired) answer for id is no longer what thread_of()
 * remembers of it. */
static void forget_recent(stream_t *s, uint64_t id) {
  recent_t *r = &s->recent[id % STREAM_RECENT];
  if (r->id == id) r->thread = NULL;
}

int mprof__stream_table_rebuild(stream_t *s) {
  return mprof__idmap_reserve(&s->table);
}

size_t mprof__stream_table_find(stream_t *s, uint64_t id) {
  if (mprof__idmap_reserve(&s->table)) return SIZE_MAX;
  return mprof__idmap_slot(&s->table, id);
}

/* Map id, whose slot is i, to t (a reference is taken; the one it held is
 * dropped), and remember it for thread_of() (a thread just made is soon
 * named). */
void mprof__stream_table_set_at(stream_t *s, size_t i, uint64_t id,
                                sthread_t *t) {
  sthread_t *was = mprof__idmap_put_at(&s->table, i, id, mprof__stream_ref(t));
  s->recent[id % STREAM_RECENT] = (recent_t){id, t};
  mprof__stream_unref(was);
}

int mprof__stream_table_set(stream_t *s, uint64_t id, sthread_t *t) {
  size_t i = mprof__stream_table_find(s, id);
  if (i == SIZE_MAX) return MPROF_ENOMEM;
  mprof__stream_table_set_at(s, i, id, t);
  return 0;
}

/* Remove id's entry if it names t, or what t became. */
void mprof__stream_table_remove(stream_t *s, uint64_t id, const sthread_t *t) {
  forget_recent(s, id);
  size_t i = mprof__idmap_slot(&s->table, id);
  sthread_t *named = mprof__stream_slot(s, i);
  if (!named || (named != t && !(t->becomes && named == mprof__stream_follow(
                                                            (sthread_t *)t))))
    return;
  mprof__idmap_clear(&s->table, i);
  mprof__stream_unref(named);
}
