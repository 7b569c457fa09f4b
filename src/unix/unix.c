/* unix.c -- the Unix platform layer: an mmapped trace file, a calibrated
 * TSC clock, start from the environment at program start, fork and thread
 * exit handling.  Everything the freestanding recorder leaves to its caller.
 */
#define _GNU_SOURCE
#include "mprof/unix.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../record/record.h"

#define DEFAULT_SIZE (8u * 1024u * 1024u)
#define PAGE_BYTES 4096u

/* The trace file being written, kept for stop and fork. */
static struct {
  void *map;
  size_t size;
  int fd;
  char path[4096];
  mprof_unix_options_t options;
} active = {.fd = -1};

static pthread_key_t thread_exit_key;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

/* --- Clocks --------------------------------------------------------------- */

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
/* The TSC is usable as a clock only if it ticks at a constant rate and
 * does not stop in deep sleep states (Linux: constant_tsc, nonstop_tsc). */
static int tsc_is_invariant(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[8192];
  int invariant = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags", 5) == 0) {
      invariant = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
      break;
    }
  }
  fclose(f);
  return invariant;
}

/* CLOCK_MONOTONIC_RAW and the TSC at one moment: the TSC is read on both
 * sides of the clock, and of a few tries the one whose two reads are
 * closest is kept (its TSC the middle), so that a preemption between the
 * two clocks' reads cannot skew the calibration. */
typedef struct clock_pair_s {
  int64_t ns;
  uint64_t tsc;
} clock_pair_t;

static clock_pair_t read_clock_pair(void) {
  clock_pair_t best = {0, 0};
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 8; i++) {
    struct timespec ts;
    uint64_t before = __builtin_ia32_rdtsc();
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    uint64_t after = __builtin_ia32_rdtsc();
    if (after - before < best_gap) {
      best_gap = after - before;
      best.ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
      best.tsc = before + (after - before) / 2;
    }
  }
  return best;
}

/* Count TSC ticks over 10 ms of CLOCK_MONOTONIC_RAW. */
static uint64_t calibrate_tsc(void) {
  struct timespec pause = {0, 10 * 1000 * 1000};
  clock_pair_t a = read_clock_pair();
  nanosleep(&pause, NULL);
  clock_pair_t b = read_clock_pair();
  int64_t ns = b.ns - a.ns;
  if (ns <= 0) return 0;
  return (uint64_t)((__uint128_t)(b.tsc - a.tsc) * 1000000000u / (uint64_t)ns);
}
#endif

uint64_t mprof_unix_tsc_freq(void) {
  static uint64_t freq;
  static int measured;
#if defined(__x86_64__)
  if (!measured && tsc_is_invariant()) freq = calibrate_tsc();
#endif
  measured = 1;
  return freq;
}

/* Fill in the clock of config: TSC when possible, else CLOCK_MONOTONIC, and
 * the wall-clock time of tick 0 so traces of several processes align. */
static void choose_clock(mprof_config_t *config, int monotonic) {
  uint64_t freq = monotonic ? 0 : mprof_unix_tsc_freq();
  if (freq) {
    config->clock = NULL;
    config->clock_freq_hz = freq;
#if defined(__x86_64__)
    uint64_t wall = realtime_ns();
    uint64_t ticks = __builtin_ia32_rdtsc();
    config->clock_offset_ns =
        (int64_t)wall - (int64_t)((__uint128_t)ticks * 1000000000u / freq);
#endif
  } else {
    config->clock = monotonic_ns;
    config->clock_freq_hz = 1000000000u;
    config->clock_offset_ns = (int64_t)realtime_ns() - (int64_t)monotonic_ns();
  }
}

/* --- Hooks the recorder calls ---------------------------------------------- */

static uint32_t os_thread_id(void) { return (uint32_t)syscall(SYS_gettid); }

static void on_thread_exit(void *unused) {
  (void)unused;
  mprof_thread_exit();
}

static void on_new_stream(void) {
  pthread_setspecific(thread_exit_key, (void *)1);
}

static void after_fork_in_child(void);

static void install_hooks(void) {
  pthread_key_create(&thread_exit_key, on_thread_exit);
  pthread_atfork(NULL, NULL, after_fork_in_child);
}

