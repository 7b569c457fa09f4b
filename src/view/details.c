/* details.c -- the side panel's text for one thread: what it is, its life,
 * where its time went, what it interacted with, and what the analysis
 * (mprof_model_analyse) found about it.  Plain text: trace strings are
 * escaped and the panel shows it as text, never as markup. */
#include <inttypes.h>

#include "window.h"

/* How many interactions the panel lists. */
#define DETAILS_ARROWS 20

static void put_duration(GString *out, int64_t ns) {
  static const struct {
    double ns;
    const char *unit;
  } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if (ns >= units[i].ns || ns <= -units[i].ns) {
      g_string_append_printf(out, "%.3f %s", (double)ns / units[i].ns,
                             units[i].unit);
      return;
    }
  g_string_append_printf(out, "%" PRId64 " ns", ns);
}

static void put_name(GString *out, const mprof_model_t *m, uint32_t t) {
  char name[256];
  if (t == MPROF_ROOT_THREAD) {
    g_string_append(out, "(root)");
    return;
  }
  char *safe =
      mprof__view_escape(mprof_model_thread_name(m, t, name, sizeof name));
  g_string_append(out, safe);
  g_free(safe);
}

static const char *ending_text(const mprof_thread_t *th) {
  static const char *const endings[] = {"pending (never resolved)", "resolved",
                                        "failed", "merged"};
  return th->ending < 4 ? endings[th->ending] : "?";
}

static void put_life(GString *out, const mprof_model_t *m, uint32_t t) {
  const mprof_model_view_t *v = mprof_model_view(m);
  const mprof_thread_t *th = &v->threads[t];
  g_string_append_printf(out, "\ntype: %s   id: %" PRIu64 "\ncreated by: ",
                         (th->flags & MPROF_THREAD_PREEXISTING)
                             ? "preexisting"
                             : mprof_type_name((mprof_type_t)th->type),
                         th->id);
  put_name(out, m, th->creator);
  g_string_append(out, "\nstart: ");
  put_duration(out, th->start_ns);
  g_string_append(out, "   end: ");
  put_duration(out, th->end_ns);
  g_string_append(out, "   life: ");
  put_duration(out, th->end_ns - th->start_ns);
  g_string_append_printf(out, "\nending: %s", ending_text(th));
  if (th->becomes != MPROF_NO_THREAD) {
    g_string_append(out, ", became ");
    put_name(out, m, th->becomes);
  }
  if (th->failure) {
    char *why = mprof__view_escape(v->strings + th->failure);
    g_string_append_printf(out, "\nfailure: %s", why);
    g_free(why);
  }
  if (th->flags & MPROF_THREAD_SHOULD_RESOLVE)
    g_string_append(out, "\nshould_resolve: yes");
  g_string_append_c(out, '\n');
}

static void put_times(GString *out, const mprof_view_doc_t *doc, uint32_t t) {
  const mprof_analysis_t *a = &doc->analysis;
  if (t >= a->time_count) return;
  const mprof_thread_time_t *tt = &a->times[t];
  g_string_append(out, "\nTime\n  running ");
  put_duration(out, tt->running_ns);
  g_string_append(out, ", waiting ");
  put_duration(out, tt->waiting_ns);
  g_string_append(out, ", in poll ");
  put_duration(out, tt->in_poll_ns);
  g_string_append(out, ", not running ");
  put_duration(out, tt->not_running_ns);
  g_string_append_c(out, '\n');
  for (uint32_t i = 0; i < tt->wait_count; i++) {
    const mprof_wait_t *wait = &a->waits[tt->first_wait + i];
    g_string_append(out, "  waited on ");
    put_name(out, doc->model, wait->on);
    g_string_append(out, " for ");
    put_duration(out, wait->ns);
    g_string_append_c(out, '\n');
  }
}

static void put_arrow(GString *out, const mprof_model_t *m,
                      const mprof_arrow_t *a) {
  g_string_append(out, "  ");
  put_duration(out, a->time_ns);
  g_string_append_printf(out, "  %s  ",
                         mprof_arrow_kind_name((mprof_arrow_kind_t)a->kind));
  put_name(out, m, a->from);
  g_string_append(out, " -> ");
  put_name(out, m, a->to);
  g_string_append_c(out, '\n');
}

static int touches(mprof_arrow_t a, uint32_t t) {
  return a.from == t || a.to == t;
}

static void put_interactions(GString *out, const mprof_model_t *m, uint32_t t) {
  const mprof_model_view_t *v = mprof_model_view(m);
  size_t count = 0;
  for (size_t i = 0; i < v->arrow_count; i++)
    count += touches(mprof_arrow_at(v, i), t);
  g_string_append_printf(out, "\nInteractions: %zu\n", count);
  size_t shown = 0;
  for (size_t i = 0; i < v->arrow_count && shown < DETAILS_ARROWS; i++) {
    mprof_arrow_t a = mprof_arrow_at(v, i);
    if (touches(a, t)) {
      put_arrow(out, m, &a);
      shown++;
    }
  }
  if (shown < count)
    g_string_append_printf(out, "  ... %zu more\n", count - shown);
}

/* Whether t is one of threads[0..count). */
static int holds(const uint32_t *threads, uint32_t count, uint32_t t) {
  for (uint32_t i = 0; i < count; i++)
    if (threads[i] == t) return 1;
  return 0;
}

static void put_chains(GString *out, const mprof_view_doc_t *doc, uint32_t t) {
  const mprof_analysis_t *a = &doc->analysis;
  for (size_t i = 0; i < a->chain_count; i++) {
    if (!holds(a->chain_threads + a->chains[i].first, a->chains[i].length, t))
      continue;
    g_string_append(out, "  wait chain:");
    for (uint32_t j = 0; j < a->chains[i].length; j++) {
      g_string_append(out, j ? " -> " : " ");
      put_name(out, doc->model, a->chain_threads[a->chains[i].first + j]);
    }
    g_string_append_c(out, '\n');
  }
}

/* The findings that name t, as the findings panel words them, the wait
 * chains it is in and whether it is on the critical path. */
static void put_findings(GString *out, const mprof_view_doc_t *doc,
                         uint32_t t) {
  const mprof_analysis_t *a = &doc->analysis;
  size_t before = out->len;
  g_string_append(out, "\nFindings\n");
  size_t heading = out->len;
  for (size_t i = 0; i < a->finding_count; i++)
    if (holds(a->finding_threads + a->findings[i].first_thread,
              a->findings[i].thread_count, t)) {
      char *text = mprof__view_finding_text(doc, i);
      g_string_append_printf(out, "  %s\n", text);
      g_free(text);
    }
  put_chains(out, doc, t);
  for (size_t i = 0; i < a->path_count; i++)
    if (a->path[i].thread == t) {
      g_string_append_printf(out, "  on the critical path (step %zu)\n", i + 1);
      break;
    }
  if (out->len == heading) g_string_truncate(out, before);
}

char *mprof__view_details(const mprof_view_doc_t *doc, uint32_t t) {
  GString *out = g_string_new(NULL);
  put_name(out, doc->model, t);
  put_life(out, doc->model, t);
  put_times(out, doc, t);
  put_interactions(out, doc->model, t);
  put_findings(out, doc, t);
  return g_string_free(out, FALSE);
}
