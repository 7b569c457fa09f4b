/* legacy.c -- read traces written by OCaml's mirage-profile (and Eio's CTF
 * writer): a ring of 4 packets with a 30-byte header and unaligned events
 * of a u64 ns timestamp, a u8 op and 64-bit ids (reference:
 * ../shared/reference/mirage-system.md, section 2).
 *
 * Events come out as mprof events.  Legacy thread ids are shifted by one,
 * so the legacy "no thread" (-1) becomes MPROF_NONE (0) and the main
 * thread (0) becomes 1.  An op that implied a switch (read, signal) is
 * delivered as that event with `thread` set to its actor, as every legacy
 * event names its actor explicitly.
 */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "trace_internal.h"

enum {
  LEGACY_EVENT_HEADER_SIZE = MPROF__LEGACY_MIN_EVENT,
  LEGACY_MAGIC = 0xC1FC1FC1u
};

enum legacy_op {
  OP_CREATES,
  OP_READ,
  OP_FULFILLS,
  OP_FAILS,
  OP_BECOMES,
  OP_LABEL,
  OP_INCREASE,
  OP_SWITCH,
  OP_GC,
  OP_SIGNAL,
  OP_TRY_READ,
  OP_COUNTER,
  OP_READ_LATER,
  OP_SIGNAL_ONLY
};

/* What is wrong with the packet header at offset (offset + 30 <= size),
 * against the trace's uuid; NULL if nothing. */
static const char *header_problem(const uint8_t *data, uint64_t offset,
                                  const uint8_t *uuid) {
  const uint8_t *h = data + offset;
  uint64_t packet_bytes = mprof__get_u32(h + MPROF__LEGACY_PH_SIZE) / 8;
  uint64_t content_bytes = mprof__get_u32(h + MPROF__LEGACY_PH_CONTENT) / 8;
  if (mprof__get_u32(h) != LEGACY_MAGIC) return "bad packet magic";
  if (memcmp(h + 4, uuid, 16) != 0) return "uuid differs from the trace's";
  if (packet_bytes < MPROF__LEGACY_HEADER_SIZE)
    return "packet size out of range";
  if (content_bytes < MPROF__LEGACY_HEADER_SIZE || content_bytes > packet_bytes)
    return "content size out of range";
  return NULL;
}

/* The first good header after offset `after` (or at 0 when after is
 * UINT64_MAX): the magic, sane sizes, and the given uuid or, with none yet,
 * its own.  Returns size if there is none.  This is how a damaged header
 * is stepped over: legacy packets hold no other way to find the next. */
static uint64_t next_good_header(const uint8_t *data, uint64_t size,
                                 uint64_t after, const uint8_t *uuid) {
  for (uint64_t at = after + 1; at + MPROF__LEGACY_HEADER_SIZE <= size; at++) {
    const uint8_t *hit = memchr(data + at, LEGACY_MAGIC & 0xff,
                                size - MPROF__LEGACY_HEADER_SIZE + 1 - at);
    if (!hit) break;
    at = (uint64_t)(hit - data);
    if (!header_problem(data, at, uuid ? uuid : hit + 4)) return at;
  }
  return size;
}

/* A legacy trace starts with a legacy packet header, or, if its first one
 * is damaged (and the file is not one of ours), has a good one later. */
int mprof__legacy_detect(const uint8_t *data, size_t size) {
  if (size < MPROF__LEGACY_HEADER_SIZE) return 0;
  if (mprof__get_u32(data) == LEGACY_MAGIC) return 1;
  return memcmp(data, MPROF__TRACE_MAGIC, 8) != 0 &&
         next_good_header(data, size, UINT64_MAX, NULL) < size;
}

static uint64_t legacy_id(uint64_t raw) { return raw + 1; }

