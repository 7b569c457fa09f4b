/* record.c -- the mprof recorder: turns mprof_* calls into CTF events in a
 * caller-supplied buffer.  Freestanding: no libc, no allocation, no lock.
 *
 * Each OS thread owns a stream with two open packets ("cursors"): one in the
 * ring, one in the names area (labels, counter names, should_resolve).  An
 * event is written into the OS thread's own packet and committed by a
 * release store of the packet's content_size, so a reader in another
 * process, or the file left by a killed process, never sees a half-written
 * event.  The shared trace header is touched with atomics only when a
 * stream starts or a packet fills up.  record_start.c starts and stops
 * the trace.  docs/FORMAT.md has the protocol.
 */
#include <stdint.h>

#include "record_internal.h"

/* Longest string stored in an event; longer ones are cut. */
#define MAX_STRING_BYTES 1024u
/* Thread ids are handed to OS threads in chunks, one atomic per chunk. */
#define ID_CHUNK 1024u
/* Counter ids fit the u16 counter field. */
#define MAX_COUNTERS 4096u
#define MAX_STRING_ID 65535u

recorder_t mprof__recorder = {.fast_session = NO_FAST_SESSION};
int mprof__recording; /* see mprof.h; release-stored by start and stop */
static uint64_t next_id_chunk; /* atomic: chunks of thread ids handed out */
static uint32_t counter_count; /* atomic: counters made */
static const char *counter_names[MAX_COUNTERS + 1];

_Thread_local stream_t mprof__self __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t next_id
    __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t id_end __attribute__((tls_model("initial-exec")));

/* Whether an event may be recorded now: a pending start happens here. */
static inline int is_started(void) {
  int state = state_now();
  if (LIKELY(state == STATE_ON)) return 1;
  return state != STATE_OFF && mprof__start_pending_now();
}

static inline stream_t *stream_get(void) {
  stream_t *s = &mprof__self;
  if (UNLIKELY(s->session != mprof__recorder.session)) mprof__stream_begin(s);
  return s;
}

/* --- Events --------------------------------------------------------------- */

/* Room in cursor c's open packet for a compact event of id and `size`
 * payload bytes at clock value now, its header written: where its payload
 * goes, or 0 if the general path must make room (an extended id, a clock
 * past the compact header's reach, or no room). */
static inline uint8_t *reserve_compact(cursor_t *c, uint32_t id, uint32_t size,
                                       uint64_t now) {
  uint8_t *p = c->pos;
  /* No open packet means pos == end == 0, so the size test fails too. */
  if (UNLIKELY(id >= MPROF__ID_EXTENDED ||
               now - c->last_ts >= ((uint64_t)1 << MPROF__COMPACT_TS_BITS) ||
               (uint64_t)(c->end - p) < MPROF__COMPACT_HEADER_SIZE + size))
    return 0;
  mprof__put_u32(p, id | (uint32_t)(now << 5));
  c->last_ts = now;
  return p + MPROF__COMPACT_HEADER_SIZE;
}

/* reserve() at clock value now, which may be older than the stream's last
 * event (it is then taken to be that event's time). */
static inline uint8_t *reserve_at(stream_t *s, cursor_t *c, uint32_t id,
                                  uint32_t size, uint64_t now) {
  uint8_t *p = reserve_compact(c, id, size, now);
  if (LIKELY(p != 0)) return p;
  return mprof__reserve_slow(s, c, c == &s->names, id, size, now);
}

static inline uint8_t *reserve(stream_t *s, cursor_t *c, uint32_t id,
                               uint32_t size) {
  return reserve_at(s, c, id, size, clock_now());
}

static inline int fits32(uint64_t v) { return v <= UINT32_MAX; }

/* An event whose payload is one or two 64-bit thread ids (the wide form). */
COLD static void emit_wide(uint32_t id, int count, uint64_t a, uint64_t b) {
  stream_t *s = stream_get();
  uint8_t *p = reserve(s, &s->ring, id + MPROF__WIDE, 8 * (uint32_t)count);
  if (!p) return;
  mprof__put_u64(p, a);
  if (count == 2) mprof__put_u64(p + 8, b);
  commit(&s->ring, p + 8 * count);
}

/* An event whose payload is one thread id, in stream s. */
static inline void emit_thread_in(stream_t *s, uint32_t id, uint64_t thread) {
  if (UNLIKELY(!fits32(thread))) return emit_wide(id, 1, thread, 0);
  uint8_t *p = reserve(s, &s->ring, id, 4);
  if (!p) return;
  mprof__put_u32(p, (uint32_t)thread);
  commit(&s->ring, p + 4);
}

/* An event whose payload is one thread id. */
static inline void emit_thread(uint32_t id, uint64_t thread) {
  emit_thread_in(stream_get(), id, thread);
}

