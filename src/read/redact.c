/* redact.c -- write a trace whose strings are redacted (mprof/redact.h):
 * the input's good packets at their places, each with its own header and
 * its events re-encoded one by one, field by field as the format's event
 * table lays them out, every string replaced by its pseudonym
 * (redact_text.c), and so is a datagram's payload hash.  Headers, thread
 * ids, numbers and timestamps are bytes copied, so the clock of every event
 * is the input's; the metadata is made anew, with the process name
 * redacted.  Nothing else of the input is copied: stale bytes after a
 * packet's content, damaged packets and damaged tails are left out, so no
 * string reaches the output unredacted.  A mirage-profile trace is written
 * in its own format, the same way.
 */
#define _GNU_SOURCE /* strndup */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "mprof/redact.h"
#include "path_join.h"
#include "trace_internal.h"

/* Where a packet's events are re-encoded: into out (NULL: only measured). */
typedef struct encoder_s {
  mprof_redactor_t *r;
  uint8_t *out;
  uint64_t size; /* bytes so far, header included */
} encoder_t;

static void emit(encoder_t *e, const void *bytes, size_t n) {
  if (e->out) memcpy(e->out + e->size, bytes, n);
  e->size += n;
}

/* The string at *p (before end), redacted; advances *p.  Returns 0, or -1
 * (no NUL before end, or out of memory). */
static int encode_string(encoder_t *e, const uint8_t **p, const uint8_t *end) {
  const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));
  const char *text;
  if (!nul) return -1;
  long length =
      mprof_redact_text(e->r, (const char *)*p, (size_t)(nul - *p), &text);
  if (length < 0) return -1;
  emit(e, text, (size_t)length);
  emit(e, "", 1);
  *p = nul + 1;
  return 0;
}

/* A datagram's payload hash at *p, redacted; advances *p.  Returns 0 or
 * -1. */
static int encode_hash(encoder_t *e, const uint8_t **p, const uint8_t *end) {
  uint64_t hash;
  uint8_t bytes[8];
  if ((size_t)(end - *p) < sizeof bytes ||
      mprof_redact_hash(e->r, mprof__get_u64(*p), &hash))
    return -1;
  mprof__put_u64(bytes, hash);
  emit(e, bytes, sizeof bytes);
  *p += sizeof bytes;
  return 0;
}

/* The bytes of one field of an event at *p (before end), re-encoded;
 * advances *p.  Returns 0, or -1 (it runs past end, or out of memory). */
static int encode_field(encoder_t *e, const mprof__field_t *f, int wide,
                        const uint8_t **p, const uint8_t *end) {
  size_t n;
  switch (f->kind) {
  case MPROF__F_THREAD:
  case MPROF__F_VALUE: n = wide ? 8 : 4; break;
  case MPROF__F_TYPE: n = 1; break;
  case MPROF__F_COUNTER:
  case MPROF__F_NAME: n = 2; break;
  case MPROF__F_HASH: return encode_hash(e, p, end);
  default: return encode_string(e, p, end); /* MPROF__F_STRING */
  }
  if ((size_t)(end - *p) < n) return -1;
  emit(e, *p, n);
  *p += n;
  return 0;
}

/* Re-encode the events of packet bytes [header end, end): each event's
 * header as it is, its fields through encode_field().  The reader has
 * checked that these bytes decode.  Returns 0 or -1. */
static int encode_events(encoder_t *e, const uint8_t *p, const uint8_t *end) {
  while (p < end) {
    int extended = (p[0] & 31) == MPROF__ID_EXTENDED;
    size_t header =
        extended ? MPROF__EXTENDED_HEADER_SIZE : MPROF__COMPACT_HEADER_SIZE;
    if ((size_t)(end - p) < header) return -1;
    uint32_t id = extended ? mprof__get_u32(p + 1) : (uint32_t)(p[0] & 31);
    int wide = id >= MPROF__WIDE;
    uint32_t kind = wide ? id - MPROF__WIDE : id;
    if (kind >= MPROF__EV_COUNT) return -1;
    emit(e, p, header);
    p += header;
    const mprof__event_class_t *ec = &mprof__event_classes[kind];
    for (int i = 0; i < ec->field_count; i++)
      if (encode_field(e, &ec->fields[i], wide, &p, end)) return -1;
  }
  return 0;
}

