/* relay.c -- events made in a thread of its own, handed to the caller's
 * thread in batches (mprof/read.h, mprof_relay_start()): the streamed
 * report decodes and merges a trace's streams in one thread and analyses
 * the merged events in the other, on two cores at once.
 *
 * A ring of `depth` batches: the producer copies its events (and their
 * texts, which point into packets it will decode again) into the next
 * free batch, the caller reads them where they are and gives the batch
 * back by asking for the next.  Each side waits only for the other to
 * move (a batch put, a batch given back, the end, a stop), and is woken
 * only when it waits, the producer once half the batches are free again:
 * a batch is a few thousand events, and a wake-up a few batches.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/read.h"

/* A batch is handed on once it holds this many events (the producer's
 * puts may be smaller: the merge's hold 1024 at most). */
#define BATCH_EVENTS 4096

typedef struct batch_s {
  mprof_event_t *events;
  size_t count, capacity;
  char *texts; /* the events' texts, copied one after another */
  size_t text_size, text_capacity;
} batch_t;

struct mprof_relay_s {
  mprof_relay_fn produce;
  void *context;
  batch_t *batches;
  size_t depth;
  size_t put, got, given_back; /* batches put, taken, and given back */
  int filling;                 /* the producer fills batch `put` */
  int held;                    /* the caller holds batch got - 1 */
  int done, result;            /* produce() returned result */
  int stop;                    /* the caller stopped the relay */
  int producer_waits, caller_waits;
  pthread_mutex_t lock;
  pthread_cond_t space, ready; /* half the batches free, or a stop; a
                                  batch put, or the end */
  pthread_t thread;
};

/* Grow *buffer (of elem-byte items, capacity *cap) to hold need items.
 * Returns 0 or MPROF_ENOMEM. */
static int room(void *buffer, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  if (need < 2 * *cap) need = 2 * *cap;
  void *grown = realloc(*(void **)buffer, need * elem);
  if (!grown) return MPROF_ENOMEM;
  *(void **)buffer = grown;
  *cap = need;
  return 0;
}

/* Point the texts of b's events [0 .. count) at their copies, in order
 * (an empty one too: NULL stays NULL, and no text points into the
 * producer's memory). */
static void batch_texts(batch_t *b, size_t count) {
  size_t at = 0;
  for (size_t i = 0; i < count; i++) {
    if (!b->events[i].text) continue;
    b->events[i].text = b->texts + at;
    at += b->events[i].text_length;
  }
}

/* Append events[0 .. count) to b, their texts copied, in one pass (where
 * the copies grow, those before are pointed at where they moved). */
static int batch_append(batch_t *b, const mprof_event_t *events, size_t count) {
  if (room(&b->events, &b->capacity, b->count + count, sizeof *b->events))
    return MPROF_ENOMEM;
  mprof_event_t *to = b->events + b->count;
  memcpy(to, events, count * sizeof *events);
  for (size_t i = 0; i < count; i++) {
    if (!to[i].text) continue;
    size_t n = to[i].text_length;
    if (b->text_size + n + 1 > b->text_capacity) {
      if (room(&b->texts, &b->text_capacity, b->text_size + n + 1, 1))
        return MPROF_ENOMEM;
      batch_texts(b, b->count + i);
    }
    memcpy(b->texts + b->text_size, to[i].text, n);
    to[i].text = b->texts + b->text_size;
    b->text_size += n;
  }
  b->count += count;
  return 0;
}

/* Hand on the batch being filled. */
static void put_batch(mprof_relay_t *r) {
  r->filling = 0;
  pthread_mutex_lock(&r->lock);
  r->put++;
  if (r->caller_waits) pthread_cond_signal(&r->ready);
  pthread_mutex_unlock(&r->lock);
}

