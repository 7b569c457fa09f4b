/* uv_map.c -- the tracing state of each libuv request, handle and loop,
 * found by its address: a chained hash table under one mutex, since a
 * libuv program may run loops on several OS threads and uv_async_send()
 * and the thread pool reach it from others.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "uv_internal.h"

#define BUCKETS 4096

static mprof__uv_entry_t *buckets[BUCKETS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t bucket_of(const void *key) {
  uintptr_t k = (uintptr_t)key;
  return (size_t)((k >> 4) ^ (k >> 16)) % BUCKETS;
}

/* The link pointing at key's entry, or at the NULL ending its chain. */
static mprof__uv_entry_t **link_of(const void *key) {
  mprof__uv_entry_t **link = &buckets[bucket_of(key)];
  while (*link && (*link)->key != key)
    link = &(*link)->next;
  return link;
}

mprof__uv_entry_t *mprof__uv_map_take(const void *key) {
  pthread_mutex_lock(&lock);
  mprof__uv_entry_t **link = link_of(key), *entry = *link;
  if (entry)
    *link = entry->next;
  pthread_mutex_unlock(&lock);
  return entry;
}

mprof__uv_entry_t *mprof__uv_map_get(const void *key) {
  pthread_mutex_lock(&lock);
  mprof__uv_entry_t *entry = *link_of(key);
  pthread_mutex_unlock(&lock);
  return entry;
}

uint64_t mprof__uv_map_thread(const void *key) {
  pthread_mutex_lock(&lock);
  mprof__uv_entry_t *entry = *link_of(key);
  uint64_t thread = entry ? entry->thread : MPROF_NONE;
  pthread_mutex_unlock(&lock);
  return thread;
}

mprof__uv_entry_t *mprof__uv_map_add(const void *key, uint64_t thread) {
  mprof__uv_entry_t *entry = calloc(1, sizeof *entry);
  if (!entry)
    return NULL;
  entry->key = key;
  entry->thread = thread;
  pthread_mutex_lock(&lock);
  /* A handle initialised again without a close replaces its old state. */
  mprof__uv_entry_t **link = link_of(key), *old = *link;
  entry->next = old ? old->next : NULL;
  *link = entry;
  pthread_mutex_unlock(&lock);
  free(old);
  return entry;
}

/* fork() in another OS thread may leave the lock held in the child. */
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_parent(void) { pthread_mutex_unlock(&lock); }
static void fork_child(void) { pthread_mutex_init(&lock, NULL); }

__attribute__((constructor)) static void map_init(void) {
  pthread_atfork(fork_prepare, fork_parent, fork_child);
}
