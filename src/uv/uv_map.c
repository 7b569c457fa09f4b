/* uv_map.c -- the tracing state of each libuv request, handle and loop,
 * found by its address: a chained hash table under one lock, since a
 * libuv program may run loops on several OS threads and uv_async_send()
 * and the thread pool reach it from others.  The lock is a spin lock (that
 * yields the CPU while it waits): it is taken several times per read and
 * write, each time for a few loads, where a pthread mutex cost more than
 * the lookup itself.  Entries given back are kept for reuse (up to
 * SPARES of them), since a request's entry lives only as long as the
 * request, and malloc and free cost more than the reuse.
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

/* The link pointing at key's entry, or at the NULL ending its chain. */
static mprof__uv_entry_t **link_of(const void *key) {
  mprof__uv_entry_t **link = &buckets[bucket_of(key)];
  while (*link && (*link)->key != key) link = &(*link)->next;
  return link;
}

mprof__uv_entry_t *mprof__uv_map_take(const void *key) {
  lock();
  mprof__uv_entry_t **link = link_of(key), *entry = *link;
  if (entry) *link = entry->next;
  unlock();
  return entry;
}

mprof__uv_entry_t *mprof__uv_map_get(const void *key) {
  lock();
  mprof__uv_entry_t *entry = *link_of(key);
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

void mprof__uv_map_release(mprof__uv_entry_t *entry) {
  if (!entry) return;
  if (entry->net) free(entry->net);
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

mprof__uv_entry_t *mprof__uv_map_add(const void *key, uint64_t thread) {
  /* One turn of the lock takes a spare and links it in: a request's entry
   * is added once per request. */
  lock();
  mprof__uv_entry_t *entry = spare_take();
  /* malloc, not calloc: glibc's calloc skips the per-thread cache. */
  if (!entry) {
    unlock();
    entry = malloc(sizeof *entry);
    if (!entry) return NULL;
    lock();
  }
  *entry = (mprof__uv_entry_t){.key = key, .thread = thread};
  /* A handle initialised again without a close replaces its old state. */
  mprof__uv_entry_t **link = link_of(key), *old = *link;
  entry->next = old ? old->next : NULL;
  *link = entry;
  unlock();
  mprof__uv_map_release(old);
  return entry;
}

/* fork() in another OS thread may not leave the lock held in the child. */
__attribute__((constructor)) static void map_init(void) {
  pthread_atfork(lock, unlock, unlock);
}
