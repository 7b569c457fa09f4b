/* cmd_report.c -- `mprof report [--json] [--top N] [--loop-blocked-ms N]
 * [--stream] TRACE...`: the model's analysis for a person (text) or a
 * script (one JSON object per trace): the findings (most severe first),
 * the requests' latency and failures by kind, stalled should_resolve
 * threads, lost wake-ups, where each thread's time went, the longest wait
 * chains and the critical path.  A trace too big for a model of 256 MiB
 * is analysed in one pass instead (mprof_analysis_stream), which says
 * what it leaves out. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mprof/model.h"

static const char help[] =
    "usage: mprof report [--json] [--top N] [--loop-blocked-ms N] [--stream]\n"
    "                    TRACE...\n"
    "Analyse traces: the findings, most severe first (docs/analysis.md:\n"
    "lost wake-ups, stalls, callbacks that block their loop for N ms or\n"
    "more (default 20), busy loops, a saturated thread pool, retry storms,\n"
    "write backlogs, requests left pending); requests by kind, with their\n"
    "latency and failures;\n"
    "should_resolve threads that never resolved (with the\n"
    "interactions just before they stalled), lost wake-ups (a signal nobody\n"
    "waited for, then a wait on it that never ends), time running, waiting,\n"
    "in poll and not running for the N longest-lived threads (default 10,\n"
    "0 for all), the longest wait chains, and the critical path of the\n"
    "longest resolved thread.\n"
    "--json prints one object per trace (JSON lines).  A merged trace\n"
    "(mprof merge) is analysed as one: its processes on one time axis.\n"
    "A trace whose events would make a model of more than 256 MiB (or any\n"
    "trace, with --stream) is analysed in one pass, in bounded memory:\n"
    "then the wait chains and the critical paths' steps are left out (said\n"
    "so), and latency percentiles of more than 65536 requests of a kind\n"
    "are within 1/128 below (docs/analysis.md, \"Streaming\").\n"
    "examples:\n"
    "  mprof report trace.ctf.manifest     (what mprof record wrote)\n"
    "  mprof report --json --top 0 trace.ctf | jq .findings\n";

typedef struct report_s {
  int json, stream;
  size_t top;
  mprof_analysis_options_t options;
  int failed;
} report_t;

/* What a report prints: the analysis, the model its thread indexes are
 * into (the whole model, or a streaming analysis's model of the threads
 * it names), the trace's thread count, and whether it was streamed (what
 * one pass leaves out is said so). */
typedef struct shown_s {
  const mprof_model_t *m;
  const mprof_analysis_t *a;
  uint64_t threads;
  int streamed;
} shown_t;

/* What one pass leaves out, said where it would be. */
static const char not_streamed[] = "not computed in one pass";

/* --- Text ----------------------------------------------------------------- */

void cli_put_duration(int64_t ns) {
  if (ns < 1000)
    printf("%" PRId64 " ns", ns);
  else if (ns < 1000000)
    printf("%.3f us", (double)ns / 1e3);
  else if (ns < 1000000000)
    printf("%.3f ms", (double)ns / 1e6);
  else
    printf("%.3f s", (double)ns / 1e9);
}

/* "label" (type#id) with the label escaped, or type#id if unlabelled. */
void cli_put_thread(const mprof_model_t *m, uint32_t t) {
  const mprof_thread_t *th = &mprof_model_view(m)->threads[t];
  const char *label = mprof_model_thread_label(m, t);
  if (t == MPROF_ROOT_THREAD) {
    fputs("(root)", stdout);
    return;
  }
  if (label) {
    putchar('"');
    cli_put_escaped(stdout, label, strlen(label));
    fputs("\" (", stdout);
  }
  printf("%s#%" PRIu64 "%s",
         (th->flags & MPROF_THREAD_PREEXISTING)
             ? "preexisting"
             : mprof_type_name((mprof_type_t)th->type),
         th->id, label ? ")" : "");
}

static void put_arrow(const mprof_model_t *m, uint32_t i) {
  mprof_arrow_t a = mprof_arrow_at(mprof_model_view(m), i);
  printf("      at ");
  cli_put_duration(a.time_ns);
  printf("  %-11s ", mprof_arrow_kind_name((mprof_arrow_kind_t)a.kind));
  cli_put_thread(m, a.from);
  printf(" -> ");
  cli_put_thread(m, a.to);
  putchar('\n');
}