/* --- The trace file ------------------------------------------------------- */

/* Create, size, lock and map path.  On failure returns MPROF_EIO with errno
 * set and leaves nothing behind but possibly an empty file. */
static int map_file(const char *path, size_t size, void **map, int *fd_out) {
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return MPROF_EIO;
  /* Another live process writing this file holds the lock: never truncate
   * its trace. */
  if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    int saved = errno == EWOULDBLOCK ? EBUSY : errno;
    close(fd);
    errno = saved;
    return MPROF_EIO;
  }
  int err = 0;
  if (fchmod(fd, 0600) < 0 || ftruncate(fd, 0) < 0 ||
      ftruncate(fd, (off_t)size) < 0)
    err = errno;
  else if ((err = posix_fallocate(fd, 0, (off_t)size)) == EINVAL ||
           err == EOPNOTSUPP)
    err = 0; /* file systems without fallocate: sparse is still fine */
  void *m = MAP_FAILED;
  if (!err) {
    m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
             0);
    if (m == MAP_FAILED) err = errno;
  }
  if (err) {
    if (ftruncate(fd, 0) < 0) err = err ? err : errno;
    close(fd);
    errno = err;
    return MPROF_EIO;
  }
  /* Pre-fault for writing, so recording never takes a page fault. */
  for (size_t off = 0; off < size; off += PAGE_BYTES)
    ((volatile uint8_t *)m)[off] = 0;
  *map = m;
  *fd_out = fd;
  return 0;
}

static void release_file(void) {
  if (active.map) munmap(active.map, active.size);
  if (active.fd >= 0) close(active.fd);
  active.map = NULL;
  active.fd = -1;
}

int mprof_unix_start(const mprof_unix_options_t *options) {
  if (!options || !options->path || !*options->path) return MPROF_EINVAL;
  if (mprof_is_started()) return MPROF_EBUSY;
  pthread_once(&hooks_once, install_hooks);
  size_t size = options->size ? options->size : DEFAULT_SIZE;
  size = (size + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
  if (size < MPROF_MIN_SIZE) return MPROF_ENOSPC;
  if (strlen(options->path) >= sizeof active.path) return MPROF_EINVAL;

  release_file(); /* the mapping of an earlier, stopped trace */
  void *map;
  int fd;
  int err = map_file(options->path, size, &map, &fd);
  if (err) return err;

  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = map;
  config.size = size;
  config.packet_size = options->packet_size;
  config.ring_mode = options->ring_mode;
  config.name = program_invocation_short_name;
  config.os_thread_id = os_thread_id;
  config.on_new_stream = on_new_stream;
  if (getrandom(config.uuid, sizeof config.uuid, 0) != sizeof config.uuid)
    memset(config.uuid, 0, sizeof config.uuid);
  choose_clock(&config, options->monotonic_clock);
  err = mprof_start(&config);
  if (err) {
    munmap(map, size);
    close(fd);
    return err;
  }
  active.map = map;
  active.size = size;
  active.fd = fd;
  active.options = *options;
  strcpy(active.path, options->path);
  active.options.path = active.path;
  return 0;
}

int mprof_unix_start_file(const char *path, size_t size) {
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = path;
  options.size = size;
  return mprof_unix_start(&options);
}

void mprof_unix_stop(void) {
  if (!mprof_is_started() || !active.map) return;
  mprof_stop();
  msync(active.map, active.size, MS_ASYNC);
}

/* A forked child maps its parent's trace: it must never write to it.  It
 * either starts its own trace, PATH.PID, or records nothing. */
static void after_fork_in_child(void) {
  if (!active.map) return;
  int was_started = mprof_is_started();
  mprof__forget_after_fork();
  munmap(active.map, active.size);
  close(active.fd);
  active.map = NULL;
  active.fd = -1;
  if (!was_started || active.options.fork_stop) return;
  char path[sizeof active.path + 24];
  snprintf(path, sizeof path, "%s.%ld", active.path, (long)getpid());
  mprof_unix_options_t options = active.options;
  options.path = path;
  options.size = active.size;
  int err = mprof_unix_start(&options);
  if (err)
    fprintf(stderr, "mprof: %s: %s (%s); child %ld runs untraced\n", path,
            mprof_strerror(err), strerror(errno), (long)getpid());
}

/* --- Start from the environment -------------------------------------------- */

/* "8M" -> 8388608; 0 on a malformed size. */
static size_t parse_size(const char *text) {
  char *end;
  if (*text < '0' || *text > '9') return 0; /* no sign, no space */
  errno = 0;
  unsigned long long n = strtoull(text, &end, 10);
  if (errno || end == text) return 0;
  int shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  }
  if (*end || n > ((unsigned long long)1 << 48) >> shift) return 0;
  return (size_t)(n << shift);
}

