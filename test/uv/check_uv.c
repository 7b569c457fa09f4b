/* check_uv.c -- check_uv TRACE KIND [DIR]: load a trace of test/uv/uv_prog.c
 * into the model and check what the libuv tracing must have recorded.
 *   all               every stage: threads by type and label, their ends,
 *                     arrows, idle bands, counters and the net labels
 *   all-ipv4          the same, on a machine where ::1 cannot be bound
 *   exit-in-callback  the timer that exited, running at the end
 *   no-loop           the timer's thread and nothing run
 *   threads           four loops on four OS threads, a timer each
 *   stress            test/uv/uv_stress.c: four loops on four OS threads,
 *                     TCP echoes and async sends from other OS threads
 *   fs, handles, sockets  the modes of test/uv/uv_more.c, run with DIR
 *                     (the paths its labels show)
 * Prints each failed check; exits 1 if any failed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof/model.h"

static int failures;

/* The DIR uv_more ran with (check_uv's third argument): its labels'
 * paths. */
static const char *out_dir = "";

/* Datagrams uv_prog sent: over IPv4, and over IPv6 unless the mode is
 * all-ipv4 (a machine without ::1). */
static size_t datagrams = 2;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

static const mprof_model_view_t *view;

static const char *first_label(uint32_t t) {
  const mprof_thread_t *thread = &view->threads[t];
  return thread->label_count
             ? view->strings + mprof_label_at(view, thread->first_label).text
             : "";
}

/* Threads of a type whose first label starts with prefix, and how many of
 * them resolved. */
static size_t count_threads(mprof_type_t type, const char *prefix,
                            size_t *resolved) {
  size_t n = 0;
  *resolved = 0;
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == type &&
        !strncmp(first_label(t), prefix, strlen(prefix))) {
      n++;
      *resolved += view->threads[t].ending == MPROF_ENDING_RESOLVED;
    }
  return n;
}

/* Did thread t (MPROF_NO_THREAD: not found) fail with reason? */
static int failed(uint32_t t, const char *reason) {
  return t != MPROF_NO_THREAD &&
         view->threads[t].ending == MPROF_ENDING_FAILED &&
         !strcmp(view->strings + view->threads[t].failure, reason);
}

/* Threads of a type that failed with reason. */
static size_t failed_with(mprof_type_t type, const char *reason) {
  size_t n = 0;
  for (uint32_t t = 1; t < view->thread_count; t++)
    n += view->threads[t].type == type && failed(t, reason);
  return n;
}

static uint32_t find_thread(mprof_type_t type, const char *label) {
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == type && !strcmp(first_label(t), label))
      return t;
  return MPROF_NO_THREAD;
}

/* Was thread t made by no thread (before the loop ran), and resolved? */
static int resolved_by_root(uint32_t t) {
  return t != MPROF_NO_THREAD &&
         view->threads[t].creator == MPROF_ROOT_THREAD &&
         view->threads[t].ending == MPROF_ENDING_RESOLVED;
}

/* Was child made by parent, switched to for its callback, and did parent
 * end only after that (when its callback returned, not before)? */
static int made_in_callback(uint32_t child, uint32_t parent) {
  return child != MPROF_NO_THREAD && parent != MPROF_NO_THREAD &&
         view->threads[child].creator == parent &&
         view->threads[parent].ending != MPROF_ENDING_PENDING &&
         view->threads[parent].end_ns >= view->threads[child].start_ns;
}

/* "WHAT DIR/NAME", in label. */
static const char *path_label(char *label, size_t size, const char *what,
                              const char *dir, const char *name) {
  snprintf(label, size, "%s %s/%s", what, dir, name);
  return label;
}

static size_t arrows_to(uint32_t to, mprof_arrow_kind_t kind) {
  size_t n = 0;
  for (size_t i = 0; i < view->arrow_count; i++) {
    mprof_arrow_t a = mprof_arrow_at(view, i);
    n += a.to == to && a.kind == kind;
  }
  return n;
}

/* The target of every switch in the trace, read with the reader, not the
 * model: a callback shorter than one step of the clock (a TSC that counts
 * in steps of several ticks) leaves an empty running span, which the
 * model drops, yet it ran. */
static uint64_t *switch_targets;
static size_t switch_count;

static void read_switches(const mprof_trace_t *trace) {
  for (size_t p = 0; p < mprof_trace_packet_count(trace); p++) {
    size_t capacity = mprof_trace_packet_max_events(trace, p);
    mprof_event_t *events = malloc((capacity + 1) * sizeof *events);
    uint64_t *grown = realloc(switch_targets, (switch_count + capacity + 1) *
                                                  sizeof *switch_targets);
    if (!events || !grown) {
      fprintf(stderr, "check_uv: out of memory\n");
      exit(1);
    }
    switch_targets = grown;
    size_t n = mprof_trace_packet_decode(trace, p, events, capacity, NULL);
    for (size_t i = 0; i < n; i++)
      if (events[i].kind == MPROF_EVENT_SWITCH)
        switch_targets[switch_count++] = events[i].a;
    free(events);
  }
}

