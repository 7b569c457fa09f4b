/* trace_end.c -- when a trace's recording ended (docs/FORMAT.md, the
 * header's end_ticks).  mprof_stop() writes it; a reader that copies the
 * trace of a writer still running ends its copy when it took it; and a
 * watcher that saw the writer gone (`mprof record`, once its program's
 * tree has exited or was killed) writes that time, for a writer that died
 * without stopping.  Wall-clock times become ticks through the header's
 * anchor (clock_offset: the wall clock at tick 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "trace_internal.h"

static int64_t wall_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* The clock of the trace whose header this is at wall-clock wall_ns (0
 * before its tick 0). */
static uint64_t ticks_at(const uint8_t *header, int64_t wall_ns) {
  uint64_t freq = mprof__get_u64(header + MPROF__TH_CLOCK_FREQ);
  int64_t anchor = (int64_t)mprof__get_u64(header + MPROF__TH_CLOCK_OFFSET);
  if (wall_ns <= anchor) return 0;
  unsigned __int128 ticks =
      (unsigned __int128)(uint64_t)(wall_ns - anchor) * freq / 1000000000u;
  return ticks > UINT64_MAX ? UINT64_MAX : (uint64_t)ticks;
}

int mprof__writer_alive(int fd) {
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);
    return 0;
  }
  return errno == EWOULDBLOCK;
}

void mprof__trace_end_now(mprof_trace_t *t) {
  if (!t->info.recording || t->info.legacy || t->info.end_ticks) return;
  t->info.end_ticks = ticks_at(t->data, wall_now_ns());
  /* a live writer's trace with slot states was read from a copy of ours
   * (open_data): saved, the copy says when it was taken */
  if (t->slots_offset && t->map == t->data && !t->windowed &&
      mprof__get_u64(t->data + MPROF__TH_METADATA_OFFSET) >=
          MPROF__TH_END_TICKS + 8)
    mprof__put_u64((uint8_t *)t->map + MPROF__TH_END_TICKS, t->info.end_ticks);
}

int mprof_trace_mark_ended(const char *path, int64_t wall_ns) {
  int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return MPROF_EIO;
  uint8_t header[MPROF__TRACE_HEADER_SIZE];
  int err = pread(fd, header, sizeof header, 0) == (ssize_t)sizeof header &&
                    memcmp(header, MPROF__TRACE_MAGIC, 8) == 0
                ? 0
                : MPROF_EINVAL;
  int dead =
      !err &&
      mprof__get_u32(header + MPROF__TH_STATE) == MPROF__STATE_RECORDING &&
      !mprof__writer_alive(fd);
  if (dead &&
      mprof__get_u64(header + MPROF__TH_METADATA_OFFSET) >=
          MPROF__TH_END_TICKS + 8 &&
      !mprof__header_end_ticks(header)) {
    uint8_t end[8];
    mprof__put_u64(end, ticks_at(header, wall_ns));
    if (pwrite(fd, end, 8, MPROF__TH_END_TICKS) != 8) err = MPROF_EIO;
  }
  close(fd);
  return err;
}
