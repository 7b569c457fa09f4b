/* format.h -- the mprof trace format: the contract between the recorder
 * (src/record) and the reader (src/read).  docs/FORMAT.md explains every
 * byte; this file is its machine form.  Freestanding: no libc.
 *
 * A trace is one buffer (an mmapped file on Unix):
 *
 *   trace header  (MPROF__TRACE_HEADER_SIZE bytes, fixed fields below)
 *   metadata      (CTF 1.8 TSDL text, NUL-terminated)
 *   slot states   (one u64 per packet: generation and busy flags)
 *   packets       (packet_count packets of packet_size bytes, CTF packets)
 *
 * Packets 0 .. ring_packet_count-1 form the ring (CTF stream class 0), the
 * rest the names area (stream class 1), which is never overwritten and keeps
 * labels, counter names and should_resolve hints.  Each OS thread writes its
 * own CTF stream (stream_instance_id) in each area.
 */
#ifndef MPROF_FORMAT_H
#define MPROF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* --- Trace header (little-endian, at offset 0 of the buffer) ------------ */

#define MPROF__TRACE_MAGIC "MPROFCTF"
#define MPROF__TRACE_VERSION 1u
#define MPROF__TRACE_HEADER_SIZE 144u
/* Traces written before the header grew to 136 bytes have 128 (their
 * metadata at offset 128) and no MPROF__TH_ORPHAN_DISCARDED; those
 * written before it grew to 144 have no MPROF__TH_END_TICKS. */
#define MPROF__TRACE_HEADER_SIZE_V1_0 128u
/* Largest packet a writer makes and a reader accepts. */
#define MPROF__MAX_PACKET_SIZE (1u << 30)

/* Byte offsets of the trace header's fields. */
enum {
  MPROF__TH_MAGIC = 0,              /* char[8] "MPROFCTF" */
  MPROF__TH_VERSION = 8,            /* u32 */
  MPROF__TH_RING_MODE = 12,         /* u32: mprof_ring_mode_t */
  MPROF__TH_BUFFER_SIZE = 16,       /* u64: bytes in the whole trace */
  MPROF__TH_PACKET_SIZE = 24,       /* u32: bytes per packet */
  MPROF__TH_PACKET_COUNT = 28,      /* u32: ring + names packets */
  MPROF__TH_RING_COUNT = 32,        /* u32: ring packets */
  MPROF__TH_METADATA_SIZE = 36,     /* u32: TSDL bytes, without the NUL */
  MPROF__TH_METADATA_OFFSET = 40,   /* u64 */
  MPROF__TH_SLOTS_OFFSET = 48,      /* u64: u64 slot state per packet */
  MPROF__TH_PACKETS_OFFSET = 56,    /* u64: first packet */
  MPROF__TH_CLOCK_FREQ = 64,        /* u64: clock ticks per second */
  MPROF__TH_CLOCK_OFFSET = 72,      /* i64: wall-clock ns at tick 0 */
  MPROF__TH_UUID = 80,              /* u8[16], also in every packet */
  MPROF__TH_STATE = 96,             /* u32: MPROF__STATE_* (live) */
  MPROF__TH_STREAM_COUNT = 100,     /* u32: streams handed out (live) */
  MPROF__TH_RING_CLAIMS = 104,      /* u64: ring packets claimed (live) */
  MPROF__TH_NAMES_CLAIMS = 112,     /* u64: names packets claimed (live) */
  MPROF__TH_START_TICKS = 120,      /* u64: clock at mprof_start() */
  MPROF__TH_ORPHAN_DISCARDED = 128, /* u64: events dropped by OS threads that
                                       never had a ring packet (live) */
  MPROF__TH_END_TICKS = 136         /* u64: clock when the recording ended,
                                       0 while it goes on or if unknown */
};

enum { MPROF__STATE_RECORDING = 1, MPROF__STATE_STOPPED = 2 };

/* Slot state: generation << 2 | flags.  The generation grows each time
 * the packet is claimed; a reader that sees the same generation (and no
 * INIT flag) before and after copying a packet has a consistent copy. */
enum { MPROF__SLOT_BUSY = 1, MPROF__SLOT_INIT = 2, MPROF__SLOT_GEN_SHIFT = 2 };

/* --- CTF packet header and context (natural alignment) ------------------ */

#define MPROF__PACKET_MAGIC 0xC1FC1FC1u