/* How many times thread was switched to, and how many of its running
 * spans ran on another stream than not_stream. */
static size_t runs_of(uint32_t thread, uint32_t not_stream, size_t *other) {
  size_t n = 0;
  *other = 0;
  for (size_t i = 0; i < view->running_count; i++) {
    mprof_span_t span = mprof_running_at(view, i);
    *other += span.thread == thread && span.stream != not_stream;
  }
  for (size_t i = 0; i < switch_count; i++)
    n += switch_targets[i] == view->threads[thread].id;
  return n;
}

static int64_t counter_final(const char *name) {
  for (size_t c = 0; c < view->counter_count; c++) {
    const mprof_counter_series_t *series = &view->counters[c];
    if (!strcmp(view->strings + series->name, name) && series->sample_count)
      return mprof_sample_at(view,
                             series->first_sample + series->sample_count - 1)
          .value;
  }
  return -1;
}

/* The TCP labels: per direction, offsets follow on with no gap. */
#define MAX_FLOWS 32

typedef struct flow_s {
  char source[64], destination[64];
  uint64_t next_send, next_recv;
} flow_t;

/* Checks that there are `flows` of them, each of `bytes` both ways;
 * counts the send and the receive labels. */
static void check_tcp_offsets(size_t flows_expected, uint64_t bytes,
                              size_t *sends_out, size_t *receives_out) {
  flow_t flows[MAX_FLOWS];
  size_t flow_count = 0, sends = 0, receives = 0;
  for (size_t i = 0; i < view->label_count; i++) {
    char dir[8], source[64], destination[64];
    uint64_t offset, length;
    const char *text = view->strings + mprof_label_at(view, i).text;
    if (sscanf(text, "net %7s tcp %63s %63s %" SCNu64 " %" SCNu64, dir, source,
               destination, &offset, &length) != 5)
      continue;
    flow_t *flow = NULL;
    for (size_t f = 0; f < flow_count; f++)
      if (!strcmp(flows[f].source, source) &&
          !strcmp(flows[f].destination, destination))
        flow = &flows[f];
    if (!flow && flow_count < MAX_FLOWS) {
      flow = &flows[flow_count++];
      memset(flow, 0, sizeof *flow);
      strcpy(flow->source, source);
      strcpy(flow->destination, destination);
    }
    if (!flow) continue;
    int send = !strcmp(dir, "send");
    uint64_t *next = send ? &flow->next_send : &flow->next_recv;
    CHECK(offset == *next, "%s: offset %" PRIu64 ", expected %" PRIu64, text,
          offset, *next);
    *next = offset + length;
    sends += send;
    receives += !send;
  }
  CHECK(flow_count == flows_expected, "%zu TCP flows", flow_count);
  for (size_t f = 0; f < flow_count; f++) {
    CHECK(flows[f].next_send == bytes, "%s -> %s sent %" PRIu64,
          flows[f].source, flows[f].destination, flows[f].next_send);
    CHECK(flows[f].next_recv == bytes, "%s -> %s received %" PRIu64,
          flows[f].source, flows[f].destination, flows[f].next_recv);
  }
  *sends_out = sends;
  *receives_out = receives;
}

/* uv_prog's echo: "hello" and "world!" each way. */
static void check_tcp_labels(void) {
  size_t sends, receives;
  check_tcp_offsets(2, 11, &sends, &receives);
  CHECK(sends == 3, "%zu net send tcp labels", sends);
  CHECK(receives >= 2, "%zu net recv tcp labels", receives);
}

/* The UDP datagrams (IPv4, and IPv6 where the machine has it): each send
 * label has a receive label with the same addresses, hash and length. */
static void check_udp_labels(void) {
  char seen[2][4][192];
  size_t count[2] = {0, 0};
  for (size_t i = 0; i < view->label_count; i++) {
    const char *text = view->strings + mprof_label_at(view, i).text;
    int recv = !strncmp(text, "net recv udp ", 13);
    if ((recv || !strncmp(text, "net send udp ", 13)) && count[recv] < 4)
      snprintf(seen[recv][count[recv]++], 192, "%s", text + 9);
  }
  CHECK(count[0] == datagrams && count[1] == datagrams,
        "%zu sends, %zu receives", count[0], count[1]);
  size_t resolved, handles = count_threads(MPROF_HANDLE, "udp", &resolved);
  CHECK(count_threads(MPROF_UDP_SEND, "udp send", &resolved) == datagrams &&
            resolved == datagrams,
        "udp send requests");
  /* a receiver and a sender each time; without IPv6 a receiver that
   * could not bind */
  CHECK(handles == (datagrams == 2 ? 4 : 3), "%zu udp handles", handles);
  for (size_t i = 0; i < count[0] && i < count[1]; i++)
    CHECK(!strcmp(seen[0][i], seen[1][i]), "send '%s', recv '%s'", seen[0][i],
          seen[1][i]);
  CHECK(count[0] && strstr(seen[0][0], " bf30e00dc53307a9 4"),
        "hash of \"ping\": '%s'", count[0] ? seen[0][0] : "");
}

