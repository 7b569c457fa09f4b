/* process.c -- the trace a program records into memory rather than into a
 * file, read out of the running (or stopped) process, or out of its core
 * dump: the C analog of dumping a dead Xen domain's ring.
 *
 * The recorder needs no help: its trace header starts with the magic
 * "MPROFCTF" at an 8-byte-aligned address and says how big the buffer is.
 * We look for it in the process's writable mappings (/proc/PID/maps, read
 * with process_vm_readv, which the kernel allows under the same rules as
 * ptrace: same user, or CAP_SYS_PTRACE, and Yama's ptrace_scope) or in the
 * PT_LOAD segments of a core dump: a process's (gcore) or a virtual
 * machine's whole memory (QEMU's dump-guest-memory, the unikernel case).
 * A running writer is never stopped: its packets
 * are copied with the snapshot protocol (snapshot.c), as from a live file.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <elf.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "trace_internal.h"

/* Mappings larger than this are not searched (sanitizer shadow memory,
 * reserved address space); a trace buffer is much smaller. */
#define MAX_REGION_BYTES ((uint64_t)16 << 30)
#define SCAN_CHUNK_BYTES ((size_t)1 << 20)

void mprof__diag_to(mprof_diag_fn diag, void *context, const char *format,
                    ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (diag)
    diag(context, line);
  else
    fprintf(stderr, "mprof: %s\n", line);
}

/* Whether header (128 bytes) starts a trace whose fields agree with each
 * other; fills layout.  A stale header of a buffer reused since also
 * passes: the caller prefers one still recording. */
static int header_is_trace(const uint8_t *h, mprof__layout_t *layout) {
  if (memcmp(h, MPROF__TRACE_MAGIC, 8) ||
      mprof__get_u32(h + MPROF__TH_VERSION) != MPROF__TRACE_VERSION)
    return 0;
  uint64_t size = mprof__get_u64(h + MPROF__TH_BUFFER_SIZE);
  layout->size = (size_t)size;
  layout->packet_size = mprof__get_u32(h + MPROF__TH_PACKET_SIZE);
  layout->packet_count = mprof__get_u32(h + MPROF__TH_PACKET_COUNT);
  layout->slots_offset = mprof__get_u64(h + MPROF__TH_SLOTS_OFFSET);
  layout->packets_offset = mprof__get_u64(h + MPROF__TH_PACKETS_OFFSET);
  return size >= MPROF_MIN_SIZE && layout->packet_size >= 1024 &&
         layout->slots_offset <= size &&
         layout->packet_count <= (size - layout->slots_offset) / 8 &&
         layout->packets_offset <= size &&
         (uint64_t)layout->packet_count * layout->packet_size <=
             size - layout->packets_offset;
}

static int is_recording(const uint8_t *h) {
  return mprof__get_u32(h + MPROF__TH_STATE) == MPROF__STATE_RECORDING;
}

/* The traces found, in address order, for the line that says there were
 * several (the first few), and the best one: one recording beats a
 * stopped one, and then the first.  A core dump may hold a trace that the
 * end of its memory cuts (present < layout.size): what is there is read,
 * from its header to its last whole packet. */
#define LISTED_TRACES 4
typedef struct found_s {
  uint64_t address;
  uint64_t file_offset; /* in a core dump: where its header is in the file */
  mprof__layout_t layout;
  uint64_t present;
  int count, recording;
  int allow_cut; /* a core dump: a trace may run past the memory dumped */
  uint64_t listed[LISTED_TRACES];
  int listed_recording[LISTED_TRACES];
} found_t;

/* Search bytes (n, at address, with room bytes from there to the end of
 * their mapping; in a core dump, at file_offset in the file) for trace
 * headers. */
static void search(const uint8_t *bytes, size_t n, uint64_t address,
                   uint64_t file_offset, uint64_t room, found_t *found) {
  for (size_t at = 0; at + MPROF__TRACE_HEADER_SIZE <= n; at += 8) {
    mprof__layout_t layout;
    if (bytes[at] != 'M' || !header_is_trace(bytes + at, &layout)) continue;
    uint64_t present = room - at < layout.size ? room - at : layout.size;
    if (present < layout.size &&
        (!found->allow_cut || present < layout.packets_offset))
      continue;
    int recording = is_recording(bytes + at);
    if (found->count < LISTED_TRACES) {
      found->listed[found->count] = address + at;
      found->listed_recording[found->count] = recording;
    }
    if (!found->count++ || (recording && !found->recording)) {
      found->address = address + at;
      found->file_offset = file_offset + at;
      found->layout = layout;
      found->present = present;
      found->recording = recording;
    }
  }
}