/* A finding's summary: its quotes are the model's, so only the bytes that
 * could break the line or drive the terminal are escaped (\xHH). */
static void put_summary(const char *summary) {
  for (const unsigned char *p = (const unsigned char *)summary; *p; p++)
    if (*p < 0x20 || *p >= 0x7f)
      printf("\\x%02x", *p);
    else
      putchar(*p);
}

static void text_findings(const mprof_analysis_t *a) {
  size_t by_severity[3] = {0, 0, 0};
  for (size_t i = 0; i < a->finding_count; i++)
    if (a->findings[i].severity < 3) by_severity[a->findings[i].severity]++;
  printf("\nFindings: %zu (%zu error%s, %zu warning%s, %zu info)\n",
         a->finding_count, by_severity[0], by_severity[0] == 1 ? "" : "s",
         by_severity[1], by_severity[1] == 1 ? "" : "s", by_severity[2]);
  for (size_t i = 0; i < a->finding_count; i++) {
    const mprof_finding_t *f = &a->findings[i];
    printf("  %-7s %-14s ", mprof_severity_name((mprof_severity_t)f->severity),
           mprof_finding_kind_name((mprof_finding_kind_t)f->kind));
    put_summary(a->text + f->summary);
    putchar('\n');
  }
}

/* A duration column of the requests' table: "-" where unknown. */
static void put_column(int64_t ns) {
  char cell[32];
  if (ns < 0)
    snprintf(cell, sizeof cell, "-");
  else if (ns < 1000000)
    snprintf(cell, sizeof cell, "%.1fus", (double)ns / 1e3);
  else
    snprintf(cell, sizeof cell, "%.1fms", (double)ns / 1e6);
  printf(" %9s", cell);
}

static void text_requests(const mprof_model_t *m, const mprof_analysis_t *a) {
  const char *strings = mprof_model_view(m)->strings;
  printf("\nRequests: %zu kinds\n", a->request_count);
  if (a->request_count)
    printf("  %-24s %6s %6s %9s %9s %9s %9s %9s %9s\n", "kind", "count",
           "failed", "p50", "p90", "p99", "max", "queue p50", "run p50");
  for (size_t i = 0; i < a->request_count; i++) {
    const mprof_request_group_t *g = &a->requests[i];
    const char *name = a->text + g->name;
    printf("  ");
    cli_put_escaped(stdout, name, strlen(name));
    printf("%*s %6u %6u", strlen(name) < 24 ? (int)(24 - strlen(name)) : 0, "",
           g->count, g->failed);
    put_column(g->p50_ns);
    put_column(g->p90_ns);
    put_column(g->p99_ns);
    put_column(g->max_ns);
    put_column(g->queue_p50_ns);
    put_column(g->run_p50_ns);
    if (g->pending) printf("  (%u pending)", g->pending);
    putchar('\n');
    for (uint32_t k = 0; k < g->failure_count; k++) {
      const mprof_failure_count_t *f = &a->failures[g->first_failure + k];
      const char *error = strings + f->error;
      printf("    failed: ");
      cli_put_escaped(stdout, name, strlen(name));
      printf(": ");
      cli_put_escaped(stdout, error, strlen(error));
      printf(" x%u\n", f->count);
    }
  }
}

static void text_stalls(const shown_t *shown) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  const mprof_thread_t *th = mprof_model_view(m)->threads;
  printf("\nStalled: %zu should_resolve thread%s never resolved\n",
         a->stall_count, a->stall_count == 1 ? "" : "s");
  for (size_t i = 0; i < a->stall_count; i++) {
    const mprof_stall_t *s = &a->stalls[i];
    printf("  ");
    cli_put_thread(m, s->thread);
    printf(", created by ");
    cli_put_thread(m, th[s->thread].creator);
    printf(" at ");
    cli_put_duration(th[s->thread].start_ns);
    if (s->last != s->thread) {
      printf(", became ");
      cli_put_thread(m, s->last);
    }
    printf(", last seen at ");
    cli_put_duration(th[s->last].last_seen_ns);
    printf("\n    just before it stalled:\n");
    for (uint32_t k = 0; k < s->arrow_count; k++)
      put_arrow(m, a->arrow_refs[s->first_arrow + k]);
  }
}

