/* record_start.c -- the recorder's start and stop: the trace laid out in
 * the caller's buffer (header, metadata, slot states, packets) so that a
 * reader sees either no trace or a whole one, the stop, and the start of a
 * forked child's trace at its first event; and the trace's packets as the
 * OS threads' streams claim, open and close them (record.c writes the
 * events into them).  docs/FORMAT.md, section 1.1, has the order of the
 * start's writes.
 */
#include <stdint.h>

#include "record_internal.h"

static int (*pending_start)(void); /* see mprof__start_pending() */
/* Nonzero in the OS thread running pending_start. */
static _Thread_local int starting_here
    __attribute__((tls_model("initial-exec")));

/* --- Start and stop ------------------------------------------------------- */

static uint32_t choose_packet_size(size_t size) {
  uint32_t packet = 4096;
  while (packet < 64u * 1024u && (uint64_t)packet * 128 <= size) packet *= 2;
  return packet;
}

static void derive_uuid(uint8_t uuid[16], const mprof_config_t *config,
                        uint64_t now) {
  uint64_t h = 0x9E3779B97F4A7C15u ^ now ^ (uint64_t)(uintptr_t)config->buffer;
  for (int i = 0; i < 16; i++) {
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 32;
    uuid[i] = (uint8_t)h;
  }
  uuid[6] = (uint8_t)((uuid[6] & 0x0F) | 0x40); /* version 4 */
  uuid[8] = (uint8_t)((uuid[8] & 0x3F) | 0x80); /* variant 1 */
}

static int uuid_is_zero(const uint8_t uuid[16]) {
  for (int i = 0; i < 16; i++)
    if (uuid[i]) return 0;
  return 1;
}

/* Lay the trace out in the buffer: header, metadata, slot states, packets.
 * A fresh buffer (all zeros) keeps its zero slot states and packets. */
static int layout_trace(const mprof_config_t *config, uint32_t packet_size,
                        uint64_t now, int fresh) {
  uint8_t *b = config->buffer;
  mprof__metadata_params_t params = {mprof__recorder.uuid,
                                     config->clock_freq_hz,
                                     config->clock_offset_ns, config->name};
  size_t room = config->size - MPROF__TRACE_HEADER_SIZE;
  /* Measure first: a start that fails leaves an earlier trace intact. */
  size_t metadata_size = mprof__metadata_write(NULL, room, &params);
  if (metadata_size == 0) return MPROF_ENOSPC;
  uint64_t slots_offset =
      (MPROF__TRACE_HEADER_SIZE + metadata_size + 1 + 7) & ~(uint64_t)7;
  uint64_t align = packet_size < 4096 ? packet_size : 4096;
  uint64_t count = (config->size - slots_offset) / (packet_size + 8);
  uint64_t packets_offset = 0;
  for (; count > 0; count--) {
    packets_offset = (slots_offset + 8 * count + align - 1) & ~(align - 1);
    if (packets_offset + count * packet_size <= config->size) break;
  }
  if (count < 4 || count > UINT32_MAX) return MPROF_ENOSPC;
  uint32_t names = (uint32_t)(count / 16 < 2 ? 2 : count / 16);

  /* A reused buffer must not show an old trace's magic over new bytes. */
  bytes_zero(b + MPROF__TH_MAGIC, 8);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  mprof__metadata_write((char *)b + MPROF__TRACE_HEADER_SIZE, room, &params);
  bytes_zero(b, MPROF__TRACE_HEADER_SIZE);
  mprof__put_u32(b + MPROF__TH_VERSION, MPROF__TRACE_VERSION);
  mprof__put_u32(b + MPROF__TH_RING_MODE, (uint32_t)config->ring_mode);
  mprof__put_u64(b + MPROF__TH_BUFFER_SIZE, config->size);
  mprof__put_u32(b + MPROF__TH_PACKET_SIZE, packet_size);
  mprof__put_u32(b + MPROF__TH_PACKET_COUNT, (uint32_t)count);
  mprof__put_u32(b + MPROF__TH_RING_COUNT, (uint32_t)count - names);
  mprof__put_u32(b + MPROF__TH_METADATA_SIZE, (uint32_t)metadata_size);
  mprof__put_u64(b + MPROF__TH_METADATA_OFFSET, MPROF__TRACE_HEADER_SIZE);
  mprof__put_u64(b + MPROF__TH_SLOTS_OFFSET, slots_offset);
  mprof__put_u64(b + MPROF__TH_PACKETS_OFFSET, packets_offset);
  mprof__put_u64(b + MPROF__TH_CLOCK_FREQ, config->clock_freq_hz);
  mprof__put_u64(b + MPROF__TH_CLOCK_OFFSET, (uint64_t)config->clock_offset_ns);
  bytes_copy(b + MPROF__TH_UUID, mprof__recorder.uuid, 16);
  mprof__put_u64(b + MPROF__TH_START_TICKS, now);
  if (!fresh) {
    bytes_zero(b + slots_offset, 8 * count);
    /* Empty packets read as "never written": zero their magic. */
    for (uint64_t i = 0; i < count; i++)
      bytes_zero(b + packets_offset + i * packet_size,
                 MPROF__PACKET_HEADER_SIZE);
  }

  /* The magic goes in last: a reader that sees it sees a whole header. */
  __atomic_thread_fence(__ATOMIC_RELEASE);
  bytes_copy(b + MPROF__TH_MAGIC, MPROF__TRACE_MAGIC, 8);

  mprof__recorder.buffer = b;
  mprof__recorder.header = b;
  mprof__recorder.slots = (uint64_t *)(b + slots_offset);
  mprof__recorder.packets = b + packets_offset;
  mprof__recorder.packet_size = packet_size;
  mprof__recorder.ring_count = (uint32_t)count - names;
  mprof__recorder.names_count = names;
  return 0;
}