/* Threads by type and label prefix: how many, how many resolved. */
static const struct expected_s {
  mprof_type_t type;
  const char *prefix;
  size_t count, resolved;
} expected[] = {
    /* the stat of the unlinked file fails, and the synchronous open */
    {MPROF_FS, "fs ", 14, 12},
    {MPROF_FS, "fs open /", 3, 2},
    {MPROF_FS, "fs stat /", 2, 1},
    {MPROF_FS, "fs mkdir /", 1, 1},
    {MPROF_FS, "fs scandir /", 1, 1},
    {MPROF_FS, "fs rename /", 1, 1},
    {MPROF_FS, "fs rmdir /", 1, 1},
    {MPROF_WORK, "work", 2, 2},
    {MPROF_HANDLE, "tcp", 3, 3}, /* server, its accepted side, client */
    {MPROF_CONNECT, "connect 127.0.0.1:", 1, 1},
    {MPROF_WRITE, "write", 4, 3}, /* one refused before connecting */
    {MPROF_SHUTDOWN, "shutdown", 1, 1},
    {MPROF_GETNAMEINFO, "getnameinfo 127.0.0.1:0", 1, 1},
    {MPROF_RANDOM, "random", 1, 1},
    {MPROF_HANDLE, "process /", 1, 1},
    {MPROF_HANDLE, "pipe", 3, 3}, /* server, accepted, client */
    {MPROF_CONNECT, "connect /", 1, 1},
    {MPROF_HANDLE, "poll", 1, 1},
};

/* The threads of each row of table (count rows). */
static void check_counts(const struct expected_s *table, size_t count) {
  for (size_t i = 0; i < count; i++) {
    size_t resolved,
        n = count_threads(table[i].type, table[i].prefix, &resolved);
    CHECK(n == table[i].count && resolved == table[i].resolved,
          "%s \"%s\": %zu threads, %zu resolved",
          mprof_type_name(table[i].type), table[i].prefix, n, resolved);
  }
}

static void check_all(void) {
  size_t other;
  uint32_t loop = find_thread(MPROF_LOOP, "default loop");
  CHECK(loop != MPROF_NO_THREAD, "no default loop thread");
  if (loop == MPROF_NO_THREAD) return;
  CHECK(view->threads[loop].ending == MPROF_ENDING_RESOLVED,
        "loop resolved at uv_loop_close");
  size_t idle = 0;
  for (size_t i = 0; i < view->band_count; i++)
    idle += mprof_band_at(view, i).kind == MPROF_BAND_IDLE;
  CHECK(idle >= 5, "%zu idle bands", idle);
  uint32_t loop_stream = MPROF_NO_THREAD;
  for (size_t i = 0; i < view->running_count; i++) {
    mprof_span_t span = mprof_running_at(view, i);
    if (span.thread == loop) loop_stream = span.stream;
  }

  check_counts(expected, sizeof expected / sizeof *expected);
  CHECK(failed_with(MPROF_FS, "ENOENT") == 2,
        "the stat of a missing file and the synchronous open of one failed "
        "with ENOENT");
  CHECK(failed_with(MPROF_WRITE, "EBADF") == 1,
        "the write before connecting failed with EBADF");

  uint32_t timer = find_thread(MPROF_TIMER, "timer");
  CHECK(timer != MPROF_NO_THREAD &&
            view->threads[timer].ending == MPROF_ENDING_RESOLVED,
        "timer thread resolved at close");
  if (timer != MPROF_NO_THREAD)
    CHECK(runs_of(timer, loop_stream, &other) >= 4,
          "timer: 3 ticks + its close callback");

  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == MPROF_WORK)
      CHECK(runs_of(t, loop_stream, &other) >= 2 && other >= 1,
            "work %u runs on a pool thread and back on the loop", t);

  uint32_t async = find_thread(MPROF_HANDLE, "async");
  CHECK(async != MPROF_NO_THREAD && arrows_to(async, MPROF_ARROW_SIGNAL) == 1,
        "async handle signalled once from another OS thread");
  uint32_t sender = find_thread(MPROF_CALLBACK, "async sender");
  CHECK(sender != MPROF_NO_THREAD && runs_of(sender, loop_stream, &other) &&
            other == 1,
        "the signal comes from the sending OS thread's own thread");

  static const char *const watchers[] = {"idle", "prepare", "check", "signal"};
  for (int i = 0; i < 4; i++) {
    uint32_t t = find_thread(MPROF_HANDLE, watchers[i]);
    CHECK(t != MPROF_NO_THREAD &&
              view->threads[t].ending == MPROF_ENDING_RESOLVED &&
              runs_of(t, MPROF_NO_THREAD, &other) >= 2,
          "the %s handle ran and closed", watchers[i]);
  }
  uint32_t signal = find_thread(MPROF_HANDLE, "signal");
  CHECK(signal != MPROF_NO_THREAD && view->threads[signal].label_count == 2 &&
            !strcmp(
                view->strings +
                    mprof_label_at(view, view->threads[signal].first_label + 1)
                        .text,
                "signal 10"),
        "the signal handle's second label");

  /* file 16 + echo 11 each way + 4 per datagram */
  int64_t bytes = 16 + 22 + 4 * (int64_t)datagrams;
  CHECK(counter_final("uv bytes read") == bytes, "read %" PRId64,
        counter_final("uv bytes read"));
  CHECK(counter_final("uv bytes written") == bytes, "written %" PRId64,
        counter_final("uv bytes written"));
  check_tcp_labels();
  check_udp_labels();
}

