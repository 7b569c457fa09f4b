/* window.c -- the viewer's GTK 3 window: one or two timelines (drawing
 * areas painted by render.c from the scene), a search box, counter graph
 * toggles, a legend, the findings and details panels and the list of
 * keys.  Input becomes calls on the view state (timeline.h); --follow is
 * follow.c. */
#include <string.h>

#include "../scene/cells.h"
#include "window.h"

static const char keys_text[] =
    "Drag          pan\n"
    "Wheel         zoom around the pointer\n"
    "Shift+Wheel   scroll the rows\n"
    "+ / -         zoom in / out\n"
    "Left / Right  pan in time\n"
    "Up / Down     scroll the rows\n"
    "0 or f        zoom to fit\n"
    "/ or Ctrl+F   search (threads matching are highlighted)\n"
    "Double-click  highlight a thread and what it touched; its details\n"
    "Escape        clear the search and the highlight\n"
    "?             this list\n";

/* How often a big trace's window looks at its file again (big.h,
 * mprof__view_big_check()): a stat and a read of its header. */
#define BIG_CHECK_MS 500

static void redraw(mprof_view_window_t *w) {
  for (int i = 0; i < w->pane_count; i++)
    gtk_widget_queue_draw(w->panes[i].area);
}

void mprof__view_window_zoom(mprof_view_window_t *w, int p, double factor,
                             double x) {
  if (w->big)
    mprof__view_big_zoom(w->big, factor, x);
  else
    mprof_timeline_zoom(w->timeline, p, factor, x);
  w->follow = 0;
  redraw(w);
}

void mprof__view_window_pan(mprof_view_window_t *w, int p, double dx,
                            double dy) {
  if (w->big) {
    mprof__view_big_pan(w->big, dx);
    mprof__view_big_scroll(w->big, dy);
  } else {
    mprof_timeline_pan(w->timeline, p, dx, dy);
  }
  w->follow = 0;
  redraw(w);
}

void mprof__view_window_fit(mprof_view_window_t *w) {
  if (w->big)
    mprof__view_big_fit(w->big);
  else
    mprof_timeline_fit(w->timeline);
  w->follow = w->options->follow;
  redraw(w);
}

void mprof__view_window_range(mprof_view_window_t *w, int64_t t0, int64_t t1) {
  if (w->big)
    mprof__view_big_set_range(w->big, t0, t1);
  else
    mprof_timeline_set_range(w->timeline, (double)t0, (double)t1);
  redraw(w);
}

static void out_of_memory(void) { g_printerr("mprof: view: out of memory\n"); }

void mprof__view_window_search(mprof_view_window_t *w, const char *text) {
  if (w->big) return; /* no search box: the threads are not modelled */
  if (mprof_timeline_search(w->timeline, text) < 0) out_of_memory();
  if (strcmp(gtk_entry_get_text(GTK_ENTRY(w->search)), text ? text : ""))
    gtk_entry_set_text(GTK_ENTRY(w->search), text ? text : "");
  redraw(w);
}

void mprof__view_window_details(mprof_view_window_t *w,
                                const mprof_view_doc_t *doc, uint32_t t) {
  if (t == MPROF_NO_THREAD) {
    gtk_widget_hide(w->details_box);
    return;
  }
  char *text = mprof__view_details(doc, t);
  gtk_label_set_text(GTK_LABEL(w->details), text);
  g_free(text);
  gtk_widget_show(w->details_box);
}

void mprof__view_window_select_at(mprof_view_window_t *w, int p, double x,
                                  double y) {
  if (w->big) return;
  int t = mprof_timeline_hit(w->timeline, p, x, y);
  if (mprof_timeline_select(w->timeline, p, t) < 0) out_of_memory();
  mprof__view_window_details(w, w->panes[p].doc,
                             t < 0 ? MPROF_NO_THREAD : (uint32_t)t);
  redraw(w);
}

static void clear(mprof_view_window_t *w) {
  if (w->big) return; /* no selection, details or search to clear */
  mprof_timeline_select(w->timeline, 0, -1);
  mprof__view_window_details(w, NULL, MPROF_NO_THREAD);
  mprof__view_window_search(w, NULL);
}