static void text_lost_wakeups(const mprof_model_t *m,
                              const mprof_analysis_t *a) {
  const mprof_model_view_t *v = mprof_model_view(m);
  printf("\nLost wake-ups: %zu\n", a->lost_wakeup_count);
  for (size_t i = 0; i < a->lost_wakeup_count; i++) {
    const mprof_lost_wakeup_t *l = &a->lost_wakeups[i];
    mprof_arrow_t sig = mprof_arrow_at(v, l->signal_arrow);
    printf("  ");
    cli_put_thread(m, l->condition);
    printf(" was signalled by ");
    cli_put_thread(m, sig.from);
    printf(" at ");
    cli_put_duration(sig.time_ns);
    printf(" with nobody waiting;\n  then ");
    cli_put_thread(m, l->waiter);
    printf(" began waiting on it at ");
    cli_put_duration(v->threads[l->waiter].start_ns);
    printf(" and never woke up\n");
  }
}

/* Which of two threads' times comes first: the longer life, then the
 * lower thread. */
static int life_before(const mprof_thread_time_t *a,
                       const mprof_thread_time_t *b) {
  if (a->life_ns != b->life_ns) return a->life_ns > b->life_ns;
  return a->thread < b->thread;
}

static int by_life(const void *pa, const void *pb) {
  const mprof_thread_time_t *const *a = pa, *const *b = pb;
  return life_before(*a, *b) ? -1 : life_before(*b, *a);
}

/* Restore the heap of `kept` times at i downwards: the one that comes
 * last at the root. */
static void sift_latest_down(const mprof_thread_time_t **heap, size_t kept,
                             size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, last = i;
    if (l < kept && life_before(heap[last], heap[l])) last = l;
    if (r < kept && life_before(heap[last], heap[r])) last = r;
    if (last == i) return;
    const mprof_thread_time_t *t = heap[i];
    heap[i] = heap[last];
    heap[last] = t;
    i = last;
  }
}

/* The `top` longest-lived threads, or all of them for a top of 0, in
 * order: *count pointers into a->times (NULL on no memory).  A top below
 * the thread count is kept in a heap while the times go by, so that a
 * report of millions of threads neither copies nor sorts them all. */
static const mprof_thread_time_t **longest_lived(const mprof_analysis_t *a,
                                                 size_t *count, size_t top) {
  size_t n = a->time_count > 1 ? a->time_count - 1 : 0; /* not the root */
  size_t kept = top && top < n ? top : n;
  const mprof_thread_time_t **sorted =
      malloc((kept ? kept : 1) * sizeof *sorted);
  if (!sorted) return NULL;
  const mprof_thread_time_t *times = a->times + 1;
  for (size_t i = 0; i < kept; i++) sorted[i] = &times[i];
  for (size_t i = kept / 2; i-- > 0;) sift_latest_down(sorted, kept, i);
  for (size_t i = kept; i < n; i++)
    if (life_before(&times[i], sorted[0])) {
      sorted[0] = &times[i];
      sift_latest_down(sorted, kept, 0);
    }
  qsort(sorted, kept, sizeof *sorted, by_life);
  *count = kept;
  return sorted;
}

static int text_times(const mprof_model_t *m, const mprof_analysis_t *a,
                      size_t top) {
  size_t count;
  const mprof_thread_time_t **sorted = longest_lived(a, &count, top);
  if (!sorted) return -1;
  if (top && count == top)
    printf("\nTime per thread (the %zu longest-lived):\n", count);
  else
    printf("\nTime per thread (all %zu, longest-lived first):\n", count);
  for (size_t i = 0; i < count; i++) {
    const mprof_thread_time_t *t = sorted[i];
    printf("  ");
    cli_put_thread(m, t->thread);
    printf("\n    life ");
    cli_put_duration(t->life_ns);
    printf(", running ");
    cli_put_duration(t->running_ns);
    printf(", waiting ");
    cli_put_duration(t->waiting_ns);
    if (t->in_poll_ns) {
      printf(", in poll ");
      cli_put_duration(t->in_poll_ns);
    }
    printf(", not running ");
    cli_put_duration(t->not_running_ns);
    putchar('\n');
    for (uint32_t k = 0; k < t->wait_count; k++) {
      printf("    waited ");
      cli_put_duration(a->waits[t->first_wait + k].ns);
      printf(" on ");
      cli_put_thread(m, a->waits[t->first_wait + k].on);
      putchar('\n');
    }
  }
  free(sorted);
  return 0;
}

