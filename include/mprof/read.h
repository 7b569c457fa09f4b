/* mprof/read.h -- read mprof traces: packets in order, events decoded.
 *
 * The reader never trusts its input: every length and offset is checked
 * before use, a damaged packet is reported in one line (file, packet,
 * offset, what is wrong) through the diagnostic callback, and every good
 * packet is still used.  Traces are mmapped, never read whole into memory.
 */
#ifndef MPROF_READ_H
#define MPROF_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../mprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mprof_trace_s mprof_trace_t;

/* Receives one line (no newline) per problem found in the input. */
typedef void (*mprof_diag_fn)(void *context, const char *message);

/* What events say.  "thread" in mprof_event_t is the async thread running
 * on the event's OS thread: the reader, resolver, signaller or creator. */
typedef enum mprof_event_kind_e {
  MPROF_EVENT_SWITCH = 0,       /* a: thread now running (0: none) */
  MPROF_EVENT_CREATE,           /* a: child, type (creator: thread) */
  MPROF_EVENT_CREATE_BY,        /* a: child, b: creator, type */
  MPROF_EVENT_READ,             /* a: source read by thread */
  MPROF_EVENT_TRY_READ,         /* a: source checked by thread */
  MPROF_EVENT_RESOLVE,          /* a: thread resolved by thread */
  MPROF_EVENT_FAIL,             /* a: thread failed by thread, text: reason */
  MPROF_EVENT_BECOMES,          /* a: old thread, b: new thread */
  MPROF_EVENT_LABEL,            /* a: thread, text: label */
  MPROF_EVENT_SIGNAL,           /* a: target signalled by thread */
  MPROF_EVENT_SUSPEND,          /* the loop goes idle */
  MPROF_EVENT_SHOULD_RESOLVE,   /* a: thread expected to resolve */
  MPROF_EVENT_COUNTER_NAME,     /* counter, text: name */
  MPROF_EVENT_COUNTER_INCREASE, /* counter, value: amount */
  MPROF_EVENT_COUNTER_VALUE,    /* counter, value: absolute value */
  MPROF_EVENT_STRING,           /* counter: string id, text: the string, which
                                   the stream's labels refer to (the reader
                                   resolves them: they arrive as LABEL) */
  MPROF_EVENT_GC,               /* value: duration in ns (legacy traces) */
  MPROF_EVENT_KIND_COUNT
} mprof_event_kind_t;

typedef struct mprof_event_s {
  uint64_t time_ticks; /* clock ticks (see mprof_trace_info_t) */
  mprof_event_kind_t kind;
  uint32_t stream;   /* OS-thread stream number */
  uint64_t thread;   /* async thread running when it happened */
  uint64_t a, b;     /* see mprof_event_kind_t */
  mprof_type_t type; /* CREATE, CREATE_BY */
  uint32_t counter;  /* COUNTER_* */
  int64_t value;     /* COUNTER_INCREASE, COUNTER_VALUE */
  const char *text;  /* not NUL-terminated: use text_length */
  size_t text_length;
} mprof_event_t;

typedef struct mprof_trace_info_s {
  uint64_t clock_freq_hz;
  int64_t clock_offset_ns; /* wall-clock ns at tick 0 */
  uint8_t uuid[16];
  uint32_t packet_size;
  uint32_t packet_count; /* packets in the buffer */
  uint32_t packets_used; /* packets that hold a valid packet */
  uint32_t streams;      /* distinct OS-thread streams */
  uint64_t start_ticks;  /* clock at the earliest packet with events */
  uint64_t discarded;    /* events the writer dropped (ring full): each
                            stream's count plus those of OS threads that
                            never had a packet; 0 for legacy traces */
  int recording;         /* the writer had not stopped */
  uint64_t end_ticks;    /* clock when the recording ended: at
                            mprof_stop(), when a live writer's copy was
                            taken, or when a watcher saw its writer
                            gone; 0 if the trace does not say */
  int legacy;            /* written by OCaml's mirage-profile */
  mprof_ring_mode_t ring_mode;
  const char *metadata; /* CTF TSDL text */
  size_t metadata_size;
  /* Whole packets lost, from gaps in each stream's packet_seq_num (for
   * legacy traces, in the packet counter): */
  uint64_t packets_overwritten; /* a stream's oldest ones: the ring wrapped */
  uint64_t packets_missing;     /* between two that are there: a live reader
                                   skipped them, the ring reused them out of
                                   order, or they were damaged */
} mprof_trace_info_t;