static void check_exit_in_callback(void) {
  uint32_t timer = find_thread(MPROF_TIMER, "timer");
  CHECK(timer != MPROF_NO_THREAD &&
            view->threads[timer].ending == MPROF_ENDING_PENDING,
        "the timer never closed");
  CHECK(timer != MPROF_NO_THREAD &&
            view->threads[timer].last_seen_ns == view->duration_ns,
        "the trace ends with the timer's callback running");
}

static void check_no_loop(void) {
  size_t resolved;
  CHECK(count_threads(MPROF_TIMER, "timer", &resolved) == 1, "one timer");
  CHECK(view->running_count == 0, "%zu running spans", view->running_count);
}

static void check_threads(void) {
  size_t resolved, other;
  CHECK(count_threads(MPROF_LOOP, "loop", &resolved) == 4 && resolved == 4,
        "4 loops closed: %zu", resolved);
  CHECK(count_threads(MPROF_TIMER, "timer", &resolved) == 4 && resolved == 4,
        "4 timers closed: %zu", resolved);
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == MPROF_TIMER)
      CHECK(runs_of(t, MPROF_NO_THREAD, &other) >= 4,
            "timer %u: 3 ticks + its close callback", t);
  CHECK(view->stream_count >= 4, "%u streams", view->stream_count);
}

/* uv_stress.c: 4 loops, each 3 connections of 50 echoes of 100 bytes, and
 * 2 senders of 200 + 1 async sends.  Each label on the thread it belongs
 * to: a handle's entry found by another thread, or replaced by a new
 * handle at the same address, is the one it should be. */
static void check_stress(void) {
  static const struct expected_s stress_threads[] = {
      {MPROF_LOOP, "loop", 4, 4},
      {MPROF_HANDLE, "tcp", 4 * (1 + 3 * 2), 4 * (1 + 3 * 2)},
      {MPROF_HANDLE, "async", 4, 4},
      {MPROF_WRITE, "write", 4 * 3 * 50 * 2, 4 * 3 * 50 * 2},
  };
  size_t sends, receives;
  check_counts(stress_threads, sizeof stress_threads / sizeof *stress_threads);
  check_tcp_offsets(4 * 3 * 2, 50 * 100, &sends, &receives);
  CHECK(sends == 4 * 3 * 50 * 2, "%zu net send tcp labels", sends);
  CHECK(receives >= 4 * 3 * 50 * 2, "%zu net recv tcp labels", receives);
  for (size_t i = 0; i < view->label_count; i++) {
    mprof_label_t label = mprof_label_at(view, i);
    const char *text = view->strings + label.text;
    const char *on = first_label(label.thread);
    if (!strncmp(text, "net send tcp ", 13))
      CHECK(!strcmp(on, "write"), "%s on \"%s\"", text, on);
    else if (!strncmp(text, "net recv tcp ", 13))
      CHECK(!strncmp(on, "tcp", 3), "%s on \"%s\"", text, on);
  }
  size_t other;
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == MPROF_WRITE)
      CHECK(runs_of(t, MPROF_NO_THREAD, &other) == 1,
            "write %u: its callback ran %zu times on its thread", t,
            runs_of(t, MPROF_NO_THREAD, &other));
  CHECK(counter_final("uv bytes written") == 4 * 3 * 50 * 100 * 2,
        "written %" PRId64, counter_final("uv bytes written"));
  CHECK(counter_final("uv bytes read") == 4 * 3 * 50 * 100 * 2, "read %" PRId64,
        counter_final("uv bytes read"));
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == MPROF_HANDLE &&
        !strcmp(first_label(t), "async"))
      CHECK(arrows_to(t, MPROF_ARROW_SIGNAL) == 2 * (200 + 1),
            "async %u: %zu signals", t, arrows_to(t, MPROF_ARROW_SIGNAL));
}