/* An event whose payload is two thread ids. */
static inline void emit_two_threads(uint32_t id, uint64_t a, uint64_t b) {
  if (UNLIKELY(!fits32(a | b))) return emit_wide(id, 2, a, b);
  stream_t *s = stream_get();
  uint8_t *p = reserve(s, &s->ring, id, 8);
  if (!p) return;
  mprof__put_u32(p, (uint32_t)a);
  mprof__put_u32(p + 4, (uint32_t)b);
  commit(&s->ring, p + 8);
}

/* --- Fast paths -------------------------------------------------------------
 * The libuv shim's events of every read and write (switches, a request's
 * create and end, net labels) first try the case that nearly always
 * holds: recording on with the TSC as the clock and this OS thread's
 * stream begun (one test: recorder_t.fast_session), room in the open
 * packet, ids that fit the compact form.  That
 * path calls nothing, so that the compiler saves no registers for it;
 * anything else goes to the event's general path, which starts over. */

/* This OS thread's stream, if an event may take its fast path; else 0. */
static inline stream_t *fast_stream(void) {
#if defined(__x86_64__)
  stream_t *s = &mprof__self;
  if (LIKELY(s->session ==
             __atomic_load_n(&mprof__recorder.fast_session, __ATOMIC_RELAXED)))
    return s;
#endif
  return 0;
}

/* The fast path's clock: the TSC (fast_stream() said so). */
static inline uint64_t fast_clock(void) {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

/* reserve_compact() in the ring. */
static inline uint8_t *fast_reserve(stream_t *s, uint32_t id, uint32_t size,
                                    uint64_t now) {
  return reserve_compact(&s->ring, id, size, now);
}

/* --- Events at one instant --------------------------------------------------
 * The libuv shim records some events in twos: a request's create and its
 * label, a callback's switch and its network label, a resolve and the
 * switch back to the loop.  Each pair is one reservation in the ring, with
 * one clock reading and one commit: the second event's compact header
 * carries the first one's time. */

/* Bytes of a compact event of one 32-bit thread id, header included. */
#define GROUP_SWITCH (MPROF__COMPACT_HEADER_SIZE + 4)

/* The events of a group after its first, dropped with it (reserve()
 * counted the first). */
COLD static void count_group_discarded(stream_t *s, int events) {
  while (--events > 0) mprof__count_discarded(s);
}

/* Room in the ring for `events` events at one instant, the first of id
 * `id`: `size` bytes after its header, the other events' headers
 * included.  0 if they are dropped (each one counted). */
static inline uint8_t *reserve_group(stream_t *s, uint32_t id, uint32_t size,
                                     int events) {
  uint8_t *p = reserve(s, &s->ring, id, size);
  if (UNLIKELY(!p)) count_group_discarded(s, events);
  return p;
}

/* The compact header, at p, of a group's event after its first (id): at
 * the group's time.  Returns where its payload goes. */
static inline uint8_t *put_group_header(stream_t *s, uint8_t *p, uint32_t id) {
  mprof__put_u32(p, id | (uint32_t)(s->ring.last_ts << 5));
  return p + MPROF__COMPACT_HEADER_SIZE;
}

/* thread, the payload at p of a group's event, then the header of the next
 * one (id); returns where its payload goes. */
static inline uint8_t *put_group_thread(stream_t *s, uint8_t *p,
                                        uint64_t thread, uint32_t id) {
  mprof__put_u32(p, (uint32_t)thread);
  return put_group_header(s, p + 4, id);
}

static size_t string_length(const char *text, size_t limit) {
  size_t n = 0;
  if (!text) return 0;
  while (n < limit && text[n]) n++;
  return n;
}

/* Longest string an event may carry in this trace. */
static size_t string_limit(void) {
  size_t room = mprof__recorder.packet_size - MPROF__PACKET_HEADER_SIZE -
                MPROF__EXTENDED_HEADER_SIZE - 8 - 1;
  return room < MAX_STRING_BYTES ? room : MAX_STRING_BYTES;
}

/* Where an event that belongs in the names area may go. */
enum { RING_ONLY, NAMES_OR_RING, NAMES_ONLY };

/* An event of a thread (or u16: counter, string) id and a string, of at
 * most `length` bytes.  Names-area events go to the ring when the names
 * area is full, if `where` allows.  Returns 0 if dropped. */
static int emit_id_string(stream_t *s, uint32_t id, uint64_t thread,
                          int counter, const char *text, size_t length,
                          int where) {
  int wide = !counter && !fits32(thread);
  uint32_t width = counter ? 2 : wide ? 8 : 4;
  uint32_t size = width + (uint32_t)length + 1;
  uint32_t event_id = id + (wide ? MPROF__WIDE : 0);
  cursor_t *c = where == RING_ONLY ? &s->ring : &s->names;
  uint8_t *p = reserve(s, c, event_id, size);
  if (!p && where == NAMES_OR_RING) {
    c = &s->ring;
    p = reserve(s, c, event_id, size);
  }
  if (!p) return 0;
  if (counter)
    mprof__put_u16(p, (uint16_t)thread);
  else if (wide)
    mprof__put_u64(p, thread);
  else
    mprof__put_u32(p, (uint32_t)thread);
  bytes_copy(p + width, text ? text : "", length);
  p[width + length] = 0;
  commit(c, p + size);
  return 1;
}

/* emit_id_string() of a NUL-terminated string, cut to what fits. */
static void emit_text(uint32_t id, uint64_t thread, int counter,
                      const char *text, int where) {
  stream_t *s = stream_get();
  emit_id_string(s, id, thread, counter, text,
                 string_length(text, string_limit()), where);
}

/* FNV-1a: the identity of a label string in the stream's table. */
static uint64_t hash_bytes(const char *text, size_t length) {
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < length; i++) {
    h ^= (uint8_t)text[i];
    h *= 0x100000001b3u;
  }
  return h;
}