static int start(const mprof_config_t *config,
                 int (*prepare_packet)(uint8_t *packet, uint32_t size)) {
  if (!config || !config->buffer || ((uintptr_t)config->buffer & 7))
    return MPROF_EINVAL;
  if (state_now() != STATE_OFF && !starting_here) return MPROF_EBUSY;
  if (config->size < MPROF_MIN_SIZE) return MPROF_ENOSPC;
  uint32_t packet_size = config->packet_size ? config->packet_size
                                             : choose_packet_size(config->size);
  if (packet_size < 1024 || packet_size > MPROF__MAX_PACKET_SIZE ||
      (packet_size & (packet_size - 1)) ||
      (config->ring_mode != MPROF_RING_OVERWRITE &&
       config->ring_mode != MPROF_RING_DISCARD))
    return MPROF_EINVAL;
  if (config->clock_freq_hz == 0) return MPROF_ENOCLOCK;
#if !defined(__x86_64__)
  if (!config->clock) return MPROF_ENOCLOCK;
#endif
  mprof__recorder.clock = config->clock;
  uint64_t now = clock_now();
  if (uuid_is_zero(config->uuid))
    derive_uuid(mprof__recorder.uuid, config, now);
  else
    bytes_copy(mprof__recorder.uuid, config->uuid, 16);
  int err = layout_trace(config, packet_size, now, prepare_packet != 0);
  if (err) return err;
  mprof__recorder.prepare_packet = prepare_packet;
  mprof__recorder.ring_mode = config->ring_mode;
  mprof__recorder.os_thread_id = config->os_thread_id;
  mprof__recorder.on_new_stream = config->on_new_stream;
  mprof__recorder.session++;
  mprof__put_u32(mprof__recorder.header + MPROF__TH_STATE,
                 MPROF__STATE_RECORDING);
  fast_session_set(config->clock ? NO_FAST_SESSION : mprof__recorder.session);
  __atomic_store_n(&mprof__recording, STATE_ON, __ATOMIC_RELEASE);
  mprof__replay_counter_names();
  return 0;
}

int mprof_start(const mprof_config_t *config) { return start(config, 0); }

int mprof__start_fresh(const mprof_config_t *config,
                       int (*prepare_packet)(uint8_t *packet, uint32_t size)) {
  return start(config, prepare_packet);
}

