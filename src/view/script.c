/* script.c -- test actions for a window (mprof view --script FILE): one
 * action a line, run in turn from a timer after the window shows, through
 * the same calls as a person's input (window.h).  Tests drive the window
 * with it and look at the screenshots it saves.
 *
 *   zoom FACTOR X       wheel zoom by FACTOR around pixel X of the timeline
 *   pan DX DY           drag by DX, DY pixels
 *   range T0 T1         show [T0, T1) ns
 *   fit                 zoom to fit
 *   search TEXT         type TEXT in the search box ("search" alone clears)
 *   dclick X Y          double-click at pixel (X, Y) of the first timeline
 *   key NAME            press a key (GDK name: question, plus, Escape, ...)
 *   metric I on|off     tick or untick counter I's graph in the Metrics menu
 *   shot FILE           save the window's pixels to FILE (PNG) and print
 *                       "shot FILE X Y W H...": where each timeline is in it
 *   pane W H            make the first timeline W x H pixels, the window
 *                       as small as that allows
 *   state               print "state T0 T1 SCROLL END ROWS OFFSET" for each
 *                       timeline: the range, its pixels scrolled, its
 *                       trace's end and row count, and where its time 0
 *                       is on the shared axis; for a trace too big to
 *                       model "big T0 T1 END ROWS MODELLED SCROLL": the
 *                       range, the whole's end, the rows, whether the last
 *                       frame was a model's (1) or the pyramid's (0), the
 *                       pixels its rows are scrolled
 *   title               print "title TEXT", the window's title
 *   status              print "status TEXT", the warning line of a trace
 *                       too big to model's window ("status" alone: none
 *                       shown)
 *   details FILE        write the details panel's text to FILE
 *   findings FILE       write the findings panel's rows to FILE, a line each
 *   finding I           click the findings panel's row I (from 0)
 *   wait N              do nothing for N steps
 *   opened              (a trace too big to model) wait until its trace is
 *                       open, the models of ranges it shows can be made
 *                       (at most 30 s)
 *   quit                close the window, as its close button does
 *
 * A trace too big to model's window has no findings, details or metrics:
 * those actions fail there.  Every window runs the script.  Lines starting with
 * # are ignored.  A failed action prints "script: ..." on stderr and closes the
 * window.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/* Time between actions: each one's frame is drawn before the next. */
#define SCRIPT_STEP_MS 150

typedef struct script_s {
  mprof_view_window_t *window;
  char **lines;
  size_t next;
  long waiting;    /* steps left to wait */
  long until_open; /* steps left to wait for a big trace's open */
} script_t;

static int shot(mprof_view_window_t *w, const char *path) {
  GdkWindow *gdk = gtk_widget_get_window(w->window);
  gdk_display_sync(gdk_window_get_display(gdk));
  GdkPixbuf *pixels = gdk_pixbuf_get_from_window(
      gdk, 0, 0, gdk_window_get_width(gdk), gdk_window_get_height(gdk));
  if (!pixels) return -1;
  gboolean ok = gdk_pixbuf_save(pixels, path, "png", NULL, NULL);
  g_object_unref(pixels);
  printf("shot %s", path);
  for (int i = 0; i < w->pane_count; i++) {
    int x, y;
    GtkWidget *area = w->panes[i].area;
    gtk_widget_translate_coordinates(area, w->window, 0, 0, &x, &y);
    printf(" %d %d %d %d", x, y, gtk_widget_get_allocated_width(area),
           gtk_widget_get_allocated_height(area));
  }
  putchar('\n');
  fflush(stdout);
  return ok ? 0 : -1;
}

/* Set the Metrics menu's check button of counter i: 0, or -1 if none. */
static int metric(mprof_view_window_t *w, const char *arg) {
  unsigned i;
  char on[4];
  if (sscanf(arg, "%u %3s", &i, on) != 2) return -1;
  GtkWidget *popover =
      GTK_WIDGET(gtk_menu_button_get_popover(GTK_MENU_BUTTON(w->counters)));
  GList *checks = gtk_container_get_children(
      GTK_CONTAINER(gtk_bin_get_child(GTK_BIN(popover))));
  GtkWidget *check = g_list_nth_data(checks, i);
  g_list_free(checks);
  if (!check) return -1;
  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(check), !strcmp(on, "on"));
  return 0;
}

