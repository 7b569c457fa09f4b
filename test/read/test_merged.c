/* test_merged.c -- the read library's merged traces (src/read/merged.c)
 * and process-tree finder (src/read/tree.c), on copies of a real trace
 * (test/data/net.ctf) in a scratch directory: a manifest file with good
 * members, bad lines of every kind and a missing member opens as the good
 * members at their offsets, one diagnostic line for each bad one; one
 * whose members are all bad, or whose first line is wrong, opens nothing;
 * a plain trace opens as a set of one; a manifest written is read back,
 * and one is never written into a FIFO;
 * and a tree's traces are found by name and pid, their events counted as
 * decoding delivers them.
 *
 *   test_merged NET_CTF
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mprof/read.h"

static const char *net_ctf; /* the trace every member is a copy of */
static char dir[64];        /* the scratch directory */

/* The diagnostic lines told, one string. */
typedef struct told_s {
  char text[8192];
  int lines;
} told_t;

static void tell(void *context, const char *message) {
  told_t *told = context;
  size_t used = strlen(told->text);
  snprintf(told->text + used, sizeof told->text - used, "%s\n", message);
  told->lines++;
}

static void write_file(const char *name, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* A copy of net.ctf as dir/name. */
static void copy_trace(const char *name) {
  char command[512];
  snprintf(command, sizeof command, "cp '%s' '%s/%s'", net_ctf, dir, name);
  assert_int_equal(system(command), 0);
}

static const char *in_dir(const char *name) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

static int count_event(void *context, const mprof_event_t *event) {
  (void)event;
  ++*(uint64_t *)context;
  return 0;
}

/* net.ctf's events, as decoding delivers them. */
static uint64_t decoded_events(void) {
  mprof_trace_t *trace;
  uint64_t events = 0;
  assert_int_equal(mprof_trace_open(net_ctf, NULL, NULL, &trace), 0);
  for (size_t i = 0; i < mprof_trace_packet_count(trace); i++)
    mprof_trace_packet_events(trace, i, count_event, &events);
  mprof_trace_close(trace);
  return events;
}

static void manifest_with_bad_lines(void **state) {
  (void)state;
  copy_trace("a.ctf");
  copy_trace("b c.ctf"); /* a name with a space is still a name */
  char long_line[700];
  memset(long_line, 'x', sizeof long_line - 2);
  memcpy(long_line, "0 ", 2);
  long_line[sizeof long_line - 2] = '\n';
  long_line[sizeof long_line - 1] = 0;
  char text[2048];
  snprintf(text, sizeof text,
           "mprof-merge 1\n0 a.ctf\n-12 b c.ctf\nx a.ctf\n0 ../a.ctf\n"
           "0 .a.ctf\n0 sub/a.ctf\n%s0\ta.ctf\n0 missing.ctf\n7 a.ctf",
           long_line);
  write_file("tree.manifest", text);
  assert_true(mprof_trace_is_merged(in_dir("tree.manifest")));
  assert_false(mprof_trace_is_merged(in_dir("a.ctf")));

  told_t told = {{0}, 0};
  mprof_trace_set_t set;
  assert_int_equal(
      mprof_trace_open_merged(in_dir("tree.manifest"), tell, &told, &set), 0);
  assert_int_equal(set.count, 3);
  assert_string_equal(set.paths[0], in_dir("a.ctf"));
  assert_string_equal(set.paths[1], in_dir("b c.ctf"));
  assert_string_equal(set.paths[2],
                      in_dir("a.ctf")); /* the last line: no newline */
  assert_int_equal(set.offsets_ns[0], 0);
  assert_int_equal(set.offsets_ns[1], -12);
  assert_int_equal(set.offsets_ns[2], 7);
  char want[4096] = "";
  for (int line = 4; line <= 9; line++)
    snprintf(want + strlen(want), sizeof want - strlen(want),
             "%s/tree.manifest: line %d: want OFFSET_NS MEMBER; line skipped\n",
             dir, line);
  snprintf(want + strlen(want), sizeof want - strlen(want),
           "%s/missing.ctf: No such file or directory\n", dir);
  assert_string_equal(told.text, want);
  mprof_trace_set_close(&set);
  assert_int_equal(set.count, 0);
  assert_null(set.traces);
}

static void manifest_with_nothing_to_read(void **state) {
  (void)state;
  told_t told = {{0}, 0};
  mprof_trace_set_t set;
  write_file("none.manifest", "mprof-merge 1\n0 missing.ctf\n");
  assert_int_equal(
      mprof_trace_open_merged(in_dir("none.manifest"), tell, &told, &set),
      MPROF_EIO);
  assert_int_equal(set.count, 0);
  assert_int_equal(told.lines, 2); /* the member, then the manifest */
  assert_non_null(strstr(told.text, "none.manifest: no member could be read"));

  told = (told_t){{0}, 0};
  write_file("v2.manifest", "mprof-merge 2\n0 a.ctf\n");
  assert_true(mprof_trace_is_merged(in_dir("v2.manifest")));
  assert_int_equal(
      mprof_trace_open_merged(in_dir("v2.manifest"), tell, &told, &set),
      MPROF_EINVAL);
  assert_int_equal(told.lines, 1);
  assert_non_null(strstr(told.text, "v2.manifest: not a merged trace"));
}

static void plain_trace_and_written_manifest(void **state) {
  (void)state;
  mprof_trace_set_t set;
  assert_int_equal(mprof_trace_open_merged(net_ctf, NULL, NULL, &set), 0);
  assert_int_equal(set.count, 1);
  assert_string_equal(set.paths[0], net_ctf);
  assert_int_equal(set.offsets_ns[0], 0);
  /* Added to: a set takes several paths. */
  assert_int_equal(mprof_trace_set_add(&set, in_dir("a.ctf"), NULL, NULL), 0);
  assert_int_equal(set.count, 2);
  mprof_trace_set_close(&set);

  const char *members[] = {"a.ctf", "b c.ctf"}, *bad[] = {"sub/a.ctf"};
  const int64_t offsets[] = {5, -5};
  assert_int_equal(
      mprof_trace_manifest_write(in_dir("w.manifest"), bad, NULL, 1),
      MPROF_EINVAL);
  assert_int_equal(
      mprof_trace_manifest_write(in_dir("w.manifest"), members, offsets, 2), 0);
  assert_int_equal(
      mprof_trace_open_merged(in_dir("w.manifest"), NULL, NULL, &set), 0);
  assert_int_equal(set.count, 2);
  assert_string_equal(set.paths[1], in_dir("b c.ctf"));
  assert_int_equal(set.offsets_ns[0], 5);
  assert_int_equal(set.offsets_ns[1], -5);
  mprof_trace_set_close(&set);
  /* A FIFO there is refused at once, never opened to wait for a reader
   * (the alarm ends the test if it waits). */
  assert_int_equal(mkfifo(in_dir("f.manifest"), 0600), 0);
  alarm(10);
  assert_int_equal(
      mprof_trace_manifest_write(in_dir("f.manifest"), members, offsets, 2),
      MPROF_EIO);
  alarm(0);
  assert_int_equal(errno, EEXIST);
}

static void tree_found_by_name(void **state) {
  (void)state;
  const char *names[] = {"x-12.ctf", "x-12.ctf.13", "x-12.ctf.13.14",
                         "x-9.ctf",  "x-12.ctfa",   "x-12.ctf.1a",
                         "x-.ctf",   "x-12.ctf.",   "x-12.ctf_13",
                         "y-12.ctf"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    copy_trace(names[i]);
  write_file("x-12.ctf.15", "not a trace");
  char pattern[128];
  snprintf(pattern, sizeof pattern, "%s/x-%%p.ctf", dir);

  told_t told = {{0}, 0};
  mprof_tree_trace_t *traces;
  size_t count;
  assert_int_equal(
      mprof_trace_tree_find(pattern, 12, 0, tell, &told, &traces, &count), 0);
  assert_int_equal(count, 5);
  const char *want[] = {"x-12.ctf", "x-12.ctf.13", "x-12.ctf.13.14",
                        "x-12.ctf.15", "x-9.ctf"};
  const long long pids[] = {12, 13, 14, 15, 9};
  uint64_t events = decoded_events();
  for (size_t i = 0; i < count; i++) {
    assert_string_equal(traces[i].path, in_dir(want[i]));
    assert_int_equal(traces[i].pid, pids[i]);
    assert_int_equal(traces[i].unreadable, i == 3);
    assert_int_equal(traces[i].events, i == 3 ? 0 : events);
    assert_false(traces[i].empty && i != 3);
    assert_string_equal(traces[i].process, ""); /* a legacy trace names none */
  }
  assert_int_equal(told.lines, 1);
  assert_non_null(
      strstr(told.text, "x-12.ctf.15: offset 0: not an mprof trace"));

  char manifest[256];
  assert_int_equal(mprof_trace_tree_manifest_write(pattern, 12, traces, count,
                                                   manifest, sizeof manifest),
                   0);
  assert_string_equal(manifest, in_dir("x-12.ctf.manifest"));
  mprof_trace_tree_free(traces, count);
  FILE *f = fopen(manifest, "r");
  char text[512] = "";
  assert_non_null(f);
  text[fread(text, 1, sizeof text - 1, f)] = 0;
  fclose(f);
  assert_string_equal(text, "mprof-merge 1\n0 x-12.ctf\n0 x-12.ctf.13\n"
                            "0 x-12.ctf.13.14\n0 x-9.ctf\n");

  /* Files older than the run are not its own. */
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  int64_t later_ns = ((int64_t)now.tv_sec + 3600) * 1000000000;
  assert_int_equal(mprof_trace_tree_find(pattern, 12, later_ns, tell, &told,
                                         &traces, &count),
                   0);
  assert_int_equal(count, 0);
  mprof_trace_tree_free(traces, count);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_merged NET_CTF\n");
    return 2;
  }
  net_ctf = argv[1];
  snprintf(dir, sizeof dir, "/tmp/test_merged.XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(manifest_with_bad_lines),
      cmocka_unit_test(manifest_with_nothing_to_read),
      cmocka_unit_test(plain_trace_and_written_manifest),
      cmocka_unit_test(tree_found_by_name),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  char command[128];
  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  if (system(command) != 0) return 1;
  return failed;
}
