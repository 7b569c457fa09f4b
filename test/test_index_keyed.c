/* test_index_keyed.c -- an index found on its trace file's key alone
 * (mprof_index_key_read(), mprof_index_find_keyed()), the trace unopened:
 * the key read from the file is the one an open trace gives; an index of
 * that key is found, and none once the file's size, time or uuid differ;
 * the packets' agreement (mprof_index_agrees()) is what tells a file
 * changed under a kept key; the index's content bytes weigh as the open
 * trace's; and what is not a trace is refused without blocking.
 *
 *   test_index_keyed TRACE_GEN
 *
 * The trace, of many small packets, is made by TRACE_GEN (test/trace_gen.c)
 * in a scratch directory, where its index is written and it is changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mprof/index.h"
#include "mprof/model.h"

static int failures;

/* Unless ok: say what failed, and count it. */
static void expect(int ok, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void expect(int ok, const char *format, ...) {
  if (ok) return;
  va_list args;
  va_start(args, format);
  fputs("FAIL: ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  failures++;
}

static char dir[4096];
static char trace_path[4200];

static void quiet(void *context, const char *message) {
  (void)context, (void)message;
}

/* The file at path, whole, into a new buffer of *size. */
static uint8_t *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END)) exit(2);
  *size = (size_t)ftell(f);
  uint8_t *data = malloc(*size);
  rewind(f);
  if (!data || fread(data, 1, *size, f) != *size) exit(2);
  fclose(f);
  return data;
}

static void spill(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f)) exit(2);
}

/* Set the file's modification time to mtime_ns. */
static void set_mtime(const char *path, int64_t mtime_ns) {
  struct timespec times[2] = {{0, UTIME_OMIT},
                              {mtime_ns / 1000000000, mtime_ns % 1000000000}};
  if (utimensat(AT_FDCWD, path, times, 0)) exit(2);
}

static mprof_trace_t *open_trace(void) {
  mprof_trace_t *trace;
  if (mprof_trace_open(trace_path, quiet, NULL, &trace)) exit(2);
  return trace;
}

/* Whether an index of the file's key is found; *why why not. */
static int found(const char **why) {
  mprof_index_key_t key;
  mprof_index_t *index;
  if (mprof_index_key_read(trace_path, &key)) return 0;
  if (mprof_index_find_keyed(trace_path, &key, &index, why)) return 0;
  mprof_index_free(index);
  return 1;
}

/* The key read from the file is the open trace's; no index there yet. */
static void key_is_the_open_traces(void) {
  mprof_trace_t *trace = open_trace();
  mprof_index_key_t opened, read;
  mprof_trace_head_t head;
  expect(!mprof_index_key(trace_path, trace, &opened), "key of the open");
  expect(!mprof_index_key_read(trace_path, &read), "key read");
  expect(!memcmp(&opened, &read, sizeof read),
         "the key read from the file is not the open trace's");
  expect(!mprof_trace_read_head(trace_path, &head) &&
             !memcmp(head.uuid, mprof_trace_info(trace)->uuid, 16) &&
             head.size == opened.size && head.mtime_ns == opened.mtime_ns,
         "the head is not the trace's size, time and uuid");
  mprof_index_key_t other = read;
  expect(mprof_index_key_equal(&opened, &read), "equal keys differ");
  other.size++;
  expect(!mprof_index_key_equal(&other, &read), "another size is equal");
  other = read, other.mtime_ns += 1000000000;
  expect(!mprof_index_key_equal(&other, &read), "another time is equal");
  other = read, other.uuid[15] ^= 1;
  expect(!mprof_index_key_equal(&other, &read), "another uuid is equal");
  const char *why = "unset";
  expect(!found(&why) && why == NULL,
         "an index found, or a reason given, where none is: %s",
         why ? why : "(none)");
  mprof_trace_close(trace);
}

/* Built, it is found by key, agrees with the trace, and weighs as it. */
static void found_by_key(void) {
  mprof_trace_t *trace = open_trace();
  mprof_index_t *built, *index;
  mprof_index_key_t key;
  const char *why = "unset";
  expect(!mprof_index_open(trace_path, trace, 1, NULL, NULL, &built), "build");
  if (mprof_index_key_read(trace_path, &key) ||
      mprof_index_find_keyed(trace_path, &key, &index, &why) || why) {
    expect(0, "the index built is not found by its key");
    exit(1);
  }
  size_t count = mprof_trace_packet_count(trace);
  uint64_t bytes = 0;
  for (size_t i = 0; i < count; i++)
    bytes += mprof_trace_packet(trace, i)->content_bytes;
  expect(mprof_index_packet_count(index) == count && count > 1,
         "%zu packets found, of %zu", mprof_index_packet_count(index), count);
  expect(mprof_index_agrees(index, trace), "it disagrees with its trace");
  expect(mprof_index_content_bytes(index, NULL, 0) == bytes,
         "content bytes %llu, not the packets' %llu",
         (unsigned long long)mprof_index_content_bytes(index, NULL, 0),
         (unsigned long long)bytes);
  size_t some[] = {count - 1, count, (size_t)-1};
  expect(mprof_index_content_bytes(index, some, 3) ==
             mprof_trace_packet(trace, count - 1)->content_bytes,
         "numbers past the packets counted");
  expect(mprof_model_bytes_of_content(bytes) ==
             mprof_model_bytes_estimate(trace, NULL, 0),
         "the index's bytes weigh other than the trace's");
  mprof_index_free(built);
  mprof_index_free(index);
  mprof_trace_close(trace);
}