/* The string id of the string of FNV-1a hash `hash` that this stream has
 * defined, if its table still holds it; else 0. */
static inline uint32_t interned_id(const stream_t *s, uint64_t hash) {
  for (uint32_t i = 0; i < INTERN_PROBES; i++) {
    const interned_t *probe = &s->interned[(hash + i) % INTERN_SLOTS];
    if (probe->id && probe->hash == hash) return probe->id;
  }
  return 0;
}

/* The string id of text (of FNV-1a hash `hash`) in this stream, defining
 * it in the names area the first time; 0 if it cannot be interned (names
 * area full, ids used up). */
static inline __attribute__((always_inline)) uint32_t
intern(stream_t *s, const char *text, size_t length, uint64_t hash) {
  interned_t *slot = NULL; /* the first free slot probed */
  for (uint32_t i = 0; i < INTERN_PROBES; i++) {
    interned_t *probe = &s->interned[(hash + i) % INTERN_SLOTS];
    if (!probe->id) {
      if (!slot) slot = probe;
    } else if (probe->hash == hash) {
      return probe->id;
    }
  }
  /* All probed slots taken: the newest string replaces the first one. */
  if (!slot) slot = &s->interned[hash % INTERN_SLOTS];
  if (s->next_string_id >= MAX_STRING_ID) return 0;
  uint32_t id = ++s->next_string_id;
  if (!emit_id_string(s, MPROF__EV_STRING, id, 1, text, length, NAMES_ONLY))
    return 0;
  slot->hash = hash;
  slot->id = id;
  return id;
}

/* A label as a reference to an interned string (thread id + u16). */
static int emit_label_ref(stream_t *s, uint64_t thread, uint32_t string_id) {
  int wide = !fits32(thread);
  uint32_t width = wide ? 8 : 4;
  uint32_t id = MPROF__EV_LABEL_REF + (wide ? MPROF__WIDE : 0);
  cursor_t *c = &s->names;
  uint8_t *p = reserve(s, c, id, width + 2);
  if (!p) p = reserve(s, c = &s->ring, id, width + 2);
  if (!p) return 0;
  if (wide)
    mprof__put_u64(p, thread);
  else
    mprof__put_u32(p, (uint32_t)thread);
  mprof__put_u16(p + width, (uint16_t)string_id);
  commit(c, p + width + 2);
  return 1;
}

static void emit_counter(uint32_t id, mprof_counter_t counter, int64_t value) {
  stream_t *s = stream_get();
  int wide = value < INT32_MIN || value > INT32_MAX;
  uint32_t size = wide ? 10 : 6;
  uint8_t *p = reserve(s, &s->ring, id + (wide ? MPROF__WIDE : 0), size);
  if (!p) return;
  mprof__put_u16(p, (uint16_t)counter);
  if (wide)
    mprof__put_u64(p + 2, (uint64_t)value);
  else
    mprof__put_u32(p + 2, (uint32_t)(int32_t)value);
  commit(&s->ring, p + size);
}

/* --- Public API ----------------------------------------------------------- */

int mprof_is_started(void) { return state_now() != STATE_OFF; }

/* A fresh thread id from this OS thread's chunk. */
static inline uint64_t mint_id(void) {
  if (UNLIKELY(next_id == id_end)) {
    uint64_t chunk = __atomic_fetch_add(&next_id_chunk, 1, __ATOMIC_RELAXED);
    next_id = chunk * ID_CHUNK + 1;
    id_end = next_id + ID_CHUNK;
  }
  return next_id++;
}

