/* uv_map.c -- the tracing state of each libuv request, handle and loop,
 * found by its address: a chained hash table under one lock, since a
 * libuv program may run loops on several OS threads and uv_async_send()
 * and the thread pool reach it from others.  The lock is a spin lock (that
 * yields the CPU while it waits), taken for a few loads each time, where a
 * pthread mutex cost more than the lookup itself; a read or a write
 * takes it no more (below).  Entries given back are kept for reuse (the
 * last one by the OS thread that gave it back, with no lock, then up to
 * SPARES of them), since a request's entry lives only as long as the
 * request, and malloc and free cost more than the reuse.
 *
 * A read or write looks its handle up with no lock: each OS thread
 * remembers its last lookups (a server's streams, its loop), and a
 * remembered entry holds until it leaves the map.  An entry that a thread
 * remembers is marked, and its removal (under the lock) bumps the map's
 * generation, which makes every thread forget what it remembers.  Request
 * entries, which live as long as their requests, are not looked up but
 * taken, so their removals leave the memories alone.  Writes and UDP
 * sends, a request per message, have none: their requests carry their
 * mark (uv_internal.h).  This is safe by
 * libuv's own rule: a handle is used from its loop's OS thread, or with
 * the program's synchronisation, which orders a lookup after the removal
 * it must see; uv_async_send(), the exception, reads the map under the
 * lock (mprof__uv_map_thread()).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "uv_internal.h"

#define BUCKETS 4096
#define SPARES 256

static mprof__uv_entry_t *buckets[BUCKETS];
static mprof__uv_entry_t *spares; /* chained by next */
static size_t spare_count;
static atomic_flag locked = ATOMIC_FLAG_INIT;

/* The lookups each OS thread remembers (mprof__uv_map_get(), inline), valid
 * while their generation is the map's, which starts at 1 so that a slot
 * never filled is never valid. */
atomic_ulong mprof__uv_generation = 1;
_Thread_local mprof__uv_remembered_t
    mprof__uv_remembered[MPROF__UV_REMEMBERED] MPROF__UV_TLS;
static _Thread_local unsigned oldest MPROF__UV_TLS; /* % REMEMBERED */

static void lock(void) {
  while (atomic_flag_test_and_set_explicit(&locked, memory_order_acquire))
    sched_yield();
}

static void unlock(void) {
  atomic_flag_clear_explicit(&locked, memory_order_release);
}

static size_t bucket_of(const void *key) {
  uintptr_t k = (uintptr_t)key;
  return (size_t)((k >> 4) ^ (k >> 16)) % BUCKETS;
}

/* The link in the chain at bucket pointing at key's entry, or at the NULL
 * ending the chain. */
static mprof__uv_entry_t **chain_link(mprof__uv_entry_t **bucket,
                                      const void *key) {
  mprof__uv_entry_t **link = bucket;
  while (*link && (*link)->key != key) link = &(*link)->next;
  return link;
}

static mprof__uv_entry_t **link_of(const void *key) {
  return chain_link(&buckets[bucket_of(key)], key);
}

/* Puts entry in the chain at bucket, in place of the old entry of its key,
 * which it returns (or NULL). */
static mprof__uv_entry_t *chain_put(mprof__uv_entry_t **bucket,
                                    mprof__uv_entry_t *entry) {
  mprof__uv_entry_t **link = chain_link(bucket, entry->key), *old = *link;
  entry->next = old ? old->next : NULL;
  *link = entry;
  return old;
}

/* key's entry, unlinked from the chain at bucket, or NULL. */
static mprof__uv_entry_t *chain_take(mprof__uv_entry_t **bucket,
                                     const void *key) {
  mprof__uv_entry_t **link = chain_link(bucket, key), *entry = *link;
  if (entry) *link = entry->next;
  return entry;
}

/* entry leaves the map: what any thread remembers of it is forgotten.
 * Under the lock. */
static void forget(const mprof__uv_entry_t *entry) {
  if (entry && entry->remembered)
    atomic_fetch_add_explicit(&mprof__uv_generation, 1, memory_order_relaxed);
}

mprof__uv_entry_t *mprof__uv_map_take(const void *key) {
  lock();
  mprof__uv_entry_t *entry = chain_take(&buckets[bucket_of(key)], key);
  forget(entry);
  unlock();
  return entry;
}