/* Packets are ordered by a 16-bit counter that wraps: the oldest is the
 * first whose counter drops (by more than half the range) from the
 * previous packet's, else the first in the file (as the original viewer
 * did).  The writer counts packets from 0, so the oldest's counter is how
 * many came before it (modulo 65,536): sequence numbers start there. */
static void order_by_counter(mprof_trace_t *t, uint16_t *counters, size_t n) {
  size_t oldest = 0;
  for (size_t i = 1; i < n; i++)
    if ((uint16_t)(counters[i] - counters[i - 1]) > 0x8000) {
      oldest = i;
      break;
    }
  for (size_t i = 0; i < n; i++)
    t->packets[i].seq_num =
        counters[oldest] + (uint16_t)(counters[i] - counters[oldest]);
  /* insertion sort: at most a few packets in practice, any count works */
  for (size_t i = 1; i < n; i++) {
    mprof_packet_info_t p = t->packets[i];
    size_t j = i;
    for (; j > 0 && t->packets[j - 1].seq_num > p.seq_num; j--)
      t->packets[j] = t->packets[j - 1];
    t->packets[j] = p;
  }
}

/* The packets found so far and their counters, grown by doubling (a ring
 * has a few; a bound from the file's size would make a 1 MB trace's table
 * 2.6 MB, zeroed: in WebAssembly, where fresh memory is slow, 20 ms). */
typedef struct found_s {
  uint16_t *counters;
  size_t n, capacity;
} found_t;

static mprof_packet_info_t *found_add(mprof_trace_t *t, found_t *f,
                                      uint16_t counter) {
  if (f->n == f->capacity) {
    size_t capacity = f->capacity ? 2 * f->capacity : 8;
    mprof_packet_info_t *packets =
        realloc(t->packets, capacity * sizeof *packets);
    if (packets) t->packets = packets;
    uint16_t *counters = realloc(f->counters, capacity * sizeof *counters);
    if (counters) f->counters = counters;
    if (!packets || !counters) return NULL;
    f->capacity = capacity;
  }
  f->counters[f->n] = counter;
  mprof_packet_info_t *p = &t->packets[f->n++];
  memset(p, 0, sizeof *p);
  return p;
}

/* Record the good packet whose header is at offset; returns its size in
 * the file (cut at the file's end, which is told here). */
static uint64_t add_packet(mprof_trace_t *t, found_t *f, uint64_t offset,
                           uint32_t position) {
  const uint8_t *h = t->data + offset;
  uint64_t packet_bytes = mprof__get_u32(h + MPROF__LEGACY_PH_SIZE) / 8;
  uint64_t content_bytes = mprof__get_u32(h + MPROF__LEGACY_PH_CONTENT) / 8;
  mprof_packet_info_t *p =
      found_add(t, f, mprof__get_u16(h + MPROF__LEGACY_PH_COUNT));
  if (!p) return 0;
  if (packet_bytes > t->size - offset) {
    mprof__diag(t,
                "packet %u at offset %llu: the file ends %llu bytes into "
                "this %llu-byte packet (truncated?); its events up to there "
                "are kept",
                position, (unsigned long long)offset,
                (unsigned long long)(t->size - offset),
                (unsigned long long)packet_bytes);
    packet_bytes = t->size - offset;
    if (content_bytes > packet_bytes) content_bytes = packet_bytes;
    p->cut = 1;
  }
  p->offset = offset;
  p->position = position;
  p->content_bytes = content_bytes;
  p->current_thread = MPROF_NONE;
  if (content_bytes >= MPROF__LEGACY_HEADER_SIZE + 8)
    p->timestamp_begin = p->timestamp_end =
        mprof__get_u64(h + MPROF__LEGACY_HEADER_SIZE);
  return packet_bytes;
}

/* Walk the packets from the first good header; a damaged header is told
 * in one line and stepped over to the next good one, so every good packet
 * is kept. */
