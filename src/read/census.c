/* census.c -- mprof/census.h: a trace's events folded into counts in one
 * pass, in memory bounded by what is counted (distinct threads, counters),
 * never by the trace: its packets are decoded one at a time into a buffer
 * of the census's, which grows to the largest packet only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/census.h"

/* A set of thread ids, kept as 64-id words: the key of a word is id / 64
 * (plus one: a key of 0 marks an empty slot) and its bits say which of its
 * ids were seen.  Recorders hand out ids from 1 up, so a trace's ids fill
 * few words, which stay in cache; open addressing, grows at half full. */
typedef struct id_word_s {
  uint64_t key, bits;
} id_word_t;

typedef struct id_set_s {
  id_word_t *words;
  size_t capacity, used; /* slots, and slots holding a word */
  uint64_t count;        /* ids in the set */
} id_set_t;

/* The sketch that takes over from the set: HyperLogLog (Flajolet et al.
 * 2007) with 2^HLL_BITS one-byte registers. */
#define HLL_BITS 14
#define HLL_REGISTERS (1u << HLL_BITS)

/* A counter of an mprof trace (by id): its value so far and its name. */
typedef struct counter_s {
  int64_t value;
  int seen;
  char *name; /* NULL: none yet */
  size_t name_length;
} counter_t;

/* A legacy trace's counter, named by text. */
typedef struct legacy_counter_s {
  char *name;
  size_t name_length;
  int64_t value;
} legacy_counter_t;

struct mprof__census_state_s {
  id_set_t ids;
  uint8_t *registers; /* the sketch, once the set grew past its bound */
  counter_t *by_id;
  size_t by_id_count;
  legacy_counter_t *legacy;
  size_t legacy_count, legacy_capacity;
  mprof_pass_t pass; /* a packet's bytes and events */
};

/* --- Distinct thread ids -------------------------------------------------- */

static id_word_t *id_set_slot(id_word_t *words, size_t capacity, uint64_t key) {
  size_t j = (key * 0x9E3779B97F4A7C15u) >> 20 & (capacity - 1);
  while (words[j].key && words[j].key != key) j = (j + 1) & (capacity - 1);
  return &words[j];
}

static int id_set_grow(id_set_t *set) {
  size_t capacity = set->capacity ? 2 * set->capacity : 1024;
  id_word_t *words = calloc(capacity, sizeof *words);
  if (!words) return -1;
  for (size_t i = 0; i < set->capacity; i++)
    if (set->words[i].key)
      *id_set_slot(words, capacity, set->words[i].key) = set->words[i];
  free(set->words);
  set->words = words;
  set->capacity = capacity;
  return 0;
}

/* SplitMix64's finaliser: ids 1, 2, 3 ... spread over all 64 bits. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9u;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

static void sketch_add(uint8_t *registers, uint64_t id) {
  uint64_t h = mix(id);
  uint64_t rest = h << HLL_BITS | (uint64_t)1 << (HLL_BITS - 1);
  uint8_t rank = (uint8_t)(__builtin_clzll(rest) + 1);
  uint8_t *r = &registers[h >> (64 - HLL_BITS)];
  if (rank > *r) *r = rank;
}

/* The sketch's estimate, with linear counting where it is small. */
static uint64_t sketch_estimate(const uint8_t *registers) {
  double m = HLL_REGISTERS, sum = 0;
  unsigned zeros = 0;
  for (unsigned j = 0; j < HLL_REGISTERS; j++) {
    sum += ldexp(1.0, -registers[j]);
    zeros += registers[j] == 0;
  }
  double estimate = 0.7213 / (1 + 1.079 / m) * m * m / sum;
  if (estimate <= 2.5 * m && zeros) estimate = m * log(m / zeros);
  return (uint64_t)llround(estimate);
}

/* The set's ids go into a new sketch, which counts from now on. */
static int turn_into_sketch(struct mprof__census_state_s *s) {
  s->registers = calloc(HLL_REGISTERS, 1);
  if (!s->registers) return -1;
  for (size_t i = 0; i < s->ids.capacity; i++) {
    const id_word_t *w = &s->ids.words[i];
    for (uint64_t bits = w->bits; w->key && bits; bits &= bits - 1)
      sketch_add(s->registers,
                 (w->key - 1) << 6 | (uint64_t)__builtin_ctzll(bits));
  }
  free(s->ids.words);
  memset(&s->ids, 0, sizeof s->ids);
  return 0;
}