/* Put the keys in the search box (a big trace's window has none). */
static void focus_search(mprof_view_window_t *w) {
  if (w->search) gtk_widget_grab_focus(w->search);
}

static void toggle_help(mprof_view_window_t *w) {
  if (gtk_widget_get_visible(w->help))
    gtk_popover_popdown(GTK_POPOVER(w->help));
  else
    gtk_popover_popup(GTK_POPOVER(w->help));
}

static double pane_width(const mprof_view_window_t *w) {
  return gtk_widget_get_allocated_width(w->panes[0].area);
}

/* The middle of a big trace's time columns (right of the name column). */
static double middle_x(const mprof_view_window_t *w) {
  double width = pane_width(w);
  return width - mprof_scene_cells_columns((uint32_t)width) / 2.0;
}

/* Zoom by factor around the middle of the range, or move the range by
 * share of its span (keys and buttons). */
static void zoom_middle(mprof_view_window_t *w, double factor) {
  if (w->big)
    mprof__view_big_zoom(w->big, factor, middle_x(w));
  else
    mprof_timeline_zoom_middle(w->timeline, factor);
  w->follow = 0;
  redraw(w);
}

static void shift(mprof_view_window_t *w, double share) {
  if (w->big)
    mprof__view_big_pan(w->big, -share * pane_width(w));
  else
    mprof_timeline_shift(w->timeline, share);
  w->follow = 0;
  redraw(w);
}

gboolean mprof__view_window_key(mprof_view_window_t *w, guint keyval) {
  double step = pane_width(w) / 8.0;
  switch (keyval) {
  case GDK_KEY_plus:
  case GDK_KEY_equal:
  case GDK_KEY_KP_Add: zoom_middle(w, 0.5); break;
  case GDK_KEY_minus:
  case GDK_KEY_KP_Subtract: zoom_middle(w, 2.0); break;
  case GDK_KEY_Left: shift(w, -0.125); break;
  case GDK_KEY_Right: shift(w, 0.125); break;
  case GDK_KEY_Up: mprof__view_window_pan(w, 0, 0, step); break;
  case GDK_KEY_Down: mprof__view_window_pan(w, 0, 0, -step); break;
  case GDK_KEY_0:
  case GDK_KEY_f: mprof__view_window_fit(w); break;
  case GDK_KEY_slash: focus_search(w); break;
  case GDK_KEY_question: toggle_help(w); break;
  case GDK_KEY_Escape: clear(w); break;
  default: return FALSE;
  }
  return TRUE;
}

/* --- GTK signal handlers -------------------------------------------------- */

static int pane_of(mprof_view_window_t *w, GtkWidget *area) {
  return w->pane_count > 1 && w->panes[1].area == area;
}

/* Say that drawing a big trace failed (its frame drawn from the pyramid
 * instead): its name made safe to show. */
static void tell_big_failure(const mprof_view_big_t *big, int err) {
  char *name = mprof__view_escape(mprof__view_big_path(big));
  g_printerr("mprof: view: %s: %s\n", name, mprof_strerror(err));
  g_free(name);
}

static gboolean on_draw(GtkWidget *area, cairo_t *cr, gpointer data) {
  mprof_view_window_t *w = data;
  int p = pane_of(w, area);
  int width = gtk_widget_get_allocated_width(area),
      height = gtk_widget_get_allocated_height(area);
  if (w->big) {
    int err = mprof__view_big_draw(cr, w->big, width, height);
    if (err) tell_big_failure(w->big, err);
    return TRUE;
  }
  mprof_timeline_resize(w->timeline, p, width, height);
  if (mprof__view_draw(cr, w->timeline, p)) out_of_memory();
  return TRUE;
}

static gboolean on_press(GtkWidget *area, GdkEventButton *event,
                         gpointer data) {
  mprof_view_window_t *w = data;
  mprof_view_pane_t *pane = &w->panes[pane_of(w, area)];
  if (event->button != GDK_BUTTON_PRIMARY) return FALSE;
  if (event->type == GDK_2BUTTON_PRESS) {
    mprof__view_window_select_at(w, pane_of(w, area), event->x, event->y);
    return TRUE;
  }
  pane->dragging = 1;
  pane->drag_x = event->x;
  pane->drag_y = event->y;
  return TRUE;
}