typedef struct mprof_packet_info_s {
  uint32_t stream_class;    /* 0 ring, 1 names */
  uint64_t stream_instance; /* OS-thread stream number */
  uint64_t seq_num;
  uint64_t timestamp_begin, timestamp_end;
  uint64_t offset; /* byte offset in the trace */
  uint64_t content_bytes;
  uint64_t events_discarded;
  uint64_t current_thread; /* running when the packet began */
  uint32_t os_thread_id;
  uint32_t position; /* its place in the file, 0 first (diagnostics
                        name packets by it) */
  int cut;           /* the file ends inside it: its events up to the
                        cut are there, the last may be partial */
} mprof_packet_info_t;

/* Open a trace file ("-" is standard input).  diag may be NULL (problems
 * go to stderr).  Returns 0, or a negative mprof error when nothing usable
 * remains; *out is set on success only.  A file that shrinks while it is
 * open (its program re-creates it) reads as zeros past its new end, told
 * once through diag: the first open installs a SIGBUS handler that guards
 * the traces' mappings and passes other faults to the handler before it.
 * Only a regular file is read: a FIFO, a device or a directory is refused
 * at once ("not a regular file"), never waited on. */
int mprof_trace_open(const char *path, mprof_diag_fn diag, void *context,
                     mprof_trace_t **out);

/* What a trace file says of itself before its packets: its size and
 * modification time, and its header's uuid (the one every packet of it
 * carries). */
typedef struct mprof_trace_head_s {
  uint64_t size;
  int64_t mtime_ns;
  uint8_t uuid[16];
} mprof_trace_head_t;

/* The head of the trace file at path, from one open of it: fstat() and a
 * read of its trace header only, no packet read (a 20 GB trace's 150,000
 * packet headers are what mprof_trace_open() reads first).  What
 * mprof_trace_open() would then read has the same uuid, of a file of that
 * size and time unless it changed in between.  Returns 0, MPROF_EIO (it
 * cannot be opened or read, or is not a regular file: errno set) or
 * MPROF_EINVAL (not an mprof trace of this version: another file, a
 * legacy trace, one cut inside its header). */
int mprof_trace_read_head(const char *path, mprof_trace_head_t *out);

/* The size and modification time of the file at path (stat(): a symbolic
 * link followed), taken as mprof_trace_read_head() takes them, into out
 * (its uuid zeros): a file's, whatever it holds.  Returns 0 or MPROF_EIO
 * (errno set). */
int mprof_trace_read_status(const char *path, mprof_trace_head_t *out);

/* Open a trace already in memory (not copied: keep it alive). */
int mprof_trace_open_memory(const void *data, size_t size, const char *name,
                            mprof_diag_fn diag, void *context,
                            mprof_trace_t **out);

/* Open the trace that running process pid records into its memory (a
 * buffer given to mprof_start(), not a file): found by its header's magic
 * in the process's writable mappings, and copied packet by packet with the
 * snapshot protocol, without stopping the process (Linux; the kernel's
 * ptrace access rules apply).  The copy is a finished trace.  Returns 0,
 * MPROF_EIO (cannot read the process: told through diag, with why), or
 * MPROF_EINVAL (no trace in it). */
int mprof_trace_open_process(int pid, mprof_diag_fn diag, void *context,
                             mprof_trace_t **out);

/* Open the trace found in the writable PT_LOAD segments of an ELF core
 * dump (from gcore, or the kernel).  A trace that the end of the memory
 * dumped (or of the file) cuts is read up to its last whole packet, and
 * the cut is told through diag, as damage is: the file, the trace's
 * address and offset in it, and the packets kept.  Returns 0, MPROF_EIO or
 * MPROF_EINVAL (not a core, or no trace in it). */
int mprof_trace_open_core(const char *path, mprof_diag_fn diag, void *context,
                          mprof_trace_t **out);

/* Where the memory that mprof_trace_open_process() or
 * mprof_trace_open_core() searched held several traces: one line (no
 * newline) that lists them and says which one trace is, for a person to
 * see; NULL for one.  Choosing is no problem in the input, so this line
 * is not told through diag, which tells problems only.  It lives as long
 * as trace. */
const char *mprof_trace_memory_note(const mprof_trace_t *trace);

/* Where trace tells the problems it meets from now on (decoding a
 * damaged packet): diag (NULL: nobody) with context, in place of what it
 * was opened with -- for a caller whose diag at open time lives no
 * longer than the open. */