static int thread_add(mprof_census_t *c, uint64_t id) {
  struct mprof__census_state_s *s = c->state;
  if (id == MPROF_NONE) return 0;
  if (s->registers) {
    sketch_add(s->registers, id);
    return 0;
  }
  id_set_t *set = &s->ids;
  if (2 * (set->used + 1) > set->capacity) {
    if (set->capacity >= 2 * c->exact_ids_max)
      return turn_into_sketch(s) ? -1 : thread_add(c, id);
    if (id_set_grow(set)) return -1;
  }
  id_word_t *word = id_set_slot(set->words, set->capacity, (id >> 6) + 1);
  uint64_t bit = (uint64_t)1 << (id & 63);
  if (!word->key) {
    word->key = (id >> 6) + 1;
    set->used++;
  }
  if (!(word->bits & bit)) {
    word->bits |= bit;
    set->count++;
  }
  return 0;
}

/* --- Counters ------------------------------------------------------------- */

static char *copy_text(const char *text, size_t length) {
  char *copy = malloc(length + 1);
  if (copy && length) memcpy(copy, text, length);
  if (copy) copy[length] = 0;
  return copy;
}

/* Legacy counters are named by text; their traces are small, and name
 * few: a list looked through. */
static int note_legacy_counter(struct mprof__census_state_s *s,
                               const mprof_event_t *ev) {
  const char *text = ev->text ? ev->text : "";
  size_t i = 0;
  while (i < s->legacy_count &&
         (s->legacy[i].name_length != ev->text_length ||
          memcmp(s->legacy[i].name, text, ev->text_length)))
    i++;
  if (i == s->legacy_count) {
    if (s->legacy_count == s->legacy_capacity) {
      size_t capacity = s->legacy_capacity ? 2 * s->legacy_capacity : 16;
      legacy_counter_t *grown = realloc(s->legacy, capacity * sizeof *grown);
      if (!grown) return -1;
      s->legacy = grown;
      s->legacy_capacity = capacity;
    }
    char *name = copy_text(text, ev->text_length);
    if (!name) return -1;
    s->legacy[i] = (legacy_counter_t){name, ev->text_length, 0};
    s->legacy_count++;
  }
  legacy_counter_t *c = &s->legacy[i];
  c->value = ev->kind == MPROF_EVENT_COUNTER_INCREASE ? c->value + ev->value
                                                      : ev->value;
  return 0;
}

/* The counter of id, made if it is new (ids are 16 bits). */
static counter_t *counter_of(struct mprof__census_state_s *s, uint32_t id) {
  if (id < s->by_id_count) return &s->by_id[id];
  size_t count = (size_t)id + 1;
  counter_t *by_id = realloc(s->by_id, count * sizeof *by_id);
  if (!by_id) return NULL;
  memset(by_id + s->by_id_count, 0, (count - s->by_id_count) * sizeof *by_id);
  s->by_id = by_id;
  s->by_id_count = count;
  return &s->by_id[id];
}

static int note_counter(struct mprof__census_state_s *s,
                        const mprof_event_t *ev) {
  if (ev->kind != MPROF_EVENT_COUNTER_NAME && !ev->counter)
    return note_legacy_counter(s, ev);
  counter_t *c = counter_of(s, ev->counter);
  if (!c) return -1;
  if (ev->kind == MPROF_EVENT_COUNTER_NAME) {
    char *name = copy_text(ev->text ? ev->text : "", ev->text_length);
    if (!name) return -1;
    free(c->name);
    c->name = name;
    c->name_length = ev->text_length;
    return 0;
  }
  c->value = ev->kind == MPROF_EVENT_COUNTER_INCREASE ? c->value + ev->value
                                                      : ev->value;
  c->seen = 1;
  return 0;
}