static gboolean on_release(GtkWidget *area, GdkEventButton *event,
                           gpointer data) {
  mprof_view_window_t *w = data;
  (void)event;
  w->panes[pane_of(w, area)].dragging = 0;
  return TRUE;
}

static gboolean on_motion(GtkWidget *area, GdkEventMotion *event,
                          gpointer data) {
  mprof_view_window_t *w = data;
  int p = pane_of(w, area);
  mprof_view_pane_t *pane = &w->panes[p];
  if (!pane->dragging) return FALSE;
  double dx = event->x - pane->drag_x, dy = event->y - pane->drag_y;
  pane->drag_x = event->x;
  pane->drag_y = event->y;
  mprof__view_window_pan(w, p, dx, dy);
  return TRUE;
}

static gboolean on_scroll(GtkWidget *area, GdkEventScroll *event,
                          gpointer data) {
  mprof_view_window_t *w = data;
  double dx, dy = 0;
  if (event->direction == GDK_SCROLL_UP)
    dy = -1;
  else if (event->direction == GDK_SCROLL_DOWN)
    dy = 1;
  else if (event->direction == GDK_SCROLL_SMOOTH)
    gdk_event_get_scroll_deltas((GdkEvent *)event, &dx, &dy);
  if (dy == 0) return FALSE;
  if (event->state & GDK_SHIFT_MASK) /* scroll the rows */
    mprof__view_window_pan(w, pane_of(w, area), 0,
                           -dy * MPROF_SCENE_ROW_PX * 3);
  else
    mprof__view_window_zoom(w, pane_of(w, area), dy < 0 ? 0.8 : 1.25, event->x);
  return TRUE;
}

static gboolean on_key(GtkWidget *widget, GdkEventKey *event, gpointer data) {
  mprof_view_window_t *w = data;
  (void)widget;
  if (w->search && gtk_widget_has_focus(w->search)) {
    if (event->keyval != GDK_KEY_Escape) return FALSE;
    gtk_widget_grab_focus(w->panes[0].area);
  }
  if ((event->state & GDK_CONTROL_MASK) && event->keyval == GDK_KEY_f) {
    focus_search(w);
    return TRUE;
  }
  return mprof__view_window_key(w, event->keyval);
}

static void on_search(GtkSearchEntry *entry, gpointer data) {
  mprof__view_window_search(data, gtk_entry_get_text(GTK_ENTRY(entry)));
}

static void on_counter_toggled(GtkToggleButton *button, gpointer data) {
  mprof_view_window_t *w = data;
  guint c =
      GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "mprof-counter"));
  for (int i = 0; i < w->pane_count; i++)
    mprof_timeline_show_counter(w->timeline, i, (int)c,
                                gtk_toggle_button_get_active(button));
  redraw(w);
}

static void on_zoom_in(GtkButton *button, gpointer data) {
  (void)button;
  mprof__view_window_key(data, GDK_KEY_plus);
}

static void on_zoom_out(GtkButton *button, gpointer data) {
  (void)button;
  mprof__view_window_key(data, GDK_KEY_minus);
}

static void on_fit(GtkButton *button, gpointer data) {
  (void)button;
  mprof__view_window_fit(data);
}

static void on_help(GtkButton *button, gpointer data) {
  (void)button;
  toggle_help(data);
}

/* --- Building the window -------------------------------------------------- */

static GtkWidget *new_area(mprof_view_window_t *w, mprof_view_doc_t *doc) {
  mprof_view_pane_t *pane = &w->panes[w->pane_count++];
  pane->doc = doc;
  pane->area = gtk_drawing_area_new();
  gtk_widget_set_size_request(pane->area, 320, 160);
  gtk_widget_set_hexpand(pane->area, TRUE);
  gtk_widget_set_vexpand(pane->area, TRUE);
  gtk_widget_set_can_focus(pane->area, TRUE);
  gtk_widget_add_events(pane->area,
                        GDK_BUTTON_PRESS_MASK | GDK_BUTTON_RELEASE_MASK |
                            GDK_POINTER_MOTION_MASK | GDK_SCROLL_MASK);
  g_signal_connect(pane->area, "draw", G_CALLBACK(on_draw), w);
  g_signal_connect(pane->area, "button-press-event", G_CALLBACK(on_press), w);
  g_signal_connect(pane->area, "button-release-event", G_CALLBACK(on_release),
                   w);
  g_signal_connect(pane->area, "motion-notify-event", G_CALLBACK(on_motion), w);
  g_signal_connect(pane->area, "scroll-event", G_CALLBACK(on_scroll), w);
  return pane->area;
}