void mprof_trace_set_diag(mprof_trace_t *trace, mprof_diag_fn diag,
                          void *context);

void mprof_trace_close(mprof_trace_t *trace);

const mprof_trace_info_t *mprof_trace_info(const mprof_trace_t *trace);

/* Good packets, ordered by stream class, stream, then packet_seq_num. */
size_t mprof_trace_packet_count(const mprof_trace_t *trace);
const mprof_packet_info_t *mprof_trace_packet(const mprof_trace_t *trace,
                                              size_t index);

/* Called for each event; return nonzero to stop. */
typedef int (*mprof_event_fn)(void *context, const mprof_event_t *event);

/* Decode the events of packet index in order.  Returns the number of events
 * delivered, or a negative error after reporting a damaged event (the
 * events before it were delivered). */
long mprof_trace_packet_events(const mprof_trace_t *trace, size_t index,
                               mprof_event_fn fn, void *context);

/* At most how many events packet index holds (a bound from its size): the
 * capacity mprof_trace_packet_decode needs for the whole packet. */
size_t mprof_trace_packet_max_events(const mprof_trace_t *trace, size_t index);

/* Add the number of events packet index delivers, by kind, to
 * counts[0 .. MPROF_EVENT_KIND_COUNT), without decoding their fields: a
 * few nanoseconds an event, the way to size arrays before decoding.  A
 * damaged event ends the count where decoding stops (decoding reports it;
 * this does not).  Returns the events counted. */
size_t mprof_trace_packet_census(const mprof_trace_t *trace, size_t index,
                                 uint64_t *counts);

/* Decode the events of packet index in order into events[0 .. capacity),
 * as mprof_trace_packet_events delivers them but with no call per event:
 * the fast way for a reader that keeps a packet's events.  Returns how many
 * were written.  *damaged (if not NULL) is set to 1 when a damaged event,
 * reported through the trace's diag, ended the packet early (the events
 * before it were written), else to 0. */
size_t mprof_trace_packet_decode(const mprof_trace_t *trace, size_t index,
                                 mprof_event_t *events, size_t capacity,
                                 int *damaged);

/* mprof_trace_packet_decode(), the packet's bytes first read into scratch
 * (mprof_trace_info()->packet_size bytes) when the trace is a file: a read
 * copies them from the page cache for a fraction of what a first touch of
 * the mapping's pages costs (a page fault each, and more on a virtual
 * machine).  The events' texts may then point into scratch: they are
 * valid until scratch is written again. */
size_t mprof_trace_packet_decode_copy(const mprof_trace_t *trace, size_t index,
                                      void *scratch, mprof_event_t *events,
                                      size_t capacity, int *damaged);

/* Whether mprof_trace_packet_decode_copy() reads this trace's packets into
 * scratch (a trace opened from a file, which keeps its descriptor until
 * mprof_trace_close()), rather than decoding them where they lie (a trace
 * in memory, a live trace's snapshot, a legacy trace): a caller need not
 * make scratch when it does not. */
int mprof_trace_copies_packets(const mprof_trace_t *trace);

/* Name of an event kind ("create", ...). */
const char *mprof_event_kind_name(mprof_event_kind_t kind);

/* Told, now and then, how far a long operation has come: done of total
 * packets. */
typedef void (*mprof_progress_fn)(void *context, size_t done, size_t total);

/* A file written whole or not at all: its bytes go to a new file of a
 * temporary name in the directory of path (mode 0600, as a trace), which
 * mprof_output_close() renames over path once complete.  A reader of path
 * never sees part of it, and a symbolic link at path is replaced, never
 * written through.  Path "-" is standard output, and a path that is
 * names (or links to) neither a file nor a directory (a FIFO, a device)
 * is written in place. */
typedef struct mprof_output_s {
  FILE *f;         /* write here */
  char path[4096]; /* the name it gets */
  char temp[4096]; /* the name it has until then ("": standard output) */
} mprof_output_t;

/* Start writing path.  Returns 0 or MPROF_EIO (errno set). */
int mprof_output_open(mprof_output_t *out, const char *path);

/* Start writing path as mprof_output_open() does, but only as a file: a
 * FIFO or device at path, which it would write in place and wait on for a
 * reader, is refused (errno EEXIST) -- for the files a program names
 * itself beside a trace, which a user never meant to be a FIFO.  Returns 0
 * or MPROF_EIO (errno set). */
int mprof_output_open_file(mprof_output_t *out, const char *path);