static void *run(void *context) {
  mprof_relay_t *r = context;
  int result = r->produce(r->context, r);
  /* the last batch, if a put that failed left it empty: none (the caller
   * takes an empty batch for the end) */
  if (r->filling && r->batches[r->put % r->depth].count) put_batch(r);
  pthread_mutex_lock(&r->lock);
  r->result = result;
  r->done = 1;
  if (r->caller_waits) pthread_cond_signal(&r->ready);
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

static void relay_free(mprof_relay_t *r) {
  for (size_t i = 0; r->batches && i < r->depth; i++) {
    free(r->batches[i].events);
    free(r->batches[i].texts);
  }
  free(r->batches);
  free(r);
}

int mprof_relay_start(mprof_relay_fn produce, void *context, size_t depth,
                      mprof_relay_t **out) {
  mprof_relay_t *r = calloc(1, sizeof *r);
  if (!r) return MPROF_ENOMEM;
  r->produce = produce;
  r->context = context;
  r->depth = depth ? depth : 1;
  if (!(r->batches = calloc(r->depth, sizeof *r->batches))) {
    relay_free(r);
    return MPROF_ENOMEM;
  }
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->space, NULL);
  pthread_cond_init(&r->ready, NULL);
  if (pthread_create(&r->thread, NULL, run, r)) {
    pthread_cond_destroy(&r->ready);
    pthread_cond_destroy(&r->space);
    pthread_mutex_destroy(&r->lock);
    relay_free(r);
    return MPROF_EINVAL;
  }
  *out = r;
  return 0;
}

/* Wait for a free batch to fill.  Returns 0, or MPROF_EINVAL once the
 * relay is stopped. */
static int start_batch(mprof_relay_t *r) {
  pthread_mutex_lock(&r->lock);
  while (r->put - r->given_back == r->depth && !r->stop) {
    r->producer_waits = 1;
    pthread_cond_wait(&r->space, &r->lock);
    r->producer_waits = 0;
  }
  int stop = r->stop;
  pthread_mutex_unlock(&r->lock);
  if (stop) return MPROF_EINVAL;
  /* the batch is the producer's until it is counted put */
  batch_t *b = &r->batches[r->put % r->depth];
  b->count = b->text_size = 0;
  r->filling = 1;
  return 0;
}

int mprof_relay_put_edited(mprof_relay_t *r, const mprof_event_t *events,
                           size_t count, mprof_relay_edit_fn edit,
                           void *context) {
  if (!count) return 0;
  int err = r->filling ? 0 : start_batch(r);
  if (err) return err;
  batch_t *b = &r->batches[r->put % r->depth];
  size_t first = b->count, first_text = b->text_size;
  if (!(err = batch_append(b, events, count)) && edit)
    err = edit(context, b->events + first, count);
  if (err) { /* none of this put goes on, not even unedited */
    b->count = first;
    b->text_size = first_text;
    return err;
  }
  if (b->count >= BATCH_EVENTS) put_batch(r);
  return 0;
}

int mprof_relay_put(mprof_relay_t *r, const mprof_event_t *events,
                    size_t count) {
  return mprof_relay_put_edited(r, events, count, NULL, NULL);
}

int mprof_relay_get(mprof_relay_t *r, const mprof_event_t **events,
                    size_t *count) {
  pthread_mutex_lock(&r->lock);
  if (r->held) {
    r->held = 0;
    r->given_back++;
    /* woken with half the batches free, it fills them without waking */
    if (r->producer_waits && r->put - r->given_back <= r->depth / 2)
      pthread_cond_signal(&r->space);
  }
  while (r->got == r->put && !r->done) {
    r->caller_waits = 1;
    pthread_cond_wait(&r->ready, &r->lock);
    r->caller_waits = 0;
  }
  *events = NULL;
  *count = 0;
  int result = 0;
  if (r->got < r->put) {
    const batch_t *b = &r->batches[r->got++ % r->depth];
    r->held = 1;
    *events = b->events;
    *count = b->count;
  } else {
    result = r->result;
  }
  pthread_mutex_unlock(&r->lock);
  return result;
}

void mprof_relay_stop(mprof_relay_t *r) {
  if (!r) return;
  pthread_mutex_lock(&r->lock);
  r->stop = 1;
  pthread_cond_signal(&r->space);
  pthread_mutex_unlock(&r->lock);
  pthread_join(r->thread, NULL);
  pthread_cond_destroy(&r->ready);
  pthread_cond_destroy(&r->space);
  pthread_mutex_destroy(&r->lock);
  relay_free(r);
}
