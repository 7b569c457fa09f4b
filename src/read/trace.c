/* trace.c -- open an mprof trace, find its good packets in order, decode
 * their events.  Nothing in the input is trusted: every offset and length
 * is checked before use, and each problem becomes one diagnostic line
 * ("FILE: packet N at offset X: what; what was kept").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#ifndef __wasi__
#include <signal.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "mprof/read.h"
#include "trace_internal.h"

_Static_assert(MPROF_EVENT_STRING == (int)MPROF__EV_STRING,
               "read.h event kinds mirror the format's event ids up to "
               "STRING; label_ref arrives as LABEL, and GC is legacy only");

const char *mprof_event_kind_name(mprof_event_kind_t kind) {
  if (kind == MPROF_EVENT_GC) return "gc";
  if ((unsigned)kind > MPROF_EVENT_STRING) return "unknown";
  return mprof__event_classes[kind].name;
}

void mprof__diag(const mprof_trace_t *t, const char *format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  int n = snprintf(line, sizeof line, "%s: ", t->name);
  if (n < 0 || (size_t)n >= sizeof line) n = 0;
  vsnprintf(line + n, sizeof line - (size_t)n, format, args);
  va_end(args);
  if (t->diag)
    t->diag(t->context, line);
  else
    fprintf(stderr, "mprof: %s\n", line);
}

void mprof__diag_bad_event(const mprof_trace_t *t,
                           const mprof_packet_info_t *pk, uint64_t event_offset,
                           const char *what, const char *code_name,
                           unsigned code, long kept) {
  mprof__diag(t,
              "packet %u at offset %llu: event at offset %llu: %s (%s %u); "
              "kept %ld events of this packet",
              pk->position, (unsigned long long)pk->offset,
              (unsigned long long)(pk->offset + event_offset), what, code_name,
              code, kept);
}

/* --- A file that shrinks while it is read --------------------------------- */

/* A program that re-creates its trace truncates the file under a reader's
 * mapping, and a touch of a page past the new end raises SIGBUS.  Packets
 * are read with pread(), which then only falls short; what is read through
 * the mapping (the header, metadata and label texts, a live trace's copy,
 * packets too big for a read) is guarded: a SIGBUS handler, installed with
 * the first file mapped, puts zero pages over the rest of the mapping of
 * the trace whose page faulted, and the trace then says once that its
 * file shrank.  Other faults go to the handler that was there before. */

static void note_shrank(const mprof_trace_t *t) {
  int none = 0;
  __atomic_compare_exchange_n((int *)&t->shrank, &none, 1, 0, __ATOMIC_RELAXED,
                              __ATOMIC_RELAXED);
}