/* The line for memory that holds several traces (mprof_trace_memory_note):
 * where they are, and which one is read; "" for one. */
#define NOTE_BYTES sizeof(((mprof_trace_t *)0)->memory_note)
static void note_several(const char *where, const found_t *found,
                         char note[NOTE_BYTES]) {
  note[0] = 0;
  if (found->count < 2) return;
  char list[256] = "";
  size_t used = 0;
  for (int i = 0; i < found->count && i < LISTED_TRACES && used < sizeof list;
       i++)
    used += (size_t)snprintf(
        list + used, sizeof list - used, "%s0x%" PRIx64 " %s", i ? ", " : "",
        found->listed[i], found->listed_recording[i] ? "recording" : "stopped");
  snprintf(note, NOTE_BYTES,
           "%s: %d mprof traces in memory (at %s%s); read the %s one at "
           "0x%" PRIx64,
           where, found->count, list,
           found->count > LISTED_TRACES ? ", ..." : "",
           found->recording ? "recording" : "stopped", found->address);
}

/* err, after giving *out note as its memory note where it opened (err 0). */
static int noted(int err, mprof_trace_t *const *out, const char *note) {
  if (!err) snprintf((*out)->memory_note, NOTE_BYTES, "%s", note);
  return err;
}

/* --- A running process ---------------------------------------------------- */

/* Search one mapping of process pid, a chunk at a time (chunks overlap by a
 * header, so none is missed at a border).  Returns -1 if unreadable. */
static int search_region(int pid, uint64_t start, uint64_t end, uint8_t *chunk,
                         found_t *found) {
  mprof__source_t src = {NULL, pid, 0};
  for (uint64_t at = start; at < end;
       at += SCAN_CHUNK_BYTES - MPROF__TRACE_HEADER_SIZE) {
    size_t n =
        end - at < SCAN_CHUNK_BYTES ? (size_t)(end - at) : SCAN_CHUNK_BYTES;
    if (mprof__source_read(&src, at, chunk, n)) return -1;
    search(chunk, n, at, 0, end - at, found);
    if (n < SCAN_CHUNK_BYTES) break;
  }
  return 0;
}

/* Find the trace in pid's writable mappings.  Returns 0 or -errno. */
static int find_in_process(int pid, found_t *found) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *maps = fopen(path, "r");
  if (!maps) return -errno;
  uint8_t *chunk = malloc(SCAN_CHUNK_BYTES);
  int err = chunk ? 0 : -ENOMEM;
  char line[4096];
  while (!err && fgets(line, sizeof line, maps)) {
    uint64_t start, end;
    char perms[8];
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &start, &end, perms) != 3 ||
        perms[0] != 'r' || perms[1] != 'w' || end - start > MAX_REGION_BYTES)
      continue;
    /* A mapping that went away meanwhile is no error; a refusal is. */
    if (search_region(pid, start, end, chunk, found) && errno != EFAULT &&
        errno != EIO)
      err = -errno;
  }
  free(chunk);
  fclose(maps);
  return err;
}

static void report_access(int pid, int error, mprof_diag_fn diag,
                          void *context) {
  if (error == -EPERM || error == -EACCES) {
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (f && fscanf(f, "%d", &scope) != 1) scope = 0;
    if (f) fclose(f);
    mprof__diag_to(
        diag, context,
        "process %d: cannot read its memory (%s): it must run as your user "
        "and be traceable%s",
        pid, strerror(-error),
        scope >= 1 ? "; /proc/sys/kernel/yama/ptrace_scope is not 0, so run "
                     "as root, or start the program from mprof's parent, or "
                     "set the scope to 0"
                   : "");
  } else {
    mprof__diag_to(diag, context, "process %d: %s", pid, strerror(-error));
  }
}

int mprof_trace_open_process(int pid, mprof_diag_fn diag, void *context,
                             mprof_trace_t **out) {
  found_t found = {0};
  int err = find_in_process(pid, &found);
  if (err) {
    report_access(pid, err, diag, context);
    return MPROF_EIO;
  }
  if (!found.count) {
    mprof__diag_to(diag, context, "process %d: no mprof trace in its memory",
                   pid);
    return MPROF_EINVAL;
  }
  char name[64];
  snprintf(name, sizeof name, "process %d", pid);
  char note[NOTE_BYTES];
  note_several(name, &found, note);
  mprof__source_t src = {NULL, pid, found.address};
  uint8_t *copy;
  uint32_t dropped;
  err = mprof__snapshot_copy(&src, &found.layout, &copy, &dropped);
  if (err) {
    mprof__diag_to(diag, context, "process %d: trace at 0x%" PRIx64 ": %s", pid,
                   found.address, strerror(errno));
    return err;
  }
  err =
      noted(mprof__trace_open_map(copy, found.layout.size, copy,
                                  found.layout.size, name, diag, context, out),
            out, note);
  if (!err) mprof__diag_dropped(*out, dropped);
  return err;
}