int mprof_census_counter_next(const mprof_census_t *census, size_t *cursor,
                              mprof_census_counter_t *out) {
  const struct mprof__census_state_s *s = census->state;
  if (*cursor < s->legacy_count) {
    const legacy_counter_t *c = &s->legacy[(*cursor)++];
    *out = (mprof_census_counter_t){c->name, c->name_length, 0, c->value};
    return 1;
  }
  size_t id = *cursor - s->legacy_count;
  while (id < s->by_id_count && !s->by_id[id].seen) id++;
  if (id >= s->by_id_count) return 0;
  const counter_t *c = &s->by_id[id];
  *out =
      (mprof_census_counter_t){c->name, c->name_length, (uint32_t)id, c->value};
  *cursor = s->legacy_count + id + 1;
  return 1;
}

/* --- Events --------------------------------------------------------------- */

/* Which of an event's ids name threads (counters, strings and the loop
 * going idle name none). */
static int note_threads(mprof_census_t *c, const mprof_event_t *ev) {
  int b = ev->kind == MPROF_EVENT_BECOMES || ev->kind == MPROF_EVENT_CREATE_BY;
  return thread_add(c, ev->thread) || thread_add(c, ev->a) ||
         (b && thread_add(c, ev->b));
}

int mprof_census_event(void *context, const mprof_event_t *ev) {
  mprof_census_t *c = context;
  if (!c->events || ev->time_ticks < c->first_ticks)
    c->first_ticks = ev->time_ticks;
  if (ev->time_ticks > c->last_ticks) c->last_ticks = ev->time_ticks;
  c->events++;
  c->by_kind[ev->kind]++;
  switch (ev->kind) {
  case MPROF_EVENT_COUNTER_NAME:
  case MPROF_EVENT_COUNTER_INCREASE:
  case MPROF_EVENT_COUNTER_VALUE:
    if (note_counter(c->state, ev)) c->out_of_memory = 1;
    return 0;
  case MPROF_EVENT_STRING:
  case MPROF_EVENT_GC:
  case MPROF_EVENT_SUSPEND: return 0;
  case MPROF_EVENT_LABEL: c->labels++; break;
  default: break;
  }
  if (note_threads(c, ev)) c->out_of_memory = 1;
  return 0;
}

void mprof_census_finish(mprof_census_t *c) {
  const struct mprof__census_state_s *s = c->state;
  c->threads_estimated = s->registers != NULL;
  c->threads = s->registers ? sketch_estimate(s->registers) : s->ids.count;
  c->threads_error = s->registers ? MPROF_CENSUS_THREADS_ERROR : 0;
}

/* --- A whole trace -------------------------------------------------------- */

/* A run of a packet's events, counted. */
static void count_run(void *context, const mprof_event_t *events,
                      size_t count) {
  mprof_census_t *c = context;
  if (c->events_only)
    c->events += count;
  else
    for (size_t i = 0; i < count; i++) mprof_census_event(c, &events[i]);
}

size_t mprof_census_trace(mprof_census_t *c, const mprof_trace_t *t,
                          mprof_progress_fn progress, void *context) {
  size_t packets = mprof_trace_packet_count(t), damaged = 0;
  for (size_t i = 0; i < packets; i++) {
    damaged += (size_t)mprof_pass_packet(&c->state->pass, t, i, count_run, c);
    if (progress) progress(context, i + 1, packets);
  }
  mprof_census_finish(c);
  return damaged;
}

int mprof_census_init(mprof_census_t *c) {
  memset(c, 0, sizeof *c);
  c->exact_ids_max = (size_t)1 << 20;
  c->state = calloc(1, sizeof *c->state);
  return c->state ? 0 : MPROF_ENOMEM;
}

void mprof_census_free(mprof_census_t *c) {
  struct mprof__census_state_s *s = c->state;
  if (!s) return;
  free(s->ids.words);
  free(s->registers);
  for (size_t i = 0; i < s->by_id_count; i++) free(s->by_id[i].name);
  free(s->by_id);
  for (size_t i = 0; i < s->legacy_count; i++) free(s->legacy[i].name);
  free(s->legacy);
  mprof_pass_free(&s->pass);
  free(s);
  c->state = NULL;
}
