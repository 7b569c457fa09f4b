/* unix.c -- the Unix platform layer: an mmapped trace file that is whole
 * from the moment it has its name, the TSC clock (at the frequency the
 * environment or the CPU gives, else CLOCK_MONOTONIC: starting never
 * waits), start from the environment at program start, fork and thread
 * exit handling.  Everything the freestanding recorder leaves to its caller.
 */
#define _GNU_SOURCE
#include "mprof/unix.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../format/format.h"
#include "../record/record.h"
#include "tsc.h"

#define DEFAULT_SIZE (8u * 1024u * 1024u)
#define PAGE_BYTES 4096u

/* The trace file being written, kept for stop and fork. */
static struct {
  void *map;
  size_t size;
  int fd;
  char path[4096];
  mprof_unix_options_t options;
  int child_pending; /* a forked child: its trace starts at its first event */
  dev_t dev;         /* the file's identity, to know fd is still ours */
  ino_t ino;
  int fd_lost; /* fd was taken and the file could not be reopened */
} active = {.fd = -1};

/* Held while a taken descriptor is replaced (trace_fd()). */
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* MPROF_TSC_HZ: 1 and *hz if it holds a frequency (0: no usable TSC), 0 if
 * unset, -1 if it is not a number of Hz. */
static int env_tsc_hz(uint64_t *hz) {
  const char *text = getenv(MPROF__TSC_HZ_ENV);
  if (!text) return 0;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(text, &end, 10);
  if (*text < '0' || *text > '9' || *end || errno) return -1;
  *hz = n;
  return 1;
}

/* The TSC's frequency this process records with, once the environment,
 * the CPU or a measurement said it (known; hz 0: no usable TSC).  A forked
 * child inherits it. */
static struct {
  uint64_t hz;
  int known;
} tsc;

/* What can be known of the TSC's frequency without waiting. */
static void learn_tsc_hz(void) {
  if (!tsc.known)
    tsc.known = env_tsc_hz(&tsc.hz) == 1 || mprof__tsc_hz_declared(&tsc.hz);
}

uint64_t mprof_unix_tsc_freq(void) {
  learn_tsc_hz();
  if (!tsc.known) {
    tsc.hz = mprof__tsc_hz_measure();
    tsc.known = 1;
  }
  return tsc.hz;
}

/* Fill in the clock of config: the TSC if its frequency is known, else
 * CLOCK_MONOTONIC (never a wait at start, and a killed process's trace
 * still reads with correct times), and the wall-clock time of tick 0 so
 * traces of several processes align. */
static void choose_clock(mprof_config_t *config, int monotonic) {
#if defined(__x86_64__)
  if (!monotonic) learn_tsc_hz();
  if (!monotonic && tsc.known && tsc.hz) {
    config->clock = NULL;
    config->clock_freq_hz = tsc.hz;
    uint64_t wall = realtime_ns();
    uint64_t ticks = __builtin_ia32_rdtsc();
    config->clock_offset_ns =
        (int64_t)wall - (int64_t)((__uint128_t)ticks * 1000000000u / tsc.hz);
    return;
  }
#else
  (void)monotonic;
#endif
  config->clock = monotonic_ns;
  config->clock_freq_hz = 1000000000u;
  config->clock_offset_ns = (int64_t)realtime_ns() - (int64_t)monotonic_ns();
}

/* --- Hooks the recorder calls --------------------------------------------- */

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

/* A trace file appears under its name only once its header is whole: it is
 * made without a name (O_TMPFILE), sized, mapped and laid out, and then
 * linked under its name, so that a process killed at any instant leaves
 * either no file or one that reads back.  A file system without O_TMPFILE
 * gets a hidden temporary name in the same directory instead. */

/* Whether a live process holds path (the lock every trace file's writer
 * holds): then it writes its trace there, which must stay. */
static int is_held(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  int held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
  close(fd);
  return held;
}

/* A new file, locked, in the directory of path: unnamed, or (temp set to
 * its name) ".NAME.XXXXXX".  -1 with errno on failure. */