/* Another time, size or uuid: not found, told stale; the time restored,
 * found again. */
static void stale_when_the_key_changes(void) {
  mprof_index_key_t key;
  const char *why = NULL;
  if (mprof_index_key_read(trace_path, &key)) exit(2);
  /* a second on: a file system of coarse times keeps that too */
  set_mtime(trace_path, key.mtime_ns + 1000000000);
  expect(!found(&why) && why && strstr(why, "stale"),
         "a trace of another time: %s", why ? why : "found");
  set_mtime(trace_path, key.mtime_ns);
  expect(found(NULL), "its time restored, not found");

  size_t size;
  uint8_t *data = slurp(trace_path, &size);
  spill(trace_path, data, size - 1);
  set_mtime(trace_path, key.mtime_ns);
  why = NULL;
  expect(!found(&why) && why && strstr(why, "stale"),
         "a trace cut by a byte, its time kept: %s", why ? why : "found");
  data[80] ^= 1; /* its header's uuid */
  spill(trace_path, data, size);
  set_mtime(trace_path, key.mtime_ns);
  why = NULL;
  expect(!found(&why) && why && strstr(why, "stale"),
         "another uuid, size and time kept: %s", why ? why : "found");
  data[80] ^= 1;
  spill(trace_path, data, size);
  set_mtime(trace_path, key.mtime_ns);
  expect(found(NULL), "the trace restored, not found");
  free(data);
}

/* A packet damaged under a kept key: the key finds the index (the trace
 * is not read), the packets tell it is not the trace's. */
static void disagrees_when_a_packet_changes(void) {
  mprof_index_key_t key;
  size_t size;
  if (mprof_index_key_read(trace_path, &key)) exit(2);
  uint8_t *data = slurp(trace_path, &size);
  uint64_t first = 0;
  for (int i = 7; i >= 0; i--) first = first << 8 | data[56 + i];
  data[first] ^= 0xff; /* the first packet's magic */
  spill(trace_path, data, size);
  set_mtime(trace_path, key.mtime_ns);
  mprof_index_t *index;
  expect(!mprof_index_find_keyed(trace_path, &key, &index, NULL),
         "a kept key: its index not found");
  mprof_trace_t *trace = open_trace();
  expect(!mprof_index_agrees(index, trace),
         "an index agrees with a trace whose first packet is damaged");
  mprof_trace_close(trace);
  mprof_index_free(index);
  free(data);
}

/* What is not a trace: refused, a FIFO at once. */
static void not_traces(void) {
  mprof_index_key_t key;
  char path[4200];
  snprintf(path, sizeof path, "%s/none", dir);
  expect(mprof_index_key_read(path, &key) == MPROF_EIO && errno == ENOENT,
         "a missing file");
  expect(mprof_index_key_read(dir, &key) == MPROF_EIO, "a directory");
  snprintf(path, sizeof path, "%s/fifo", dir);
  if (mkfifo(path, 0600)) exit(2);
  expect(mprof_index_key_read(path, &key) == MPROF_EIO, "a FIFO");
  snprintf(path, sizeof path, "%s/text", dir);
  spill(path, "MPROFCTF but not one", 20);
  expect(mprof_index_key_read(path, &key) == MPROF_EINVAL,
         "a file cut inside its header");
  size_t size;
  uint8_t *data = slurp(trace_path, &size);
  data[8] = 9; /* its version */
  spill(path, data, size);
  expect(mprof_index_key_read(path, &key) == MPROF_EINVAL,
         "a trace of another version");
  free(data);
}

/* A new scratch directory in $TMPDIR (or /tmp) into dir. */
static int make_dir(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/mprof-keyed-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  return mkdtemp(dir) ? 0 : -1;
}

int main(int argc, char **argv) {
  char command[9000];
  if (argc != 2 || make_dir()) return 2;
  snprintf(trace_path, sizeof trace_path, "%s/t.ctf", dir);
  snprintf(command, sizeof command,
           "'%s' '%s' discard 1000000 1000 2 4096 >/dev/null", argv[1],
           trace_path);
  if (system(command)) return 2;
  key_is_the_open_traces();
  found_by_key();
  stale_when_the_key_changes();
  disagrees_when_a_packet_changes();
  not_traces();
  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  if (system(command)) failures++;
  if (!failures) puts("index_keyed: ok");
  return failures ? 1 : 0;
}