/* A create event: [parent,] child, type. */
static void emit_create(uint32_t id, int with_parent, uint64_t parent,
                        uint64_t child, mprof_type_t type) {
  stream_t *s = stream_get();
  int wide = !fits32(child) || (with_parent && !fits32(parent));
  uint32_t width = wide ? 8 : 4;
  uint32_t ids = with_parent ? 2 : 1;
  uint8_t *p =
      reserve(s, &s->ring, id + (wide ? MPROF__WIDE : 0), ids * width + 1);
  if (!p) return;
  uint8_t *q = p;
  if (with_parent) {
    if (wide)
      mprof__put_u64(q, parent);
    else
      mprof__put_u32(q, (uint32_t)parent);
    q += width;
  }
  if (wide)
    mprof__put_u64(q, child);
  else
    mprof__put_u32(q, (uint32_t)child);
  q[width] = (uint8_t)type;
  commit(&s->ring, q + width + 1);
}

uint64_t mprof__create(mprof_type_t type) {
  if (UNLIKELY(!is_started())) return MPROF_NONE;
  uint64_t child = mint_id();
  emit_create(MPROF__EV_CREATE, 0, 0, child, type);
  return child;
}

uint64_t mprof__create_by(uint64_t creator, mprof_type_t type) {
  if (UNLIKELY(!is_started())) return MPROF_NONE;
  uint64_t child = mint_id();
  emit_create(MPROF__EV_CREATE_BY, 1, creator, child, type);
  return child;
}

void mprof__read(uint64_t source) {
  if (UNLIKELY(!is_started())) return;
  if (source == mprof__self.current) return; /* reading oneself says nothing */
  emit_thread(MPROF__EV_READ, source);
}

void mprof__try_read(uint64_t source) {
  if (UNLIKELY(!is_started())) return;
  emit_thread(MPROF__EV_TRY_READ, source);
}

void mprof__resolve(uint64_t thread) {
  if (UNLIKELY(!is_started())) return;
  emit_thread(MPROF__EV_RESOLVE, thread);
}

void mprof__fail(uint64_t thread, const char *reason) {
  if (UNLIKELY(!is_started())) return;
  emit_text(MPROF__EV_FAIL, thread, 0, reason, RING_ONLY);
}

void mprof__becomes(uint64_t old_thread, uint64_t new_thread) {
  if (UNLIKELY(!is_started()) || old_thread == new_thread) return;
  emit_two_threads(MPROF__EV_BECOMES, old_thread, new_thread);
}

/* A label of text, interned if it can be (hash: its hash_bytes()). */
static void emit_label(stream_t *s, uint64_t thread, const char *text,
                       size_t length, uint64_t hash) {
  uint32_t string_id = intern(s, text, length, hash);
  if (string_id)
    emit_label_ref(s, thread, string_id);
  else
    emit_id_string(s, MPROF__EV_LABEL, thread, 0, text, length, NAMES_OR_RING);
}

void mprof__label(uint64_t thread, const char *label) {
  if (UNLIKELY(!is_started())) return;
  const char *text = label ? label : "";
  size_t length = string_length(text, string_limit());
  emit_label(stream_get(), thread, text, length, hash_bytes(text, length));
}

/* emit_label() of a label cut to the string limit. */
static void emit_label_cut(stream_t *s, uint64_t thread, const char *label,
                           size_t length, uint64_t hash) {
  size_t limit = string_limit();
  if (UNLIKELY(length > limit)) hash = hash_bytes(label, length = limit);
  emit_label(s, thread, label, length, hash);
}

void mprof__label_hashed(uint64_t thread, const char *label, size_t length,
                         uint64_t hash) {
  if (UNLIKELY(!is_started())) return;
  emit_label_cut(stream_get(), thread, label, length, hash);
}

/* Bytes of a create event and a label_ref event, compact, after the
 * create's header. */
#define CREATE_LABEL_SIZE (5 + MPROF__COMPACT_HEADER_SIZE + 6)

/* At p, reserved for them: a create of child and its label_ref.  Returns
 * where they end. */
static inline uint8_t *put_create_label(stream_t *s, uint8_t *p, uint64_t child,
                                        mprof_type_t type, uint32_t string_id) {
  mprof__put_u32(p, (uint32_t)child);
  p[4] = (uint8_t)type;
  p = put_group_header(s, p + 5, MPROF__EV_LABEL_REF);
  mprof__put_u32(p, (uint32_t)child);
  mprof__put_u16(p + 4, (uint16_t)string_id);
  return p + 6;
}

/* mprof__create_labelled() of child, minted, in stream s: its general
 * path. */