/* A menu button with one check button per counter of doc: its graph. */
static GtkWidget *new_counter_toggles(mprof_view_window_t *w,
                                      const mprof_view_doc_t *doc) {
  const mprof_model_view_t *v = mprof_model_view(doc->model);
  GtkWidget *button = gtk_menu_button_new();
  GtkWidget *popover = gtk_popover_new(button);
  GtkWidget *list = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
  gtk_button_set_label(GTK_BUTTON(button), "Metrics");
  gtk_widget_set_sensitive(button, v->counter_count > 0);
  for (size_t i = 0; i < v->counter_count; i++) {
    char *name = mprof__view_escape(v->strings + v->counters[i].name);
    GtkWidget *check = gtk_check_button_new_with_label(name);
    g_free(name);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(check), TRUE);
    g_object_set_data(G_OBJECT(check), "mprof-counter", GUINT_TO_POINTER(i));
    g_signal_connect(check, "toggled", G_CALLBACK(on_counter_toggled), w);
    gtk_box_pack_start(GTK_BOX(list), check, FALSE, FALSE, 0);
  }
  gtk_widget_show_all(list);
  gtk_container_add(GTK_CONTAINER(popover), list);
  gtk_menu_button_set_popover(GTK_MENU_BUTTON(button), popover);
  return button;
}

static GtkWidget *new_button(const char *label, GCallback callback,
                             void *data) {
  GtkWidget *button = gtk_button_new_with_label(label);
  g_signal_connect(button, "clicked", callback, data);
  return button;
}

/* The list of keys, in a popover under the "?" button. */
static GtkWidget *new_help(GtkWidget *button) {
  GtkWidget *help = gtk_popover_new(button);
  GtkWidget *label = gtk_label_new(keys_text);
  gtk_widget_set_margin_start(label, 12);
  gtk_widget_set_margin_end(label, 12);
  gtk_widget_set_margin_top(label, 12);
  gtk_widget_set_margin_bottom(label, 12);
  PangoAttrList *attrs = pango_attr_list_new();
  pango_attr_list_insert(attrs, pango_attr_family_new("monospace"));
  gtk_label_set_attributes(GTK_LABEL(label), attrs);
  pango_attr_list_unref(attrs);
  gtk_widget_show(label);
  gtk_container_add(GTK_CONTAINER(help), label);
  return help;
}

/* The toolbar: a search box and the counters' menu (a model's window),
 * the zoom and fit buttons, the keys. */
static GtkWidget *new_toolbar(mprof_view_window_t *w) {
  GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
  if (!w->big) {
    w->search = gtk_search_entry_new();
    gtk_entry_set_placeholder_text(GTK_ENTRY(w->search), "Search threads");
    g_signal_connect(w->search, "search-changed", G_CALLBACK(on_search), w);
    w->counters = new_counter_toggles(w, w->panes[0].doc);
    gtk_box_pack_start(GTK_BOX(bar), w->search, TRUE, TRUE, 0);
  }
  gtk_box_pack_start(GTK_BOX(bar), new_button("+", G_CALLBACK(on_zoom_in), w),
                     FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(bar),
                     new_button("\u2212", G_CALLBACK(on_zoom_out), w), FALSE,
                     FALSE, 0);
  gtk_box_pack_start(GTK_BOX(bar), new_button("Fit", G_CALLBACK(on_fit), w),
                     FALSE, FALSE, 0);
  if (w->counters)
    gtk_box_pack_start(GTK_BOX(bar), w->counters, FALSE, FALSE, 0);
  GtkWidget *keys = new_button("?", G_CALLBACK(on_help), w);
  w->help = new_help(keys);
  gtk_box_pack_start(GTK_BOX(bar), keys, FALSE, FALSE, 0);
  return bar;
}