/* --- the modes of uv_more.c --- */

static const struct expected_s expected_fs[] = {
    /* synchronous: the set-up, and the closes in callbacks */
    {MPROF_FS, "fs mkdtemp /", 1, 1},
    {MPROF_FS, "fs open /", 2, 2},
    {MPROF_FS, "fs write", 1, 1},
    {MPROF_FS, "fs close", 4, 4}, /* 3 closes and the closedir */
    /* asynchronous */
    {MPROF_FS, "fs copyfile /", 2, 1}, /* one of a missing file */
    {MPROF_FS, "fs sendfile", 2, 1},   /* one from no file */
    {MPROF_FS, "fs ftruncate", 1, 1},
    {MPROF_FS, "fs fdatasync", 1, 1},
    {MPROF_FS, "fs fchmod", 1, 1},
    {MPROF_FS, "fs futime", 1, 1},
    {MPROF_FS, "fs fchown", 1, 1},
    {MPROF_FS, "fs access /", 1, 1},
    {MPROF_FS, "fs chmod /", 1, 1},
    {MPROF_FS, "fs utime /", 1, 1},
    {MPROF_FS, "fs lutime /", 1, 1},
    {MPROF_FS, "fs chown /", 1, 1},
    {MPROF_FS, "fs lchown /", 1, 1},
    {MPROF_FS, "fs statfs /", 1, 1},
    {MPROF_FS, "fs realpath /", 1, 1},
    {MPROF_FS, "fs link /", 1, 1},
    {MPROF_FS, "fs symlink /", 1, 1},
    {MPROF_FS, "fs mkstemp /", 1, 1},
    {MPROF_FS, "fs opendir /", 2, 1}, /* one of a missing directory */
    {MPROF_FS, "fs readdir", 1, 1},
    {MPROF_FS, "fs closedir", 1, 1},
    {MPROF_FS, "fs readlink /", 1, 1},
    {MPROF_FS, "fs ", 32, 29},
};

/* The synchronous closes: each ran, switched to, within the callback of
 * the request that made it. */
static void check_fs_sync(void) {
  size_t by_closedir = 0, by_mkstemp = 0, other;
  for (uint32_t t = 1; t < view->thread_count; t++) {
    if (strcmp(first_label(t), "fs close")) continue;
    const char *creator = first_label(view->threads[t].creator);
    by_closedir += !strcmp(creator, "fs closedir");
    by_mkstemp += !strncmp(creator, "fs mkstemp /", 12);
    CHECK(runs_of(t, MPROF_NO_THREAD, &other) == 1, "close %u ran once", t);
  }
  CHECK(by_closedir == 2 && by_mkstemp == 1,
        "%zu closes made by closedir, %zu by mkstemp", by_closedir, by_mkstemp);
}

/* uv_more's directory D, from the label of the opendir that worked, into
 * dir: DIR/uv_more.XXXXXX with the Xs replaced; empty if not found. */
static void fs_directory(char *dir, size_t size) {
  dir[0] = 0;
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].ending == MPROF_ENDING_RESOLVED &&
        !strncmp(first_label(t), "fs opendir ", 11))
      snprintf(dir, size, "%s", first_label(t) + 11);
  size_t n = strlen(out_dir);
  CHECK(strlen(dir) == n + strlen("/uv_more.XXXXXX") &&
            !strncmp(dir, out_dir, n) && !strncmp(dir + n, "/uv_more.", 9),
        "the opendir's directory '%s' is not %s/uv_more.XXXXXX", dir, out_dir);
}

/* The requests' exact labels, their creators and ends: made before the
 * loop ran, by no thread; readdir in opendir's callback and closedir in
 * readdir's, each request ending when the callback that made the next one
 * returned; the failing calls with libuv's error names. */
