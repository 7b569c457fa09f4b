/* decode.c -- turn the bytes of one mprof packet into mprof_event_t values.
 * The event table in src/format drives the field layout, so a new event
 * class needs no new decoding code.  Every read is bounds-checked against
 * the packet's content_size.
 */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "trace_internal.h"

/* Strings that label_ref events name, remembered by id (a few labels are
 * used over and over): a label costs a table search only the first time. */
#define STRING_CACHE 16

/* Where decoding of one packet stands. */
typedef struct decoder_s {
  const uint8_t *p;   /* next byte */
  const uint8_t *end; /* content end */
  uint64_t clock;     /* last clock value */
  uint64_t current;   /* running async thread */
  const mprof_string_t *strings[STRING_CACHE];
  size_t index;         /* the packet's */
  uint32_t nets;        /* net_label and net_hash_label events so far */
  uint32_t net_counter; /* the last of those's counter */
  const struct mprof__net_texts_s *texts; /* the packet's, once asked for */
  uint32_t labels;     /* label_refs the fast path left to resolve_labels() */
  const uint8_t *base; /* the packet's first byte */
} decoder_t;

static int take(decoder_t *d, size_t n, const uint8_t **out) {
  if ((size_t)(d->end - d->p) < n) return -1;
  *out = d->p;
  d->p += n;
  return 0;
}

/* The clock a compact header's word gives after the clock `last`: the
 * first clock at or after it whose low 27 bits are the word's (the bits
 * wrap at most once between two events). */
static inline uint64_t compact_clock(uint64_t last, uint32_t word) {
  uint64_t low = word >> 5, mask = (1u << MPROF__COMPACT_TS_BITS) - 1;
  return last + ((low - last) & mask);
}

/* The event class of header id (MPROF__EV_COUNT or more: unknown), and in
 * *wide whether it is the class's wide form. */
static inline uint32_t event_class(uint32_t id, int *wide) {
  *wide = id >= MPROF__WIDE && id < MPROF__WIDE + MPROF__EV_COUNT;
  return *wide ? id - MPROF__WIDE : id;
}

/* Event header: compact or extended.  Returns 0 and sets *id, or -1. */
static int decode_header(decoder_t *d, uint32_t *id) {
  const uint8_t *b;
  if (d->p >= d->end) return -1;
  if ((d->p[0] & 31) != MPROF__ID_EXTENDED) {
    if (take(d, MPROF__COMPACT_HEADER_SIZE, &b)) return -1;
    uint32_t word = mprof__get_u32(b);
    d->clock = compact_clock(d->clock, word);
    *id = word & 31;
    return 0;
  }
  if (take(d, MPROF__EXTENDED_HEADER_SIZE, &b)) return -1;
  *id = mprof__get_u32(b + 1);
  d->clock = mprof__get_u64(b + 5);
  return 0;
}

/* Read one field into ev.  "slot" counts thread fields: first goes to a,
 * second to b. */
static int decode_field(decoder_t *d, const mprof__field_t *f, int wide,
                        int *slot, mprof_event_t *ev) {
  const uint8_t *b;
  switch (f->kind) {
  case MPROF__F_THREAD: {
    uint64_t v;
    if (take(d, wide ? 8 : 4, &b)) return -1;
    v = wide ? mprof__get_u64(b) : mprof__get_u32(b);
    if ((*slot)++ == 0)
      ev->a = v;
    else
      ev->b = v;
    return 0;
  }
  case MPROF__F_TYPE:
    if (take(d, 1, &b)) return -1;
    ev->type = (mprof_type_t)b[0];
    return 0;
  case MPROF__F_COUNTER:
  case MPROF__F_NAME:
    if (take(d, 2, &b)) return -1;
    ev->counter = mprof__get_u16(b);
    return 0;
  case MPROF__F_VALUE:
    if (take(d, wide ? 8 : 4, &b)) return -1;
    ev->value = wide ? (int64_t)mprof__get_u64(b) : (int32_t)mprof__get_u32(b);
    return 0;
  case MPROF__F_HASH:
    if (take(d, 8, &b)) return -1;
    ev->value = (int64_t)mprof__get_u64(b);
    return 0;
  case MPROF__F_STRING: return mprof__take_string(&d->p, d->end, ev);
  }
  return -1;
}

/* The compact events of fixed size, all decoded by the fast path below.
 * The layouts are those of mprof__event_classes (compact: u32 thread, u8
 * type, u16 counter or string id, i32 value).  A label_ref's string is
 * found after the fast path's run (resolve_labels()).  FIXED_NONE: a
 * string or a variable size, read field by field (decode_field). */
#define FIXED_NONE 255
/* clang-format off */
#define FIXED_EVENTS(X)                                                        \
  X(SWITCH, 4) X(CREATE, 5) X(CREATE_BY, 9) X(READ, 4) X(TRY_READ, 4)         \
  X(RESOLVE, 4) X(BECOMES, 8) X(SIGNAL, 4) X(SUSPEND, 0)                       \
  X(SHOULD_RESOLVE, 4) X(COUNTER_INCREASE, 6) X(COUNTER_VALUE, 6)              \
  X(LABEL_REF, 6)