enum {
  MPROF__PH_MAGIC = 0,            /* u32 */
  MPROF__PH_UUID = 4,             /* u8[16] */
  MPROF__PH_STREAM_ID = 20,       /* u32: 0 ring, 1 names */
  MPROF__PH_STREAM_INSTANCE = 24, /* u64: the OS thread's stream number */
  MPROF__PH_TIMESTAMP_BEGIN = 32, /* u64 clock */
  MPROF__PH_TIMESTAMP_END = 40,   /* u64 clock */
  MPROF__PH_CONTENT_SIZE = 48,    /* u64 bits, the commit counter */
  MPROF__PH_PACKET_SIZE = 56,     /* u64 bits */
  MPROF__PH_SEQ_NUM = 64,         /* u64 packet_seq_num, per stream */
  MPROF__PH_DISCARDED = 72,       /* u64 events_discarded, running */
  MPROF__PH_CURRENT_THREAD = 80,  /* u64 async thread running at begin */
  MPROF__PH_OS_THREAD_ID = 88,    /* u32 */
  MPROF__PACKET_HEADER_SIZE = 92
};

enum { MPROF__STREAM_RING = 0, MPROF__STREAM_NAMES = 1 };

/* --- Event header -------------------------------------------------------
 * Compact (4 bytes, little-endian u32): bits 0-4 event id (0-30), bits
 * 5-31 the low 27 bits of the clock.  Extended (13 bytes): first byte 31,
 * then u32 event id, then u64 full clock.  A writer uses the extended form
 * when the id is >= 31 or 2^27 ticks or more passed since the stream's
 * previous event (or the packet's timestamp_begin), as LTTng does. */
enum {
  MPROF__ID_EXTENDED = 31,
  MPROF__COMPACT_HEADER_SIZE = 4,
  MPROF__EXTENDED_HEADER_SIZE = 13,
  MPROF__COMPACT_TS_BITS = 27
};

/* --- Event classes --------------------------------------------------------
 * Ids 0-30 use compact 32-bit thread ids and 32-bit values; the same event
 * with 64-bit fields ("wide") has id + MPROF__WIDE and an extended header.
 * Both stream classes declare every event class. */
#define MPROF__WIDE 32

typedef enum mprof__field_kind_e {
  MPROF__F_THREAD,  /* thread id: u32, u64 when wide */
  MPROF__F_TYPE,    /* thread type: u8 enum */
  MPROF__F_STRING,  /* NUL-terminated bytes */
  MPROF__F_COUNTER, /* counter id: u16 */
  MPROF__F_VALUE,   /* signed value: i32, i64 when wide */
  MPROF__F_NAME,    /* string id of the stream's string table: u16 */
  MPROF__F_HASH     /* a hash: u64 in both forms */
} mprof__field_kind_t;

#define MPROF__MAX_FIELDS 5

typedef struct mprof__field_s {
  uint8_t kind; /* mprof__field_kind_t */
  const char *name;
} mprof__field_t;

typedef struct mprof__event_class_s {
  const char *name;
  uint8_t field_count;
  mprof__field_t fields[MPROF__MAX_FIELDS];
} mprof__event_class_t;

/* Event ids (compact). X(ENUM, "name") in id order. */
typedef enum mprof__event_id_e {
  MPROF__EV_SWITCH = 0,       /* thread */
  MPROF__EV_CREATE,           /* child, thread_type (parent = current) */
  MPROF__EV_CREATE_BY,        /* parent, child, thread_type */
  MPROF__EV_READ,             /* source (reader = current) */
  MPROF__EV_TRY_READ,         /* source (reader = current) */
  MPROF__EV_RESOLVE,          /* thread (resolver = current) */
  MPROF__EV_FAIL,             /* thread, reason */
  MPROF__EV_BECOMES,          /* old_thread, new_thread */
  MPROF__EV_LABEL,            /* thread, label */
  MPROF__EV_SIGNAL,           /* target (source = current) */
  MPROF__EV_SUSPEND,          /* (nothing runs until the next switch) */
  MPROF__EV_SHOULD_RESOLVE,   /* thread */
  MPROF__EV_COUNTER_NAME,     /* counter, name */
  MPROF__EV_COUNTER_INCREASE, /* counter, amount */
  MPROF__EV_COUNTER_VALUE,    /* counter, value */
  MPROF__EV_STRING,           /* string_id, text: defines an interned string */
  MPROF__EV_LABEL_REF,        /* thread, string_id: a label, interned */
  MPROF__EV_NET_LABEL,        /* thread, string_id, counter, offset, length:
                                 counter += length (counter 0: none), then
                                 the label "HEAD OFFSET LENGTH", HEAD
                                 interned */
  MPROF__EV_NET_HASH_LABEL,   /* thread, string_id, counter, hash, length:
                                 as net_label, the label "HEAD HASH
                                 LENGTH", HASH in 16 hex digits */
  MPROF__EV_COUNT
} mprof__event_id_t;