COLD static uint64_t create_labelled_minted(stream_t *s, uint64_t child,
                                            mprof_type_t type,
                                            const char *label, size_t length,
                                            uint64_t hash) {
  uint32_t string_id =
      length <= string_limit() ? intern(s, label, length, hash) : 0;
  if (UNLIKELY(!string_id || !fits32(child))) {
    emit_create(MPROF__EV_CREATE, 0, 0, child, type);
    emit_label_cut(s, child, label, length, hash);
    return child;
  }
  uint8_t *p = reserve_group(s, MPROF__EV_CREATE, CREATE_LABEL_SIZE, 2);
  if (p) commit(&s->ring, put_create_label(s, p, child, type, string_id));
  return child;
}

uint64_t mprof__create_labelled(mprof_type_t type, const char *label,
                                size_t length, uint64_t hash) {
  stream_t *s = fast_stream();
  if (UNLIKELY(!s)) {
    if (UNLIKELY(!is_started())) return MPROF_NONE;
    s = stream_get();
    return create_labelled_minted(s, mint_id(), type, label, length, hash);
  }
  uint64_t child = mint_id();
  uint32_t string_id = interned_id(s, hash);
  uint8_t *p;
  if (LIKELY(string_id && fits32(child) &&
             (p = fast_reserve(s, MPROF__EV_CREATE, CREATE_LABEL_SIZE,
                               fast_clock())))) {
    commit(&s->ring, put_create_label(s, p, child, type, string_id));
    return child;
  }
  return create_labelled_minted(s, child, type, label, length, hash);
}

/* At p, reserved for them: a resolve of thread and a switch to next,
 * committed. */
static inline void put_resolve_switch(stream_t *s, uint8_t *p, uint64_t thread,
                                      uint64_t next) {
  p = put_group_thread(s, p, thread, MPROF__EV_SWITCH);
  mprof__put_u32(p, (uint32_t)next);
  commit(&s->ring, p + 4);
}

/* mprof__resolve_switch()'s general path. */
COLD static void resolve_switch_general(uint64_t thread, uint64_t next) {
  if (UNLIKELY(!is_started())) return;
  stream_t *s = stream_get();
  if (UNLIKELY(next == s->current || !fits32(thread | next))) {
    emit_thread(MPROF__EV_RESOLVE, thread);
    mprof__switch(next);
    return;
  }
  /* A packet that the resolve opens starts with its resolver running. */
  uint8_t *p = reserve_group(s, MPROF__EV_RESOLVE, GROUP_SWITCH + 4, 2);
  s->current = next;
  if (p) put_resolve_switch(s, p, thread, next);
}

void mprof__resolve_switch(uint64_t thread, uint64_t next) {
  stream_t *s = fast_stream();
  uint8_t *p;
  if (LIKELY(s && next != s->current && fits32(thread | next) &&
             (p = fast_reserve(s, MPROF__EV_RESOLVE, GROUP_SWITCH + 4,
                               fast_clock())))) {
    s->current = next;
    put_resolve_switch(s, p, thread, next);
    return;
  }
  resolve_switch_general(thread, next);
}

uint64_t mprof__label_hash(const char *text, size_t length) {
  return hash_bytes(text, length);
}

/* v in width (4 or 8) bytes at p. */
static inline void put_width(uint8_t *p, uint32_t width, uint64_t v) {
  if (width == 8)
    mprof__put_u64(p, v);
  else
    mprof__put_u32(p, (uint32_t)v);
}

/* A net_label event (kind MPROF__EV_NET_LABEL: number the offset) or a
 * net_hash_label (number the hash, 64-bit in both forms): thread, the
 * head's string id, counter (or 0), number and length; after a switch to
 * thread at the same instant if switching.  In the ring, as the counter
 * events it stands for: its counter's increase needs the running thread,
 * which only the ring keeps. */
static inline __attribute__((always_inline)) void
emit_net_label(stream_t *s, uint32_t kind, int switching, int at_last,
               uint64_t thread, uint32_t string_id, mprof_counter_t counter,
               uint64_t number, uint64_t length) {
  int hashed = kind == MPROF__EV_NET_HASH_LABEL;
  int wide =
      !fits32(thread) || (!hashed && number > INT32_MAX) || length > INT32_MAX;
  uint32_t width = wide ? 8 : 4;
  uint32_t number_width = wide || hashed ? 8 : 4;
  uint32_t size = 2 * width + number_width + 4;
  uint32_t id = kind + (wide ? MPROF__WIDE : 0);
  if (UNLIKELY(wide && switching)) { /* the wide header is not compact */
    emit_thread(MPROF__EV_SWITCH, thread);
    switching = 0;
  }
  uint8_t *p = switching
                   ? reserve_group(s, MPROF__EV_SWITCH, GROUP_SWITCH + size, 2)
               : at_last ? reserve_at(s, &s->ring, id, size, s->ring.last_ts)
                         : reserve(s, &s->ring, id, size);
  if (!p) return;
  if (switching) p = put_group_thread(s, p, thread, id);
  put_width(p, width, thread);
  mprof__put_u16(p + width, (uint16_t)string_id);
  mprof__put_u16(p + width + 2, (uint16_t)counter);
  put_width(p + width + 4, number_width, number);
  put_width(p + width + 4 + number_width, width, length);
  commit(&s->ring, p + size);
}