void mprof_stop(void) {
  int state = STATE_PENDING;
  if (__atomic_compare_exchange_n(&mprof__recording, &state, STATE_OFF, 0,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
      state != STATE_ON)
    return; /* a pending start is called off; it wrote nothing */
  fast_session_set(NO_FAST_SESSION);
  mprof_thread_exit();
  __atomic_store_n(&mprof__recording, STATE_OFF, __ATOMIC_RELEASE);
  mprof__put_u64(mprof__recorder.header + MPROF__TH_END_TICKS, clock_now());
  __atomic_store_n((uint32_t *)(mprof__recorder.header + MPROF__TH_STATE),
                   MPROF__STATE_STOPPED, __ATOMIC_RELEASE);
}

void mprof__forget_after_fork(void) {
  fast_session_set(NO_FAST_SESSION);
  __atomic_store_n(&mprof__recording, STATE_OFF, __ATOMIC_RELEASE);
  mprof__self.session = 0;
  mprof__self.ring.packet = mprof__self.ring.pos = mprof__self.ring.end = 0;
  mprof__self.names.packet = mprof__self.names.pos = mprof__self.names.end = 0;
}

void mprof__start_pending(int (*start)(void)) {
  pending_start = start;
  __atomic_store_n(&mprof__recording, STATE_PENDING, __ATOMIC_RELEASE);
}

/* One OS thread runs the start, the others wait for it.  An event recorded
 * on the starting thread itself (a signal handler) is dropped. */
int mprof__start_pending_now(void) {
  int state = STATE_PENDING;
  if (__atomic_compare_exchange_n(&mprof__recording, &state, STATE_STARTING, 0,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    starting_here = 1;
    int err = pending_start();
    starting_here = 0;
    if (err) __atomic_store_n(&mprof__recording, STATE_OFF, __ATOMIC_RELEASE);
    return !err;
  }
  while (state == STATE_STARTING && !starting_here) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
    state = state_now();
  }
  return state == STATE_ON;
}

/* --- Packets and streams ------------------------------------------------- */

/* A packet's first claim: its memory made ready by the platform (see
 * mprof__start_fresh()).  One that cannot be stays claimed, never used. */
static int packet_ready(uint32_t slot) {
  return !mprof__recorder.prepare_packet ||
         mprof__recorder.prepare_packet(mprof__recorder.packets +
                                            (uint64_t)slot *
                                                mprof__recorder.packet_size,
                                        mprof__recorder.packet_size) == 0;
}

/* Claim a free packet in [first, first+count) for this stream.  Returns its
 * index, or -1 if none is free (discard mode full, names area full, or every
 * ring packet held by another OS thread). */
static int64_t claim_slot(uint32_t first, uint32_t count, int overwrite,
                          uint32_t claims_field) {
  uint64_t *claims = (uint64_t *)(mprof__recorder.header + claims_field);
  for (uint32_t attempt = 0; attempt < count; attempt++) {
    if (!overwrite && __atomic_load_n(claims, __ATOMIC_RELAXED) >= count)
      return -1;
    uint64_t ticket = __atomic_fetch_add(claims, 1, __ATOMIC_RELAXED);
    if (!overwrite && ticket >= count) return -1;
    uint32_t slot = first + (uint32_t)(ticket % count);
    uint64_t state =
        __atomic_load_n(&mprof__recorder.slots[slot], __ATOMIC_RELAXED);
    if (state & MPROF__SLOT_BUSY) continue;
    uint64_t next = ((state >> MPROF__SLOT_GEN_SHIFT) + 1)
                        << MPROF__SLOT_GEN_SHIFT |
                    MPROF__SLOT_BUSY | MPROF__SLOT_INIT;
    if (__atomic_compare_exchange_n(&mprof__recorder.slots[slot], &state, next,
                                    0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED) &&
        (state >> MPROF__SLOT_GEN_SHIFT || packet_ready(slot)))
      return slot;
  }
  return -1;
}

static void write_packet_header(stream_t *s, cursor_t *c, uint32_t stream_id,
                                uint64_t now) {
  uint8_t *p = c->packet;
  mprof__put_u32(p + MPROF__PH_MAGIC, MPROF__PACKET_MAGIC);
  bytes_copy(p + MPROF__PH_UUID, mprof__recorder.uuid, 16);
  mprof__put_u32(p + MPROF__PH_STREAM_ID, stream_id);
  mprof__put_u64(p + MPROF__PH_STREAM_INSTANCE, s->instance);
  mprof__put_u64(p + MPROF__PH_TIMESTAMP_BEGIN, now);
  mprof__put_u64(p + MPROF__PH_TIMESTAMP_END, now);
  mprof__put_u64(p + MPROF__PH_PACKET_SIZE,
                 (uint64_t)mprof__recorder.packet_size * 8);
  mprof__put_u64(p + MPROF__PH_SEQ_NUM, c->next_seq++);
  /* Drops are counted in the ring stream only: names-area events that do
   * not fit go to the ring instead. */
  mprof__put_u64(p + MPROF__PH_DISCARDED,
                 stream_id == MPROF__STREAM_RING ? s->discarded : 0);
  mprof__put_u64(p + MPROF__PH_CURRENT_THREAD, s->current);
  mprof__put_u32(p + MPROF__PH_OS_THREAD_ID, s->os_thread_id);
  c->pos = p + MPROF__PACKET_HEADER_SIZE;
  c->end = p + mprof__recorder.packet_size;
  c->last_ts = now;
  commit(c, c->pos);
}

/* Give a full (or finished) packet back; readers may now see it whole. */
void mprof__close_packet(cursor_t *c) {
  if (!c->packet) return;
  mprof__put_u64(c->packet + MPROF__PH_TIMESTAMP_END, c->last_ts);
  uint64_t *slot = &mprof__recorder.slots[c->slot];
  uint64_t state = __atomic_load_n(slot, __ATOMIC_RELAXED);
  __atomic_store_n(slot, state & ~(uint64_t)MPROF__SLOT_BUSY, __ATOMIC_RELEASE);
  c->packet = c->pos = c->end = 0;
}

/* Open a new packet for cursor c.  The old one is closed only once the new
 * one is ready (INIT cleared): until then it stays BUSY, so no other OS
 * thread can reuse it, and a process killed in between still holds this
 * stream's newest events.  A stream that runs out of packets keeps its last
 * packet and counts what it drops in that packet's events_discarded. */
static int open_packet(stream_t *s, cursor_t *c, int names, uint64_t now) {
  int64_t slot =
      names ? claim_slot(mprof__recorder.ring_count,
                         mprof__recorder.names_count, 0, MPROF__TH_NAMES_CLAIMS)
            : claim_slot(0, mprof__recorder.ring_count,
                         mprof__recorder.ring_mode == MPROF_RING_OVERWRITE,
                         MPROF__TH_RING_CLAIMS);
  if (slot < 0) return -1;
  cursor_t old = *c;
  c->slot = (uint32_t)slot;
  c->packet =
      mprof__recorder.packets + (uint64_t)slot * mprof__recorder.packet_size;
  write_packet_header(s, c, names ? MPROF__STREAM_NAMES : MPROF__STREAM_RING,
                      now);
  uint64_t *state = &mprof__recorder.slots[slot];
  __atomic_store_n(state,
                   __atomic_load_n(state, __ATOMIC_RELAXED) &
                       ~(uint64_t)MPROF__SLOT_INIT,
                   __ATOMIC_RELEASE);
  mprof__close_packet(&old);
  return 0;
}

/* Count a dropped event in the stream's ring packet, or, for an OS thread
 * that never got one (discard mode, the ring used up before it started),
 * in the trace header, which all such threads share. */
void mprof__count_discarded(stream_t *s) {
  s->discarded++;
  if (s->ring.packet)
    mprof__put_u64(s->ring.packet + MPROF__PH_DISCARDED, s->discarded);
  else
    __atomic_fetch_add(
        (uint64_t *)(mprof__recorder.header + MPROF__TH_ORPHAN_DISCARDED), 1,
        __ATOMIC_RELAXED);
}

/* First event of this OS thread in this session: take a stream number. */
void mprof__stream_begin(stream_t *s) {
  uint64_t current = s->session ? s->current : MPROF_NONE;
  bytes_zero((uint8_t *)s, sizeof *s);
  s->session = mprof__recorder.session;
  s->current = current;
  s->instance = __atomic_fetch_add(
      (uint32_t *)(mprof__recorder.header + MPROF__TH_STREAM_COUNT), 1,
      __ATOMIC_RELAXED);
  if (mprof__recorder.os_thread_id)
    s->os_thread_id = mprof__recorder.os_thread_id();
  if (mprof__recorder.on_new_stream) mprof__recorder.on_new_stream();
}

/* Reserve room for an event of `size` payload bytes in cursor c and write
 * its header.  Returns where the payload goes, or 0 if the event is dropped
 * (counted).  The slow path handles new packets and extended headers. */
uint8_t *mprof__reserve_slow(stream_t *s, cursor_t *c, int names, uint32_t id,
                             uint32_t size, uint64_t now) {
  if (now < c->last_ts) now = c->last_ts; /* never let time run backwards */
  for (int tries = 0; tries < 2; tries++) {
    if (c->packet) {
      int compact = id < MPROF__ID_EXTENDED &&
                    now - c->last_ts < ((uint64_t)1 << MPROF__COMPACT_TS_BITS);
      uint32_t header =
          compact ? MPROF__COMPACT_HEADER_SIZE : MPROF__EXTENDED_HEADER_SIZE;
      if ((uint64_t)(c->end - c->pos) >= header + size) {
        uint8_t *p = c->pos;
        if (compact) {
          mprof__put_u32(p, id | (uint32_t)(now << 5));
        } else {
          p[0] = MPROF__ID_EXTENDED;
          mprof__put_u32(p + 1, id);
          mprof__put_u64(p + 5, now);
        }
        c->last_ts = now;
        return p + header;
      }
    }
    if (open_packet(s, c, names, now) < 0) break;
  }
  if (names) return 0; /* caller falls back to the ring */
  mprof__count_discarded(s);
  return 0;
}