static GtkWidget *new_details(mprof_view_window_t *w) {
  w->details = gtk_label_new(NULL);
  gtk_label_set_selectable(GTK_LABEL(w->details), TRUE);
  gtk_label_set_line_wrap(GTK_LABEL(w->details), TRUE);
  gtk_label_set_xalign(GTK_LABEL(w->details), 0);
  gtk_label_set_yalign(GTK_LABEL(w->details), 0);
  gtk_widget_set_name(w->details, "details");
  w->details_box = gtk_scrolled_window_new(NULL, NULL);
  gtk_widget_set_size_request(w->details_box, 300, -1);
  gtk_container_add(GTK_CONTAINER(w->details_box), w->details);
  gtk_widget_set_no_show_all(w->details_box, TRUE);
  gtk_widget_show(w->details);
  return w->details_box;
}

/* The side column: the findings, and under them a thread's details. */
static GtkWidget *new_side(mprof_view_window_t *w) {
  GtkWidget *side = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
  gtk_widget_set_size_request(side, 300, -1);
  gtk_paned_pack1(GTK_PANED(side), mprof__view_findings_new(w), TRUE, FALSE);
  gtk_paned_pack2(GTK_PANED(side), new_details(w), TRUE, FALSE);
  return side;
}

static char *window_title(mprof_view_window_t *w) {
  char *a = mprof__view_escape(w->panes[0].doc->title);
  if (w->pane_count < 2) {
    char *title = g_strdup_printf("%s - mprof view", a);
    g_free(a);
    return title;
  }
  char *b = mprof__view_escape(w->panes[1].doc->title);
  char *title = g_strdup_printf("%s vs %s - mprof view", a, b);
  g_free(a);
  g_free(b);
  return title;
}

/* The line that says what a big trace's view warns of (big.h): its
 * file changed since its index was made, a damaged packet read. */
static GtkWidget *new_status(mprof_view_window_t *w) {
  w->status = gtk_label_new(NULL);
  gtk_label_set_xalign(GTK_LABEL(w->status), 0);
  gtk_label_set_ellipsize(GTK_LABEL(w->status), PANGO_ELLIPSIZE_END);
  gtk_widget_set_name(w->status, "warning");
  gtk_widget_set_margin_start(w->status, 6);
  gtk_widget_set_no_show_all(w->status, TRUE);
  return w->status;
}

/* Show what the big trace's view warns of, if anything. */
static void show_big_warning(mprof_view_window_t *w) {
  char text[512];
  if (!mprof__view_big_warning(w->big, text, sizeof text)) return;
  char *escaped = mprof__view_escape(text);
  if (strcmp(gtk_label_get_text(GTK_LABEL(w->status)), escaped))
    gtk_label_set_text(GTK_LABEL(w->status), escaped);
  g_free(escaped);
  gtk_widget_show(w->status);
}

/* Look at the big trace's file again, until it changed: the view has
 * said so then (its news), and no later look would say more. */
