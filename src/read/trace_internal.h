/* trace_internal.h -- the reader's private state, shared by its files. */
#ifndef MPROF_TRACE_INTERNAL_H
#define MPROF_TRACE_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "mprof/read.h"

struct mprof_trace_s {
  const uint8_t *data; /* the whole trace */
  size_t size;
  void *map; /* our mapping, if we made one */
  size_t map_size;
  int fd;         /* a file's descriptor, open as long as the trace,
                     to read packets with (trace.c); -1: the trace is
                     in memory (or a live one's snapshot) */
  char name[512]; /* file name for diagnostics */
  mprof_diag_fn diag;
  void *context;
  mprof_trace_info_t info;
  uint64_t slots_offset; /* 0: no slot states */
  uint64_t packets_offset;
  mprof_packet_info_t *packets; /* good packets, in order */
  size_t packet_count;
  int legacy;                /* a mirage-profile trace (legacy.c) */
  uint64_t orphan_discarded; /* drops of OS threads without a ring packet */
  struct mprof_string_s *strings; /* interned label strings, sorted */
  size_t string_count;
  /* Per packet: the texts of its net_label events, NULL until a decoding
   * first needs them (decode.c), then set once, atomically; the array is
   * NULL for a legacy trace. */
  struct mprof__net_texts_s **net_texts;
  /* Its file shrank under the mapping (trace.c): 1 when a page past the
   * new end faulted or a read fell short, 2 once told; atomic, as the
   * SIGBUS handler sets it. */
  int shrank;
  int counts_saturated; /* a count below passed MPROF__COUNT_MAX */
  /* A file too big to map whole (trace_big.c): data maps its first
   * map_size bytes only, the packets are read into copies. */
  int windowed;
  uint8_t **copies;       /* per packet, its copy once made (windowed) */
  char memory_note[1024]; /* mprof_trace_memory_note(); "" for none */
};

/* The most a count of a trace's (events discarded, packets lost) can be:
 * 2^63 - 1, where the signed integers of JSON and of the model end, and
 * far past what a recorder can drop or lose (292 years of events, one a
 * nanosecond).  Counts saturate there (mprof__count_add). */
#define MPROF__COUNT_MAX ((uint64_t)INT64_MAX)

/* *sum += n, saturated at MPROF__COUNT_MAX (noted in the trace, to be told
 * once by mprof__count_lost_packets). */
static inline void mprof__count_add(mprof_trace_t *trace, uint64_t *sum,
                                    uint64_t n) {
  if (n > MPROF__COUNT_MAX || MPROF__COUNT_MAX - n < *sum) {
    *sum = MPROF__COUNT_MAX;
    trace->counts_saturated = 1;
  } else {
    *sum += n;
  }
}

/* Thread ids a trace can hold are below this.  The recorder mints them
 * from 1 up (reaching 2^56 would take 2^46 chunks of ids), and a model of
 * several traces keeps the top byte for the trace's place among them
 * (mprof/model.h): an id at or above it is damage, and is never handed on,
 * where it would be taken for a thread of another trace. */
#define MPROF__THREAD_ID_LIMIT ((uint64_t)1 << 56)

/* The texts that a packet's net_label events stand for, in event order:
 * the k-th is text[offsets[k] .. offsets[k + 1]); one allocation, text
 * after the offsets.  They live as long as the trace, as every event's
 * text does. */
typedef struct mprof__net_texts_s {
  uint32_t count;
  char *text;
  uint32_t offsets[]; /* count + 1 of them */
} mprof__net_texts_t;

/* An interned string: the text of (stream, id). */
typedef struct mprof_string_s {
  uint64_t stream;
  uint32_t id;
  uint32_t length;
  const char *text;
} mprof_string_t;

/* Collect the STRING events of every names packet, and make room for the
 * net_label texts (decode.c). */
int mprof__strings_load(mprof_trace_t *trace);

/* Free what decoding made (decode.c): the net_label texts, and a windowed
 * trace's copies of its packets. */
void mprof__net_texts_free(mprof_trace_t *trace);