static void text_chains(const shown_t *shown) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  if (shown->streamed) {
    printf("\nLongest wait chains: %s\n", not_streamed);
    return;
  }
  printf("\nLongest wait chains: %zu\n", a->chain_count);
  for (size_t i = 0; i < a->chain_count; i++) {
    const mprof_chain_t *c = &a->chains[i];
    printf("  %u links, from ", c->length - 1);
    cli_put_duration(c->start_ns);
    printf(" to ");
    cli_put_duration(c->end_ns);
    printf(":\n    ");
    for (uint32_t k = 0; k < c->length; k++) {
      if (k) printf("\n      waits on ");
      cli_put_thread(m, a->chain_threads[c->first + k]);
    }
    putchar('\n');
  }
}

/* Why the slowest request of each kind took as long as it did. */
static void text_path(const shown_t *shown) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  if (!a->request_count) {
    printf("\nCritical path: no requests\n");
    return;
  }
  for (size_t r = 0; r < a->request_count; r++) {
    const mprof_request_group_t *g = &a->requests[r];
    fputs("\nCritical path of the slowest \"", stdout);
    cli_put_escaped(stdout, a->text + g->name, strlen(a->text + g->name));
    fputs("\": ", stdout);
    cli_put_thread(m, g->slowest);
    if (shown->streamed) {
      printf(", its steps %s (mprof why)\n", not_streamed);
      continue;
    }
    fputs(", latest first:\n", stdout);
    cli_put_why(m, a->why_hops + g->first_hop, g->hop_count);
  }
}

static int report_text(const char *path, const shown_t *shown, size_t top) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  const mprof_model_view_t *v = mprof_model_view(m);
  fputs("mprof report: ", stdout);
  cli_put_escaped(stdout, path, strlen(path));
  printf("\n  %" PRIu64 " events, %" PRIu64 " threads, %u OS-thread streams, "
         "%" PRIu64 " events discarded, duration ",
         v->events, shown->threads, v->stream_count, v->discarded);
  cli_put_duration(v->duration_ns);
  if (v->end_ns > v->duration_ns) {
    fputs(", recording ended at ", stdout);
    cli_put_duration(v->end_ns);
  }
  putchar('\n');
  if (shown->streamed)
    printf("  analysed in one pass: wait chains and critical paths left"
           " out\n");
  text_findings(a);
  text_requests(m, a);
  text_stalls(shown);
  text_lost_wakeups(m, a);
  if (text_times(m, a, top)) return -1;
  text_chains(shown);
  text_path(shown);
  return 0;
}

/* --- JSON ----------------------------------------------------------------- */

json_t *cli_json_text(const char *text, size_t length) {
  char *valid = malloc(4 * length + 1);
  if (!valid) return NULL;
  json_t *s = json_stringn(valid, mprof_json_text(valid, text, length));
  free(valid);
  return s;
}

/* {"id", "label" (null if none), "name" (the label, or type#id), "type"} */
json_t *cli_json_thread(const mprof_model_t *m, uint32_t t) {
  const mprof_thread_t *th = &mprof_model_view(m)->threads[t];
  const char *label = mprof_model_thread_label(m, t);
  char name[256];
  mprof_model_thread_name(m, t, name, sizeof name);
  return json_pack(
      "{s:I, s:o, s:o, s:s}", "id", (json_int_t)th->id, "label",
      label ? cli_json_text(label, strlen(label)) : json_null(), "name",
      cli_json_text(label ? label : name, strlen(label ? label : name)), "type",
      t == MPROF_ROOT_THREAD ? "root"
                             : mprof_type_name((mprof_type_t)th->type));
}