/* One good packet of the input, as it is written. */
typedef struct packet_plan_s {
  uint64_t good_bytes; /* of the input: up to its last good event */
  uint64_t size;       /* of the output's content */
} packet_plan_t;

/* Packet index re-encoded into out (NULL: measured); returns its content
 * bytes, or 0 when out of memory. */
static uint64_t encode_packet(mprof_redactor_t *r, const mprof_trace_t *t,
                              size_t index, uint64_t good_bytes, uint8_t *out) {
  const uint8_t *in = t->data + t->packets[index].offset;
  encoder_t e = {r, out, 0};
  emit(&e, in, MPROF__PACKET_HEADER_SIZE);
  if (encode_events(&e, in + MPROF__PACKET_HEADER_SIZE, in + good_bytes))
    return 0;
  if (out) {
    mprof__put_u64(out + MPROF__PH_CONTENT_SIZE, e.size * 8);
  }
  return e.size;
}

/* The output's metadata: what the recorder writes (src/format/metadata.c)
 * for the input's uuid and clock, with the input's process name redacted.
 * None of the input's text is copied, so a damaged metadata cannot carry
 * the name, or anything else, through.  A new string (*length bytes), or
 * NULL when out of memory. */
static char *redact_metadata(mprof_redactor_t *r, const mprof_trace_t *t,
                             size_t *length) {
  char name[65] = "", *redacted = NULL;
  const char *text = "";
  long n = mprof_trace_process_name(t, name, sizeof name) > 0
               ? mprof_redact_text(r, name, strlen(name), &text)
               : 0;
  if (n < 0 || !(redacted = strndup(text, (size_t)n))) return NULL;
  mprof__metadata_params_t params = {t->info.uuid, t->info.clock_freq_hz,
                                     t->info.clock_offset_ns, redacted};
  *length = mprof__metadata_write(NULL, SIZE_MAX, &params);
  char *out = malloc(*length + 1);
  if (out) mprof__metadata_write(out, *length + 1, &params);
  free(redacted);
  return out;
}

/* Where the parts of the output go (docs/FORMAT.md, section 1). */
typedef struct layout_s {
  uint64_t slots_offset, packets_offset, size;
  uint32_t packet_size, packet_count;
} layout_t;

static layout_t plan_layout(const mprof_trace_t *t, size_t metadata_size,
                            uint64_t largest) {
  layout_t l;
  l.packet_size = t->info.packet_size;
  while (l.packet_size < largest && l.packet_size < MPROF__MAX_PACKET_SIZE)
    l.packet_size *= 2;
  l.packet_count = t->info.packet_count;
  l.slots_offset = (MPROF__TRACE_HEADER_SIZE + metadata_size + 1 + 7) & ~7ull;
  uint64_t align = l.packet_size < 4096 ? l.packet_size : 4096;
  l.packets_offset =
      (l.slots_offset + 8ull * l.packet_count + align - 1) / align * align;
  l.size = l.packets_offset + (uint64_t)l.packet_count * l.packet_size;
  return l;
}

/* The trace header, metadata and slot states of the output, in out
 * (layout->packets_offset bytes, zeroed); slots[position] is the input's
 * slot state of the packet written there, 0 for none. */