/* Take a NUL-terminated string at *p, before end, as ev's text; advance *p
 * past the NUL.  Returns -1 (nothing taken) if no NUL comes before end. */
static inline int mprof__take_string(const uint8_t **p, const uint8_t *end,
                                     mprof_event_t *ev) {
  const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));
  if (!nul) return -1;
  ev->text = (const char *)*p;
  ev->text_length = (size_t)(nul - *p);
  *p = nul + 1;
  return 0;
}

/* Report a damaged event: where it is, what is wrong with it (`what`,
 * then `code_name` and code: "id 7", "op 14"), and how many events of its
 * packet were kept. */
void mprof__diag_bad_event(const mprof_trace_t *trace,
                           const mprof_packet_info_t *packet,
                           uint64_t event_offset, const char *what,
                           const char *code_name, unsigned code, long kept);

/* Tell a problem found outside any trace (a process, a core dump, a
 * manifest): through diag, or on stderr when it is NULL (process.c). */
void mprof__diag_to(mprof_diag_fn diag, void *context, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Remove path and, if it is a directory, all it holds (not following
 * symbolic links); what cannot be removed stays (merged_write.c). */
void mprof__remove_tree(const char *path);

/* Report one problem: "NAME: " + the formatted text. */
void mprof__diag(const mprof_trace_t *trace, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Where decoded events go: to fn one by one (out NULL), or into
 * out[0 .. capacity).  count: how many good events so far. */
typedef struct mprof__sink_s {
  mprof_event_fn fn;
  void *context;
  mprof_event_t *out;
  size_t capacity;
  size_t count;
  uint8_t raw_net;      /* net_label events as stored (one event: the raw
                           fields, not the counter increase and label text) */
  uint8_t quiet;        /* damage not reported: a decoding that asked for this
                           one reports it */
  const uint8_t *bytes; /* the packet's bytes read into memory of the
                           caller's, or NULL: decode them in the trace */
} mprof__sink_t;

/* Decode the events of a packet into sink; *end_ticks gets the last
 * event's clock and *good_bytes the content size up to the last good
 * event.  Returns the count, or MPROF_EINVAL after reporting a damaged
 * event. */
long mprof__packet_decode(const mprof_trace_t *trace, size_t index,
                          mprof__sink_t *sink, uint64_t *end_ticks,
                          uint64_t *good_bytes);

/* Read packet pk's content into copy (its content_bytes) with pread(),
 * from the trace's file.  Returns 1, 0 if there is no file (the packet is
 * in memory), or -1 if the read fell short: the file shrank (noted, to be
 * told by mprof__tell_shrank). */
int mprof__packet_read(const mprof_trace_t *trace,
                       const mprof_packet_info_t *pk, uint8_t *copy);

/* Say, once, that the trace's file shrank while it was read, if it did:
 * its pages past the new end read as zeros from then on. */
void mprof__tell_shrank(const mprof_trace_t *trace);

/* Stop guarding the trace's mapping of its file, before it is unmapped. */
void mprof__unguard(const mprof_trace_t *trace);

/* Replace the trace's bytes by a consistent copy (snapshot.c). */
int mprof__snapshot(mprof_trace_t *trace);

/* When recordings end (trace_end.c): whether a writer holds fd's lock (it
 * runs); a trace whose writer ran when it was opened ends now. */
int mprof__writer_alive(int fd);
void mprof__trace_end_now(mprof_trace_t *trace);

/* Where the bytes of a trace being written are: in this process (local),
 * or at address in process pid. */
typedef struct mprof__source_s {
  const uint8_t *local;
  int pid;
  uint64_t address;
} mprof__source_t;

/* Copy n bytes at offset of the source.  Returns 0, or -1 (errno set). */
int mprof__source_read(const mprof__source_t *src, uint64_t offset, void *dst,
                       size_t n);

/* Where a live trace's parts lie (from its trace header, checked to fit). */
typedef struct mprof__layout_s {
  size_t size;
  uint64_t packets_offset, slots_offset;
  uint32_t packet_count, packet_size;
} mprof__layout_t;

/* A consistent copy of a live trace in a new private mapping of
 * layout->size bytes (*out), marked stopped; *dropped packets could not be
 * copied.  Returns 0, MPROF_ENOMEM or MPROF_EIO (source unreadable). */
int mprof__snapshot_copy(const mprof__source_t *src,
                         const mprof__layout_t *layout, uint8_t **out,
                         uint32_t *dropped);

/* Say that dropped packets were left out of a snapshot (if any). */
void mprof__diag_dropped(const mprof_trace_t *trace, uint32_t dropped);

/* Open the trace at data (size bytes), which lies in map (map_size bytes,
 * ours to unmap at close, or NULL). */
int mprof__trace_open_map(const void *data, size_t size, void *map,
                          size_t map_size, const char *name, mprof_diag_fn diag,
                          void *context, mprof_trace_t **out);

/* Set info.start_ticks from the packets holding more than a header. */
void mprof__find_start(mprof_trace_t *trace, uint64_t header_bytes);

/* Count the packets lost from each stream, from the gaps in the sorted
 * packets' sequence numbers (info.packets_overwritten, packets_missing);
 * `damaged` packets were already reported, so explain that many lost.
 * Then tell, once, if any count of the trace saturated. */
void mprof__count_lost_packets(mprof_trace_t *trace, uint64_t damaged);

/* A trace too big to map whole (trace_big.c). */

/* Map the trace file fd (size bytes): whole, or when that fails only its
 * head before the packets (*map_size: how much).  MAP_FAILED if neither. */
void *mprof__map_trace(int fd, size_t size, size_t *map_size);

/* The bytes of packet index where decoding finds them: in the mapping, or
 * for a windowed trace in its copy, read once and kept until close (NULL:
 * no memory, or the file shrank). */
const uint8_t *mprof__packet_kept(const mprof_trace_t *trace, size_t index);

/* Make room for a windowed trace's copies (after its packets are found);
 * free them.  Returns 0 or MPROF_ENOMEM. */
int mprof__copies_make(mprof_trace_t *trace);
void mprof__copies_free(mprof_trace_t *trace);

/* For what needs all of a trace's bytes at once (what: "a window"):
 * MPROF_ENOMEM, told through diag (errno EFBIG), when the trace is
 * windowed; else 0. */
int mprof__refuse_big(const mprof_trace_t *trace, const char *what);

/* Legacy mirage-profile traces (legacy.c): each packet starts with this
 * 30-byte header; fields are little-endian and unaligned. */
enum {
  MPROF__LEGACY_PH_SIZE = 20,    /* u32: packet size in bits */
  MPROF__LEGACY_PH_COUNT = 24,   /* u16: packet counter, wraps */
  MPROF__LEGACY_PH_CONTENT = 26, /* u32: content size in bits */
  MPROF__LEGACY_HEADER_SIZE = 30,
  MPROF__LEGACY_MIN_EVENT = 9 /* a legacy event's clock and op */
};

int mprof__legacy_detect(const uint8_t *data, size_t size);
int mprof__legacy_open(mprof_trace_t *trace);
/* Decode a legacy packet as mprof__packet_decode does an mprof one. */
long mprof__legacy_decode(const mprof_trace_t *trace, size_t index,
                          mprof__sink_t *sink, uint64_t *good_bytes);

/* The CTF form of a legacy trace (legacy_ctf.c): its metadata, and the
 * header of packet index as the CTF directory holds it (a header of
 * MPROF__LEGACY_HEADER_SIZE bytes); returns the packet's good bytes. */
int mprof__legacy_ctf_metadata(const mprof_trace_t *trace, FILE *f);
uint64_t mprof__legacy_ctf_header(const mprof_trace_t *trace, size_t index,
                                  uint8_t *header);

/* Grow d to hold `events` events and `bytes` bytes of a packet (what it
 * holds kept).  Returns 0 or MPROF_ENOMEM. */
int mprof__decoded_room(mprof_decoded_t *d, size_t events, size_t bytes);

#endif /* MPROF_TRACE_INTERNAL_H */