/* A net label whose head is too long or cannot be interned: the counter's
 * increase, then its whole text as a label event, cut to the string
 * limit. */
COLD static void emit_net_text(stream_t *s, uint32_t kind, uint64_t thread,
                               const char *head, size_t head_length,
                               mprof_counter_t counter, uint64_t number,
                               uint64_t length) {
  char text[MAX_STRING_BYTES + MPROF__NET_LABEL_TAIL];
  if (counter)
    emit_counter(MPROF__EV_COUNTER_INCREASE, counter, (int64_t)length);
  size_t limit = string_limit();
  if (head_length > MAX_STRING_BYTES) head_length = MAX_STRING_BYTES;
  size_t n =
      mprof__net_label_text(text, head, head_length,
                            kind == MPROF__EV_NET_HASH_LABEL, number, length);
  emit_id_string(s, MPROF__EV_LABEL, thread, 0, text, n < limit ? n : limit,
                 NAMES_OR_RING);
}

/* Does a kept head's string id hold in stream s? */
static inline int head_id_holds(const stream_t *s,
                                const mprof__net_head_t *head) {
  return head->id && head->instance == s->instance &&
         head->session == s->session;
}

/* The string id of a kept head in stream s: its own when it was interned
 * in s, else interned now (and kept); 0 if it cannot be, or if tail more
 * bytes after it would pass the string limit. */
static inline __attribute__((always_inline)) uint32_t
head_id(stream_t *s, mprof__net_head_t *head, size_t tail) {
  if (LIKELY(head_id_holds(s, head))) return head->id;
  uint32_t id = head->length + tail <= string_limit()
                    ? intern(s, head->text, head->length, head->hash)
                    : 0;
  head->id = id;
  head->session = s->session;
  head->instance = s->instance;
  return id;
}

/* The general path of mprof__label_net_head() and
 * mprof__label_net_hash_head(), by kind. */
COLD static void label_net_head_general(uint32_t kind, mprof__net_stamp_t how,
                                        uint64_t thread,
                                        mprof__net_head_t *head,
                                        mprof_counter_t counter,
                                        uint64_t number, uint64_t length) {
  if (UNLIKELY(!is_started())) return;
  stream_t *s = stream_get();
  int switching = how == MPROF__NET_ENTER && thread != s->current;
  if (switching) s->current = thread;
  uint32_t string_id = head_id(s, head, MPROF__NET_LABEL_TAIL);
  if (LIKELY(string_id)) {
    emit_net_label(s, kind, switching, how == MPROF__NET_AT_LAST, thread,
                   string_id, counter, number, length);
    return;
  }
  if (switching) emit_thread(MPROF__EV_SWITCH, thread);
  emit_net_text(s, kind, thread, head->text, head->length, counter, number,
                length);
}

/* At p, the payload of a compact net_label (hashed: net_hash_label) event
 * of a head's string id, which the caller checked fits; returns its end. */
static inline uint8_t *put_net_label(uint8_t *p, int hashed, uint64_t thread,
                                     uint32_t string_id,
                                     mprof_counter_t counter, uint64_t number,
                                     uint64_t length) {
  mprof__put_u32(p, (uint32_t)thread);
  /* The head's string id and the counter, two u16, as one store. */
  mprof__put_u32(p + 4, (uint32_t)(uint16_t)string_id |
                            (uint32_t)(uint16_t)counter << 16);
  if (hashed) {
    mprof__put_u64(p + 8, number);
    p += 4;
  } else {
    mprof__put_u32(p + 8, (uint32_t)number);
  }
  mprof__put_u32(p + 12, (uint32_t)length);
  return p + 16;
}

/* mprof__label_net_head() and mprof__label_net_hash_head(), by kind and
 * stamp (each its own copy): the fast path of a head already interned in
 * this stream, in the compact form, else the general path. */