static void fill_front(const mprof_trace_t *t, const layout_t *l,
                       const char *metadata, size_t metadata_size,
                       const uint64_t *slots, uint8_t *out) {
  const uint8_t *in = t->data;
  memcpy(out, in, MPROF__TH_METADATA_SIZE); /* magic .. ring count */
  mprof__put_u64(out + MPROF__TH_BUFFER_SIZE, l->size);
  mprof__put_u32(out + MPROF__TH_PACKET_SIZE, l->packet_size);
  mprof__put_u32(out + MPROF__TH_METADATA_SIZE, (uint32_t)metadata_size);
  mprof__put_u64(out + MPROF__TH_METADATA_OFFSET, MPROF__TRACE_HEADER_SIZE);
  mprof__put_u64(out + MPROF__TH_SLOTS_OFFSET, l->slots_offset);
  mprof__put_u64(out + MPROF__TH_PACKETS_OFFSET, l->packets_offset);
  /* clock, uuid, state, streams, claims, start: as they are */
  memcpy(out + MPROF__TH_CLOCK_FREQ, in + MPROF__TH_CLOCK_FREQ,
         MPROF__TH_ORPHAN_DISCARDED - MPROF__TH_CLOCK_FREQ);
  mprof__put_u64(out + MPROF__TH_ORPHAN_DISCARDED, t->orphan_discarded);
  mprof__put_u64(out + MPROF__TH_END_TICKS, t->info.end_ticks);
  memcpy(out + MPROF__TRACE_HEADER_SIZE, metadata, metadata_size);
  for (uint32_t i = 0; i < l->packet_count; i++)
    mprof__put_u64(out + l->slots_offset + 8ull * i, slots[i]);
}

static int write_all(int fd, const void *data, size_t n) {
  const uint8_t *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The input's slot state of the packet at position, BUSY kept (a packet
 * its writer never closed reads as such), INIT never (good packets have
 * none). */
static uint64_t input_slot(const mprof_trace_t *t, uint32_t position) {
  if (!t->slots_offset) return (uint64_t)1 << MPROF__SLOT_GEN_SHIFT;
  uint64_t slot = mprof__get_u64(t->data + t->slots_offset + 8ull * position);
  return slot & ~(uint64_t)MPROF__SLOT_INIT;
}

/* Write the output: its front, then every packet at its place. */
static int write_trace(mprof_redactor_t *r, const mprof_trace_t *t, int fd,
                       const layout_t *l, const char *metadata,
                       size_t metadata_size, const packet_plan_t *plans) {
  size_t *at = malloc(l->packet_count * sizeof *at);
  uint64_t *slots = calloc(l->packet_count, sizeof *slots);
  uint8_t *front = calloc(1, l->packets_offset);
  uint8_t *packet = malloc(l->packet_size);
  int err = !at || !slots || !front || !packet ? MPROF_ENOMEM : 0;
  for (uint32_t i = 0; !err && i < l->packet_count; i++) at[i] = SIZE_MAX;
  for (size_t i = 0; !err && i < t->packet_count; i++) {
    at[t->packets[i].position] = i;
    slots[t->packets[i].position] = input_slot(t, t->packets[i].position);
  }
  if (!err) {
    fill_front(t, l, metadata, metadata_size, slots, front);
    if (write_all(fd, front, l->packets_offset)) err = MPROF_EIO;
  }
  for (uint32_t i = 0; !err && i < l->packet_count; i++) {
    memset(packet, 0, l->packet_size);
    if (at[i] != SIZE_MAX) {
      encode_packet(r, t, at[i], plans[at[i]].good_bytes, packet);
      mprof__put_u64(packet + MPROF__PH_PACKET_SIZE,
                     (uint64_t)l->packet_size * 8);
    }
    if (write_all(fd, packet, l->packet_size)) err = MPROF_EIO;
  }
  free(at);
  free(slots);
  free(front);
  free(packet);
  return err;
}

/* Decode every packet once (which tells its damage, if any, and finds its
 * good bytes) and measure its re-encoding.  *largest gets the largest.
 * Returns 0 or MPROF_ENOMEM. */
static int plan_packets(mprof_redactor_t *r, const mprof_trace_t *t,
                        packet_plan_t *plans, uint64_t *largest) {
  *largest = 0;
  for (size_t i = 0; i < t->packet_count; i++) {
    uint64_t end_ticks;
    mprof__sink_t sink = {NULL, NULL, NULL, 0, 0, 0, 0, NULL};
    mprof__packet_decode(t, i, &sink, &end_ticks, &plans[i].good_bytes);
    plans[i].size = encode_packet(r, t, i, plans[i].good_bytes, NULL);
    if (!plans[i].size) return MPROF_ENOMEM;
    if (plans[i].size > *largest) *largest = plans[i].size;
  }
  return 0;
}

