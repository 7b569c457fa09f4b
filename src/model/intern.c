/* intern.c -- what the model keeps once and looks up often: texts in one
 * string pool (a thread's label, a failure, a counter's name are offsets
 * into it), and trace ids mapped to thread indexes.  Once a thread becomes
 * another, its id maps to the successor, so later events about it land
 * where the line continues (events.c feeds them; finish.c and views look
 * ids up through mprof_model_find()).
 */
#include <string.h>

#include "model_internal.h"

/* Merge chains longer than this are cut (a cycle in bad input). */
#define MAX_MERGE_HOPS 1000

/* Fresh memory is what the layout spends most on: the kernel maps and
 * zeroes each page at its first touch.  With transparent huge pages (the
 * native heap under GLIBC_TUNABLES=glibc.malloc.hugetlb=1), a big block
 * aligned to them is mapped 2 MiB a fault throughout, not 4 KiB a fault
 * at its unaligned ends, so the passes that fill it seldom wait on a
 * fault.  WebAssembly has no such pages: there, alignment would only
 * waste heap. */
#define HUGE_PAGE ((size_t)2 << 20)

void *mprof__big_alloc(size_t size) {
#if defined(__wasm__)
  return malloc(size);
#else
  if (size < HUGE_PAGE) return malloc(size);
  return aligned_alloc(HUGE_PAGE, (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
#endif
}

int mprof__grow(void *array, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  if (need > SIZE_MAX / 2 / elem) return MPROF_ENOMEM; /* no room to double */
  size_t new_cap = *cap ? *cap : 16;
  while (new_cap < need) new_cap *= 2;
  void **p = array;
  void *grown = realloc(*p, new_cap * elem);
  if (!grown) return MPROF_ENOMEM;
  *p = grown;
  *cap = new_cap;
  return 0;
}

/* --- Strings -------------------------------------------------------------- */

/* The pool offset of a text copied lately from the same place with the
 * same bytes, or 0.  Labels repeat (a server labels every request with one
 * of a few names, and the reader hands out the same bytes each time): the
 * cache keeps one copy of each, and the bytes are compared, so a caller
 * that reuses a buffer for other texts gets them right. */
static uint32_t text_cached(const mprof_model_t *m, const char *text,
                            size_t length, size_t slot) {
  uint32_t offset = m->text_cache[slot];
  if (offset == 0 || offset + length >= m->string_size) return 0;
  const char *have = m->strings + offset;
  return have[length] == 0 && memcmp(have, text, length) == 0 ? offset : 0;
}

uint32_t mprof__intern_text(mprof_model_t *m, const char *text, size_t length) {
  size_t slot = ((uintptr_t)text >> 3 ^ length) % MODEL_TEXT_CACHE;
  uint32_t offset = text_cached(m, text, length, slot);
  if (offset || length == 0 || m->string_size + length + 1 > UINT32_MAX)
    return offset;
  if (mprof__grow(&m->strings, &m->string_cap, m->string_size + length + 1, 1))
    return 0;
  offset = (uint32_t)m->string_size;
  memcpy(m->strings + offset, text, length);
  m->strings[offset + length] = 0;
  m->string_size += length + 1;
  m->view.strings = m->strings;
  m->text_cache[slot] = offset;
  return offset;
}

/* --- The id table --------------------------------------------------------- */

/* Ids outside the direct array are kept in the table (model_internal.h
 * says how ids are spread): DIRECT_FIRST is the direct array's first size,
 * and it grows while it stays within DIRECT_SPARE ids of eight times the
 * thread count. */
#define DIRECT_FIRST 1024
#define DIRECT_SPARE 65536
#define HASH_FIRST 1024

/* Rebuild the table with `cap` slots; ids the direct array covers (it may
 * have grown since they were put here) move there. */
static int hash_rebuild(mprof_model_t *m, size_t cap) {
  size_t old_cap = m->hash_cap;
  uint64_t *old_ids = m->hash_ids;
  uint32_t *old_threads = m->hash_threads;
  uint64_t *ids = malloc(cap * sizeof *ids);
  uint32_t *threads = malloc(cap * sizeof *threads);
  if (!ids || !threads) {
    free(ids);
    free(threads);
    return MPROF_ENOMEM;
  }
  memset(threads, 0xff, cap * sizeof *threads);
  m->hash_ids = ids;
  m->hash_threads = threads;
  m->hash_cap = cap;
  m->hash_used = 0;
  for (size_t i = 0; i < old_cap; i++) {
    if (old_threads[i] == MPROF_NO_THREAD) continue;
    if (old_ids[i] < m->direct_cap) {
      m->direct[old_ids[i]] = old_threads[i];
      continue;
    }
    size_t s = mprof__id_slot(m, old_ids[i]);
    m->hash_ids[s] = old_ids[i];
    m->hash_threads[s] = old_threads[i];
    m->hash_used++;
  }
  free(old_ids);
  free(old_threads);
  return 0;
}

int mprof__id_table_init(mprof_model_t *m) {
  return hash_rebuild(m, HASH_FIRST);
}

int mprof__direct_resize(mprof_model_t *m, size_t cap) {
  size_t old_cap = m->direct_cap;
  if (cap <= old_cap) return 0;
  if (cap > SIZE_MAX / sizeof *m->direct) return MPROF_ENOMEM;
  uint32_t *grown = realloc(m->direct, cap * sizeof *grown);
  if (!grown) return MPROF_ENOMEM;
  memset(grown + old_cap, 0xff, (cap - old_cap) * sizeof *grown);
  m->direct = grown;
  m->direct_cap = cap;
  if (m->hash_used && hash_rebuild(m, m->hash_cap)) {
    m->direct_cap = old_cap; /* the table still holds those ids */
    return MPROF_ENOMEM;
  }
  return 0;
}

/* Grow the direct array to cover id, if that keeps it within a few times
 * the thread count.  Returns 0 (id may still be beyond it) or
 * MPROF_ENOMEM. */
static int direct_grow(mprof_model_t *m, uint64_t id) {
  if (id >= 8 * (uint64_t)m->view.thread_count + DIRECT_SPARE) return 0;
  size_t cap = m->direct_cap ? m->direct_cap : DIRECT_FIRST;
  while (cap <= id) cap *= 2;
  return mprof__direct_resize(m, cap);
}

int mprof__id_set(mprof_model_t *m, uint64_t id, uint32_t thread) {
  if (id >= m->direct_cap && direct_grow(m, id)) return MPROF_ENOMEM;
  if (id < m->direct_cap) {
    m->direct[id] = thread;
    return 0;
  }
  if ((m->hash_used + 1) * 4 > m->hash_cap * 3 &&
      hash_rebuild(m, m->hash_cap * 2))
    return MPROF_ENOMEM;
  size_t s = mprof__id_slot(m, id);
  if (m->hash_threads[s] == MPROF_NO_THREAD) m->hash_used++;
  m->hash_ids[s] = id;
  m->hash_threads[s] = thread;
  return 0;
}

uint32_t mprof__follow_merges(const mprof_model_t *m, uint32_t i) {
  for (int hops = 0;
       m->threads[i].becomes != MPROF_NO_THREAD && hops < MAX_MERGE_HOPS;
       hops++)
    i = m->threads[i].becomes;
  return i;
}