static inline __attribute__((always_inline)) void
label_net_head(uint32_t kind, mprof__net_stamp_t how, uint64_t thread,
               mprof__net_head_t *head, mprof_counter_t counter,
               uint64_t number, uint64_t length) {
  stream_t *s = fast_stream();
  int hashed = kind == MPROF__EV_NET_HASH_LABEL;
  if (LIKELY(s && head_id_holds(s, head) && fits32(thread) &&
             (hashed || number <= INT32_MAX) && length <= INT32_MAX)) {
    int switching = how == MPROF__NET_ENTER && thread != s->current;
    uint32_t size = hashed ? 20 : 16;
    uint8_t *p = switching ? fast_reserve(s, MPROF__EV_SWITCH,
                                          GROUP_SWITCH + size, fast_clock())
                 : how == MPROF__NET_AT_LAST
                     ? fast_reserve(s, kind, size, s->ring.last_ts)
                     : fast_reserve(s, kind, size, fast_clock());
    if (LIKELY(p)) {
      if (switching) {
        s->current = thread;
        p = put_group_thread(s, p, thread, kind);
      }
      commit(&s->ring, put_net_label(p, hashed, thread, head->id, counter,
                                     number, length));
      return;
    }
  }
  label_net_head_general(kind, how, thread, head, counter, number, length);
}

/* label_net_head() of a kind, specialized for how: the shim passes a
 * constant, each way its own copy, the cost of a TCP read or write. */
#define LABEL_NET_HEAD_BY_HOW(kind, how, ...)                                  \
  do {                                                                         \
    if ((how) == MPROF__NET_ENTER)                                             \
      label_net_head(kind, MPROF__NET_ENTER, __VA_ARGS__);                     \
    else if ((how) == MPROF__NET_AT_LAST)                                      \
      label_net_head(kind, MPROF__NET_AT_LAST, __VA_ARGS__);                   \
    else                                                                       \
      label_net_head(kind, MPROF__NET_NOW, __VA_ARGS__);                       \
  } while (0)

void mprof__label_net_head(mprof__net_stamp_t how, uint64_t thread,
                           mprof__net_head_t *head, mprof_counter_t counter,
                           uint64_t offset, uint64_t length) {
  LABEL_NET_HEAD_BY_HOW(MPROF__EV_NET_LABEL, how, thread, head, counter, offset,
                        length);
}

void mprof__label_net_hash_head(mprof__net_stamp_t how, uint64_t thread,
                                mprof__net_head_t *head,
                                mprof_counter_t counter, uint64_t hash,
                                uint64_t length) {
  LABEL_NET_HEAD_BY_HOW(MPROF__EV_NET_HASH_LABEL, how, thread, head, counter,
                        hash, length);
}

void mprof__label_net(mprof__net_stamp_t how, uint64_t thread, const char *head,
                      size_t head_length, uint64_t head_hash,
                      mprof_counter_t counter, uint64_t offset,
                      uint64_t length) {
  mprof__net_head_t once = {head, head_length, head_hash, 0, 0, 0};
  mprof__label_net_head(how, thread, &once, counter, offset, length);
}

void mprof__label_net_hash(mprof__net_stamp_t how, uint64_t thread,
                           const char *head, size_t head_length,
                           uint64_t head_hash, mprof_counter_t counter,
                           uint64_t hash, uint64_t length) {
  mprof__net_head_t once = {head, head_length, head_hash, 0, 0, 0};
  mprof__label_net_hash_head(how, thread, &once, counter, hash, length);
}

uint64_t mprof__mint(uint64_t *at) {
  if (LIKELY(fast_stream())) {
    *at = fast_clock();
    return mint_id();
  }
  *at = 0;
  return is_started() ? mint_id() : MPROF_NONE;
}

/* Bytes of a create, its label_ref and a compact net_label, after the
 * create's header. */
#define CREATE_SENT_SIZE (CREATE_LABEL_SIZE + MPROF__COMPACT_HEADER_SIZE + 16)

/* mprof__create_sent()'s general path: the create and its label at the
 * clock's reading now, the net label at their time. */
COLD static void create_sent_general(uint64_t child, mprof_type_t type,
                                     mprof__net_head_t *label,
                                     mprof__net_head_t *head,
                                     mprof_counter_t counter, uint64_t offset,
                                     uint64_t length) {
  if (UNLIKELY(!is_started())) return;
  stream_t *s = stream_get();
  head_id(s, label, 0); /* kept for the fast path of the next */
  create_labelled_minted(s, child, type, label->text, label->length,
                         label->hash);
  if (head)
    label_net_head_general(MPROF__EV_NET_LABEL, MPROF__NET_AT_LAST, child, head,
                           counter, offset, length);
}