static void print_big_state(const mprof_view_big_t *big) {
  int64_t t0, t1, whole_t0, whole_t1;
  mprof__view_big_range(big, &t0, &t1);
  mprof__view_big_whole(big, &whole_t0, &whole_t1);
  printf("big %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu32 " %d %.0f\n", t0,
         t1, whole_t1, mprof__view_big_rows(big), mprof__view_big_modelled(big),
         mprof__view_big_scroll_px(big));
}

static void print_state(const mprof_view_window_t *w) {
  const mprof_timeline_t *tl = w->timeline;
  if (w->big) print_big_state(w->big);
  for (int i = 0; !w->big && i < w->pane_count; i++) {
    const mprof_model_view_t *v = mprof_model_view(w->panes[i].doc->model);
    printf("state %.0f %.0f %.0f %" PRId64 " %" PRIu32 " %.0f\n",
           mprof_timeline_t0(tl), mprof_timeline_t1(tl),
           mprof_timeline_scroll(tl, i), v->duration_ns, v->row_count,
           mprof_timeline_offset(tl, i));
  }
  fflush(stdout);
}

static void print_status(const mprof_view_window_t *w) {
  const char *text = gtk_widget_get_visible(w->status)
                         ? gtk_label_get_text(GTK_LABEL(w->status))
                         : "";
  printf("status%s%s\n", *text ? " " : "", text);
  fflush(stdout);
}

static int pane_size(mprof_view_window_t *w, const char *arg) {
  int width, height;
  if (sscanf(arg, "%d %d", &width, &height) != 2 || width < 1 || height < 1)
    return -1;
  gtk_widget_set_size_request(w->panes[0].area, width, height);
  gtk_window_resize(GTK_WINDOW(w->window), 1, 1);
  return 0;
}

/* The actions of a window's side panels and menus, which a trace too big
 * to model's window has none of. */
static int of_panels(const char *verb) {
  return !strcmp(verb, "metric") || !strcmp(verb, "details") ||
         !strcmp(verb, "findings") || !strcmp(verb, "finding");
}

static int details(mprof_view_window_t *w, const char *path) {
  return g_file_set_contents(path, gtk_label_get_text(GTK_LABEL(w->details)),
                             -1, NULL)
             ? 0
             : -1;
}

/* The text of a findings panel row (its label's). */
static const char *row_text(GtkWidget *row) {
  return gtk_label_get_text(GTK_LABEL(gtk_bin_get_child(GTK_BIN(row))));
}

static int findings(mprof_view_window_t *w, const char *path) {
  GString *text = g_string_new(NULL);
  GList *rows = gtk_container_get_children(GTK_CONTAINER(w->findings));
  for (GList *l = rows; l; l = l->next)
    g_string_append_printf(text, "%s\n", row_text(l->data));
  g_list_free(rows);
  gboolean ok = g_file_set_contents(path, text->str, -1, NULL);
  g_string_free(text, TRUE);
  return ok ? 0 : -1;
}

/* Click row i: activated as a single click activates it. */
static int click_finding(mprof_view_window_t *w, const char *arg) {
  unsigned i;
  if (sscanf(arg, "%u", &i) != 1) return -1;
  GtkListBoxRow *row =
      gtk_list_box_get_row_at_index(GTK_LIST_BOX(w->findings), (int)i);
  if (!row || !gtk_list_box_row_get_activatable(row)) return -1;
  g_signal_emit_by_name(w->findings, "row-activated", row);
  return 0;
}

