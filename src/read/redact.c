/* redact.c -- write a trace whose strings are redacted (mprof/redact.h):
 * the input's good packets at their places, each with its own header and
 * its events re-encoded one by one, field by field as the format's event
 * table lays them out, every string replaced by its pseudonym
 * (redact_text.c).  Headers, thread ids, numbers and timestamps are bytes
 * copied, so the clock of every event is the input's; the metadata is the
 * input's with the process name redacted.  Nothing else of the input is
 * copied: stale bytes after a packet's content, damaged packets and damaged
 * tails are left out, so no string reaches the output unredacted.
 */
#define _GNU_SOURCE /* memmem */
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
  case MPROF__F_HASH: n = 8; break;
  default: { /* MPROF__F_STRING */
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

/* The input's metadata with its process name redacted, into a new string
 * (*length bytes); NULL when out of memory. */
static char *redact_metadata(mprof_redactor_t *r, const mprof_trace_t *t,
                             size_t *length) {
  static const char key[] = "\tprocname = \"";
  const char *meta = t->info.metadata;
  size_t size = t->info.metadata_size;
  const char *at = memmem(meta, size, key, sizeof key - 1);
  const char *name = at ? at + sizeof key - 1 : meta + size;
  const char *close =
      at ? memchr(name, '"', size - (size_t)(name - meta)) : NULL;
  if (!close) close = name = meta + size;
  const char *text = "";
  long n = close > name
               ? mprof_redact_text(r, name, (size_t)(close - name), &text)
               : 0;
  char *out = n < 0 ? NULL : malloc(size + (size_t)n + 1);
  if (!out) return NULL;
  size_t head = (size_t)(name - meta), tail = size - (size_t)(close - meta);
  memcpy(out, meta, head);
  memcpy(out + head, text, (size_t)n);
  memcpy(out + head + n, close, tail);
  *length = head + (size_t)n + tail;
  out[*length] = 0;
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

/* The output file, mode 0600 (a copy of standard output for "-"), or -1
 * (errno set). */
static int open_output(const char *path) {
  if (!strcmp(path, "-")) return dup(STDOUT_FILENO);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0 && fchmod(fd, 0600)) {
    close(fd);
    return -1;
  }
  return fd;
}

int mprof_redact_trace(mprof_redactor_t *r, const mprof_trace_t *t,
                       const char *path, mprof_diag_fn diag, void *context) {
  if (t->legacy) {
    mprof__diag_to(diag, context,
                   "%s: a mirage-profile trace cannot be redacted", t->name);
    return MPROF_EINVAL;
  }
  if (mprof__refuse_big(t, "a redaction")) return MPROF_ENOMEM;
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
  int fd = err ? -1 : open_output(path);
  if (!err && fd < 0) err = MPROF_EIO;
  if (!err) err = write_trace(r, t, fd, &l, metadata, metadata_size, plans);
  if (fd >= 0 && close(fd) && !err) err = MPROF_EIO;
  if (err == MPROF_EIO)
    mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
  free(metadata);
  free(plans);
  return err;
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
    mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
  for (size_t i = 0; names && i < set->count; i++) free(names[i]);
  free(names);
  return err;
}