static void check_fs_requests(void) {
  char dir[1024], label[1200];
  uint32_t made =
      find_thread(MPROF_FS, path_label(label, sizeof label, "fs mkdtemp",
                                       out_dir, "uv_more.XXXXXX"));
  CHECK(resolved_by_root(made), "no '%s' made by no thread", label);
  fs_directory(dir, sizeof dir);
  uint32_t copied = find_thread(
      MPROF_FS, path_label(label, sizeof label, "fs copyfile", dir, "a"));
  CHECK(resolved_by_root(copied), "no '%s' made by no thread", label);
  uint32_t not_copied = find_thread(
      MPROF_FS, path_label(label, sizeof label, "fs copyfile", dir, "missing"));
  CHECK(failed(not_copied, "ENOENT"), "'%s' did not fail with ENOENT", label);
  uint32_t not_opened = find_thread(
      MPROF_FS, path_label(label, sizeof label, "fs opendir", dir, "missing"));
  CHECK(failed(not_opened, "ENOENT"), "'%s' did not fail with ENOENT", label);
  CHECK(failed_with(MPROF_FS, "ENOENT") == 2 &&
            failed_with(MPROF_FS, "EBADF") == 1,
        "failed: %zu with ENOENT, %zu with EBADF",
        failed_with(MPROF_FS, "ENOENT"), failed_with(MPROF_FS, "EBADF"));
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (!strcmp(first_label(t), "fs sendfile"))
      CHECK(view->threads[t].creator == MPROF_ROOT_THREAD &&
                (view->threads[t].ending == MPROF_ENDING_RESOLVED ||
                 failed(t, "EBADF")),
            "sendfile %u: made by no thread, resolved or failed with EBADF", t);
  snprintf(label, sizeof label, "fs opendir %s", dir);
  uint32_t opened = find_thread(MPROF_FS, label);
  uint32_t read = find_thread(MPROF_FS, "fs readdir");
  uint32_t closed = find_thread(MPROF_FS, "fs closedir");
  CHECK(resolved_by_root(opened), "no '%s' made by no thread", label);
  CHECK(made_in_callback(read, opened),
        "readdir not made by opendir's callback");
  CHECK(made_in_callback(closed, read),
        "closedir not made by readdir's callback");
}

static void check_fs(void) {
  check_counts(expected_fs, sizeof expected_fs / sizeof *expected_fs);
  check_fs_sync();
  check_fs_requests();
  /* the synchronous write and the sendfile, 16 bytes each */
  CHECK(counter_final("uv bytes written") == 32, "written %" PRId64,
        counter_final("uv bytes written"));
}

/* A handle's thread by its first label, made before the loop ran (by no
 * thread) and resolved, run once for each of its callbacks and once for
 * its close, and, if second is not NULL, with that second label;
 * MPROF_NO_THREAD if not found. */
static uint32_t check_handle(const char *label, size_t callbacks,
                             const char *second) {
  size_t other;
  uint32_t t = find_thread(MPROF_HANDLE, label);
  CHECK(resolved_by_root(t), "no %s handle made by no thread, resolved", label);
  if (t == MPROF_NO_THREAD) return t;
  const mprof_thread_t *thread = &view->threads[t];
  CHECK(runs_of(t, MPROF_NO_THREAD, &other) >= callbacks + 1, "%s: %zu runs",
        label, runs_of(t, MPROF_NO_THREAD, &other));
  if (second)
    CHECK(thread->label_count == 2 &&
              !strcmp(view->strings +
                          mprof_label_at(view, thread->first_label + 1).text,
                      second),
          "%s: second label not '%s'", label, second);
  return t;
}

/* Increases of the counter name by delta at a time in [from_ns, to_ns]. */
static size_t counter_steps(const char *name, int64_t delta, int64_t from_ns,
                            int64_t to_ns) {
  size_t n = 0;
  for (size_t c = 0; c < view->counter_count; c++) {
    const mprof_counter_series_t *series = &view->counters[c];
    if (strcmp(view->strings + series->name, name)) continue;
    int64_t value = 0;
    for (uint32_t i = 0; i < series->sample_count; i++) {
      mprof_sample_t sample = mprof_sample_at(view, series->first_sample + i);
      n += sample.value - value == delta && sample.time_ns >= from_ns &&
           sample.time_ns <= to_ns;
      value = sample.value;
    }
  }
  return n;
}

/* The write request made by parent that resolved, or (reason not NULL)
 * failed with reason; MPROF_NO_THREAD if none. */
static uint32_t write_made_by(uint32_t parent, const char *reason) {
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == MPROF_WRITE &&
        view->threads[t].creator == parent &&
        (reason ? failed(t, reason)
                : view->threads[t].ending == MPROF_ENDING_RESOLVED))
      return t;
  return MPROF_NO_THREAD;
}

/* The tty: its reply written in its read callback, the 4 bytes read
 * before, the reply's 3 counted while it was pending, the tty closed in
 * the reply's callback; a tty on a file is not one. */
static void check_tty(uint32_t tty) {
  uint32_t reply = write_made_by(tty, NULL);
  CHECK(made_in_callback(reply, tty), "no reply written in the tty's callback");
  if (reply == MPROF_NO_THREAD) return;
  const mprof_thread_t *write = &view->threads[reply];
  CHECK(view->threads[tty].end_ns >= write->end_ns,
        "the tty ended before its reply's callback closed it");
  CHECK(counter_steps("uv bytes read", 4, view->threads[tty].start_ns,
                      write->start_ns) == 1,
        "no 4 bytes read from the tty before the reply");
  CHECK(counter_steps("uv bytes written", 3, write->start_ns, write->end_ns) ==
            1,
        "the reply's 3 bytes not counted while it was pending");
}

