/* record_start.c -- the recorder's start and stop: the trace laid out in
 * the caller's buffer (header, metadata, slot states, packets) so that a
 * reader sees either no trace or a whole one, the stop, and the start of a
 * forked child's trace at its first event.  docs/FORMAT.md, section 1.1,
 * has the order of the start's writes.
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