mprof__uv_entry_t *mprof__uv_map_get_locked(const void *key,
                                            mprof__uv_remembered_t *memory) {
  lock();
  mprof__uv_entry_t *entry = *link_of(key);
  if (entry) {
    entry->remembered = 1;
    if (!memory)
      memory = &mprof__uv_remembered[oldest++ % MPROF__UV_REMEMBERED];
    *memory = (mprof__uv_remembered_t){
        key, entry,
        atomic_load_explicit(&mprof__uv_generation, memory_order_relaxed)};
  }
  unlock();
  return entry;
}

uint64_t mprof__uv_map_thread(const void *key) {
  lock();
  mprof__uv_entry_t *entry = *link_of(key);
  uint64_t thread = entry ? entry->thread : MPROF_NONE;
  unlock();
  return thread;
}

/* A spare entry, taken from the list; NULL if none.  Under the lock. */
static mprof__uv_entry_t *spare_take(void) {
  mprof__uv_entry_t *entry = spares;
  if (entry) {
    spares = entry->next;
    spare_count--;
  }
  return entry;
}

/* The entry this OS thread gave back last, kept for its next add with no
 * turn of the lock: a request's entry, given back when its callback
 * returns, serves the next request.  Freed when the thread exits. */
static _Thread_local mprof__uv_entry_t *recycled MPROF__UV_TLS;
static _Thread_local int recycled_freed_at_exit MPROF__UV_TLS;
static pthread_key_t recycled_key;
static int recycled_key_made;

static void recycled_free(void *unused) {
  (void)unused;
  free(recycled);
  recycled = NULL;
  recycled_freed_at_exit = 0; /* a later give-back keys it again */
}

/* Can this thread keep an entry?  Only once its exit will free it. */
static int recycling(void) {
  if (!recycled_freed_at_exit && recycled_key_made)
    recycled_freed_at_exit =
        pthread_setspecific(recycled_key, &recycled_freed_at_exit) == 0;
  return recycled_freed_at_exit;
}

/* mprof__uv_map_release() of an entry that this OS thread cannot keep as
 * it is. */
__attribute__((noinline)) static void
release_general(mprof__uv_entry_t *entry) {
  if (entry->net) free(entry->net);
  if (!recycled && recycling()) {
    recycled = entry;
    return;
  }
  lock();
  int kept = spare_count < SPARES;
  if (kept) {
    entry->next = spares;
    spares = entry;
    spare_count++;
  }
  unlock();
  if (!kept) free(entry);
}

void mprof__uv_map_release(mprof__uv_entry_t *entry) {
  if (!entry) return;
  /* A request's entry, kept for this OS thread's next one. */
  if (!entry->net && !recycled && recycled_freed_at_exit) {
    recycled = entry;
    return;
  }
  release_general(entry);
}

/* entry, emptied, for key and thread: a copy of an empty entry, which
 * compilers write as a few vector moves, where a compound literal or
 * memset became a rep stos, slow to start. */
static inline void entry_clear(mprof__uv_entry_t *entry, const void *key,
                               uint64_t thread) {
  static const mprof__uv_entry_t empty;
  *entry = empty;
  entry->key = key;
  entry->thread = thread;
}

/* A new entry: the one this OS thread kept, else a spare, else malloc's. */
static mprof__uv_entry_t *entry_new(const void *key, uint64_t thread) {
  mprof__uv_entry_t *entry = recycled;
  recycled = NULL;
  if (!entry) {
    lock();
    entry = spare_take();
    unlock();
  }
  /* malloc, not calloc: glibc's calloc skips the per-thread cache. */
  if (!entry && !(entry = malloc(sizeof *entry))) return NULL;
  entry_clear(entry, key, thread);
  return entry;
}

mprof__uv_entry_t *mprof__uv_map_add(const void *key, uint64_t thread) {
  mprof__uv_entry_t *entry = entry_new(key, thread);
  if (!entry) return NULL;
  /* A handle initialised again without a close replaces its old state. */
  lock();
  mprof__uv_entry_t *old = chain_put(&buckets[bucket_of(key)], entry);
  forget(old);
  unlock();
  mprof__uv_map_release(old);
  return entry;
}

/* fork() in another OS thread may not leave the lock held in the child. */
__attribute__((constructor)) static void map_init(void) {
  pthread_atfork(lock, unlock, unlock);
  recycled_key_made = pthread_key_create(&recycled_key, recycled_free) == 0;
}