/* The event classes, indexed by compact id. */
extern const mprof__event_class_t mprof__event_classes[MPROF__EV_COUNT];

/* Write the CTF 1.8 metadata of a trace into out (capacity bytes, NUL
 * terminated); out NULL only measures.  Returns its length without the NUL,
 * or 0 if it did not fit. */
typedef struct mprof__metadata_params_s {
  const uint8_t *uuid; /* 16 bytes */
  uint64_t clock_freq_hz;
  int64_t clock_offset_ns; /* wall-clock ns at tick 0 */
  const char *name;        /* program name or NULL */
} mprof__metadata_params_t;

size_t mprof__metadata_write(char *out, size_t capacity,
                             const mprof__metadata_params_t *params);

/* The integer types of the metadata, also declared by the one that the
 * reader writes for a legacy trace (src/read/legacy_ctf.c). */
#define MPROF__TSDL_INTEGERS                                                   \
  "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"   \
  "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"   \
  "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n" \
  "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n" \
  "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n" \
  "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"   \
  "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"

/* --- The text of a net_label or net_hash_label event --------------------
 * "HEAD OFFSET LENGTH", the numbers in decimal, or "HEAD HASH LENGTH", the
 * hash in 16 lower-case hex digits: what the recorder writes as a plain
 * label when it cannot intern HEAD, and what the reader makes of the
 * event, so both give the same text. */

/* Longest " OFFSET LENGTH" (two u64s in decimal, each after a space); " HASH
 * LENGTH" is shorter. */
#define MPROF__NET_LABEL_TAIL 42u

/* v in decimal at out (20 bytes at most); returns the digits written. */
static inline size_t mprof__put_decimal(char *out, uint64_t v) {
  char digits[20];
  size_t n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (size_t i = 0; i < n; i++) out[i] = digits[n - 1 - i];
  return n;
}

/* v in 16 lower-case hex digits at out; returns 16. */
static inline size_t mprof__put_hex16(char *out, uint64_t v) {
  for (int i = 15; i >= 0; i--, v >>= 4) out[i] = "0123456789abcdef"[v & 15];
  return 16;
}

/* Writes HEAD (head_length bytes), " OFFSET LENGTH" (hashed: " HASH
 * LENGTH", number the hash) at out, which has room for head_length +
 * MPROF__NET_LABEL_TAIL bytes; returns the length. */
static inline size_t mprof__net_label_text(char *out, const char *head,
                                           size_t head_length, int hashed,
                                           uint64_t number, uint64_t length) {
  size_t n = head_length;
  for (size_t i = 0; i < n; i++) out[i] = head[i];
  out[n++] = ' ';
  n += hashed ? mprof__put_hex16(out + n, number)
              : mprof__put_decimal(out + n, number);
  out[n++] = ' ';
  return n + mprof__put_decimal(out + n, length);
}

/* --- Little-endian loads and stores (unaligned-safe) --------------------- */

static inline void mprof__put_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static inline void mprof__put_u32(uint8_t *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  __builtin_memcpy(p, &v, 4);
#else
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}
static inline void mprof__put_u64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  __builtin_memcpy(p, &v, 8);
#else
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}
static inline uint16_t mprof__get_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t mprof__get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static inline uint64_t mprof__get_u64(const uint8_t *p) {
  return (uint64_t)mprof__get_u32(p) | ((uint64_t)mprof__get_u32(p + 4) << 32);
}

/* A whole trace header's end_ticks: 0 where the recording goes on, where
 * nobody said when it ended, or where the header is older than the field
 * (its metadata starts where the field would be). */
static inline uint64_t mprof__header_end_ticks(const uint8_t *header) {
  return mprof__get_u64(header + MPROF__TH_METADATA_OFFSET) >=
                 MPROF__TH_END_TICKS + 8
             ? mprof__get_u64(header + MPROF__TH_END_TICKS)
             : 0;
}

#endif /* MPROF_FORMAT_H */
