/* findings.c -- the findings panel: the analysis' findings of each
 * document (mprof_model_analyse), most severe first as `mprof report`
 * lists them, one row each, "severity kind: summary".  Activating a row
 * shows the finding (mprof_timeline_show_finding: its range, its thread
 * at fault selected, its evidence highlighted) and that thread's details.
 * A capture of `mprof watch` (capture.h) opens on the finding that fired
 * it: a line "captured by mprof watch: SUMMARY", then that finding's row,
 * selected and shown once the window has its size.
 * Plain text: summaries are escaped and set as text, never as markup. */
#include <string.h>

#include "capture.h"
#include "window.h"

char *mprof__view_finding_text(const mprof_view_doc_t *doc, size_t i) {
  const mprof_analysis_t *a = &doc->analysis;
  const mprof_finding_t *f = &a->findings[i];
  char *summary = mprof__view_escape(a->text + f->summary);
  char *text = g_strdup_printf(
      "%s %s: %s", mprof_severity_name((mprof_severity_t)f->severity),
      mprof_finding_kind_name((mprof_finding_kind_t)f->kind), summary);
  g_free(summary);
  return text;
}

void mprof__view_window_show_finding(mprof_view_window_t *w, int p, size_t i) {
  const mprof_analysis_t *a = &w->panes[p].doc->analysis;
  if (mprof_timeline_show_finding(w->timeline, p, a, (int)i) > 0) {
    w->follow = 0;
    mprof__view_window_details(
        w, w->panes[p].doc, (uint32_t)mprof_timeline_selected(w->timeline, p));
  }
  for (int k = 0; k < w->pane_count; k++)
    gtk_widget_queue_draw(w->panes[k].area);
}

/* Row `at` of the list (made if the list is shorter) showing text: finding
 * `finding` of pane p, or a note (a heading, "Nothing found.") that a
 * click does nothing on if finding is -1.  Rows are kept and only their
 * text changed: --follow refills the list every second, and making
 * hundreds of rows again each time would take most of it. */
static void set_row(GtkListBox *list, int at, const char *text, int p,
                    long finding) {
  GtkListBoxRow *row = gtk_list_box_get_row_at_index(list, at);
  if (!row) {
    row = GTK_LIST_BOX_ROW(gtk_list_box_row_new());
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_container_add(GTK_CONTAINER(row), label);
    gtk_list_box_insert(list, GTK_WIDGET(row), -1);
    gtk_widget_show_all(GTK_WIDGET(row));
  }
  /* one line cut at the panel's edge, whole in its tooltip: a wrapped
   * row costs a height-for-width layout */
  GtkLabel *label = GTK_LABEL(gtk_bin_get_child(GTK_BIN(row)));
  if (strcmp(gtk_label_get_text(label), text)) {
    gtk_label_set_text(label, text);
    gtk_widget_set_tooltip_text(GTK_WIDGET(label), text);
  }
  gtk_list_box_row_set_activatable(row, finding >= 0);
  gtk_list_box_row_set_selectable(row, FALSE);
  g_object_set_data(G_OBJECT(row), "mprof-pane", GINT_TO_POINTER(p));
  g_object_set_data(G_OBJECT(row), "mprof-finding",
                    GSIZE_TO_POINTER((gsize)finding));
}

static void on_row_activated(GtkListBox *list, GtkListBoxRow *row,
                             gpointer data) {
  (void)list;
  GObject *o = G_OBJECT(row);
  mprof__view_window_show_finding(
      data, GPOINTER_TO_INT(g_object_get_data(o, "mprof-pane")),
      GPOINTER_TO_SIZE(g_object_get_data(o, "mprof-finding")));
}

/* The row of finding i of pane p, at `at`. */
static void set_finding_row(GtkListBox *list, int at, int p,
                            const mprof_view_doc_t *doc, size_t i) {
  char *text = mprof__view_finding_text(doc, i);
  set_row(list, at, text, p, (long)i);
  g_free(text);
}