static gboolean check_big(gpointer data) {
  mprof_view_window_t *w = data;
  return mprof__view_big_check(w->big) ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* The big trace's view has news: its warning, or its trace opened (the
 * frame may be its model's now). */
static gboolean on_big_news(gpointer data) {
  mprof_view_window_t *w = data;
  show_big_warning(w);
  redraw(w);
  return G_SOURCE_REMOVE;
}

/* From any thread: the news handled on the window's. */
static void post_big_news(void *data) { g_idle_add(on_big_news, data); }

/* --- Windows -------------------------------------------------------------- */

static int open_windows;

/* A close: the keys' popover put away first.  Destroyed open with its
 * window, it would give the focus back to widgets already gone (GTK
 * criticals). */
static gboolean on_delete(GtkWidget *widget, GdkEvent *event, gpointer data) {
  mprof_view_window_t *w = data;
  (void)widget, (void)event;
  gtk_widget_hide(w->help);
  return FALSE; /* closed */
}

static void on_destroy(GtkWidget *widget, gpointer data) {
  mprof_view_window_t *w = data;
  (void)widget;
  mprof__view_big_free(w->big); /* first: no news posted after it */
  while (g_source_remove_by_user_data(w)) continue; /* the timers, news */
  if (w->script_source) g_source_remove(w->script_source);
  mprof_timeline_free(w->timeline);
  for (int i = 0; i < w->pane_count; i++) mprof__view_doc_free(w->panes[i].doc);
  g_free(w);
  if (--open_windows == 0) gtk_main_quit();
}

/* Lay w out (its panes made): the toolbar, the legend, the timelines and
 * (a model's window) the side column; shown once its script and follow
 * timer are set. */
static void open_built(mprof_view_window_t *w, GtkWidget *timelines,
                       const char *title) {
  const mprof_view_options_t *options = w->options;
  GtkWidget *body = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_box_pack_start(GTK_BOX(body), timelines, TRUE, TRUE, 0);
  if (!w->big) gtk_box_pack_start(GTK_BOX(body), new_side(w), FALSE, FALSE, 0);
  GtkWidget *top = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_pack_start(GTK_BOX(top), new_toolbar(w), FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(top), mprof__view_legend_new(w), FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(top), body, TRUE, TRUE, 0);
  if (w->big) {
    gtk_box_pack_start(GTK_BOX(top), new_status(w), FALSE, FALSE, 2);
    show_big_warning(w); /* told as it opened */
    mprof__view_big_on_news(w->big, post_big_news, w);
    g_timeout_add(BIG_CHECK_MS, check_big, w);
  }
  gtk_container_add(GTK_CONTAINER(w->window), top);
  gtk_window_set_title(GTK_WINDOW(w->window), title);
  mprof__view_window_fit(w);
  gtk_window_set_default_size(GTK_WINDOW(w->window), 1100, 700);
  g_signal_connect(w->window, "key-press-event", G_CALLBACK(on_key), w);
  g_signal_connect(w->window, "delete-event", G_CALLBACK(on_delete), w);
  g_signal_connect(w->window, "destroy", G_CALLBACK(on_destroy), w);
  if (options->follow) mprof__view_follow_start(w);
  gtk_widget_show_all(w->window);
  gtk_widget_grab_focus(w->panes[0].area);
  open_windows++;
  if (options->script) mprof__view_script_start(w, options->script);
}

/* A window showing docs (which it takes); none, with the documents freed,
 * if memory ran out. */
static void open_window(mprof_view_doc_t **docs, int count,
                        const mprof_view_options_t *options) {
  mprof_timeline_t *timeline = mprof__view_timeline(docs, count, 1, 1);
  if (!timeline) {
    out_of_memory();
    for (int i = 0; i < count; i++) mprof__view_doc_free(docs[i]);
    return;
  }
  mprof_view_window_t *w = g_new0(mprof_view_window_t, 1);
  w->timeline = timeline;
  w->options = options;
  w->follow = options->follow;
  w->window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  GtkWidget *timelines = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
  for (int i = 0; i < count; i++)
    gtk_box_pack_start(GTK_BOX(timelines), new_area(w, docs[i]), TRUE, TRUE, 0);
  char *title = window_title(w);
  open_built(w, timelines, title);
  g_free(title);
}

/* A window showing big, the view of a trace too big to model (which it
 * takes), named after path. */
static void open_big_window(mprof_view_big_t *big, const char *path,
                            const mprof_view_options_t *options) {
  mprof_view_window_t *w = g_new0(mprof_view_window_t, 1);
  w->big = big;
  w->options = options;
  w->window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  char *name = g_path_get_basename(path), *escaped = mprof__view_escape(name);
  char *title = g_strdup_printf("%s - mprof view", escaped);
  open_built(w, new_area(w, NULL), title);
  g_free(title);
  g_free(escaped);
  g_free(name);
}

int mprof__view_windows(mprof_view_doc_t **docs, mprof_view_big_t **bigs,
                        char *const *paths, int count,
                        const mprof_view_options_t *options) {
  if (!gtk_init_check(NULL, NULL)) {
    g_printerr("mprof: view: cannot open a display (is DISPLAY set?); "
               "--png draws without one\n");
    return 1;
  }
  int per_window = options->compare ? 2 : 1;
  for (int i = 0; bigs && i < count; i++)
    if (bigs[i]) {
      open_big_window(bigs[i], paths[i], options);
      bigs[i] = NULL;
    }
  for (int i = 0; i + per_window <= count; i += per_window) {
    if (!docs[i]) continue;
    open_window(docs + i, per_window, options);
    for (int j = i; j < i + per_window; j++) docs[j] = NULL;
  }
  if (open_windows) gtk_main();
  return 0;
}