int mprof__legacy_open(mprof_trace_t *t) {
  uint64_t offset = next_good_header(t->data, t->size, UINT64_MAX, NULL);
  if (offset == t->size) {
    mprof__diag(t, "offset 0: no good mirage-profile packet header");
    return MPROF_EINVAL;
  }
  const uint8_t *uuid = t->data + offset + 4;
  t->legacy = t->info.legacy = 1;
  t->info.clock_freq_hz = 1000000000u;
  memcpy(t->info.uuid, uuid, 16);
  found_t f = {NULL, 0, 0};
  uint32_t position = 0;
  uint64_t damaged = 0;
  if (offset > 0) {
    mprof__diag(t,
                "packet 0 at offset 0: %s; skipped to the next good "
                "packet header, at offset %llu",
                header_problem(t->data, 0, uuid), (unsigned long long)offset);
    position++, damaged++;
  }
  while (offset + MPROF__LEGACY_HEADER_SIZE <= t->size) {
    const char *problem = header_problem(t->data, offset, uuid);
    if (problem) {
      uint64_t next = next_good_header(t->data, t->size, offset, uuid);
      if (next < t->size)
        mprof__diag(t,
                    "packet %u at offset %llu: %s; skipped to the next "
                    "good packet header, at offset %llu",
                    position, (unsigned long long)offset, problem,
                    (unsigned long long)next);
      else
        mprof__diag(t,
                    "packet %u at offset %llu: %s; no good packet after "
                    "it",
                    position, (unsigned long long)offset, problem);
      position++, damaged++;
      offset = next;
      continue;
    }
    uint64_t bytes = add_packet(t, &f, offset, position++);
    if (!bytes) {
      free(f.counters);
      return MPROF_EIO;
    }
    offset += bytes;
  }
  order_by_counter(t, f.counters, f.n);
  free(f.counters);
  t->packet_count = f.n;
  mprof__count_lost_packets(t, damaged);
  mprof__find_start(t, MPROF__LEGACY_HEADER_SIZE);
  t->info.packet_count = t->info.packets_used = (uint32_t)f.n;
  t->info.streams = f.n ? 1 : 0;
  return f.n ? 0 : MPROF_EINVAL;
}

/* Bounds-checked reads from one packet's content. */
typedef struct cursor_s {
  const uint8_t *p, *end;
} cursor_t;

static int get_u64(cursor_t *c, uint64_t *v) {
  if (c->end - c->p < 8) return -1;
  *v = mprof__get_u64(c->p);
  c->p += 8;
  return 0;
}

static int get_string(cursor_t *c, mprof_event_t *ev) {
  return mprof__take_string(&c->p, c->end, ev);
}

/* Decode one legacy event's payload into ev.  Returns 0, -1 if it runs
 * past the content, -2 for an unknown op (and the caller makes -3 of a
 * thread id out of range). */