/* Why an output could not be written, errno why as a message: EEXIST
 * from mprof_output_open_file() (a FIFO or device in the file's place) is
 * "not a regular file", any other error strerror()'s text. */
const char *mprof_output_error(int why);

/* Finish: complete (nonzero), the file takes its name; else (or if a write
 * failed) it is removed and path left as it was.  Returns 0, or MPROF_EIO
 * (errno set) when the file did not take its name. */
int mprof_output_close(mprof_output_t *out, int complete);

/* Write a CTF 1.8 directory that babeltrace2 reads: metadata, and one file
 * per stream with its packets in order, timestamp_end made exact and any
 * damaged tail cut off.  A legacy trace gets a metadata that describes its
 * bytes.  directory is made (mode 0700) if it is not there, and must not
 * be a symbolic link (ELOOP); each file is written whole or not at all
 * (mprof_output_open).  progress (may be NULL) is called after each
 * packet.  Returns 0 or MPROF_EIO (errno set). */
int mprof_trace_write_ctf(const mprof_trace_t *trace, const char *directory,
                          mprof_progress_fn progress, void *context);

/* For a trace file whose writer died without stopping (its state still
 * says recording, nobody holds its lock) and that does not say when its
 * recording ended: record wall_ns (wall-clock ns since the Unix epoch) as
 * that end.  `mprof record` calls it once its program's tree is gone.
 * Returns 0 (also where there is nothing to do), MPROF_EINVAL (not a
 * trace) or MPROF_EIO (errno set). */
int mprof_trace_mark_ended(const char *path, int64_t wall_ns);

/* Write the trace's bytes as read (for a live trace: the consistent
 * snapshot) to path ("-": standard output), whole or not at all
 * (mprof_output_open).  Returns 0 or MPROF_EIO (errno set). */
int mprof_trace_save(const mprof_trace_t *trace, const char *path);

/* mprof_trace_save() as a file only (mprof_output_open_file): a FIFO or
 * device at path is refused (errno EEXIST), never waited on. */
int mprof_trace_save_file(const mprof_trace_t *trace, const char *path);

/* A copy of trace holding only the packets that overlap [from_ticks,
 * to_ticks] (whole packets: a window is cut at their boundaries), and
 * every packet of its names stream, as a trace of its own (a flight
 * recorder's capture: mprof_trace_save() it).  The others read as never
 * written: their loss counts as overwritten packets.  Returns 0,
 * MPROF_EINVAL (a legacy trace) or MPROF_ENOMEM. */
int mprof_trace_open_window(const mprof_trace_t *trace, uint64_t from_ticks,
                            uint64_t to_ticks, mprof_trace_t **out);

/* Whether a process maps the trace file at path for writing, as a
 * recorder does (Linux: /proc/PID/maps of the processes it may read):
 * 1, 0 (its writer is gone: it exited or was killed), or -1 (cannot
 * tell: no /proc, or no such file). */
int mprof_trace_file_mapped(const char *path);

/* --- Merged traces: several processes on one time axis --------------------
 *
 * A merged trace is a manifest naming traces that belong together, each
 * with an offset for its clock (docs/FORMAT.md, "Merged traces"): a text
 * file whose first line is "mprof-merge 1" (`mprof record` writes
 * TRACE.manifest for the traces of a process tree), or a directory that
 * `mprof merge` wrote, its manifest DIR/mprof-merge.  Its members are
 * names beside the manifest, never paths.  A set holds the traces opened
 * from one or several paths, ready for mprof_model_load_with():
 *
 *   mprof_trace_set_t set;
 *   if (mprof_trace_open_merged(path, diag, context, &set) == 0) {
 *     mprof_model_load_options_t options = {set.offsets_ns, NULL, NULL};
 *     err = mprof_model_load_with((const mprof_trace_t *const *)set.traces,
 *                                 set.count, &options, &model);
 *     mprof_trace_set_close(&set);
 *   }
 */
typedef struct mprof_trace_set_s {
  mprof_trace_t **traces; /* count open traces */
  char **paths;           /* where each came from: the path given, or for a
                             member MANIFEST_DIR/MEMBER */
  int64_t *offsets_ns;    /* per trace: added to its wall-clock anchor, as
                             mprof_model_load_with() takes them */
  size_t count;
  size_t capacity; /* of the arrays */
} mprof_trace_set_t;

/* Whether path is a merged trace (a manifest, or a directory with one).
 * Reads a few bytes of a regular file; "-", a pipe or a device never is. */
int mprof_trace_is_merged(const char *path);