/* clang-format on */

/* Payload bytes of each event class. */
#define PAYLOAD_SIZE(name, size) [MPROF__EV_##name] = size,
static const uint8_t fixed_size[MPROF__EV_COUNT] = {
    FIXED_EVENTS(PAYLOAD_SIZE)[MPROF__EV_FAIL] = FIXED_NONE,
    [MPROF__EV_LABEL] = FIXED_NONE,
    [MPROF__EV_COUNTER_NAME] = FIXED_NONE,
    [MPROF__EV_STRING] = FIXED_NONE,
    [MPROF__EV_NET_LABEL] = FIXED_NONE,
    [MPROF__EV_NET_HASH_LABEL] = FIXED_NONE};
#undef PAYLOAD_SIZE

/* Header and payload bytes of each compact id on the fast path, 0 for the
 * others: one lookup tells whether and how far. */
#define EVENT_SIZE(name, size)                                                 \
  [MPROF__EV_##name] = MPROF__COMPACT_HEADER_SIZE + size,
static const uint8_t fast_event_size[32] = {FIXED_EVENTS(EVENT_SIZE)};
#undef EVENT_SIZE

/* Read the payload of a compact fixed-size event of class kind (its size,
 * fixed_size[kind], already checked against the content end).  Inlined
 * into the fast path: a call per event costs more than its switch. */
static inline __attribute__((always_inline)) void
decode_fixed(decoder_t *d, uint32_t kind, mprof_event_t *ev) {
  const uint8_t *p = d->p;
  /* Each case steps by its own constant size: once the branch is
   * predicted, the next event's address does not wait for this one's
   * bytes. */
#define STEP(kind) (d->p = p + fixed_size[MPROF__EV_##kind])
  switch (kind) {
  case MPROF__EV_SUSPEND: STEP(SUSPEND); return;
  case MPROF__EV_COUNTER_INCREASE:
  case MPROF__EV_COUNTER_VALUE:
    STEP(COUNTER_INCREASE);
    ev->counter = mprof__get_u16(p);
    ev->value = (int32_t)mprof__get_u32(p + 2);
    return;
  case MPROF__EV_LABEL_REF:
    STEP(LABEL_REF);
    ev->a = mprof__get_u32(p);
    ev->counter = mprof__get_u16(p + 4);
    d->labels++;
    return;
  case MPROF__EV_CREATE_BY:
    STEP(CREATE_BY);
    ev->a = mprof__get_u32(p);
    ev->b = mprof__get_u32(p + 4);
    ev->type = (mprof_type_t)p[8];
    return;
  case MPROF__EV_BECOMES:
    STEP(BECOMES);
    ev->a = mprof__get_u32(p);
    ev->b = mprof__get_u32(p + 4);
    return;
  case MPROF__EV_CREATE:
    STEP(CREATE);
    ev->a = mprof__get_u32(p);
    ev->type = (mprof_type_t)p[4];
    return;
  default: /* one thread */
    STEP(SWITCH);
    ev->a = mprof__get_u32(p);
    return;
  }
#undef STEP
}

/* Begin ev, an event of class kind at the decoder's clock: zeroed, then
 * its kind, time, stream and the thread running. */
static inline void event_begin(const decoder_t *d, uint32_t stream,
                               uint32_t kind, mprof_event_t *ev) {
  memset(ev, 0, sizeof *ev);
  ev->kind = (mprof_event_kind_t)kind; /* the same numbers up to STRING */
  ev->time_ticks = d->clock;
  ev->stream = stream;
  ev->thread = d->current;
}

/* After ev, an event of class kind: what runs on its stream. */
static inline void follow_switch(decoder_t *d, uint32_t kind,
                                 const mprof_event_t *ev) {
  if (kind == MPROF__EV_SWITCH) d->current = ev->a;
  if (kind == MPROF__EV_SUSPEND) d->current = MPROF_NONE;
}

/* create_by lists the parent first; the public event puts the child in a. */
static inline void child_first(mprof_event_t *ev) {
  uint64_t parent = ev->a;
  ev->a = ev->b;
  ev->b = parent;
}

/* The fast path: most events are compact and of fixed size: those are
 * decoded here straight into ev, with one bounds check (a label_ref left
 * as it is in the trace, counted in d->labels).  Returns 1, or 0 to leave the
 * event to the general path (another kind, or one running past the content
 * end). */
static inline int decode_compact_fixed(decoder_t *d, uint32_t stream,
                                       mprof_event_t *ev) {
  if ((size_t)(d->end - d->p) < MPROF__COMPACT_HEADER_SIZE) return 0;
  uint32_t word = mprof__get_u32(d->p);
  uint32_t kind = word & 31;
  size_t size = fast_event_size[kind];
  if (size == 0 || (size_t)(d->end - d->p) < size) return 0;
  d->clock = compact_clock(d->clock, word);
  d->p += MPROF__COMPACT_HEADER_SIZE;
  event_begin(d, stream, kind, ev);
  decode_fixed(d, kind, ev);
  if (kind == MPROF__EV_CREATE_BY) child_first(ev);
  follow_switch(d, kind, ev);
  return 1;
}

/* The fast path over a run of events, into out[0 .. capacity): returns
 * how many it decoded.  The decoder's fields that it uses are held in a
 * copy of its own, which stays in registers, and the loop ends at a
 * pointer: with a count besides, values spilled to the stack were read
 * back each event, and made half the runs 1.6 times slower (by where the
 * stack lay). */
static size_t decode_fast_run(decoder_t *d, uint32_t stream, mprof_event_t *out,
                              size_t capacity) {
  decoder_t run;
  run.p = d->p;
  run.end = d->end;
  run.clock = d->clock;
  run.current = d->current;
  run.labels = 0;
  mprof_event_t *ev = out, *last = out + capacity;
  while (ev < last && decode_compact_fixed(&run, stream, ev)) ev++;
  d->p = run.p;
  d->clock = run.clock;
  d->current = run.current;
  d->labels = run.labels;
  return (size_t)(ev - out);
}

/* Is event class kind a net_label or a net_hash_label? */
static inline int is_net_label(uint32_t kind) {
  return kind == MPROF__EV_NET_LABEL || kind == MPROF__EV_NET_HASH_LABEL;
}

/* A net_label's or net_hash_label's payload, raw: the thread in a, the
 * head's string id in counter, the offset or hash in value, the length in
 * b; its counter in d->net_counter.  Returns 0 or -1. */
static int decode_net_label(decoder_t *d, uint32_t kind, int wide,
                            mprof_event_t *ev) {
  const uint8_t *p;
  int hashed = kind == MPROF__EV_NET_HASH_LABEL;
  if (take(d, wide ? 28 : hashed ? 20 : 16, &p)) return -1;
  ev->counter = mprof__get_u16(p + (wide ? 8 : 4));
  d->net_counter = mprof__get_u16(p + (wide ? 10 : 6));
  if (wide) {
    ev->a = mprof__get_u64(p);
    ev->value = (int64_t)mprof__get_u64(p + 12);
    ev->b = mprof__get_u64(p + 20);
  } else if (hashed) {
    ev->a = mprof__get_u32(p);
    ev->value = (int64_t)mprof__get_u64(p + 8);
    ev->b = (uint64_t)(int64_t)(int32_t)mprof__get_u32(p + 16);
  } else {
    ev->a = mprof__get_u32(p);
    ev->value = (int32_t)mprof__get_u32(p + 8);
    ev->b = (uint64_t)(int64_t)(int32_t)mprof__get_u32(p + 12);
  }
  return 0;
}

/* Read the payload of event class kind into ev.  Returns 0 or -1 (it runs
 * past the content end). */
static int decode_payload(decoder_t *d, uint32_t kind, int wide,
                          mprof_event_t *ev) {
  if (is_net_label(kind)) return decode_net_label(d, kind, wide, ev);
  if (!wide && fixed_size[kind] != FIXED_NONE) {
    if ((size_t)(d->end - d->p) < fixed_size[kind]) return -1;
    decode_fixed(d, kind, ev);
    return 0;
  }
  const mprof__event_class_t *ec = &mprof__event_classes[kind];
  int slot = 0;
  for (int i = 0; i < ec->field_count; i++)
    if (decode_field(d, &ec->fields[i], wide, &slot, ev)) return -1;
  return 0;
}

static int string_order(const void *a, const void *b) {
  const mprof_string_t *x = a, *y = b;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static const mprof_string_t *string_find(const mprof_trace_t *t,
                                         uint64_t stream, uint32_t id) {
  mprof_string_t key = {stream, id, 0, NULL};
  if (!t->string_count) return NULL;
  return bsearch(&key, t->strings, t->string_count, sizeof key, string_order);
}

/* The string a label_ref names, through the decoder's cache. */
static const mprof_string_t *label_string(const mprof_trace_t *t, decoder_t *d,
                                          uint64_t stream, uint32_t id) {
  const mprof_string_t **slot = &d->strings[id % STRING_CACHE];
  if (!*slot || (*slot)->id != id) *slot = string_find(t, stream, id);
  return *slot;
}

/* A label_ref event (its string id in counter) as the label it stands for:
 * the text, empty if the string is not in the trace. */
static void label_of_ref(const mprof_trace_t *t, decoder_t *d,
                         mprof_event_t *ev) {
  const mprof_string_t *s = label_string(t, d, ev->stream, ev->counter);
  ev->kind = MPROF_EVENT_LABEL;
  ev->text = s ? s->text : "";
  ev->text_length = s ? s->length : 0;
  ev->counter = 0;
}

/* Where the texts of the net_label and net_hash_label events of a packet
 * are made: a first pass counts and measures them (texts NULL), a second
 * writes them. */
typedef struct net_maker_s {
  const mprof_trace_t *t;
  mprof__net_texts_t *texts;
  uint32_t count; /* net_label events so far */
  size_t length;  /* text bytes so far */
} net_maker_t;

/* One net_label or net_hash_label event of the packet (raw: head string
 * id in counter, offset or hash in value, length in b): its text, measured
 * or written. */
static int make_net_text(void *context, const mprof_event_t *ev) {
  net_maker_t *m = context;
  if (!is_net_label((uint32_t)ev->kind)) return 0;
  mprof__net_texts_t *texts = m->texts;
  /* Without its head (a damaged names packet) the label is empty, as a
   * label_ref's. */
  const mprof_string_t *head = string_find(m->t, ev->stream, ev->counter);
  if (!texts)
    m->length += head ? head->length + MPROF__NET_LABEL_TAIL : 0;
  else if (head)
    m->length += mprof__net_label_text(
        texts->text + m->length, head->text, head->length,
        ev->kind == (mprof_event_kind_t)MPROF__EV_NET_HASH_LABEL,
        (uint64_t)ev->value, ev->b);
  if (texts) texts->offsets[m->count + 1] = (uint32_t)m->length;
  m->count++;
  return 0;
}

/* The texts of packet index's net labels, in one block: two raw
 * passes over the packet, whose bytes are at base.  NULL if out of
 * memory. */
static mprof__net_texts_t *make_net_texts(const mprof_trace_t *t, size_t index,
                                          const uint8_t *base) {
  net_maker_t maker = {t, NULL, 0, 0};
  mprof__sink_t sink = {make_net_text, &maker, NULL, 0, 0, 1, 1, base};
  uint64_t end_ticks, good_bytes;
  mprof__packet_decode(t, index, &sink, &end_ticks, &good_bytes);
  size_t offsets = (maker.count + 1) * sizeof(uint32_t);
  mprof__net_texts_t *texts = malloc(sizeof *texts + offsets + maker.length);
  if (!texts) return NULL;
  texts->count = maker.count;
  texts->text = (char *)texts->offsets + offsets;
  texts->offsets[0] = 0;
  maker = (net_maker_t){t, texts, 0, 0};
  mprof__packet_decode(t, index, &sink, &end_ticks, &good_bytes);
  return texts;
}

/* The texts of the decoder's packet, made the first time they are asked
 * for.  Two OS threads decoding the packet at once may both make them:
 * the first to publish its texts wins, the other frees its own. */
static const mprof__net_texts_t *net_texts(const mprof_trace_t *t,
                                           decoder_t *d) {
  if (d->texts || !t->net_texts) return d->texts;
  mprof__net_texts_t **slot = &t->net_texts[d->index];
  mprof__net_texts_t *texts = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!texts) {
    mprof__net_texts_t *made = make_net_texts(t, d->index, d->base);
    if (made && __atomic_compare_exchange_n(slot, &texts, made, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      texts = made;
    else
      free(made);
  }
  return d->texts = texts;
}

/* A net_label or net_hash_label event becomes the label "HEAD OFFSET
 * LENGTH" or "HEAD HASH LENGTH" it stands for. */
static void net_label(const mprof_trace_t *t, decoder_t *d, mprof_event_t *ev) {
  const mprof__net_texts_t *texts = net_texts(t, d);
  uint32_t k = d->nets++;
  ev->kind = MPROF_EVENT_LABEL;
  ev->text = "";
  ev->text_length = 0;
  if (texts && k < texts->count) {
    ev->text = texts->text + texts->offsets[k];
    ev->text_length = texts->offsets[k + 1] - texts->offsets[k];
  }
  ev->counter = 0;
  ev->value = 0;
  ev->b = 0;
}

/* The first of the two events a net label with a counter stands for: the
 * counter's increase by the length, by the thread running. */
static mprof_event_t net_increase(const mprof_event_t *raw, uint32_t counter) {
  mprof_event_t increase;
  memset(&increase, 0, sizeof increase);
  increase.time_ticks = raw->time_ticks;
  increase.kind = MPROF_EVENT_COUNTER_INCREASE;
  increase.stream = raw->stream;
  increase.thread = raw->thread;
  increase.counter = counter;
  increase.value = (int64_t)raw->b;
  return increase;
}

/* Turn the format's event into the reader's: create_by lists the parent
 * first (the public event puts the child in a), and a label_ref or (unless
 * raw) a net_label becomes the label it stands for. */
static void normalise(const mprof_trace_t *t, decoder_t *d, int raw_net,
                      uint32_t format_id, mprof_event_t *ev) {
  if (ev->kind == MPROF_EVENT_CREATE_BY) child_first(ev);
  if (format_id == MPROF__EV_LABEL_REF) label_of_ref(t, d, ev);
  if (is_net_label(format_id) && !raw_net) net_label(t, d, ev);
}

/* The label_refs among events[0 .. n), decoded by the fast path, become
 * the labels they stand for. */
static void resolve_labels(const mprof_trace_t *t, decoder_t *d,
                           mprof_event_t *events, size_t n) {
  for (size_t i = 0; i < n && d->labels; i++)
    if (events[i].kind == (mprof_event_kind_t)MPROF__EV_LABEL_REF) {
      label_of_ref(t, d, &events[i]);
      d->labels--;
    }
}

static const char unknown_id[] = "unknown event id";
static const char bad_thread[] =
    "thread id out of range (thread ids are below 2^56)";

/* Does a wide event of class kind name a thread id that no trace holds?
 * (A compact one's are 32-bit; a net label's b is a length.) */
static int bad_thread_id(uint32_t kind, const mprof_event_t *ev) {
  return ev->a >= MPROF__THREAD_ID_LIMIT ||
         (!is_net_label(kind) && ev->b >= MPROF__THREAD_ID_LIMIT);
}

long mprof__packet_decode(const mprof_trace_t *t, size_t index,
                          mprof__sink_t *sink, uint64_t *end_ticks,
                          uint64_t *good_bytes) {
  const mprof_packet_info_t *pk = mprof_trace_packet(t, index);
  if (!pk) return MPROF_EINVAL;
  const uint8_t *base =
      sink->bytes ? sink->bytes : mprof__packet_kept(t, index);
  if (!base) {
    mprof__diag(t, "packet %u at offset %llu: cannot be read into memory",
                pk->position, (unsigned long long)pk->offset);
    return MPROF_ENOMEM;
  }
  decoder_t d = {base + MPROF__PACKET_HEADER_SIZE,
                 base + pk->content_bytes,
                 pk->timestamp_begin,
                 pk->current_thread,
                 {NULL},
                 index,
                 0,
                 0,
                 NULL,
                 0,
                 base};
  /* make_net_texts()'s own passes, and the collecting of strings that
   * their texts need, ask for net_label events raw; the former leave damage
   * to be reported by the decoding that asked for them. */
  int quiet = sink->quiet, raw_net = sink->raw_net;
  uint32_t stream = (uint32_t)pk->stream_instance;
  long count = 0;
  /* where the last good event ends, told to the caller on the way out */
  const uint8_t *good_end = d.p;
  uint64_t good_clock = d.clock;
  const char *problem = NULL;
  const uint8_t *start = d.p;
  uint32_t id = 0;
  /* the sink's fields in locals: stores through ev may alias them */
  mprof_event_t *out = sink->out;
  size_t capacity = out ? sink->capacity : SIZE_MAX;
  mprof_event_fn fn = sink->fn;
  void *context = sink->context;
  while (d.p < d.end && (size_t)count < capacity) {
    mprof_event_t one, *ev = out ? &out[count] : &one;
    /* into an array, a run of events at once; to fn, one by one */
    size_t fast =
        out && !fn ? decode_fast_run(&d, stream, ev, capacity - (size_t)count)
                   : (size_t)decode_compact_fixed(&d, stream, ev);
    if (d.labels) resolve_labels(t, &d, ev, fast);
    if (fast) {
      count += (long)fast;
      good_end = d.p;
      good_clock = d.clock;
      if (fn) {
        sink->count = (size_t)count;
        if (fn(context, ev)) break;
      }
      continue;
    }
    start = d.p;
    if (decode_header(&d, &id)) {
      problem = "event header runs past content_size";
      break;
    }
    int wide;
    uint32_t kind = event_class(id, &wide);
    if (kind >= MPROF__EV_COUNT) {
      problem = unknown_id;
      break;
    }
    event_begin(&d, stream, kind, ev);
    if (decode_payload(&d, kind, wide, ev)) {
      problem = "event payload runs past content_size";
      break;
    }
    if (wide && bad_thread_id(kind, ev)) {
      problem = bad_thread;
      break;
    }
    if (is_net_label(kind) && d.net_counter && !raw_net) {
      /* Two events: leave it to the next call if the array has no room for
       * both. */
      if ((size_t)count + 2 > capacity) break;
      mprof_event_t label = *ev;
      *ev = net_increase(&label, d.net_counter);
      sink->count = (size_t)++count;
      if (fn && fn(context, ev)) break;
      ev = out ? &out[count] : &one;
      *ev = label;
    }
    normalise(t, &d, raw_net, kind, ev);
    d.labels = 0; /* a label_ref here was made a label by normalise() */
    follow_switch(&d, kind, ev);
    count++;
    good_end = d.p;
    good_clock = d.clock;
    sink->count = (size_t)count;
    if (fn && fn(context, ev)) break;
  }
  sink->count = (size_t)count;
  *end_ticks = good_clock;
  *good_bytes = (uint64_t)(good_end - base);
  if (!problem) return count;
  /* An event running past a cut packet's end is the truncation, which has
   * its own line. */
  if (!quiet && !(pk->cut && problem != unknown_id && problem != bad_thread))
    mprof__diag_bad_event(t, pk, (uint64_t)(start - base), problem, "id",
                          (unsigned)id, count);
  return MPROF_EINVAL;
}

/* The kind each format event is delivered as (label_ref and net_label:
 * a label; a net_label with a counter also an increase, counted apart). */
static const uint8_t delivered_kind[MPROF__EV_COUNT] = {
    [MPROF__EV_SWITCH] = MPROF_EVENT_SWITCH,
    [MPROF__EV_CREATE] = MPROF_EVENT_CREATE,
    [MPROF__EV_CREATE_BY] = MPROF_EVENT_CREATE_BY,
    [MPROF__EV_READ] = MPROF_EVENT_READ,
    [MPROF__EV_TRY_READ] = MPROF_EVENT_TRY_READ,
    [MPROF__EV_RESOLVE] = MPROF_EVENT_RESOLVE,
    [MPROF__EV_FAIL] = MPROF_EVENT_FAIL,
    [MPROF__EV_BECOMES] = MPROF_EVENT_BECOMES,
    [MPROF__EV_LABEL] = MPROF_EVENT_LABEL,
    [MPROF__EV_SIGNAL] = MPROF_EVENT_SIGNAL,
    [MPROF__EV_SUSPEND] = MPROF_EVENT_SUSPEND,
    [MPROF__EV_SHOULD_RESOLVE] = MPROF_EVENT_SHOULD_RESOLVE,
    [MPROF__EV_COUNTER_NAME] = MPROF_EVENT_COUNTER_NAME,
    [MPROF__EV_COUNTER_INCREASE] = MPROF_EVENT_COUNTER_INCREASE,
    [MPROF__EV_COUNTER_VALUE] = MPROF_EVENT_COUNTER_VALUE,
    [MPROF__EV_STRING] = MPROF_EVENT_STRING,
    [MPROF__EV_LABEL_REF] = MPROF_EVENT_LABEL,
    [MPROF__EV_NET_LABEL] = MPROF_EVENT_LABEL,
    [MPROF__EV_NET_HASH_LABEL] = MPROF_EVENT_LABEL};

/* Walk an mprof packet from the decoder's position as decoding reads it,
 * counting its events by class in counts[MPROF__EV_COUNT] (the
 * increases that net_label events with a counter stand for apart, in
 * *increases) without decoding what has a fixed size (the clock is not
 * followed either); the others are decoded, and the STRING events among
 * them handed to collect (if not NULL) with the stream they are of.
 * Returns 0 at the content end, -1 where decoding stops on damage. */
static int packet_walk(decoder_t *d, uint32_t stream, uint64_t *counts,
                       uint64_t *increases, mprof_event_fn collect,
                       void *context) {
  while (d->p < d->end) {
    /* Each case steps by its own constant size: once the branch is
     * predicted, the next event's address does not wait for this one's
     * bytes. */
#define STEP(name, size)                                                       \
  case MPROF__EV_##name:                                                       \
    if ((size_t)(d->end - d->p) < MPROF__COMPACT_HEADER_SIZE + size) break;    \
    counts[MPROF__EV_##name]++;                                                \
    d->p += MPROF__COMPACT_HEADER_SIZE + size;                                 \
    continue;
    switch (d->p[0] & 31) { FIXED_EVENTS(STEP) }
#undef STEP
    uint32_t id;
    if (decode_header(d, &id)) return -1;
    int wide;
    uint32_t kind = event_class(id, &wide);
    if (kind >= MPROF__EV_COUNT) return -1;
    mprof_event_t payload; /* the rare events: decoded, to be measured */
    event_begin(d, stream, kind, &payload); /* fields it lacks read as 0 */
    if (decode_payload(d, kind, wide, &payload)) return -1;
    if (wide && bad_thread_id(kind, &payload)) return -1;
    if (is_net_label(kind) && d->net_counter) ++*increases;
    if (kind == MPROF__EV_STRING && collect) collect(context, &payload);
    counts[kind]++;
  }
  return 0;
}

/* Count an mprof packet's events by the kind they are delivered as: the
 * headers are read and the fixed-size payloads stepped over, not decoded.
 * Stops where decoding would (damage is reported by decoding).  The packet
 * is read into a copy where it can be (as mprof_trace_packet_decode_copy()
 * does, and for the same reason: a census of one packet in eight of the
 * bench's trace 19.4 -> 6.2 ms). */
static size_t packet_census(const mprof_trace_t *t, size_t index,
                            uint64_t *counts) {
  const mprof_packet_info_t *pk = &t->packets[index];
  uint8_t *copy =
      mprof_trace_copies_packets(t) ? malloc(pk->content_bytes) : NULL;
  int read = copy ? mprof__packet_read(t, pk, copy) : 0;
  if (read < 0 || (!read && t->windowed)) {
    free(copy);
    return 0; /* gone (the file shrank), or no memory to read it into */
  }
  const uint8_t *base = read ? copy : t->data + pk->offset;
  decoder_t d;
  memset(&d, 0, sizeof d);
  d.p = base + MPROF__PACKET_HEADER_SIZE;
  d.end = base + pk->content_bytes;
  uint64_t classes[MPROF__EV_COUNT] = {0}, increases = 0;
  packet_walk(&d, 0, classes, &increases, NULL, NULL);
  free(copy);
  size_t n = (size_t)increases;
  counts[MPROF_EVENT_COUNTER_INCREASE] += increases;
  for (uint32_t k = 0; k < MPROF__EV_COUNT; k++) {
    counts[delivered_kind[k]] += classes[k];
    n += (size_t)classes[k];
  }
  return n;
}

static int count_kind(void *context, const mprof_event_t *ev) {
  ((uint64_t *)context)[ev->kind]++;
  return 0;
}

size_t mprof_trace_packet_census(const mprof_trace_t *t, size_t index,
                                 uint64_t *counts) {
  if (index >= t->packet_count) return 0;
  if (!t->legacy) return packet_census(t, index, counts);
  mprof__sink_t sink = {count_kind, counts, NULL, 0, 0, 0, 1, NULL};
  uint64_t good_bytes;
  mprof__legacy_decode(t, index, &sink, &good_bytes);
  return sink.count;
}

/* Where the STRING events of a names packet go: the trace's table; their
 * texts, found in a copy of the packet at `from` (or in the trace: from
 * and to NULL), are the same bytes of the trace at `to`. */
typedef struct strings_s {
  mprof_trace_t *t;
  const uint8_t *from, *to;
} strings_t;

static int collect_string(void *context, const mprof_event_t *ev) {
  const strings_t *where = context;
  mprof_trace_t *t = where->t;
  if (ev->kind != MPROF_EVENT_STRING) return 0;
  mprof_string_t *s = &t->strings[t->string_count++];
  s->stream = ev->stream;
  s->id = ev->counter;
  s->length = (uint32_t)ev->text_length;
  s->text = where->from ? (const char *)where->to +
                              ((const uint8_t *)ev->text - where->from)
                        : ev->text;
  return 0;
}

/* Collect the STRING events of names packet index, walking over the
 * others, in a copy read into `copy` (if not NULL and the read succeeds)
 * or in the trace.  Where the walk meets damage, the strings of the packet
 * are collected again by decoding it in the trace, which tells the damage
 * (once: later reads of the packet stop before it, at the good bytes it
 * leaves). */
static void packet_strings(mprof_trace_t *t, size_t index, uint8_t *copy) {
  mprof_packet_info_t *pk = &t->packets[index];
  const uint8_t *in_trace = mprof__packet_kept(t, index);
  if (!in_trace) return; /* told by the decoding of the packet */
  int copied = copy ? mprof__packet_read(t, pk, copy) : 0;
  if (copied < 0) return; /* gone: the file shrank */
  strings_t where = {t, copied ? copy : NULL, in_trace};
  decoder_t d;
  memset(&d, 0, sizeof d);
  d.p = (copied ? copy : in_trace) + MPROF__PACKET_HEADER_SIZE;
  d.end = (copied ? copy : in_trace) + pk->content_bytes;
  uint64_t classes[MPROF__EV_COUNT] = {0}, increases = 0;
  size_t before = t->string_count;
  if (!packet_walk(&d, (uint32_t)pk->stream_instance, classes, &increases,
                   collect_string, &where))
    return;
  t->string_count = before;
  where.from = NULL;
  uint64_t end_ticks, good_bytes;
  mprof__sink_t sink = {collect_string, &where, NULL, 0, 0, 1, 0, NULL};
  if (mprof__packet_decode(t, index, &sink, &end_ticks, &good_bytes) < 0)
    pk->content_bytes = good_bytes;
}

int mprof__strings_load(mprof_trace_t *t) {
  if (t->legacy) return 0;
  t->net_texts = calloc(t->packet_count + 1, sizeof *t->net_texts);
  if (!t->net_texts || mprof__copies_make(t)) return MPROF_EIO;
  /* A string event takes at least 7 bytes: bound the table by that. */
  size_t capacity = 0;
  for (size_t i = 0; i < t->packet_count; i++)
    if (t->packets[i].stream_class == MPROF__STREAM_NAMES)
      capacity += t->packets[i].content_bytes / 7;
  if (!capacity) return 0;
  if (!(t->strings = malloc(capacity * sizeof *t->strings))) return MPROF_EIO;
  /* The packets are read, not touched through the mapping (see
   * mprof_trace_packet_decode_copy); without memory for that, touched.  A
   * windowed trace's are walked in the copies the strings point into. */
  uint8_t *copy = mprof_trace_copies_packets(t) && !t->windowed
                      ? malloc(t->info.packet_size)
                      : NULL;
  for (size_t i = 0; i < t->packet_count; i++)
    if (t->packets[i].stream_class == MPROF__STREAM_NAMES)
      packet_strings(t, i, copy);
  free(copy);
  qsort(t->strings, t->string_count, sizeof *t->strings, string_order);
  return 0;
}

void mprof__net_texts_free(mprof_trace_t *t) {
  mprof__copies_free(t);
  if (!t->net_texts) return;
  for (size_t i = 0; i < t->packet_count; i++) free(t->net_texts[i]);
  free(t->net_texts);
}

/* Decode packet index into sink: the mprof or the legacy way.  A
 * windowed trace's packet decoded to a callback is read into a copy of
 * this call's, freed after it: a pass over the trace holds one. */
static long packet_decode(const mprof_trace_t *t, size_t index,
                          mprof__sink_t *sink) {
  uint64_t end_ticks, good_bytes;
  if (index >= t->packet_count) return MPROF_EINVAL;
  uint8_t *copy = t->windowed && sink->fn && !sink->bytes
                      ? malloc(t->packets[index].content_bytes)
                      : NULL;
  if (copy && mprof__packet_read(t, &t->packets[index], copy) == 1)
    sink->bytes = copy;
  long n = t->legacy
               ? mprof__legacy_decode(t, index, sink, &good_bytes)
               : mprof__packet_decode(t, index, sink, &end_ticks, &good_bytes);
  free(copy);
  mprof__tell_shrank(t);
  return n;
}

long mprof_trace_packet_events(const mprof_trace_t *t, size_t index,
                               mprof_event_fn fn, void *context) {
  mprof__sink_t sink = {fn, context, NULL, 0, 0, 0, 0, NULL};
  return packet_decode(t, index, &sink);
}

size_t mprof_trace_packet_max_events(const mprof_trace_t *t, size_t index) {
  if (index >= t->packet_count) return 0;
  uint64_t bytes = t->packets[index].content_bytes;
  return (size_t)(t->legacy ? bytes / MPROF__LEGACY_MIN_EVENT
                            : bytes / MPROF__COMPACT_HEADER_SIZE);
}

/* mprof_trace_packet_decode() of the bytes at `bytes` (NULL: in the
 * trace). */
static size_t decode_into(const mprof_trace_t *t, size_t index,
                          const uint8_t *bytes, mprof_event_t *events,
                          size_t capacity, int *damaged) {
  mprof__sink_t sink = {NULL, NULL, events, capacity, 0, 0, 0, bytes};
  long n = packet_decode(t, index, &sink);
  if (damaged) *damaged = n < 0;
  return sink.count; /* with damage: the good events before it */
}

size_t mprof_trace_packet_decode(const mprof_trace_t *t, size_t index,
                                 mprof_event_t *events, size_t capacity,
                                 int *damaged) {
  return decode_into(t, index, NULL, events, capacity, damaged);
}

size_t mprof_trace_packet_decode_copy(const mprof_trace_t *t, size_t index,
                                      void *scratch, mprof_event_t *events,
                                      size_t capacity, int *damaged) {
  int copied = index < t->packet_count && !t->legacy
                   ? mprof__packet_read(t, &t->packets[index], scratch)
                   : 0;
  if (copied < 0) { /* gone: the file shrank */
    mprof__tell_shrank(t);
    if (damaged) *damaged = 1;
    return 0;
  }
  return decode_into(t, index, copied ? scratch : NULL, events, capacity,
                     damaged);
}

/* Packets up to this size are read into memory of the decoded packet's
 * own before they are decoded; bigger ones are decoded where they lie. */
#define DECODED_COPY_MAX (4u << 20)

int mprof__decoded_room(mprof_decoded_t *d, size_t events, size_t bytes) {
  if (events > d->capacity) {
    mprof_event_t *grown = realloc(d->events, events * sizeof *grown);
    if (!grown) return MPROF_ENOMEM;
    d->events = grown;
    d->capacity = events;
  }
  if (bytes > d->bytes_size) {
    void *grown = realloc(d->bytes, bytes);
    if (!grown) return MPROF_ENOMEM;
    d->bytes = grown;
    d->bytes_size = bytes;
  }
  return 0;
}

/* Room in d for packet index's events, and for its bytes where they are
 * read into memory (*copy).  Returns 0 or MPROF_ENOMEM. */
static int decoded_room(const mprof_trace_t *t, size_t index,
                        mprof_decoded_t *d, int *copy) {
  size_t size = t->info.packet_size;
  *copy = mprof_trace_copies_packets(t) && size <= DECODED_COPY_MAX;
  return mprof__decoded_room(d, mprof_trace_packet_max_events(t, index),
                             *copy ? size : 0);
}

int mprof_trace_packet_decode_into(const mprof_trace_t *t, size_t index,
                                   mprof_decoded_t *d) {
  int copy, err = decoded_room(t, index, d, &copy);
  if (err) return err;
  d->count =
      copy ? mprof_trace_packet_decode_copy(t, index, d->bytes, d->events,
                                            d->capacity, NULL)
           : mprof_trace_packet_decode(t, index, d->events, d->capacity, NULL);
  return 0;
}

void mprof_decoded_free(mprof_decoded_t *d) {
  free(d->events);
  free(d->bytes);
  memset(d, 0, sizeof *d);
}