/* path with each "%p" replaced by the process id. */
static int expand_path(const char *pattern, char *out, size_t capacity) {
  size_t n = 0;
  for (const char *p = pattern; *p; p++) {
    char pid[24];
    const char *piece = pid;
    if (p[0] == '%' && p[1] == 'p') {
      snprintf(pid, sizeof pid, "%ld", (long)getpid());
      p++;
    } else {
      pid[0] = *p;
      pid[1] = 0;
    }
    size_t len = strlen(piece);
    if (n + len + 1 > capacity) return -1;
    memcpy(out + n, piece, len);
    n += len;
  }
  out[n] = 0;
  return 0;
}

static int env_is(const char *name, const char *value) {
  const char *v = getenv(name);
  return v && strcmp(v, value) == 0;
}

/* Unset, or one of the two values. */
static int env_one_of(const char *name, const char *a, const char *b) {
  const char *v = getenv(name);
  return !v || !strcmp(v, a) || !strcmp(v, b);
}

static int env_fail(const char *path, const char *what) {
  fprintf(stderr, "mprof: %s: %s; running untraced\n", path, what);
  return MPROF_EINVAL;
}

int mprof_unix_start_from_env(void) {
  const char *pattern = getenv("MPROF_TRACE");
  if (!pattern || !*pattern) return 0;
  char path[4096];
  if (expand_path(pattern, path, sizeof path) < 0)
    return env_fail(pattern, "MPROF_TRACE is too long");
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = path;
  const char *size = getenv("MPROF_SIZE");
  if (size && !(options.size = parse_size(size)))
    return env_fail(path, "MPROF_SIZE is not a size like 8M");
  if (!env_one_of("MPROF_MODE", "overwrite", "discard"))
    return env_fail(path, "MPROF_MODE must be overwrite or discard");
  if (!env_one_of("MPROF_CLOCK", "tsc", "monotonic"))
    return env_fail(path, "MPROF_CLOCK must be tsc or monotonic");
  if (!env_one_of("MPROF_FORK", "follow", "stop"))
    return env_fail(path, "MPROF_FORK must be follow or stop");
  options.ring_mode = env_is("MPROF_MODE", "discard") ? MPROF_RING_DISCARD
                                                      : MPROF_RING_OVERWRITE;
  options.monotonic_clock = env_is("MPROF_CLOCK", "monotonic");
  options.fork_stop = env_is("MPROF_FORK", "stop");
  int err = mprof_unix_start(&options);
  if (err == MPROF_EIO && errno == EBUSY) {
    /* Another process (often our parent, before an exec) writes there. */
    char own[sizeof path + 24];
    snprintf(own, sizeof own, "%s.%ld", path, (long)getpid());
    options.path = own;
    err = mprof_unix_start(&options);
    if (!err) return 0;
    strcpy(path, own);
  }
  if (err) {
    fprintf(stderr, "mprof: %s: %s%s%s; running untraced\n", path,
            mprof_strerror(err), err == MPROF_EIO ? ": " : "",
            err == MPROF_EIO ? strerror(errno) : "");
  }
  return err;
}

/* Referenced with -Wl,-u,mprof_unix_autostart by static links (see
 * mprof.pc), so that linking libmprof is all a program needs. */
__attribute__((constructor)) void mprof_unix_autostart(void) {
  mprof_unix_start_from_env();
}

__attribute__((destructor)) static void stop_at_exit(void) {
  mprof_unix_stop();
}