/* uv_write2(): the byte that passed a handle counted while the request was
 * pending; passing one to a tty failed at once with EINVAL. */
static void check_write2(void) {
  uint32_t passing = write_made_by(MPROF_ROOT_THREAD, NULL);
  CHECK(passing != MPROF_NO_THREAD &&
            counter_steps("uv bytes written", 1,
                          view->threads[passing].start_ns,
                          view->threads[passing].end_ns) == 1,
        "write2's byte not counted while it was pending");
  CHECK(write_made_by(MPROF_ROOT_THREAD, "EINVAL") != MPROF_NO_THREAD &&
            failed_with(MPROF_WRITE, "EINVAL") == 1,
        "the write2 of a handle to the tty did not fail with EINVAL");
}

static const struct expected_s expected_handles[] = {
    /* to the tty, write2 on the pipe, write2 to the tty (EINVAL) */
    {MPROF_WRITE, "write", 3, 2},
    {MPROF_HANDLE, "pipe", 2, 2},
    {MPROF_HANDLE, "tcp", 2, 2},  /* passed, received */
    {MPROF_HANDLE, "poll", 1, 1}, /* of a socket */
    {MPROF_HANDLE, "tty", 1, 1},  /* not the one on a file */
    /* an fs poll handle's own timer and stat requests are libuv's */
    {MPROF_TIMER, "", 0, 0},
    {MPROF_FS, "", 0, 0},
};

static void check_handles(void) {
  char label[1200];
  check_handle(
      "fs event", 1,
      path_label(label, sizeof label, "fs event", out_dir, "uv_more.event"));
  check_handle(
      "fs poll", 2, /* ENOENT, then the file */
      path_label(label, sizeof label, "fs poll", out_dir, "uv_more.poll"));
  check_tty(check_handle("tty", 1, NULL));
  check_handle("signal", 1, "signal 12");
  check_handle("poll", 1, NULL);
  check_counts(expected_handles,
               sizeof expected_handles / sizeof *expected_handles);
  check_write2();
  /* tty: "tty\n" in, "ok\n" out; the pipe: 1 byte */
  CHECK(counter_final("uv bytes read") == 5, "read %" PRId64,
        counter_final("uv bytes read"));
  CHECK(counter_final("uv bytes written") == 4, "written %" PRId64,
        counter_final("uv bytes written"));
}

/* The net labels of a direction and protocol ("net send tcp "): how many,
 * and how many on a handle's thread (not a request's). */
static size_t net_labels(const char *head, size_t *on_handles) {
  size_t n = 0;
  *on_handles = 0;
  for (size_t i = 0; i < view->label_count; i++) {
    mprof_label_t label = mprof_label_at(view, i);
    if (!strncmp(view->strings + label.text, head, strlen(head))) {
      n++;
      *on_handles += view->threads[label.thread].type == MPROF_HANDLE;
    }
  }
  return n;
}

static const struct expected_s expected_sockets[] = {
    {MPROF_HANDLE, "tcp", 3, 3}, /* listener, server side (reset), client */
    {MPROF_HANDLE, "udp", 3, 3},
    {MPROF_UDP_SEND, "udp send", 0, 0},
    {MPROF_WRITE, "write", 0, 0},
    /* synchronous, after the loop ran */
    {MPROF_GETADDRINFO, "getaddrinfo 127.0.0.1", 1, 1},
    {MPROF_GETNAMEINFO, "getnameinfo 127.0.0.1:0", 1, 1},
    {MPROF_RANDOM, "random", 1, 1},
};

/* The first label that starts with head, into *found; 0 if none. */
static int label_starting(const char *head, mprof_label_t *found) {
  for (size_t i = 0; i < view->label_count; i++) {
    *found = mprof_label_at(view, i);
    if (!strncmp(view->strings + found->text, head, strlen(head))) return 1;
  }
  return 0;
}

/* uv_udp_try_send()'s datagram "pong" (FNV-1a 64: 8c1eda0da8870097): the
 * send label on the sending handle's thread, with its 4 bytes counted
 * just before, the same text in the receive label on the other handle's;
 * the try_send without an address that failed recorded nothing (the
 * counts in check_sockets()). */