/* Run one line: 0, 1 to close the window, or -1 if the line is wrong. */
static int run_line(script_t *s, const char *line) {
  mprof_view_window_t *w = s->window;
  char verb[16] = "", arg[1024] = "";
  double a = 0, b = 0;
  long long t0 = 0, t1 = 0;
  int n = sscanf(line, "%15s %1023[^\n]", verb, arg);
  if (n < 1 || verb[0] == '#') return 0;
  if (w->big && of_panels(verb)) return -1;
  if (!strcmp(verb, "zoom") && sscanf(arg, "%lf %lf", &a, &b) == 2)
    mprof__view_window_zoom(w, 0, a, b);
  else if (!strcmp(verb, "pan") && sscanf(arg, "%lf %lf", &a, &b) == 2)
    mprof__view_window_pan(w, 0, a, b);
  else if (!strcmp(verb, "range") && sscanf(arg, "%lld %lld", &t0, &t1) == 2)
    mprof__view_window_range(w, t0, t1);
  else if (!strcmp(verb, "fit"))
    mprof__view_window_fit(w);
  else if (!strcmp(verb, "search"))
    mprof__view_window_search(w, n > 1 ? arg : NULL);
  else if (!strcmp(verb, "dclick") && sscanf(arg, "%lf %lf", &a, &b) == 2)
    mprof__view_window_select_at(w, 0, a, b);
  else if (!strcmp(verb, "key") && n > 1)
    return mprof__view_window_key(w, gdk_keyval_from_name(arg)) ? 0 : -1;
  else if (!strcmp(verb, "metric"))
    return metric(w, arg);
  else if (!strcmp(verb, "shot") && n > 1)
    return shot(w, arg);
  else if (!strcmp(verb, "pane") && n > 1)
    return pane_size(w, arg);
  else if (!strcmp(verb, "details") && n > 1)
    return details(w, arg);
  else if (!strcmp(verb, "findings") && n > 1)
    return findings(w, arg);
  else if (!strcmp(verb, "finding"))
    return click_finding(w, arg);
  else if (!strcmp(verb, "state"))
    print_state(w);
  else if (!strcmp(verb, "title"))
    printf("title %s\n", gtk_window_get_title(GTK_WINDOW(w->window)));
  else if (!strcmp(verb, "status") && w->big)
    print_status(w);
  else if (!strcmp(verb, "wait") && sscanf(arg, "%lld", &t0) == 1)
    s->waiting = (long)t0;
  else if (!strcmp(verb, "opened") && w->big)
    s->until_open = 30000 / SCRIPT_STEP_MS;
  else if (!strcmp(verb, "quit"))
    return 1;
  else
    return -1;
  return 0;
}

static void script_free(gpointer data) {
  script_t *s = data;
  g_strfreev(s->lines);
  g_free(s);
}

static gboolean step(gpointer data) {
  script_t *s = data;
  mprof_view_window_t *w = s->window;
  if (s->waiting > 0) {
    s->waiting--;
    return G_SOURCE_CONTINUE;
  }
  if (s->until_open > 0 && mprof__view_big_opening(w->big)) {
    s->until_open--;
    return G_SOURCE_CONTINUE;
  }
  s->until_open = 0;
  if (!s->lines[s->next]) {
    w->script_source = 0;
    return G_SOURCE_REMOVE;
  }
  const char *line = s->lines[s->next++];
  int result = run_line(s, line);
  if (result == 0) return G_SOURCE_CONTINUE;
  /* Closing the window must not remove this source again. */
  w->script_source = 0;
  if (result < 0) fprintf(stderr, "script: cannot do '%s'\n", line);
  gtk_window_close(GTK_WINDOW(w->window)); /* as its close button does */
  return G_SOURCE_REMOVE;
}

void mprof__view_script_start(mprof_view_window_t *w, const char *path) {
  char *text;
  if (!g_file_get_contents(path, &text, NULL, NULL)) {
    fprintf(stderr, "script: cannot read %s\n", path);
    gtk_widget_destroy(w->window);
    return;
  }
  /* Screenshots must not catch a popover half faded. */
  g_object_set(gtk_settings_get_default(), "gtk-enable-animations", FALSE,
               NULL);
  script_t *s = g_new0(script_t, 1);
  s->window = w;
  s->lines = g_strsplit(text, "\n", -1);
  g_free(text);
  w->script_source =
      g_timeout_add_full(G_PRIORITY_LOW, SCRIPT_STEP_MS, step, s, script_free);
}