/* Where doc is a capture: its line at `at`, and the finding that fired
 * it, if the capture's analysis has it, next, selected.  Returns that
 * finding (-1: none) and moves *at past the rows. */
static long fill_capture(GtkListBox *list, int *at, int p,
                         const mprof_view_doc_t *doc) {
  mprof_capture_t capture;
  if (mprof_capture_read(doc->path, &capture) != 1) return -1;
  char *summary = mprof__view_escape(capture.summary);
  char *line = g_strconcat(MPROF_CAPTURE_LINE, summary, NULL);
  set_row(list, (*at)++, line, p, -1);
  g_free(line);
  g_free(summary);
  long fired = mprof_capture_finding(&capture, doc->model, &doc->analysis);
  mprof_capture_free(&capture);
  if (fired < 0) return -1;
  set_finding_row(list, *at, p, doc, (size_t)fired);
  GtkListBoxRow *row = gtk_list_box_get_row_at_index(list, (*at)++);
  gtk_list_box_row_set_selectable(row, TRUE);
  gtk_list_box_select_row(list, row);
  return fired;
}

void mprof__view_findings_fill(mprof_view_window_t *w) {
  GtkListBox *list = GTK_LIST_BOX(w->findings);
  int at = 0;
  for (int p = 0; p < w->pane_count; p++) {
    const mprof_view_doc_t *doc = w->panes[p].doc;
    if (w->pane_count > 1) {
      char *title = mprof__view_escape(doc->title);
      set_row(list, at++, title, p, -1);
      g_free(title);
    }
    long fired = fill_capture(list, &at, p, doc);
    for (size_t i = 0; i < doc->analysis.finding_count; i++)
      if ((long)i != fired) set_finding_row(list, at++, p, doc, i);
    if (!doc->analysis.finding_count)
      set_row(list, at++, "Nothing found.", p, -1);
  }
  GtkListBoxRow *extra;
  while ((extra = gtk_list_box_get_row_at_index(list, at)))
    gtk_widget_destroy(GTK_WIDGET(extra));
}

/* Once the window has its size, show the finding that fired each
 * capture (its selected row), as a click on its row would. */
static void on_first_size(GtkWidget *area, GdkRectangle *size, gpointer data) {
  mprof_view_window_t *w = data;
  (void)size;
  g_signal_handlers_disconnect_by_func(area, G_CALLBACK(on_first_size), data);
  GList *fired = gtk_list_box_get_selected_rows(GTK_LIST_BOX(w->findings));
  for (GList *row = fired; row; row = row->next) {
    int p = GPOINTER_TO_INT(g_object_get_data(row->data, "mprof-pane"));
    GtkWidget *pane = w->panes[p].area;
    mprof_timeline_resize(w->timeline, p, gtk_widget_get_allocated_width(pane),
                          gtk_widget_get_allocated_height(pane));
    on_row_activated(GTK_LIST_BOX(w->findings), row->data, w);
  }
  g_list_free(fired);
}

GtkWidget *mprof__view_findings_new(mprof_view_window_t *w) {
  w->findings = gtk_list_box_new();
  gtk_widget_set_name(w->findings, "findings");
  /* only a capture's fired finding is selectable, and selected */
  gtk_list_box_set_selection_mode(GTK_LIST_BOX(w->findings),
                                  GTK_SELECTION_MULTIPLE);
  gtk_list_box_set_activate_on_single_click(GTK_LIST_BOX(w->findings), TRUE);
  g_signal_connect(w->findings, "row-activated", G_CALLBACK(on_row_activated),
                   w);
  GtkWidget *scroll = gtk_scrolled_window_new(NULL, NULL);
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_NEVER,
                                 GTK_POLICY_AUTOMATIC);
  gtk_container_add(GTK_CONTAINER(scroll), w->findings);
  GtkWidget *frame = gtk_frame_new("Findings");
  gtk_container_add(GTK_CONTAINER(frame), scroll);
  mprof__view_findings_fill(w);
  g_signal_connect(w->panes[0].area, "size-allocate", G_CALLBACK(on_first_size),
                   w);
  return frame;
}
