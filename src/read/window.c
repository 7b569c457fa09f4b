/* window.c -- what a flight recorder needs of the reader (`mprof watch`):
 * the part of a trace around a moment, as a trace of its own, and whether
 * a trace file still has a writer.
 *
 * A window is cut at packet boundaries: the copy keeps the packets that
 * overlap the window whole, and zeroes the others, which readers take
 * for slots never written (docs/FORMAT.md).  The packets of the names
 * stream are always kept, as the labels of any time refer to them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "trace_internal.h"

/* The latest time packet index can hold: the next packet of its stream
 * began after its last event (a packet still open has a stale
 * timestamp_end, docs/FORMAT.md section 9.1), and the newest packet of a
 * stream may still be growing. */
static uint64_t packet_last_ticks(const mprof_trace_t *t, size_t index) {
  const mprof_packet_info_t *p = &t->packets[index];
  if (index + 1 == t->packet_count) return UINT64_MAX;
  const mprof_packet_info_t *next = &t->packets[index + 1];
  if (next->stream_class != p->stream_class ||
      next->stream_instance != p->stream_instance)
    return UINT64_MAX;
  return next->timestamp_begin > p->timestamp_end ? next->timestamp_begin
                                                  : p->timestamp_end;
}

static int packet_in_window(const mprof_trace_t *t, size_t index,
                            uint64_t from_ticks, uint64_t to_ticks) {
  const mprof_packet_info_t *p = &t->packets[index];
  return p->stream_class != 0 || (p->timestamp_begin <= to_ticks &&
                                  packet_last_ticks(t, index) >= from_ticks);
}

int mprof_trace_open_window(const mprof_trace_t *t, uint64_t from_ticks,
                            uint64_t to_ticks, mprof_trace_t **out) {
  if (t->legacy || !t->size) return MPROF_EINVAL;
  if (mprof__refuse_big(t, "a window")) return MPROF_ENOMEM;
  uint8_t *copy = mmap(NULL, t->size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) return MPROF_ENOMEM;
  memcpy(copy, t->data, t->size);
  for (size_t i = 0; i < t->packet_count; i++) {
    if (packet_in_window(t, i, from_ticks, to_ticks)) continue;
    uint64_t offset = t->packets[i].offset;
    uint64_t bytes = t->info.packet_size;
    if (offset > t->size) continue;
    if (bytes > t->size - offset) bytes = t->size - offset;
    memset(copy + offset, 0, bytes);
  }
  return mprof__trace_open_map(copy, t->size, copy, t->size, t->name, t->diag,
                               t->context, out);
}

/* Whether one line of /proc/PID/maps maps the file (dev, ino) for
 * writing: readers (this one, a viewer following it) map it read-only. */
static int maps_line_writes(const char *line, dev_t dev, ino_t ino) {
  char perms[8];
  unsigned major_number, minor_number;
  unsigned long long inode;
  if (sscanf(line, "%*s %7s %*s %x:%x %llu", perms, &major_number,
             &minor_number, &inode) != 4)
    return 0;
  return perms[1] == 'w' && inode == (unsigned long long)ino &&
         major_number == major(dev) && minor_number == minor(dev);
}

static int process_maps_file(const char *pid, dev_t dev, ino_t ino) {
  char path[300], line[4096];
  snprintf(path, sizeof path, "/proc/%s/maps", pid);
  FILE *maps = fopen(path, "r");
  if (!maps) return 0; /* gone, or not ours to read */
  int found = 0;
  while (!found && fgets(line, sizeof line, maps))
    found = maps_line_writes(line, dev, ino);
  fclose(maps);
  return found;
}

int mprof_trace_file_mapped(const char *path) {
  struct stat st;
  DIR *proc = opendir("/proc");
  if (!proc) return -1;
  if (stat(path, &st) != 0) {
    closedir(proc);
    return -1;
  }
  int found = 0;
  struct dirent *entry;
  while (!found && (entry = readdir(proc)))
    if (entry->d_name[0] >= '1' && entry->d_name[0] <= '9')
      found = process_maps_file(entry->d_name, st.st_dev, st.st_ino);
  closedir(proc);
  return found;
}