/* The output, written under a temporary name and renamed over path once
 * whole (mprof_output_open()): a redaction that fails part way leaves
 * path as it was.  Its descriptor, or -1 (errno set). */
static int open_output(mprof_output_t *out, const char *path) {
  if (mprof_output_open(out, path)) return -1;
  return fileno(out->f);
}

/* --- Legacy traces --------------------------------------------------------
 * A mirage-profile trace is written in its own format: its good packets in
 * the reader's order, each with its header and its events' bytes as they
 * are up to the last good event, but every string redacted, and its sizes
 * set to what it became.  The reader's own decoding finds the strings. */

/* A legacy packet being copied: the input's bytes from `from` on are not
 * emitted yet. */
typedef struct legacy_copy_s {
  encoder_t e;
  const uint8_t *from;
  int failed; /* out of memory */
} legacy_copy_t;

/* An event of the packet, decoded: the bytes up to its string as they
 * are, then the string redacted.  "__should_resolve" is the format's own
 * mark, not a label. */
static int copy_to_string(void *context, const mprof_event_t *ev) {
  legacy_copy_t *c = context;
  const char *text;
  if (!ev->text || ev->kind == MPROF_EVENT_SHOULD_RESOLVE) return 0;
  long n = mprof_redact_text(c->e.r, ev->text, ev->text_length, &text);
  if (n < 0) return c->failed = 1;
  const uint8_t *at = (const uint8_t *)ev->text;
  emit(&c->e, c->from, (size_t)(at - c->from));
  emit(&c->e, text, (size_t)n);
  c->from = at + ev->text_length;
  return 0;
}

/* Legacy packet index re-encoded into out (NULL: measured, and its damage
 * told); returns its bytes, or 0 when out of memory. */
static uint64_t encode_legacy_packet(mprof_redactor_t *r,
                                     const mprof_trace_t *t, size_t index,
                                     uint8_t *out) {
  const uint8_t *in = t->data + t->packets[index].offset;
  legacy_copy_t c = {{r, out, 0}, in, 0};
  mprof__sink_t sink = {copy_to_string, &c, NULL, 0, 0, 0, out != NULL, NULL};
  uint64_t good_bytes;
  mprof__legacy_decode(t, index, &sink, &good_bytes);
  if (c.failed) return 0;
  emit(&c.e, c.from, (size_t)(in + good_bytes - c.from));
  if (out) {
    mprof__put_u32(out + MPROF__LEGACY_PH_SIZE, (uint32_t)(c.e.size * 8));
    mprof__put_u32(out + MPROF__LEGACY_PH_CONTENT, (uint32_t)(c.e.size * 8));
  }
  return c.e.size;
}

/* The most a legacy packet may hold: its header gives its size in bits in
 * 32 bits. */
#define LEGACY_MAX_PACKET_BYTES (UINT32_MAX / 8)

/* Each good packet measured into sizes (its texts redacted, its damage
 * told).  Returns 0, MPROF_ENOMEM, or MPROF_EINVAL: a packet would pass
 * LEGACY_MAX_PACKET_BYTES. */
static int plan_legacy(mprof_redactor_t *r, const mprof_trace_t *t,
                       uint64_t *sizes) {
  for (size_t i = 0; i < t->packet_count; i++) {
    if (!(sizes[i] = encode_legacy_packet(r, t, i, NULL))) return MPROF_ENOMEM;
    if (sizes[i] > LEGACY_MAX_PACKET_BYTES) return MPROF_EINVAL;
  }
  return 0;
}

/* Each good packet written, as plan_legacy() measured it (the texts are
 * redacted by then, so this pass makes the same bytes). */
static int write_legacy(mprof_redactor_t *r, const mprof_trace_t *t, int fd,
                        const uint64_t *sizes) {
  int err = 0;
  for (size_t i = 0; !err && i < t->packet_count; i++) {
    uint8_t *packet = malloc(sizes[i]);
    if (!packet || !encode_legacy_packet(r, t, i, packet))
      err = MPROF_ENOMEM;
    else if (write_all(fd, packet, sizes[i]))
      err = MPROF_EIO;
    free(packet);
  }
  return err;
}