void mprof__create_sent(uint64_t at, uint64_t child, mprof_type_t type,
                        mprof__net_head_t *label, mprof__net_head_t *head,
                        mprof_counter_t counter, uint64_t offset,
                        uint64_t length) {
  stream_t *s = fast_stream();
  uint8_t *p;
  if (LIKELY(at && s && head_id_holds(s, label) && fits32(child) &&
             (!head || (head_id_holds(s, head) && offset <= INT32_MAX &&
                        length <= INT32_MAX)) &&
             (p = fast_reserve(s, MPROF__EV_CREATE,
                               head ? CREATE_SENT_SIZE : CREATE_LABEL_SIZE,
                               at)))) {
    p = put_create_label(s, p, child, type, label->id);
    if (head)
      p = put_net_label(put_group_header(s, p, MPROF__EV_NET_LABEL), 0, child,
                        head->id, counter, offset, length);
    commit(&s->ring, p);
    return;
  }
  create_sent_general(child, type, label, head, counter, offset, length);
}

void mprof__signal(uint64_t target) {
  if (UNLIKELY(!is_started())) return;
  emit_thread(MPROF__EV_SIGNAL, target);
}

/* mprof__switch()'s general path. */
COLD static void switch_general(uint64_t thread) {
  if (UNLIKELY(!is_started())) return;
  stream_t *s = stream_get();
  if (thread == s->current) return;
  s->current = thread;
  emit_thread_in(s, MPROF__EV_SWITCH, thread);
}

void mprof__switch(uint64_t thread) {
  stream_t *s = fast_stream();
  uint8_t *p;
  if (LIKELY(s && fits32(thread))) {
    if (thread == s->current) return;
    if (LIKELY(p = fast_reserve(s, MPROF__EV_SWITCH, 4, fast_clock()))) {
      s->current = thread;
      mprof__put_u32(p, (uint32_t)thread);
      commit(&s->ring, p + 4);
      return;
    }
  }
  switch_general(thread);
}

/* mprof__suspend()'s general path. */
COLD static void suspend_general(void) {
  if (UNLIKELY(!is_started())) return;
  stream_t *s = stream_get();
  s->current = MPROF_NONE;
  uint8_t *p = reserve(s, &s->ring, MPROF__EV_SUSPEND, 0);
  if (p) commit(&s->ring, p);
}

void mprof__suspend(void) {
  stream_t *s = fast_stream();
  uint8_t *p;
  if (LIKELY(s && (p = fast_reserve(s, MPROF__EV_SUSPEND, 0, fast_clock())))) {
    s->current = MPROF_NONE;
    commit(&s->ring, p);
    return;
  }
  suspend_general();
}

void mprof__should_resolve(uint64_t thread) {
  if (UNLIKELY(!is_started())) return;
  stream_t *s = stream_get();
  uint32_t id = MPROF__EV_SHOULD_RESOLVE;
  int wide = !fits32(thread);
  uint32_t size = wide ? 8 : 4;
  cursor_t *c = &s->names;
  uint8_t *p = reserve(s, c, id + (wide ? MPROF__WIDE : 0), size);
  if (!p) {
    c = &s->ring;
    p = reserve(s, c, id + (wide ? MPROF__WIDE : 0), size);
  }
  if (!p) return;
  if (wide)
    mprof__put_u64(p, thread);
  else
    mprof__put_u32(p, (uint32_t)thread);
  commit(c, p + size);
}

mprof_counter_t mprof_counter_make(const char *name) {
  uint32_t counter = __atomic_add_fetch(&counter_count, 1, __ATOMIC_RELAXED);
  if (counter > MAX_COUNTERS) return 0;
  counter_names[counter] = name;
  if (state_now() == STATE_ON) /* else the start writes it */
    emit_text(MPROF__EV_COUNTER_NAME, counter, 1, name, NAMES_OR_RING);
  return counter;
}

void mprof__counter_increase(mprof_counter_t counter, int64_t amount) {
  if (UNLIKELY(!is_started()) || counter == 0) return;
  emit_counter(MPROF__EV_COUNTER_INCREASE, counter, amount);
}

void mprof__counter_value(mprof_counter_t counter, int64_t value) {
  if (UNLIKELY(!is_started()) || counter == 0) return;
  emit_counter(MPROF__EV_COUNTER_VALUE, counter, value);
}

uint64_t mprof_current(void) { return mprof__self.current; }

uint64_t mprof_discarded(void) { return mprof__self.discarded; }

void mprof_thread_exit(void) {
  if (state_now() != STATE_ON || mprof__self.session != mprof__recorder.session)
    return;
  mprof__close_packet(&mprof__self.ring);
  mprof__close_packet(&mprof__self.names);
  mprof__self.session = 0;
}

/* Write the names of counters made before this start into the trace. */
void mprof__replay_counter_names(void) {
  uint32_t made = __atomic_load_n(&counter_count, __ATOMIC_RELAXED);
  for (uint32_t i = 1; i <= made && i <= MAX_COUNTERS; i++)
    if (counter_names[i])
      emit_text(MPROF__EV_COUNTER_NAME, i, 1, counter_names[i], NAMES_OR_RING);
}