static json_t *json_arrow(const mprof_model_t *m, uint32_t i) {
  mprof_arrow_t a = mprof_arrow_at(mprof_model_view(m), i);
  return json_pack("{s:I, s:s, s:o, s:o}", "time_ns", (json_int_t)a.time_ns,
                   "kind", mprof_arrow_kind_name((mprof_arrow_kind_t)a.kind),
                   "from", cli_json_thread(m, a.from), "to",
                   cli_json_thread(m, a.to));
}

static json_t *json_evidence(const mprof_model_t *m,
                             const mprof_evidence_t *e) {
  json_t *o = json_pack(
      "{s:s, s:o, s:I, s:I, s:I}", "kind",
      mprof_evidence_kind_name((mprof_evidence_kind_t)e->kind), "thread",
      cli_json_thread(m, e->thread), "start_ns", (json_int_t)e->start_ns,
      "end_ns", (json_int_t)e->end_ns, "count", (json_int_t)e->count);
  if (o && e->kind == MPROF_EVIDENCE_ARROW)
    json_object_set_new(o, "arrow", json_arrow(m, e->arrow));
  return o;
}

static json_t *json_finding(const mprof_model_t *m, const mprof_analysis_t *a,
                            const mprof_finding_t *f) {
  json_t *threads = json_array(), *evidence = json_array();
  for (uint32_t k = 0; k < f->thread_count; k++)
    json_array_append_new(
        threads, cli_json_thread(m, a->finding_threads[f->first_thread + k]));
  for (uint32_t k = 0; k < f->evidence_count; k++)
    json_array_append_new(
        evidence, json_evidence(m, &a->evidence[f->first_evidence + k]));
  const char *summary = a->text + f->summary;
  return json_pack(
      "{s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:o}", "kind",
      mprof_finding_kind_name((mprof_finding_kind_t)f->kind), "severity",
      mprof_severity_name((mprof_severity_t)f->severity), "summary",
      cli_json_text(summary, strlen(summary)), "threads", threads, "start_ns",
      (json_int_t)f->start_ns, "end_ns", (json_int_t)f->end_ns, "value_ns",
      (json_int_t)f->value_ns, "evidence", evidence);
}

static json_t *json_findings(const mprof_model_t *m,
                             const mprof_analysis_t *a) {
  json_t *list = json_array();
  for (size_t i = 0; i < a->finding_count; i++)
    json_array_append_new(list, json_finding(m, a, &a->findings[i]));
  return list;
}

static json_t *json_failures(const mprof_model_t *m, const mprof_analysis_t *a,
                             const mprof_request_group_t *g) {
  const char *strings = mprof_model_view(m)->strings;
  json_t *list = json_array();
  for (uint32_t k = 0; k < g->failure_count; k++) {
    const mprof_failure_count_t *f = &a->failures[g->first_failure + k];
    const char *error = strings + f->error;
    json_array_append_new(list,
                          json_pack("{s:o, s:I, s:o}", "error",
                                    cli_json_text(error, strlen(error)),
                                    "count", (json_int_t)f->count, "example",
                                    cli_json_thread(m, f->example)));
  }
  return list;
}

static json_t *json_requests(const mprof_model_t *m,
                             const mprof_analysis_t *a) {
  json_t *list = json_array();
  for (size_t i = 0; i < a->request_count; i++) {
    const mprof_request_group_t *g = &a->requests[i];
    const char *name = a->text + g->name;
    json_array_append_new(
        list,
        json_pack(
            "{s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
            "s:I, s:I, s:o}",
            "kind", cli_json_text(name, strlen(name)), "type",
            mprof_type_name((mprof_type_t)g->type), "count",
            (json_int_t)g->count, "failed", (json_int_t)g->failed, "pending",
            (json_int_t)g->pending, "p50_ns", (json_int_t)g->p50_ns, "p90_ns",
            (json_int_t)g->p90_ns, "p99_ns", (json_int_t)g->p99_ns, "max_ns",
            (json_int_t)g->max_ns, "queue_p50_ns", (json_int_t)g->queue_p50_ns,
            "queue_max_ns", (json_int_t)g->queue_max_ns, "run_p50_ns",
            (json_int_t)g->run_p50_ns, "run_max_ns", (json_int_t)g->run_max_ns,
            "failures", json_failures(m, a, g)));
  }
  return list;
}

