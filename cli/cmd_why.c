/* cmd_why.c -- `mprof why [--json] THREAD TRACE...`: why one thread took
 * as long as it did, as the chain of waits the model walks back from its
 * end (mprof_model_why, docs/analysis.md "Why"): what it waited on, who
 * resolved or signalled that, what that one waited on, ... to the root.
 * THREAD is an id (as `mprof report` prints it, TYPE#ID or ID) or text to
 * find in labels.  The traces are one model: the members of a merged
 * trace, or several files, on one time axis.  The chain printer serves
 * `mprof report` too (the slowest request of each kind).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: mprof why [--json] THREAD TRACE...\n"
    "Why THREAD took as long as it did: from its end (the recording's end\n"
    "if it never ended) back through what it waited on, who resolved or\n"
    "signalled that, what that one waited on, and so on to the root, each\n"
    "hop with the span it accounts for, latest first; across OS threads and\n"
    "the processes of a merged trace.  THREAD is an id (TYPE#ID or ID, as\n"
    "mprof report prints it) or text to find in the threads' labels (the\n"
    "longest-lived match is taken).  --json prints it as one JSON object.\n"
    "examples:\n"
    "  mprof why 'ARP response' trace.ctf\n"
    "  mprof why --json task#42 trace.ctf\n";

/* The words that lead to a hop in the text. */
static const char *via_words(mprof_why_via_t via) {
  switch (via) {
  case MPROF_WHY_TARGET: return "";
  case MPROF_WHY_WAITED: return "waited on";
  case MPROF_WHY_RESOLVED: return "resolved by";
  case MPROF_WHY_SIGNALLED: return "signalled by";
  case MPROF_WHY_CREATED: return "created by";
  case MPROF_WHY_SENT: return "sent by";
  default: return "?";
  }
}

void cli_put_why(const mprof_model_t *m, const mprof_why_hop_t *hops,
                 size_t count) {
  for (size_t i = 0; i < count; i++) {
    const mprof_why_hop_t *h = &hops[i];
    printf("  %-12s ", via_words((mprof_why_via_t)h->via));
    cli_put_thread(m, h->thread);
    fputs(", ", stdout);
    cli_put_duration(h->start_ns);
    fputs(" .. ", stdout);
    cli_put_duration(h->end_ns);
    fputs(" (", stdout);
    cli_put_duration(h->end_ns - h->start_ns);
    fputs(")\n", stdout);
  }
}

json_t *cli_json_why(const mprof_model_t *m, const mprof_why_hop_t *hops,
                     size_t count) {
  json_t *steps = json_array();
  for (size_t i = 0; i < count; i++)
    json_array_append_new(
        steps, json_pack("{s:o, s:s, s:I, s:I}", "thread",
                         cli_json_thread(m, hops[i].thread), "via",
                         mprof_why_via_name((mprof_why_via_t)hops[i].via),
                         "start_ns", (json_int_t)hops[i].start_ns, "end_ns",
                         (json_int_t)hops[i].end_ns));
  return steps;
}

/* --- Which thread --------------------------------------------------------- */

/* The thread of id text (ID or TYPE#ID), or MPROF_NO_THREAD. */
static uint32_t thread_by_id(const mprof_model_t *m, const char *text) {
  const char *hash = strrchr(text, '#');
  const char *digits = hash ? hash + 1 : text;
  char *end;
  if (!*digits || *digits == '-') return MPROF_NO_THREAD;
  unsigned long long id = strtoull(digits, &end, 10);
  return *end ? MPROF_NO_THREAD : mprof_model_find(m, id);
}

/* Does any label of thread t hold text? */
static int label_holds(const mprof_model_t *m, uint32_t t, const char *text) {
  const mprof_model_view_t *v = mprof_model_view(m);
  const mprof_thread_t *th = &v->threads[t];
  for (uint32_t k = th->first_label; k < th->first_label + th->label_count; k++)
    if (strstr(v->strings + mprof_label_at(v, k).text, text)) return 1;
  return 0;
}

/* The longest-lived thread with text in a label, or MPROF_NO_THREAD;
 * *matches: how many hold it. */