/* --- A core dump ---------------------------------------------------------- */

/* Search the PT_LOAD segments of the core at data (size bytes): the
 * writable ones of a process (gcore), and all of a virtual machine's
 * memory (QEMU's dump-guest-memory, whose segments have no flags). */
static int find_in_core(const uint8_t *data, size_t size, found_t *found) {
  if (size < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) ||
      data[EI_CLASS] != ELFCLASS64)
    return -1;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
  if (eh->e_type != ET_CORE || eh->e_phentsize != sizeof(Elf64_Phdr) ||
      eh->e_phoff > size ||
      (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size - eh->e_phoff)
    return -1;
  for (int i = 0; i < eh->e_phnum; i++) {
    Elf64_Phdr ph; /* copied: e_phoff need not be aligned */
    memcpy(&ph, data + eh->e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD || (ph.p_flags && !(ph.p_flags & PF_W)) ||
        ph.p_offset > size)
      continue;
    /* A file cut short (a dump interrupted, a copy that stopped) still
     * holds the start of its last segment: a trace there is cut. */
    uint64_t held =
        ph.p_filesz < size - ph.p_offset ? ph.p_filesz : size - ph.p_offset;
    search(data + ph.p_offset, held, ph.p_vaddr, ph.p_offset, held, found);
  }
  return 0;
}

/* The trace at trace, which the end of the memory dumped cuts: a copy of
 * its header and whole packets, its header listing only those. */
static int open_cut_trace(const uint8_t *trace, const found_t *found,
                          const char *path, mprof_diag_fn diag, void *context,
                          mprof_trace_t **out) {
  const mprof__layout_t *layout = &found->layout;
  uint64_t whole =
      (found->present - layout->packets_offset) / layout->packet_size;
  if (whole > layout->packet_count) whole = layout->packet_count; /* slack */
  size_t kept = (size_t)(layout->packets_offset + whole * layout->packet_size);
  uint8_t *copy = mmap(NULL, kept, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) {
    mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
    return MPROF_ENOMEM;
  }
  memcpy(copy, trace, kept);
  mprof__put_u64(copy + MPROF__TH_BUFFER_SIZE, kept);
  mprof__put_u32(copy + MPROF__TH_PACKET_COUNT, (uint32_t)whole);
  mprof__diag_to(
      diag, context,
      "%s: the trace at 0x%" PRIx64 " (offset %" PRIu64 " in the file) "
      "runs past the end of the memory dumped (%" PRIu64 " of its %zu "
      "bytes are there); read its first %" PRIu64 " of %u packets",
      path, found->address, found->file_offset, found->present, layout->size,
      whole, layout->packet_count);
  return mprof__trace_open_map(copy, kept, copy, kept, path, diag, context,
                               out);
}

int mprof_trace_open_core(const char *path, mprof_diag_fn diag, void *context,
                          mprof_trace_t **out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
    mprof__diag_to(diag, context, "%s: %s", path,
                   fd < 0 ? strerror(errno) : "empty file");
    if (fd >= 0) close(fd);
    return MPROF_EIO;
  }
  size_t size = (size_t)st.st_size;
  uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    mprof__diag_to(diag, context, "%s: %s", path, strerror(errno));
    return MPROF_EIO;
  }
  found_t found = {.allow_cut = 1};
  int not_core = find_in_core(map, size, &found);
  if (not_core || !found.count) {
    mprof__diag_to(diag, context, "%s: %s", path,
                   not_core ? "not an ELF core dump (64-bit)"
                            : "no mprof trace in the memory of this core dump");
    munmap(map, size);
    return MPROF_EINVAL;
  }
  char note[NOTE_BYTES];
  note_several(path, &found, note);
  /* search() found it whole or cut inside its segment, in the file. */
  assert(found.file_offset + found.present <= size);
  const uint8_t *trace = map + found.file_offset;
  if (found.present == found.layout.size)
    return noted(mprof__trace_open_map(trace, found.layout.size, map, size,
                                       path, diag, context, out),
                 out, note);
  int err =
      noted(open_cut_trace(trace, &found, path, diag, context, out), out, note);
  munmap(map, size);
  return err;
}

const char *mprof_trace_memory_note(const mprof_trace_t *trace) {
  return trace->memory_note[0] ? trace->memory_note : NULL;
}