static json_t *json_stalls(const shown_t *shown) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  const mprof_thread_t *th = mprof_model_view(m)->threads;
  json_t *list = json_array();
  for (size_t i = 0; i < a->stall_count; i++) {
    const mprof_stall_t *s = &a->stalls[i];
    json_t *before = json_array();
    for (uint32_t k = 0; k < s->arrow_count; k++)
      json_array_append_new(before,
                            json_arrow(m, a->arrow_refs[s->first_arrow + k]));
    json_array_append_new(
        list,
        json_pack("{s:o, s:o, s:o, s:I, s:I, s:o}", "thread",
                  cli_json_thread(m, s->thread), "became",
                  cli_json_thread(m, s->last), "creator",
                  cli_json_thread(m, th[s->thread].creator), "start_ns",
                  (json_int_t)th[s->thread].start_ns, "last_seen_ns",
                  (json_int_t)th[s->last].last_seen_ns, "before", before));
  }
  return list;
}

static json_t *json_lost_wakeups(const mprof_model_t *m,
                                 const mprof_analysis_t *a) {
  const mprof_model_view_t *v = mprof_model_view(m);
  json_t *list = json_array();
  for (size_t i = 0; i < a->lost_wakeup_count; i++) {
    const mprof_lost_wakeup_t *l = &a->lost_wakeups[i];
    mprof_arrow_t sig = mprof_arrow_at(v, l->signal_arrow);
    json_array_append_new(
        list, json_pack("{s:o, s:o, s:I, s:o, s:I}", "condition",
                        cli_json_thread(m, l->condition), "signalled_by",
                        cli_json_thread(m, sig.from), "signal_ns",
                        (json_int_t)sig.time_ns, "waiter",
                        cli_json_thread(m, l->waiter), "wait_start_ns",
                        (json_int_t)v->threads[l->waiter].start_ns));
  }
  return list;
}

static json_t *json_times(const mprof_model_t *m, const mprof_analysis_t *a,
                          size_t top) {
  size_t count;
  const mprof_thread_time_t **sorted = longest_lived(a, &count, top);
  if (!sorted) return NULL;
  json_t *list = json_array();
  for (size_t i = 0; i < count; i++) {
    const mprof_thread_time_t *t = sorted[i];
    json_t *on = json_array();
    for (uint32_t k = 0; k < t->wait_count; k++)
      json_array_append_new(
          on, json_pack("{s:o, s:I}", "thread",
                        cli_json_thread(m, a->waits[t->first_wait + k].on),
                        "ns", (json_int_t)a->waits[t->first_wait + k].ns));
    json_array_append_new(
        list, json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o}", "thread",
                        cli_json_thread(m, t->thread), "life_ns",
                        (json_int_t)t->life_ns, "running_ns",
                        (json_int_t)t->running_ns, "waiting_ns",
                        (json_int_t)t->waiting_ns, "in_poll_ns",
                        (json_int_t)t->in_poll_ns, "not_running_ns",
                        (json_int_t)t->not_running_ns, "waiting_on", on));
  }
  free(sorted);
  return list;
}

static json_t *json_chains(const shown_t *shown) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  if (shown->streamed) return json_null();
  json_t *list = json_array();
  for (size_t i = 0; i < a->chain_count; i++) {
    const mprof_chain_t *c = &a->chains[i];
    json_t *threads = json_array();
    for (uint32_t k = 0; k < c->length; k++)
      json_array_append_new(threads,
                            cli_json_thread(m, a->chain_threads[c->first + k]));
    json_array_append_new(list, json_pack("{s:o, s:I, s:I}", "threads", threads,
                                          "start_ns", (json_int_t)c->start_ns,
                                          "end_ns", (json_int_t)c->end_ns));
  }
  return list;
}

/* Per kind of request, why its slowest took as long as it did. */
static json_t *json_path(const shown_t *shown) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  json_t *paths = json_array();
  for (size_t r = 0; r < a->request_count; r++) {
    const mprof_request_group_t *g = &a->requests[r];
    json_array_append_new(
        paths,
        json_pack("{s:o, s:o, s:o}", "kind",
                  cli_json_text(a->text + g->name, strlen(a->text + g->name)),
                  "target", cli_json_thread(m, g->slowest), "steps",
                  shown->streamed ? json_null()
                                  : cli_json_why(m, a->why_hops + g->first_hop,
                                                 g->hop_count)));
  }
  return paths;
}