/* --- Either ------------------------------------------------------------- */

/* Finish the output (if opened) after err: renamed into place when err is
 * 0, else removed.  Returns the error, told. */
static int close_output(mprof_output_t *out, int fd, int err, const char *path,
                        mprof_diag_fn diag, void *context) {
  if (fd >= 0 && mprof_output_close(out, !err) && !err) err = MPROF_EIO;
  if (err == MPROF_EIO)
    mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
  return err;
}

/* Measured whole before the output is opened, so that a packet too big
 * for the format leaves no file behind. */
static int redact_legacy(mprof_redactor_t *r, const mprof_trace_t *t,
                         const char *path, mprof_diag_fn diag, void *context) {
  uint64_t *sizes = calloc(t->packet_count + 1, sizeof *sizes);
  int err = sizes ? plan_legacy(r, t, sizes) : MPROF_ENOMEM;
  if (err == MPROF_EINVAL)
    mprof__diag_to(diag, context, "%s: a packet would exceed %u MiB", path,
                   (LEGACY_MAX_PACKET_BYTES + 1) >> 20);
  mprof_output_t out;
  int fd = err ? -1 : open_output(&out, path);
  if (!err && fd < 0) err = MPROF_EIO;
  if (!err) err = write_legacy(r, t, fd, sizes);
  free(sizes);
  return close_output(&out, fd, err, path, diag, context);
}

int mprof_redact_trace(mprof_redactor_t *r, const mprof_trace_t *t,
                       const char *path, mprof_diag_fn diag, void *context) {
  if (mprof__refuse_big(t, "a redaction")) return MPROF_ENOMEM;
  if (t->legacy) return redact_legacy(r, t, path, diag, context);
  packet_plan_t *plans = calloc(t->packet_count + 1, sizeof *plans);
  size_t metadata_size = 0;
  char *metadata = plans ? redact_metadata(r, t, &metadata_size) : NULL;
  uint64_t largest = 0;
  int err = !metadata ? MPROF_ENOMEM : plan_packets(r, t, plans, &largest);
  mprof__tell_shrank(t);
  layout_t l = plan_layout(t, metadata_size, largest);
  if (!err && l.packet_size < largest) {
    mprof__diag_to(diag, context, "%s: a packet would exceed 1 GiB", path);
    err = MPROF_EINVAL;
  }
  mprof_output_t out;
  int fd = err ? -1 : open_output(&out, path);
  if (!err && fd < 0) err = MPROF_EIO;
  if (!err) err = write_trace(r, t, fd, &l, metadata, metadata_size, plans);
  free(metadata);
  free(plans);
  return close_output(&out, fd, err, path, diag, context);
}

int mprof_redact_set(mprof_redactor_t *r, const mprof_trace_set_t *set,
                     const char *dir, mprof_diag_fn diag, void *context) {
  if (mkdir(dir, 0700) && errno != EEXIST) {
    mprof__diag_to(diag, context, "%s: %s", dir, strerror(errno));
    return MPROF_EIO;
  }
  char **names = calloc(set->count + 1, sizeof *names);
  int err = names ? 0 : MPROF_ENOMEM;
  char path[4096 + 64];
  for (size_t i = 0; !err && i < set->count; i++) {
    char name[32];
    snprintf(name, sizeof name, "trace-%zu.ctf", i + 1);
    if (!(names[i] = strdup(name)))
      err = MPROF_ENOMEM;
    else if (mprof__path_join(path, sizeof path, dir, name))
      err = MPROF_EINVAL;
    else
      err = mprof_redact_trace(r, set->traces[i], path, diag, context);
  }
  if (!err && mprof__path_join(path, sizeof path, dir, "mprof-merge"))
    err = MPROF_EINVAL;
  if (!err &&
      (err = mprof_trace_manifest_write(path, (const char *const *)names,
                                        set->offsets_ns, set->count)))
    mprof__diag_to(diag, context, "%s: %s", path, mprof_output_error(errno));
  for (size_t i = 0; names && i < set->count; i++) free(names[i]);
  free(names);
  return err;
}