/* Open path as a set: a merged trace's members at their offsets, or a
 * plain trace as a set of one at offset 0.  *out is set up first (empty on
 * failure).  Returns as mprof_trace_set_add(). */
int mprof_trace_open_merged(const char *path, mprof_diag_fn diag, void *context,
                            mprof_trace_set_t *out);

/* Add path to set (zeroed, or from an earlier call), as
 * mprof_trace_open_merged() opens it.  A malformed manifest line or a member
 * that cannot be opened is told through diag, one line naming the file,
 * and left out: the others are still read.  Returns 0 (something was
 * added), MPROF_EINVAL (not a manifest: its first line), MPROF_EIO
 * (nothing could be read: a plain trace as mprof_trace_open() fails, or no
 * member), or MPROF_ENOMEM; the set keeps what it had. */
int mprof_trace_set_add(mprof_trace_set_t *set, const char *path,
                        mprof_diag_fn diag, void *context);

/* Called for each member of a merged trace: path names it (the manifest's
 * directory, then its name), file is the trace to open (a directory that
 * `mprof merge` wrote has it as MEMBER/.mprof), offset_ns its clock's
 * offset.  Return nonzero to stop. */
typedef int (*mprof_member_fn)(void *context, const char *path,
                               const char *file, int64_t offset_ns);

/* Call fn for each member of merged trace path, in the manifest's order,
 * without reading them.  A malformed line, and a member whose trace file
 * is missing or not a regular file (checked with O_NONBLOCK|O_NOFOLLOW: a
 * FIFO, a symbolic link, a directory without .mprof), is told through
 * diag, one line naming it, and skipped.  Returns 0, MPROF_EINVAL /
 * MPROF_EIO (path is not a merged trace or cannot be read, or no member
 * was left: told), or what fn returned to stop. */
int mprof_trace_merged_members(const char *path, mprof_member_fn fn,
                               void *context, mprof_diag_fn diag,
                               void *diag_context);

/* Close every trace of set and free its arrays; set is empty again. */
void mprof_trace_set_close(mprof_trace_set_t *set);

/* Write the manifest of a merged trace to path: members[i] (a name in the
 * manifest's directory: no '/', not starting with '.') at offsets_ns[i]
 * (NULL: all 0), whole or not at all and only as a file
 * (mprof_output_open_file: a FIFO at path is refused, errno EEXIST).
 * Returns 0, MPROF_EINVAL (a bad name) or MPROF_EIO (errno set). */
int mprof_trace_manifest_write(const char *path, const char *const *members,
                               const int64_t *offsets_ns, size_t count);

/* Write set as a merged trace directory dir, which must not exist
 * (docs/FORMAT.md, "Merged traces"): per trace a CTF directory named after
 * its path's file name, its clock moved by its offset so that babeltrace2
 * reads all on one time axis, the trace itself as MEMBER/.mprof, and the
 * manifest.  Returns 0, MPROF_EIO (told through diag: the file and why)
 * or MPROF_ENOMEM. */
int mprof_trace_merged_write(const mprof_trace_set_t *set, const char *dir,
                             mprof_diag_fn diag, void *context);

/* The name of the process that wrote trace (its metadata's procname) into
 * name[0 .. size), cut to fit.  Returns its length, or -1 if the trace
 * names none (a legacy trace). */
int mprof_trace_process_name(const mprof_trace_t *trace, char *name,
                             size_t size);

/* --- The traces of a process tree ------------------------------------------
 *
 * Each process of a traced tree writes its own trace beside its parent's:
 * MPROF_TRACE's path with "%p" as its pid, ".PID" added for a forked child
 * or a process whose path a live process still writes (docs/recording.md).
 */
typedef struct mprof_tree_trace_s {
  char *path;       /* the pattern's directory, then the file's name */
  long long pid;    /* the process: the name's last ".PID", else its "%p",
                       else the tree's top process */
  char process[64]; /* the process's name, from its trace ("" if none) */
  uint64_t events;  /* events of every kind */
  int empty;        /* nothing happened in it: its events (if any) only
                       name counters or strings, as every process under
                       the libuv shim does at start */
  int unreadable;   /* not a trace (told through diag) */
} mprof_tree_trace_t;

/* Find the traces that pattern (MPROF_TRACE's value) names for top_pid's
 * tree: the files in its directory whose names it makes, with ".PID"
 * suffixes, changed at or after since_ns (CLOCK_REALTIME ns, as file times;
 * a file from an earlier run is older), in the order of their paths.  Each
 * is opened and counted (its problems told through diag).  *out is to be
 * freed with mprof_trace_tree_free().  Returns 0, MPROF_EINVAL (pattern too
 * long), MPROF_EIO (its directory cannot be read; errno set) or
 * MPROF_ENOMEM. */