static int report_json(const char *path, const shown_t *shown, size_t top) {
  const mprof_model_t *m = shown->m;
  const mprof_analysis_t *a = shown->a;
  const mprof_model_view_t *v = mprof_model_view(m);
  json_t *times = json_times(m, a, top);
  json_t *o = json_pack(
      "{s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
      "trace", cli_json_text(path, strlen(path)), "duration_ns",
      (json_int_t)v->duration_ns, "end_ns", (json_int_t)v->end_ns, "events",
      (json_int_t)v->events, "threads", (json_int_t)shown->threads, "streams",
      (json_int_t)v->stream_count, "discarded", (json_int_t)v->discarded,
      "findings", json_findings(m, a), "requests", json_requests(m, a),
      "stalls", json_stalls(shown), "lost_wakeups", json_lost_wakeups(m, a),
      "thread_times", times ? times : json_null(), "wait_chains",
      json_chains(shown), "critical_path", json_path(shown));
  if (o && shown->streamed) json_object_set_new(o, "streamed", json_true());
  if (!o || !times) {
    json_decref(o);
    return -1;
  }
  int err = json_dumpf(o, stdout, JSON_COMPACT);
  putchar('\n');
  json_decref(o);
  return err;
}

/* --- The command ---------------------------------------------------------- */

static void report_print(report_t *r, const char *path, const shown_t *shown) {
  if (r->json ? report_json(path, shown, r->top)
              : report_text(path, shown, r->top)) {
    cli_output_failed("report", "standard output");
    r->failed = 1;
  }
}

/* Analyse and print a model of path, progress told until the analysis is
 * done; damaged: the reader found damage in it (events are missing). */
static void report_model(report_t *r, const char *path, mprof_model_t *m,
                         cli_progress_t *progress, int damaged) {
  mprof_analysis_t a;
  mprof_analysis_options_t options = r->options;
  options.events_missing = damaged;
  cli_progress_phase(progress, "report: analysing", 0, NULL);
  cli_progress_update(progress, 0);
  int err = mprof_model_analyse_with(m, &options, &a);
  cli_progress_finish(progress);
  if (err) {
    cli_fail(0, "report", path, "%s", mprof_strerror(err));
    r->failed = 1;
    return;
  }
  shown_t shown = {m, &a, mprof_model_view(m)->thread_count - 1, 0};
  report_print(r, path, &shown);
  mprof_analysis_free(&a);
}

/* The model and its analysis take about half as much again as the model
 * alone (a 1.5 GB trace of 108 M events: 5.3 GB of both); past the
 * budget, the report is made in one pass instead. */
#define MODEL_BUDGET ((uint64_t)256 << 20)

/* Should the traces be analysed in one pass: asked to, or too big for a
 * model within the budget (legacy traces, read whole anyway, never)? */
static int one_pass(const report_t *r, const mprof_trace_t *const *traces,
                    size_t count) {
  uint64_t bytes = 0;
  for (size_t t = 0; t < count; t++) {
    if (mprof_trace_info(traces[t])->legacy) return 0;
    bytes += mprof_model_bytes_estimate(traces[t], NULL, 0);
  }
  return r->stream || bytes / 2 * 3 > MODEL_BUDGET;
}

/* The pass's progress, its packets; after the last one, what is left is
 * the analysis's end (settling what is kept, the findings). */
static void pass_progress(void *context, size_t done, size_t total) {
  cli_progress_t *progress = context;
  cli_progress_packets(progress, done, total);
  if (done < total) return;
  cli_progress_phase(progress, "report: analysing", 0, NULL);
  cli_progress_update(progress, 0);
}

/* Analyse traces in one pass and print it; problems: the reader's count
 * of damage, read once the pass is over. */