static int create_unnamed(const char *path, char *temp, size_t capacity) {
  const char *slash = strrchr(path, '/');
  size_t dir_length = slash ? (size_t)(slash - path) + 1 : 0;
  if (dir_length + strlen(path + dir_length) + 9 > capacity) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(temp, path, dir_length);
  strcpy(temp + dir_length, dir_length ? "" : ".");
  int fd = open(temp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  temp[0] = 0;
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
    snprintf(temp, capacity, "%.*s.%s.XXXXXX", (int)dir_length, path,
             path + dir_length);
    fd = mkostemp(temp, O_CLOEXEC);
    if (fd < 0) temp[0] = 0;
  }
  if (fd >= 0 && (flock(fd, LOCK_EX) < 0 || fchmod(fd, 0600) < 0)) {
    int saved = errno;
    if (temp[0]) unlink(temp);
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

/* Bytes at the start of a trace of size bytes that its start writes: the
 * trace header, the metadata (a few KiB) and the slot table (8 bytes per
 * packet of at least 1 KiB), rounded up to whole pages. */
static size_t head_bytes(size_t size) {
  size_t head =
      (64u * 1024u + size / 128 + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
  return head < size ? head : size;
}

/* Allocate the file's blocks at [offset, offset + length): on a full disk
 * (or tmpfs) recording must get an error here, never SIGBUS when it writes.
 * 0 or an errno; file systems without fallocate pass (sparse is fine). */
static int allocate(int fd, off_t offset, off_t length) {
  if (fallocate(fd, 0, offset, length) == 0 || errno == EOPNOTSUPP ||
      errno == ENOSYS)
    return 0;
  return errno;
}

/* Size fd and map it, its head allocated; the packets are allocated one
 * by one as recording first uses them (prepare_packet()), so that the
 * start costs the same whatever the trace's size.  0 or an errno. */
static int size_and_map(int fd, size_t size, void **map) {
  if (ftruncate(fd, (off_t)size) < 0) return errno;
  int err = allocate(fd, 0, (off_t)head_bytes(size));
  if (err) return err;
  *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (*map == MAP_FAILED) return errno;
  /* A new file has nothing to read ahead; on ext4 the readahead of the
   * first fault costs 1.5 ms. */
  madvise(*map, size, MADV_RANDOM);
  return 0;
}

/* --- The trace's descriptor, which the program may take ---------------------
 *
 * Programs close descriptors they did not open (daemons close all of them)
 * and dup2() over any number.  The trace's descriptor is moved high, out of
 * the way of the low numbers programs reuse, and is checked to still be the
 * trace's file (device and inode) before each use: fallocate() on a
 * descriptor that is now the program's own file would change that file.
 * A taken descriptor is replaced by the file opened again by its name; if
 * that fails, recording drops its events from then on (one line says so)
 * while the program runs on unchanged. */

/* The lowest number a trace's descriptor is moved to. */
#define HIGH_FD 800

/* fd moved to HIGH_FD or above when there is room (fd itself otherwise). */
static int fd_move_high(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
  if (high < 0) return fd;
  close(fd);
  return high;
}

/* Whether fd is open on the trace's file. */
static int fd_is_trace(int fd) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == active.dev &&
         st.st_ino == active.ino;
}

/* The trace's file opened again by its name; -1 if the name is gone or
 * now another file's.  (The writer's lock stays held: the mapping keeps
 * the first descriptor's open file alive.) */
static int reopen_trace(void) {
  int fd = open(active.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  if (!fd_is_trace(fd)) {
    close(fd);
    return -1;
  }
  return fd_move_high(fd);
}

/* A descriptor on the trace's file, -1 if there is none. */
static int trace_fd(void) {
  int fd = __atomic_load_n(&active.fd, __ATOMIC_ACQUIRE);
  if (fd_is_trace(fd)) return fd;
  pthread_mutex_lock(&fd_lock);
  fd = active.fd;
  if (!fd_is_trace(fd) && !active.fd_lost) {
    int taken = fd;
    fd = reopen_trace();
    active.fd_lost = fd < 0;
    if (active.fd_lost)
      fprintf(stderr,
              "mprof: %s: the program closed or replaced the trace's "
              "descriptor %d and the file cannot be opened again; "
              "recording drops its events from now on\n",
              active.path, taken);
    __atomic_store_n(&active.fd, fd, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&fd_lock);
  return active.fd_lost ? -1 : fd;
}

/* Close the trace's descriptor, unless the program has taken its number. */
static void trace_fd_close(void) {
  if (fd_is_trace(active.fd)) close(active.fd);
  active.fd = -1;
}

/* --- An earlier trace's removal, away from the program -----------------------
 *
 * A new trace takes the name of an earlier run's file, whose removal can
 * take milliseconds: its dirty pages are dropped and, on ext4 under write
 * load, its data written out first.  So the old file is held open while
 * its name is unlinked (which removes only the name), and its last
 * descriptor is closed by a helper process, a copy of this one made by
 * clone() without fork()'s handlers: neither the program's start nor its
 * exit waits for the removal.  The helper's exit signal is none, so the
 * program's wait() never sees it; it is reaped at the next packet or the
 * stop, or by init.  It runs with every signal blocked.  The start waits
 * only until the helper has let go of the new trace (remover_run()); the
 * program's other mappings stay copied in it for the removal's duration. */

static pid_t remover_pid; /* the helper to reap, or 0 */

/* Close every descriptor but the n in keep[], sorted. */
static void close_all_but(const int *keep, int n) {
  unsigned from = 0;
  for (int i = 0; i < n; i++) {
    if ((unsigned)keep[i] > from)
      syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0);
    from = (unsigned)keep[i] + 1;
  }
  syscall(SYS_close_range, from, ~0u, 0);
}

/* The helper, given fds: the old file, the read end of the "go" pipe and
 * the write end of the "ready" pipe.  It drops the new trace's mapping and
 * closes every other descriptor it was copied with: either would keep the
 * new trace's file, and so the lock that says its writer lives, open after
 * the program has died.  It says so by closing "ready", then waits until
 * the program has closed its own descriptor of the old file and "go", so
 * that its own close of the old file is the last, and exits. */
static int remover_run(void *fds) {
  int keep[3];
  memcpy(keep, fds, sizeof keep);
  int old = keep[0], go = keep[1], ready = keep[2];
  for (int i = 1; i < 3; i++) /* sort the three */
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
      int t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  if (active.map) munmap(active.map, active.size);
  close_all_but(keep, 3);
  close(ready);
  char byte;
  while (read(go, &byte, 1) < 0 && errno == EINTR) {
  }
  close(old);
  _exit(0);
}

/* Reaps a helper that has exited; any recording OS thread may. */
static void remover_reap(void) {
  pid_t pid = __atomic_exchange_n(&remover_pid, 0, __ATOMIC_ACQ_REL);
  if (pid && waitpid(pid, NULL, __WCLONE | WNOHANG) == 0)
    __atomic_store_n(&remover_pid, pid, __ATOMIC_RELEASE); /* still running */
}

/* Closes fd, the last descriptor of an unlinked file, in a helper; nonzero
 * if it did.  Waits only until the helper holds nothing else. */
static int close_in_helper(int fd) {
  static char stack[16384] __attribute__((aligned(64)));
  int go[2], ready[2];
  remover_reap();
  if (__atomic_load_n(&remover_pid, __ATOMIC_ACQUIRE) ||
      pipe2(go, O_CLOEXEC) < 0)
    return 0;
  if (pipe2(ready, O_CLOEXEC) < 0) {
    close(go[0]);
    close(go[1]);
    return 0;
  }
  int fds[3] = {fd, go[0], ready[1]};
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  pid_t pid = clone(remover_run, stack + sizeof stack, 0, fds);
  pthread_sigmask(SIG_SETMASK, &before, NULL);
  close(go[0]);
  close(ready[1]);
  if (pid > 0) {
    char byte; /* end of file once the helper closed the rest */
    while (read(ready[0], &byte, 1) < 0 && errno == EINTR) {
    }
    __atomic_store_n(&remover_pid, pid, __ATOMIC_RELEASE);
    close(fd);
  }
  close(ready[0]);
  close(go[1]); /* the helper may close fd now */
  return pid > 0;
}

/* A packet's first use (mprof__start_fresh()): its blocks allocated, so
 * that no write into it can meet a full disk.  Its pages are faulted in one
 * by one as events reach them: a page dirtied ahead of need is one more
 * page that the kernel may make a program that writes little (a short one,
 * an idle server) wait for when the machine writes back a lot, and a fault
 * costs no more than a page of MADV_POPULATE_WRITE. */
static int prepare_packet(uint8_t *packet, uint32_t size) {
  int saved = errno; /* recording an event never changes errno */
  remover_reap();
  int fd = trace_fd();
  int err = fd < 0 || allocate(fd, packet - (uint8_t *)active.map, size);
  errno = saved;
  return err ? -1 : 0;
}

/* Whether what is at path may be replaced by a new trace: only a regular
 * file (an earlier trace).  MPROF_TRACE=/dev/null, a symlink or a FIFO
 * must never be unlinked.  0 with errno EEXIST if not. */
static int is_replaceable(const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0) return errno == ENOENT;
  if (S_ISREG(st.st_mode)) return 1;
  errno = EEXIST;
  return 0;
}

/* Removes the file at path, an earlier trace that no live process holds,
 * its last descriptor closed by a helper when it can be.  0, or -1 with
 * errno (EBUSY: a live process holds it). */
static int remove_earlier(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    int saved = errno == EWOULDBLOCK ? EBUSY : errno;
    close(fd);
    errno = saved;
    return -1;
  }
  int removed = unlink(path) == 0 || errno == ENOENT;
  int saved = errno;
  if (!removed || !close_in_helper(fd)) close(fd);
  errno = saved;
  return removed ? 0 : -1;
}

/* Link the file of fd (temp: its temporary name, or "") under path, in
 * place of a file there that no live process holds.  -1 with errno. */
static int publish(int fd, const char *temp, const char *path) {
  char proc[40];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  const char *from = temp[0] ? temp : proc;
  for (int tries = 0; tries < 8; tries++) {
    if (linkat(AT_FDCWD, from, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) {
      if (temp[0]) unlink(temp);
      return 0;
    }
    if (errno != EEXIST) return -1;
    if (!is_replaceable(path)) return -1;
    if (remove_earlier(path) < 0) {
      if (errno == EBUSY) break;
      return -1;
    }
  }
  errno = EBUSY;
  return -1;
}

static void release_file(void) {
  if (active.map) munmap(active.map, active.size);
  trace_fd_close();
  active.map = NULL;
}

/* An unpublished file that failed: its temporary name goes too. */
static int discard(int fd, const char *temp, int err) {
  if (temp[0]) unlink(temp);
  close(fd);
  errno = err;
  return MPROF_EIO;
}

/* Start recording into a new file at options->path, size bytes. */
static int start_file(const mprof_unix_options_t *options, size_t size) {
  release_file(); /* the mapping of an earlier, stopped trace */
  if (is_held(options->path)) {
    errno = EBUSY;
    return MPROF_EIO;
  }
  char temp[sizeof active.path + 16];
  int fd = create_unnamed(options->path, temp, sizeof temp);
  if (fd < 0) return MPROF_EIO;
  fd = fd_move_high(fd);
  struct stat st;
  if (fstat(fd, &st) < 0) return discard(fd, temp, errno);
  active.dev = st.st_dev;
  active.ino = st.st_ino;
  active.fd_lost = 0;
  void *map;
  int err = size_and_map(fd, size, &map);
  if (err) return discard(fd, temp, err);

  /* Set before the start: prepare_packet() needs them. */
  active.map = map;
  active.size = size;
  active.fd = fd;
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = map;
  config.size = size;
  config.packet_size = options->packet_size;
  config.ring_mode = options->ring_mode;
  config.name = program_invocation_short_name;
  config.os_thread_id = os_thread_id;
  config.on_new_stream = on_new_stream;
  if (getrandom(config.uuid, sizeof config.uuid, GRND_NONBLOCK) !=
      sizeof config.uuid)
    memset(config.uuid, 0, sizeof config.uuid);
  choose_clock(&config, options->monotonic_clock);
  err = mprof__start_fresh(&config, prepare_packet);
  if (err) {
    release_file();
    if (temp[0]) unlink(temp);
    return err;
  }
  /* The mapping stays if publishing fails: other OS threads may be
   * recording into it. */
  if (publish(fd, temp, options->path) < 0) {
    int saved = errno;
    mprof_stop();
    if (temp[0]) unlink(temp);
    errno = saved;
    return MPROF_EIO;
  }
  active.options = *options;
  strcpy(active.path, options->path);
  active.options.path = active.path;
  return 0;
}

/* Size in bytes of a file for options (0 if too small). */
static size_t file_size(const mprof_unix_options_t *options) {
  size_t size = options->size ? options->size : DEFAULT_SIZE;
  size = (size + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
  return size < MPROF_MIN_SIZE ? 0 : size;
}

int mprof_unix_start(const mprof_unix_options_t *options) {
  if (!options || !options->path || !*options->path) return MPROF_EINVAL;
  if (mprof_is_started()) return MPROF_EBUSY;
  pthread_once(&hooks_once, install_hooks);
  size_t size = file_size(options);
  if (!size) return MPROF_ENOSPC;
  if (strlen(options->path) >= sizeof active.path) return MPROF_EINVAL;
  return start_file(options, size);
}

int mprof_unix_start_file(const char *path, size_t size) {
  mprof_unix_options_t options;
  memset(&options, 0, sizeof options);
  options.path = path;
  options.size = size;
  return mprof_unix_start(&options);
}

void mprof_unix_stop(void) {
  if (active.child_pending) {
    active.child_pending = 0;
    mprof_stop(); /* calls the pending start off */
  }
  remover_reap();
  if (!mprof_is_started() || !active.map) return;
  mprof_stop();
  msync(active.map, active.size, MS_ASYNC);
}

/* A forked child's first event: its own trace, PATH.PID. */
static int start_child_trace(void) {
  int saved = errno; /* recording an event never changes errno */
  active.child_pending = 0;
  char path[sizeof active.path + 24];
  snprintf(path, sizeof path, "%s.%ld", active.path, (long)getpid());
  mprof_unix_options_t options = active.options;
  options.path = path;
  int err = strlen(path) < sizeof active.path
                ? start_file(&options, active.size)
                : MPROF_EINVAL;
  if (err)
    fprintf(stderr, "mprof: %s: %s (%s); child %ld runs untraced\n", path,
            mprof_strerror(err), strerror(errno), (long)getpid());
  errno = saved;
  return err;
}

/* A forked child maps its parent's trace: it must never write to it.  It
 * records nothing, or into its own trace, PATH.PID, made by its first
 * event: a child that only calls exec makes no file. */
static void after_fork_in_child(void) {
  pthread_mutex_init(&fd_lock, NULL); /* another thread may have held it */
  if (!active.map && !active.child_pending) return;
  int was_started = mprof_is_started();
  mprof__forget_after_fork();
  if (active.map) {
    munmap(active.map, active.size);
    trace_fd_close();
    active.map = NULL;
  }
  active.child_pending = was_started && !active.options.fork_stop;
  if (active.child_pending) mprof__start_pending(start_child_trace);
}

/* --- Start from the environment ------------------------------------------- */

/* "8M" -> 8388608; 0 on a malformed size. */
static size_t parse_size(const char *text) {
  char *end;
  if (*text < '0' || *text > '9') return 0; /* no sign, no space */
  errno = 0;
  unsigned long long n = strtoull(text, &end, 10);
  if (errno || end == text) return 0;
  int shift = 0;
  switch (*end) {
  case 'k':
  case 'K':
    shift = 10;
    end++;
    break;
  case 'm':
  case 'M':
    shift = 20;
    end++;
    break;
  case 'g':
  case 'G':
    shift = 30;
    end++;
    break;
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
  uint64_t hz;
  if (env_tsc_hz(&hz) < 0)
    return env_fail(path, "MPROF_TSC_HZ must be the TSC's frequency in Hz");
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