static int decode_op(cursor_t *c, unsigned op, mprof_event_t *ev) {
  uint64_t x = 0, y = 0;
  switch (op) {
  case OP_CREATES:
    if (get_u64(c, &x) || get_u64(c, &y) || c->p >= c->end) return -1;
    ev->kind = MPROF_EVENT_CREATE;
    ev->thread = legacy_id(x);
    ev->a = legacy_id(y);
    ev->type = (mprof_type_t)*c->p++;
    return 0;
  case OP_READ:
  case OP_READ_LATER:
  case OP_FULFILLS:
  case OP_TRY_READ:
  case OP_FAILS:
    if (get_u64(c, &x) || get_u64(c, &y)) return -1;
    ev->kind = op == OP_FULFILLS   ? MPROF_EVENT_RESOLVE
               : op == OP_FAILS    ? MPROF_EVENT_FAIL
               : op == OP_TRY_READ ? MPROF_EVENT_TRY_READ
                                   : MPROF_EVENT_READ;
    ev->thread = legacy_id(x);
    ev->a = legacy_id(y);
    return op == OP_FAILS ? get_string(c, ev) : 0;
  case OP_BECOMES:
    if (get_u64(c, &x) || get_u64(c, &y)) return -1;
    ev->kind = MPROF_EVENT_BECOMES;
    ev->a = legacy_id(x);
    ev->b = legacy_id(y);
    return 0;
  case OP_LABEL:
    if (get_u64(c, &x) || get_string(c, ev)) return -1;
    ev->a = legacy_id(x);
    ev->kind =
        ev->text_length == 16 && !memcmp(ev->text, "__should_resolve", 16)
            ? MPROF_EVENT_SHOULD_RESOLVE
            : MPROF_EVENT_LABEL;
    return 0;
  case OP_INCREASE:
  case OP_COUNTER:
    if (get_u64(c, &x) || get_u64(c, &y) || get_string(c, ev)) return -1;
    ev->kind = op == OP_INCREASE ? MPROF_EVENT_COUNTER_INCREASE
                                 : MPROF_EVENT_COUNTER_VALUE;
    ev->thread = legacy_id(x);
    ev->value = (int64_t)y;
    return 0;
  case OP_SWITCH:
    if (get_u64(c, &x)) return -1;
    ev->kind = MPROF_EVENT_SWITCH;
    ev->a = legacy_id(x);
    return 0;
  case OP_GC:
    if (get_u64(c, &x)) return -1;
    ev->kind = MPROF_EVENT_GC;
    ev->value = (int64_t)x;
    return 0;
  case OP_SIGNAL:
  case OP_SIGNAL_ONLY:
    if (get_u64(c, &x) || get_u64(c, &y)) return -1;
    ev->kind = MPROF_EVENT_SIGNAL;
    ev->thread = legacy_id(y);
    ev->a = legacy_id(x);
    return 0;
  }
  return -2;
}

long mprof__legacy_decode(const mprof_trace_t *t, size_t index,
                          mprof__sink_t *sink, uint64_t *good_bytes) {
  const mprof_packet_info_t *pk = &t->packets[index];
  const uint8_t *base = t->data + pk->offset;
  cursor_t c = {base + MPROF__LEGACY_HEADER_SIZE, base + pk->content_bytes};
  uint64_t current = MPROF_NONE;
  long count = 0;
  *good_bytes = MPROF__LEGACY_HEADER_SIZE;
  while (c.p < c.end && (!sink->out || (size_t)count < sink->capacity)) {
    const uint8_t *start = c.p;
    mprof_event_t one, *ev = sink->out ? &sink->out[count] : &one;
    memset(ev, 0, sizeof *ev);
    int err = -1;
    unsigned op = 0;
    if (c.end - c.p >= LEGACY_EVENT_HEADER_SIZE) {
      ev->time_ticks = mprof__get_u64(c.p);
      op = c.p[8];
      c.p += LEGACY_EVENT_HEADER_SIZE;
      ev->thread = current;
      err = decode_op(&c, op, ev);
    }
    if (!err &&
        (ev->thread >= MPROF__THREAD_ID_LIMIT ||
         ev->a >= MPROF__THREAD_ID_LIMIT || ev->b >= MPROF__THREAD_ID_LIMIT))
      err = -3;
    if (err) {
      /* An event running past a cut packet's end is the truncation, which
       * has its own line. */
      if (!sink->quiet && !(pk->cut && err == -1))
        mprof__diag_bad_event(
            t, pk, (uint64_t)(start - base),
            err == -2   ? "unknown op"
            : err == -3 ? "thread id out of range (thread ids are below 2^56)"
                        : "event runs past content_size",
            "op", op, count);
      return MPROF_EINVAL;
    }
    if (ev->kind == MPROF_EVENT_SWITCH) current = ev->a;
    count++;
    sink->count = (size_t)count;
    *good_bytes = (uint64_t)(c.p - base);
    if (sink->fn && sink->fn(sink->context, ev)) break;
  }
  return count;
}