static void report_streamed(report_t *r, const char *path,
                            const mprof_trace_t *const *traces, size_t count,
                            const int64_t *offsets_ns, cli_progress_t *progress,
                            const int *problems) {
  mprof_stream_options_t options = {r->options,    r->top,   offsets_ns,
                                    pass_progress, progress, problems};
  mprof_stream_result_t result;
  int err = mprof_analysis_stream(traces, count, &options, &result);
  cli_progress_finish(progress);
  if (err) {
    cli_fail(0, "report", path, "%s", mprof_strerror(err));
    r->failed = 1;
    return;
  }
  shown_t shown = {result.named, &result.analysis, result.thread_count, 1};
  report_print(r, path, &shown);
  mprof_stream_result_free(&result);
}

static void report_one(void *context, const char *path, mprof_trace_t *trace,
                       int *problems) {
  report_t *r = context;
  const mprof_trace_t *const *traces = (const mprof_trace_t *const *)&trace;
  mprof_model_t *m;
  cli_progress_t progress;
  cli_progress_start(&progress, "report", 0);
  if (one_pass(r, traces, 1)) {
    report_streamed(r, path, traces, 1, NULL, &progress, problems);
    return;
  }
  mprof_model_load_options_t options = {NULL, cli_progress_packets, &progress};
  int err = mprof_model_load_with(traces, 1, &options, &m);
  if (err) {
    cli_progress_finish(&progress);
    cli_fail(0, "report", path, "%s", mprof_strerror(err));
    r->failed = 1;
    return;
  }
  report_model(r, path, m, &progress, *problems > 0);
  mprof_model_free(m);
}

/* A merged trace (`mprof merge`): its members as one model, or in one
 * pass. */
static int report_merged(report_t *r, char *path) {
  int problems = 0;
  cli_traces_t set;
  mprof_model_t *m = NULL;
  cli_progress_t progress;
  cli_progress_start(&progress, "report", 0);
  int code = cli_traces_open(&set, &path, 1, &problems);
  set.progress = &progress;
  const mprof_trace_t *const *traces = (const mprof_trace_t *const *)set.traces;
  if (code == CLI_OK && one_pass(r, traces, (size_t)set.count))
    report_streamed(r, path, traces, (size_t)set.count, set.offsets_ns,
                    &progress, &problems);
  else if (code == CLI_OK && (code = cli_traces_model(&set, &m)) == CLI_OK)
    report_model(r, path, m, &progress, problems > 0);
  cli_progress_finish(&progress);
  mprof_model_free(m);
  cli_traces_close(&set);
  return code == CLI_OK && problems ? CLI_DAMAGED : code;
}

int cmd_report(int argc, char **argv) {
  static const struct option options[] = {
      {"json", no_argument, 0, 'j'},
      {"top", required_argument, 0, 't'},
      {"loop-blocked-ms", required_argument, 0, 'b'},
      {"stream", no_argument, 0, 's'},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  report_t r = {0, 0, 10, {0, 0, 0}, 0};
  unsigned long blocked_ms;
  int c;
  while ((c = getopt_long(argc, argv, "jt:b:sh", options, NULL)) != -1) {
    char *end;
    switch (c) {
    case 'j': r.json = 1; break;
    case 't':
      r.top = strtoul(optarg, &end, 10);
      if (*end || !*optarg) {
        return cli_fail(CLI_USAGE, "report", "--top",
                        "%s: give a number of "
                        "threads, 0 for all",
                        optarg);
      }
      break;
    case 'b':
      blocked_ms = strtoul(optarg, &end, 10);
      if (*end || !*optarg || blocked_ms == 0 || blocked_ms > 1000000000) {
        return cli_fail(CLI_USAGE, "report", "--loop-blocked-ms",
                        "%s: give "
                        "a number of milliseconds from 1",
                        optarg);
      }
      r.options.loop_blocked_ns = (int64_t)blocked_ms * 1000000;
      break;
    case 's': r.stream = 1; break;
    case 'h': fputs(help, stdout); return CLI_OK;
    default: return cli_option_error("report", argv, "jt:b:sh");
    }
  }
  if (optind >= argc) return cli_missing("report", "TRACE", "trace.ctf");
  int code = CLI_OK;
  for (int i = optind; i < argc; i++) {
    int one = mprof_trace_is_merged(argv[i])
                  ? report_merged(&r, argv[i])
                  : cli_for_each_trace(argv + i, 1, report_one, &r);
    if (one > code) code = one;
  }
  return r.failed ? CLI_FAILED : code;
}