int mprof_trace_tree_find(const char *pattern, long long top_pid,
                          int64_t since_ns, mprof_diag_fn diag, void *context,
                          mprof_tree_trace_t **out, size_t *count);
void mprof_trace_tree_free(mprof_tree_trace_t *traces, size_t count);

/* Write the manifest of the tree's traces that hold events (neither empty
 * nor unreadable) beside them, as one merged trace on one time axis (their
 * offsets 0: one machine, one clock): at pattern with "%p" as top_pid, then
 * ".manifest", that path into path[0 .. size).  Returns as
 * mprof_trace_manifest_write(), or MPROF_ENOMEM. */
int mprof_trace_tree_manifest_write(const char *pattern, long long top_pid,
                                    const mprof_tree_trace_t *traces,
                                    size_t count, char *path, size_t size);

/* A packet decoded: its events, and the bytes their texts point into (the
 * packet read into memory; NULL where it was decoded where it lies).  The
 * buffers belong to whoever holds it; they grow to the largest packet
 * decoded into them.  Zeroed, it holds nothing. */
typedef struct mprof_decoded_s {
  mprof_event_t *events;
  size_t count, capacity;
  void *bytes;
  size_t bytes_size;
} mprof_decoded_t;

/* Decode packet index into d, as mprof_trace_packet_decode_copy() where
 * the trace reads packets into memory (packets up to 4 MiB), else as
 * mprof_trace_packet_decode(); damage is reported.  Returns 0 or
 * MPROF_ENOMEM. */
int mprof_trace_packet_decode_into(const mprof_trace_t *trace, size_t index,
                                   mprof_decoded_t *d);

/* Free d's buffers; d holds nothing after. */
void mprof_decoded_free(mprof_decoded_t *d);

/* A relay (relay.c): events made in a thread of its own, by a function
 * (the model's merge of a trace's streams), handed to the caller's thread
 * in batches while it works on those before (the streamed report: the
 * decoding and the merge in one thread, the analysis in the other).  At
 * most `depth` batches wait; each is a copy, texts included, so the
 * producer's buffers may change once it has put it. */
typedef struct mprof_relay_s mprof_relay_t;

/* What the relay's thread runs: it puts its events, and returns 0 or an
 * mprof error, told to the caller by mprof_relay_get() after the events. */
typedef int (*mprof_relay_fn)(void *context, mprof_relay_t *relay);

/* Start produce(context) in a thread of its own.  Returns 0,
 * MPROF_ENOMEM, or MPROF_EINVAL where no thread can start (the caller then
 * does the work itself). */
int mprof_relay_start(mprof_relay_fn produce, void *context, size_t depth,
                      mprof_relay_t **out);

/* In the relay's thread: hand on events[0 .. count), waiting while depth
 * batches wait.  Returns 0, MPROF_ENOMEM, or MPROF_EINVAL once the caller
 * has stopped the relay (the producer is to end). */
int mprof_relay_put(mprof_relay_t *relay, const mprof_event_t *events,
                    size_t count);

/* What a producer does to its events' copies before the caller's thread
 * sees them: any field but text and text_length (the copies' texts are
 * the relay's, and it may move them).  Returns 0 or an mprof error. */
typedef int (*mprof_relay_edit_fn)(void *context, mprof_event_t *copies,
                                   size_t count);

/* mprof_relay_put(), each batch of copies passed to edit(context, ...)
 * first, in the relay's thread: work on the events that the caller would
 * otherwise do (the streamed analysis stamps their times there).  Returns
 * as mprof_relay_put(), or edit's error; a put that fails hands none of
 * its events on (the ones before it go on). */
int mprof_relay_put_edited(mprof_relay_t *relay, const mprof_event_t *events,
                           size_t count, mprof_relay_edit_fn edit,
                           void *context);

/* The next batch into *events and *count (valid until the next call), the
 * one before given back; *count 0 after the last: the return value is
 * then produce()'s. */
int mprof_relay_get(mprof_relay_t *relay, const mprof_event_t **events,
                    size_t *count);

/* Stop the relay (its producer's puts fail from now on), wait for the
 * thread to end, and free all (NULL: nothing). */
void mprof_relay_stop(mprof_relay_t *relay);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_READ_H */