void mprof__tell_shrank(const mprof_trace_t *t) {
  int noted = 1;
  if (__atomic_load_n(&t->shrank, __ATOMIC_RELAXED) == noted &&
      __atomic_compare_exchange_n((int *)&t->shrank, &noted, 2, 0,
                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    mprof__diag(t, "the file shrank while being read (re-created by its "
                   "program?): what it no longer holds was read as zeros");
}

#ifndef __wasi__ /* the browser's reader has no files, and no signals */
/* The mapped files, each a slot: start 0 is a free slot. */
#define GUARDED_MAX 256
static struct guarded_s {
  uintptr_t start, end;
  mprof_trace_t *trace;
} guarded[GUARDED_MAX];
static struct sigaction sigbus_before;
static uintptr_t page_bytes;

static void on_sigbus(int signal, siginfo_t *info, void *context) {
  uintptr_t at = (uintptr_t)info->si_addr;
  for (int i = 0; i < GUARDED_MAX; i++) {
    struct guarded_s *g = &guarded[i];
    uintptr_t start = __atomic_load_n(&g->start, __ATOMIC_ACQUIRE);
    if (!start || at < start || at >= g->end) continue;
    uintptr_t page = at & ~(page_bytes - 1);
    if (mmap((void *)page, g->end - page, PROT_READ,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      break;
    note_shrank(g->trace);
    return; /* the touch is made again, and reads zeros */
  }
  if (sigbus_before.sa_flags & SA_SIGINFO)
    sigbus_before.sa_sigaction(signal, info, context);
  else if (sigbus_before.sa_handler != SIG_DFL &&
           sigbus_before.sa_handler != SIG_IGN)
    sigbus_before.sa_handler(signal);
  else
    sigaction(SIGBUS, &sigbus_before, NULL); /* the fault comes again */
}

static void install_guard(void) {
  static int installed;
  if (__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL)) return;
  page_bytes = (uintptr_t)sysconf(_SC_PAGESIZE);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, &sigbus_before);
}

/* Guard the trace's mapping (of its file).  Without a free slot it is not
 * guarded. */
static void guard(mprof_trace_t *t) {
  install_guard();
  for (int i = 0; i < GUARDED_MAX; i++) {
    uintptr_t free_slot = 0;
    if (__atomic_load_n(&guarded[i].start, __ATOMIC_RELAXED) ||
        !__atomic_compare_exchange_n(&guarded[i].start, &free_slot, 1, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      continue;
    guarded[i].trace = t;
    guarded[i].end = (uintptr_t)t->map + t->map_size;
    __atomic_store_n(&guarded[i].start, (uintptr_t)t->map, __ATOMIC_RELEASE);
    return;
  }
}

void mprof__unguard(const mprof_trace_t *t) {
  for (int i = 0; i < GUARDED_MAX; i++)
    if (__atomic_load_n(&guarded[i].start, __ATOMIC_ACQUIRE) ==
            (uintptr_t)t->map &&
        guarded[i].trace == t)
      __atomic_store_n(&guarded[i].start, 0, __ATOMIC_RELEASE);
}
#else
static void guard(mprof_trace_t *t) { (void)t; }
void mprof__unguard(const mprof_trace_t *t) { (void)t; }
#endif

/* --- The trace header ----------------------------------------------------- */

/* What the trace header at d, in a file of size bytes, is to this reader
 * (d holds at least its magic and version where size is a header's). */
enum { HEADER_GOOD, HEADER_BAD_MAGIC, HEADER_OTHER_VERSION };

static int header_kind(const uint8_t *d, uint64_t size) {
  if (size < MPROF__TRACE_HEADER_SIZE_V1_0 ||
      memcmp(d, MPROF__TRACE_MAGIC, 8) != 0)
    return HEADER_BAD_MAGIC;
  return mprof__get_u32(d + MPROF__TH_VERSION) == MPROF__TRACE_VERSION
             ? HEADER_GOOD
             : HEADER_OTHER_VERSION;
}

static int read_trace_header(mprof_trace_t *t) {
  const uint8_t *d = t->data;
  mprof_trace_info_t *info = &t->info;
  int kind = header_kind(d, t->size);
  if (kind == HEADER_BAD_MAGIC) {
    mprof__diag(t, "offset 0: not an mprof trace (bad magic)");
    return MPROF_EINVAL;
  }
  if (kind == HEADER_OTHER_VERSION) {
    mprof__diag(t, "offset 8: unsupported trace version %u",
                mprof__get_u32(d + MPROF__TH_VERSION));
    return MPROF_EINVAL;
  }
  info->ring_mode = (mprof_ring_mode_t)mprof__get_u32(d + MPROF__TH_RING_MODE);
  info->packet_size = mprof__get_u32(d + MPROF__TH_PACKET_SIZE);
  info->packet_count = mprof__get_u32(d + MPROF__TH_PACKET_COUNT);
  info->clock_freq_hz = mprof__get_u64(d + MPROF__TH_CLOCK_FREQ);
  info->clock_offset_ns = (int64_t)mprof__get_u64(d + MPROF__TH_CLOCK_OFFSET);
  memcpy(info->uuid, d + MPROF__TH_UUID, 16);
  info->recording =
      mprof__get_u32(d + MPROF__TH_STATE) == MPROF__STATE_RECORDING;
  uint64_t metadata_offset = mprof__get_u64(d + MPROF__TH_METADATA_OFFSET);
  uint64_t metadata_size = mprof__get_u32(d + MPROF__TH_METADATA_SIZE);
  t->slots_offset = mprof__get_u64(d + MPROF__TH_SLOTS_OFFSET);
  t->packets_offset = mprof__get_u64(d + MPROF__TH_PACKETS_OFFSET);

  /* What is read through the mapping must lie in it (a windowed trace
   * maps only its head, trace_big.c). */
  uint64_t mapped = t->windowed ? t->map_size : t->size;
  if (metadata_offset > mapped || metadata_size > mapped - metadata_offset ||
      memchr(d + metadata_offset, 0, metadata_size) != NULL) {
    mprof__diag(t, "offset 40: metadata out of bounds or not text");
    return MPROF_EINVAL;
  }
  info->metadata = (const char *)d + metadata_offset;
  info->metadata_size = metadata_size;
  info->end_ticks = mprof__header_end_ticks(d);
  /* The header's fields end where the metadata starts: older traces lack
   * the count of drops by OS threads without a ring packet. */
  if (metadata_offset >= MPROF__TH_ORPHAN_DISCARDED + 8) {
    mprof__count_add(t, &t->orphan_discarded,
                     mprof__get_u64(d + MPROF__TH_ORPHAN_DISCARDED));
    info->discarded = t->orphan_discarded;
  }
  if (info->packet_size < MPROF__PACKET_HEADER_SIZE + 16 ||
      info->packet_size > MPROF__MAX_PACKET_SIZE || info->clock_freq_hz == 0) {
    mprof__diag(t, "offset 24: bad packet size %u or clock frequency",
                info->packet_size);
    return MPROF_EINVAL;
  }
  /* Packets past the end of a truncated file are simply absent. */
  if (t->packets_offset > t->size) t->packets_offset = t->size;
  /* A last packet cut short still gives the events before the cut: this
   * one line tells the truncation (check_packet() marks that packet cut). */
  uint64_t bytes = t->size - t->packets_offset;
  uint64_t whole = bytes / info->packet_size, into = bytes % info->packet_size;
  if (whole < info->packet_count) {
    if (into)
      mprof__diag(t,
                  "offset %llu: the file ends %llu bytes into packet %llu, of "
                  "the %u the header lists (truncated?); what comes before "
                  "the cut is kept",
                  (unsigned long long)t->size, (unsigned long long)into,
                  (unsigned long long)whole, info->packet_count);
    else
      mprof__diag(t,
                  "offset %llu: the file ends before packet %llu, of the %u "
                  "the header lists (truncated?); the packets before are kept",
                  (unsigned long long)t->size, (unsigned long long)whole,
                  info->packet_count);
    info->packet_count =
        (uint32_t)(whole + (into >= MPROF__PACKET_HEADER_SIZE ? 1 : 0));
  }
  if (t->slots_offset > mapped ||
      (uint64_t)info->packet_count * 8 > mapped - t->slots_offset)
    t->slots_offset = 0; /* no slot states: treat the trace as stopped */
  return 0;
}

/* --- Packets -------------------------------------------------------------- */

/* Slot state of packet i, or 0 if unknown. */
static uint64_t slot_state(const mprof_trace_t *t, uint32_t i) {
  if (!t->slots_offset) return 0;
  return __atomic_load_n((const uint64_t *)(t->data + t->slots_offset + 8 * i),
                         __ATOMIC_ACQUIRE);
}

/* The header of the packet at offset.  From a file it is read with
 * pread() into copy: the packets never written (half the file of a trace
 * that did not fill it) are then never touched through the mapping, whose
 * first touch of a page costs a page fault, far more than the read. */
static const uint8_t *packet_header(const mprof_trace_t *t, uint64_t offset,
                                    uint8_t *copy) {
  if (t->fd < 0) return t->data + offset;
  if (pread(t->fd, copy, MPROF__PACKET_HEADER_SIZE, (off_t)offset) ==
      MPROF__PACKET_HEADER_SIZE)
    return copy;
  note_shrank(t);
  return NULL;
}

int mprof_trace_copies_packets(const mprof_trace_t *t) { return t->fd >= 0; }

int mprof__packet_read(const mprof_trace_t *t, const mprof_packet_info_t *pk,
                       uint8_t *copy) {
  if (t->fd < 0) return 0;
  if (pread(t->fd, copy, pk->content_bytes, (off_t)pk->offset) ==
      (ssize_t)pk->content_bytes)
    return 1;
  note_shrank(t);
  return -1;
}

/* Check packet i's header; fill p.  Returns 1 if good, 0 if empty (never
 * written), -1 if damaged (reported). */
static int check_packet(mprof_trace_t *t, uint32_t i, mprof_packet_info_t *p) {
  uint64_t offset = t->packets_offset + (uint64_t)i * t->info.packet_size;
  uint8_t copy[MPROF__PACKET_HEADER_SIZE];
  const uint8_t *h = packet_header(t, offset, copy);
  if (!h) return 0; /* gone: the file shrank */
  uint32_t magic = mprof__get_u32(h + MPROF__PH_MAGIC);
  if (magic == 0) return 0; /* never written */
  if (t->info.recording && (slot_state(t, i) & MPROF__SLOT_INIT))
    return 0; /* being set up by the writer right now */
  const char *problem = NULL;
  uint64_t content_bits = mprof__get_u64(h + MPROF__PH_CONTENT_SIZE);
  uint64_t packet_bits = mprof__get_u64(h + MPROF__PH_PACKET_SIZE);
  uint32_t stream_class = mprof__get_u32(h + MPROF__PH_STREAM_ID);
  if (magic != MPROF__PACKET_MAGIC)
    problem = "bad packet magic";
  else if (memcmp(h + MPROF__PH_UUID, t->info.uuid, 16) != 0)
    problem = "uuid differs from the trace's";
  else if (packet_bits != (uint64_t)t->info.packet_size * 8)
    problem = "packet_size differs from the trace's";
  else if (content_bits % 8 || content_bits > packet_bits ||
           content_bits < MPROF__PACKET_HEADER_SIZE * 8)
    problem = "content_size out of range";
  else if (stream_class > MPROF__STREAM_NAMES)
    problem = "unknown stream_id";
  else if (mprof__get_u64(h + MPROF__PH_CURRENT_THREAD) >=
           MPROF__THREAD_ID_LIMIT)
    problem = "current_thread out of range (thread ids are below 2^56)";
  if (problem) {
    mprof__diag(t, "packet %u at offset %llu: %s; packet skipped", i,
                (unsigned long long)offset, problem);
    return -1;
  }
  p->cut = content_bits / 8 > t->size - offset; /* told by the header check */
  if (p->cut) content_bits = (t->size - offset) * 8;
  p->position = i;
  p->stream_class = stream_class;
  p->stream_instance = mprof__get_u64(h + MPROF__PH_STREAM_INSTANCE);
  p->seq_num = mprof__get_u64(h + MPROF__PH_SEQ_NUM);
  p->timestamp_begin = mprof__get_u64(h + MPROF__PH_TIMESTAMP_BEGIN);
  p->timestamp_end = mprof__get_u64(h + MPROF__PH_TIMESTAMP_END);
  p->offset = offset;
  p->content_bytes = content_bits / 8;
  p->events_discarded = mprof__get_u64(h + MPROF__PH_DISCARDED);
  p->current_thread = mprof__get_u64(h + MPROF__PH_CURRENT_THREAD);
  p->os_thread_id = mprof__get_u32(h + MPROF__PH_OS_THREAD_ID);
  return 1;
}

static int packet_order(const void *a, const void *b) {
  const mprof_packet_info_t *x = a, *y = b;
  if (x->stream_class != y->stream_class)
    return x->stream_class < y->stream_class ? -1 : 1;
  if (x->stream_instance != y->stream_instance)
    return x->stream_instance < y->stream_instance ? -1 : 1;
  if (x->seq_num != y->seq_num) return x->seq_num < y->seq_num ? -1 : 1;
  return 0;
}

/* Whole packets lost show as gaps in a stream's packet_seq_num: a first
 * number k > 0 means its k oldest packets are gone, a jump between two
 * packets that some in the middle are.  Packets already reported damaged
 * (`damaged` of them, streams unknown) explain gaps first: those count as
 * missing.  Where packets are reused (a ring in overwrite mode, and every
 * legacy ring) the rest of a first gap is the ring wrapping, and the rest
 * of a middle one packets the ring or a live reader left out; where they
 * never are, the rest is damage, told in one line. */
void mprof__count_lost_packets(mprof_trace_t *t, uint64_t damaged) {
  const mprof_packet_info_t *p = t->packets;
  for (size_t i = 0; i < t->packet_count; i++) {
    int first = i == 0 || p[i - 1].stream_class != p[i].stream_class ||
                p[i - 1].stream_instance != p[i].stream_instance;
    uint64_t expected = first ? 0 : p[i - 1].seq_num + 1;
    if (p[i].seq_num <= expected) continue;
    uint64_t lost = p[i].seq_num - expected;
    uint64_t explained = lost < damaged ? lost : damaged;
    damaged -= explained;
    int reused = t->legacy || (p[i].stream_class == MPROF__STREAM_RING &&
                               t->info.ring_mode == MPROF_RING_OVERWRITE);
    if (reused && first) {
      mprof__count_add(t, &t->info.packets_missing, explained);
      mprof__count_add(t, &t->info.packets_overwritten, lost - explained);
      continue;
    }
    mprof__count_add(t, &t->info.packets_missing, lost);
    if (reused || explained == lost) continue;
    if (first)
      mprof__diag(t,
                  "packet %u at offset %llu: stream %llu begins at "
                  "packet_seq_num %llu, not 0: %llu of its packets are lost "
                  "(zeroed or damaged?)",
                  p[i].position, (unsigned long long)p[i].offset,
                  (unsigned long long)p[i].stream_instance,
                  (unsigned long long)p[i].seq_num,
                  (unsigned long long)(lost - explained));
    else
      mprof__diag(t,
                  "packet %u at offset %llu: stream %llu's packet_seq_num "
                  "jumps from %llu to %llu: %llu of its packets are lost "
                  "(zeroed or damaged?)",
                  p[i].position, (unsigned long long)p[i].offset,
                  (unsigned long long)p[i].stream_instance,
                  (unsigned long long)(expected - 1),
                  (unsigned long long)p[i].seq_num,
                  (unsigned long long)(lost - explained));
  }
  if (t->counts_saturated)
    mprof__diag(t,
                "a count of events discarded or packets lost passes "
                "2^63-1 (a damaged events_discarded or packet_seq_num?): "
                "it is shown as 2^63-1, %llu",
                (unsigned long long)MPROF__COUNT_MAX);
}

static int collect_packets(mprof_trace_t *t) {
  t->packets = calloc(t->info.packet_count ? t->info.packet_count : 1,
                      sizeof *t->packets);
  if (!t->packets) return MPROF_EIO;
  size_t n = 0;
  uint64_t damaged = 0;
  for (uint32_t i = 0; i < t->info.packet_count; i++) {
    int good = check_packet(t, i, &t->packets[n]);
    if (good > 0) n++;
    if (good < 0) damaged++;
  }
  qsort(t->packets, n, sizeof *t->packets, packet_order);
  /* Two packets of one stream with one sequence number: keep the first. */
  size_t kept = 0;
  uint32_t streams = 0;
  for (size_t i = 0; i < n; i++) {
    if (kept && packet_order(&t->packets[kept - 1], &t->packets[i]) == 0) {
      mprof__diag(t,
                  "packet %u at offset %llu: duplicate packet_seq_num "
                  "%llu; packet skipped",
                  t->packets[i].position,
                  (unsigned long long)t->packets[i].offset,
                  (unsigned long long)t->packets[i].seq_num);
      continue;
    }
    if (!kept ||
        t->packets[kept - 1].stream_instance != t->packets[i].stream_instance ||
        t->packets[kept - 1].stream_class != t->packets[i].stream_class) {
      streams++;
      if (kept)
        mprof__count_add(t, &t->info.discarded,
                         t->packets[kept - 1].events_discarded);
    }
    t->packets[kept++] = t->packets[i];
  }
  /* events_discarded runs per stream: its last packet has the stream's. */
  if (kept)
    mprof__count_add(t, &t->info.discarded,
                     t->packets[kept - 1].events_discarded);
  t->packet_count = kept;
  mprof__count_lost_packets(t, damaged);
  mprof__find_start(t, MPROF__PACKET_HEADER_SIZE);
  t->info.packets_used = (uint32_t)kept;
  t->info.streams = streams;
  return 0;
}

void mprof__find_start(mprof_trace_t *t, uint64_t header_bytes) {
  uint64_t start = UINT64_MAX;
  for (size_t i = 0; i < t->packet_count; i++)
    if (t->packets[i].content_bytes > header_bytes &&
        t->packets[i].timestamp_begin < start)
      start = t->packets[i].timestamp_begin;
  t->info.start_ticks = start == UINT64_MAX ? 0 : start;
}

/* --- Open and close ------------------------------------------------------- */

/* A trace decoded where it lies reads nothing more from its file: its
 * descriptor is closed. */
static void forget_file(mprof_trace_t *t) {
  if (t->fd >= 0) close(t->fd);
  t->fd = -1;
}

static int open_data(mprof_trace_t *t) {
  if (mprof__legacy_detect(t->data, t->size)) {
    forget_file(t); /* legacy packets are always decoded in place */
    return mprof__legacy_open(t);
  }
  int err = read_trace_header(t);
  /* A live writer: read a consistent copy, never the moving bytes (of a
   * trace too big to copy, its packets as they are: a torn one is damage). */
  if (!err && t->info.recording && t->slots_offset && !t->windowed) {
    forget_file(t); /* the file moves: packets are read from the copy */
    err = mprof__snapshot(t);
  }
  if (!err) err = collect_packets(t);
  if (!err) err = mprof__strings_load(t);
  mprof__tell_shrank(t);
  return err;
}

/* mprof__trace_open_map(), with the file's descriptor (or -1), which the
 * trace then owns, to read packets with. */
static int open_trace(const void *data, size_t size, void *map, size_t map_size,
                      int fd, const char *name, mprof_diag_fn diag,
                      void *context, mprof_trace_t **out) {
  mprof_trace_t *t = calloc(1, sizeof *t);
  if (!t) {
    if (map) munmap(map, map_size);
    if (fd >= 0) close(fd);
    return MPROF_EIO;
  }
  t->data = data;
  t->size = size;
  t->map = map;
  t->map_size = map_size;
  t->windowed = map && map_size < size;
  t->fd = fd;
  t->diag = diag;
  t->context = context;
  snprintf(t->name, sizeof t->name, "%s", name ? name : "(memory)");
  if (fd >= 0 && map) guard(t);
  int err = open_data(t);
  if (err) {
    mprof_trace_close(t);
    return err;
  }
  *out = t;
  return 0;
}

int mprof__trace_open_map(const void *data, size_t size, void *map,
                          size_t map_size, const char *name, mprof_diag_fn diag,
                          void *context, mprof_trace_t **out) {
  return open_trace(data, size, map, map_size, -1, name, diag, context, out);
}

int mprof_trace_open_memory(const void *data, size_t size, const char *name,
                            mprof_diag_fn diag, void *context,
                            mprof_trace_t **out) {
  return mprof__trace_open_map(data, size, NULL, 0, name, diag, context, out);
}

/* fd, to be closed in programs this one starts (a trace keeps its file
 * open while it is open). */
static int close_on_exec(int fd) {
#if defined(F_SETFD) && defined(FD_CLOEXEC)
  if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
  return fd;
}

/* Standard input: a file redirected in is mapped as it is; anything else
 * (a pipe) is copied to an unlinked temporary file in $TMPDIR (or /tmp),
 * then mapped, so even a pipe of gigabytes never sits in the heap. */
static int spool_stdin(void) {
  struct stat st;
  if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && lseek(0, 0, SEEK_CUR) == 0)
    return close_on_exec(dup(0));
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/mprof-stdin-XXXXXX",
           dir && *dir ? dir : "/tmp");
  int fd = close_on_exec(mkstemp(path));
  if (fd < 0) return -1;
  unlink(path);
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(0, buffer, sizeof buffer);
    if (n == 0) return fd;
    if (n < 0 && errno == EINTR) continue;
    for (ssize_t done = 0, w; n > 0 && done < n; done += w)
      if ((w = write(fd, buffer + done, (size_t)(n - done))) < 0 &&
          errno != EINTR)
        n = -1;
      else if (w < 0)
        w = 0;
    if (n < 0) {
      int saved = errno;
      close(fd);
      errno = saved;
      return -1;
    }
  }
}

/* The trace file at path opened to read: a descriptor, or -1 (errno
 * set).  O_NONBLOCK: a FIFO put where the trace was checked must not
 * block the reader until a writer comes; refusal() refuses it. */
static int open_to_read(const char *path) {
  return open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

/* Why the file of fd (-1: its open failed, errno set) is not one to read
 * as a trace -- its error, or not a regular file (errno EINVAL) -- or
 * NULL, its status into *st. */
static const char *refusal(int fd, struct stat *st) {
  if (fd < 0 || fstat(fd, st) < 0) return strerror(errno);
  if (S_ISREG(st->st_mode)) return NULL;
  errno = EINVAL;
  return "not a regular file";
}

int mprof_trace_open(const char *path, mprof_diag_fn diag, void *context,
                     mprof_trace_t **out) {
  int from_stdin = strcmp(path, "-") == 0;
  int fd = from_stdin ? spool_stdin() : open_to_read(path);
  struct stat st;
  const char *name = !from_stdin ? path
                     : fd < 0    ? "(stdin): copying it to a temporary file"
                                 : "(stdin)";
  const char *why = refusal(fd, &st);
  int saved = errno;
  size_t size = why ? 0 : (size_t)st.st_size, map_size = size;
  void *map = size ? mprof__map_trace(fd, size, &map_size) : NULL;
  if (size && map == MAP_FAILED) {
    saved = errno;
    why = "too big to map whole, and not an mprof trace whose head can be";
  }
  if (why) {
    if (diag) {
      char line[1024];
      snprintf(line, sizeof line, "%s: %s", name, why);
      diag(context, line);
    } else {
      fprintf(stderr, "mprof: %s: %s\n", name, why);
    }
    if (fd >= 0) close(fd);
    errno = saved;
    return MPROF_EIO;
  }
  int alive = mprof__writer_alive(fd); /* checked before the copy */
  int err = open_trace(map ? map : "", size, map, map_size, fd, name, diag,
                       context, out);
  if (!err && alive) mprof__trace_end_now(*out);
  return err;
}

/* The size and modification time of a file's status st into out. */
static void take_file_status(const struct stat *st, mprof_trace_head_t *out) {
  out->size = (uint64_t)st->st_size;
  out->mtime_ns =
      (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

int mprof_trace_read_status(const char *path, mprof_trace_head_t *out) {
  struct stat st;
  if (stat(path, &st) < 0) return MPROF_EIO;
  memset(out, 0, sizeof *out);
  take_file_status(&st, out);
  return 0;
}

/* The head of the trace file fd (-1: its open failed): a regular file,
 * its header's magic and version checked, its uuid taken. */
static int read_head(int fd, mprof_trace_head_t *out) {
  struct stat st;
  uint8_t header[MPROF__TH_UUID + 16];
  if (refusal(fd, &st)) return MPROF_EIO;
  ssize_t n = pread(fd, header, sizeof header, 0);
  if (n < 0) return MPROF_EIO;
  if ((size_t)n < sizeof header ||
      header_kind(header, (uint64_t)st.st_size) != HEADER_GOOD)
    return MPROF_EINVAL;
  take_file_status(&st, out);
  memcpy(out->uuid, header + MPROF__TH_UUID, 16);
  return 0;
}

int mprof_trace_read_head(const char *path, mprof_trace_head_t *out) {
  int fd = open_to_read(path);
  int err = read_head(fd, out);
  int saved = errno;
  if (fd >= 0) close(fd);
  errno = saved;
  return err;
}

void mprof_trace_set_diag(mprof_trace_t *t, mprof_diag_fn diag, void *context) {
  t->diag = diag;
  t->context = context;
}

void mprof_trace_close(mprof_trace_t *t) {
  if (!t) return;
  free(t->strings);
  mprof__net_texts_free(t);
  mprof__unguard(t);
  if (t->map) munmap(t->map, t->map_size);
  forget_file(t);
  free(t->packets);
  free(t);
}

const mprof_trace_info_t *mprof_trace_info(const mprof_trace_t *t) {
  return &t->info;
}

size_t mprof_trace_packet_count(const mprof_trace_t *t) {
  return t->packet_count;
}

const mprof_packet_info_t *mprof_trace_packet(const mprof_trace_t *t,
                                              size_t index) {
  return index < t->packet_count ? &t->packets[index] : NULL;
}