static void check_try_send(void) {
  mprof_label_t send, recv;
  int have_send = label_starting("net send udp ", &send);
  int have_recv = label_starting("net recv udp ", &recv);
  CHECK(have_send && have_recv, "no net send udp or recv udp label");
  if (!have_send || !have_recv) return;
  const char *text = view->strings + send.text;
  char source[64], destination[64], hash[17];
  unsigned length;
  CHECK(sscanf(text, "net send udp %63s %63s %16s %u", source, destination,
               hash, &length) == 4 &&
            !strncmp(source, "127.0.0.1:", 10) &&
            !strncmp(destination, "127.0.0.1:", 10) &&
            strcmp(source, destination) && !strcmp(hash, "8c1eda0da8870097") &&
            length == 4,
        "send label '%s'", text);
  CHECK(!strcmp(text + 9, view->strings + recv.text + 9),
        "receive label '%s' for '%s'", view->strings + recv.text, text);
  CHECK(resolved_by_root(send.thread) &&
            !strcmp(first_label(send.thread), "udp") &&
            !strcmp(first_label(recv.thread), "udp") &&
            send.thread != recv.thread,
        "the labels not on the two udp handles' threads");
  CHECK(counter_steps("uv bytes written", 4,
                      view->threads[send.thread].start_ns, send.time_ns) == 1,
        "try_send's 4 bytes not counted with its label");
}

/* The receiver's two datagrams, from two sockets: each receive label is
 * the send label of its datagram, source included. */
static void check_two_peers(void) {
  const char *sent[2], *received[2];
  size_t sends = 0, receives = 0;
  for (size_t i = 0; i < view->label_count; i++) {
    const char *text = view->strings + mprof_label_at(view, i).text;
    if (!strncmp(text, "net send udp ", 13) && sends < 2)
      sent[sends++] = text + 9;
    if (!strncmp(text, "net recv udp ", 13) && receives < 2)
      received[receives++] = text + 9;
  }
  CHECK(sends == 2 && receives == 2, "%zu udp sends, %zu receives", sends,
        receives);
  for (size_t i = 0; i < sends && i < receives; i++)
    CHECK(!strcmp(sent[i], received[i]),
          "datagram %zu sent '%s', received '%s'", i, sent[i], received[i]);
}

static void check_sockets(void) {
  size_t on_handles, sends, receives;
  check_counts(expected_sockets,
               sizeof expected_sockets / sizeof *expected_sockets);
  /* try_write "hi", try_write2 "!": each labelled once, on the client */
  CHECK(net_labels("net send tcp ", &on_handles) == 2 && on_handles == 2,
        "net send tcp labels");
  CHECK(net_labels("net send udp ", &on_handles) == 2 && on_handles == 2,
        "net send udp labels");
  CHECK(net_labels("net recv udp ", &on_handles) == 2, "net recv udp labels");
  check_try_send();
  check_two_peers();
  check_tcp_offsets(1, 3, &sends, &receives);
  CHECK(receives >= 1, "%zu net recv tcp labels", receives);
  CHECK(counter_final("uv bytes written") == 11, "written %" PRId64,
        counter_final("uv bytes written"));
  CHECK(counter_final("uv bytes read") == 11, "read %" PRId64,
        counter_final("uv bytes read"));
  size_t other;
  for (uint32_t t = 1; t < view->thread_count; t++)
    if (view->threads[t].type == MPROF_RANDOM)
      CHECK(view->threads[t].creator == MPROF_ROOT_THREAD &&
                runs_of(t, MPROF_NO_THREAD, &other) == 1,
            "the synchronous random ran once, made by no thread");
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: check_uv TRACE "
                    "all|all-ipv4|exit-in-callback|no-loop|threads|stress|fs|"
                    "handles|sockets [DIR]\n");
    return 2;
  }
  if (argc == 4) out_dir = argv[3];
  mprof_trace_t *trace;
  mprof_model_t *m;
  if (mprof_trace_open(argv[1], NULL, NULL, &trace) ||
      mprof_model_load(trace, &m)) {
    fprintf(stderr, "check_uv: %s: cannot load\n", argv[1]);
    return 1;
  }
  view = mprof_model_view(m);
  read_switches(trace);
  if (!strcmp(argv[2], "all") || !strcmp(argv[2], "all-ipv4")) {
    datagrams = strcmp(argv[2], "all") ? 1 : 2;
    check_all();
  } else if (!strcmp(argv[2], "threads"))
    check_threads();
  else if (!strcmp(argv[2], "stress"))
    check_stress();
  else if (!strcmp(argv[2], "exit-in-callback"))
    check_exit_in_callback();
  else if (!strcmp(argv[2], "fs"))
    check_fs();
  else if (!strcmp(argv[2], "handles"))
    check_handles();
  else if (!strcmp(argv[2], "sockets"))
    check_sockets();
  else
    check_no_loop();
  printf("check_uv %s %s: %zu threads, %d failed checks\n", argv[1], argv[2],
         view->thread_count, failures);
  free(switch_targets);
  mprof_model_free(m);
  mprof_trace_close(trace);
  return failures != 0;
}