static uint32_t thread_by_label(const mprof_model_t *m, const char *text,
                                size_t *matches) {
  const mprof_model_view_t *v = mprof_model_view(m);
  uint32_t best = MPROF_NO_THREAD;
  int64_t best_life = -1;
  *matches = 0;
  for (uint32_t t = 1; t < v->thread_count; t++) {
    if (!label_holds(m, t, text)) continue;
    int64_t end = v->threads[t].ending == MPROF_ENDING_PENDING ||
                          (v->threads[t].flags & MPROF_THREAD_STALLED)
                      ? v->end_ns
                      : v->threads[t].end_ns;
    (*matches)++;
    if (end - v->threads[t].start_ns > best_life) {
      best_life = end - v->threads[t].start_ns;
      best = t;
    }
  }
  return best;
}

/* --- The command ---------------------------------------------------------- */

static int why_text(const mprof_model_t *m, uint32_t t,
                    const mprof_why_hop_t *hops, size_t count) {
  fputs("why ", stdout);
  cli_put_thread(m, t);
  fputs(" took ", stdout);
  cli_put_duration(
      count ? hops[0].end_ns - mprof_model_view(m)->threads[t].start_ns : 0);
  fputs(", latest first:\n", stdout);
  cli_put_why(m, hops, count);
  return ferror(stdout) ? -1 : 0;
}

static int why_json(const mprof_model_t *m, uint32_t t,
                    const mprof_why_hop_t *hops, size_t count) {
  json_t *o = json_pack("{s:o, s:o}", "target", cli_json_thread(m, t), "steps",
                        cli_json_why(m, hops, count));
  int err = !o || json_dumpf(o, stdout, JSON_COMPACT) || putchar('\n') == EOF;
  json_decref(o);
  return err ? -1 : 0;
}

/* Find the thread, walk its chain and print it: an exit code. */
static int why_in(const mprof_model_t *m, const char *which, int json) {
  uint32_t t = thread_by_id(m, which);
  size_t matches = 1;
  if (t == MPROF_NO_THREAD) t = thread_by_label(m, which, &matches);
  if (t == MPROF_NO_THREAD) {
    fputs("mprof why: no thread has the id or a label with ", stderr);
    cli_put_escaped(stderr, which, strlen(which));
    fputs(" (mprof report lists them)\n", stderr);
    return CLI_FAILED;
  }
  if (matches > 1) {
    fprintf(stderr, "mprof why: %zu threads have a label with ", matches);
    cli_put_escaped(stderr, which, strlen(which));
    fputs("; the longest-lived one\n", stderr);
  }
  mprof_why_hop_t *hops;
  size_t count;
  int err = mprof_model_why(m, t, &hops, &count);
  if (err) {
    fprintf(stderr, "mprof why: %s\n", mprof_strerror(err));
    return CLI_FAILED;
  }
  int failed = json ? why_json(m, t, hops, count) : why_text(m, t, hops, count);
  free(hops);
  if (failed) cli_output_failed("why", "standard output");
  return failed ? CLI_FAILED : CLI_OK;
}

int cmd_why(int argc, char **argv) {
  static const struct option options[] = {{"json", no_argument, 0, 'j'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int json = 0, c;
  while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
    if (c == 'j') {
      json = 1;
    } else if (c == 'h') {
      fputs(help, stdout);
      return CLI_OK;
    } else {
      fputs(help, stderr);
      return CLI_USAGE;
    }
  }
  if (argc - optind < 2) {
    fputs(help, stderr);
    return CLI_USAGE;
  }
  int problems = 0;
  cli_traces_t set;
  mprof_model_t *m = NULL;
  int code =
      cli_traces_open(&set, argv + optind + 1, argc - optind - 1, &problems);
  if (code == CLI_OK) code = cli_traces_model(&set, &m);
  if (code == CLI_OK) code = why_in(m, argv[optind], json);
  mprof_model_free(m);
  cli_traces_close(&set);
  return code == CLI_OK && problems ? CLI_DAMAGED : code;
}
