/* legend.c -- the window's legend: a swatch and a name for each colour of
 * the scene's palette that means something (mprof_scene_palette), so the
 * desktop and browser viewers explain the same colours the same way. */
#include "window.h"

#define LEGEND_PX 18
#define SWATCH_PX 14

/* The colours a reader needs explained, in the order shown. */
static const mprof_colour_t shown[] = {
    MPROF_COLOUR_RUNNING,
    MPROF_COLOUR_ARROW + MPROF_ARROW_CREATE,
    MPROF_COLOUR_ARROW + MPROF_ARROW_READ,
    MPROF_COLOUR_ARROW + MPROF_ARROW_READ_FAILED,
    MPROF_COLOUR_ARROW + MPROF_ARROW_TRY_READ,
    MPROF_COLOUR_ARROW + MPROF_ARROW_RESOLVE,
    MPROF_COLOUR_ARROW + MPROF_ARROW_SIGNAL,
    MPROF_COLOUR_ARROW + MPROF_ARROW_BECOMES,
    MPROF_COLOUR_FAILED,
    MPROF_COLOUR_STALLED,
    MPROF_COLOUR_IDLE,
    MPROF_COLOUR_GC,
    MPROF_COLOUR_HIGHLIGHT,
    MPROF_COLOUR_MATCH,
    MPROF_COLOUR_DIVERGENCE,
};

static gboolean on_draw(GtkWidget *area, cairo_t *cr, gpointer data) {
  (void)data;
  PangoLayout *layout = gtk_widget_create_pango_layout(area, NULL);
  double x = 4, y = (LEGEND_PX - SWATCH_PX) / 2.0;
  for (size_t i = 0; i < sizeof shown / sizeof *shown; i++) {
    const mprof_swatch_t *swatch = &mprof_scene_palette[shown[i]];
    cairo_set_source_rgb(cr, (swatch->rgb >> 16 & 255) / 255.0,
                         (swatch->rgb >> 8 & 255) / 255.0,
                         (swatch->rgb & 255) / 255.0);
    cairo_rectangle(cr, x, y, SWATCH_PX, SWATCH_PX);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    pango_layout_set_text(layout, swatch->name, -1);
    int width, height;
    pango_layout_get_pixel_size(layout, &width, &height);
    gtk_render_layout(gtk_widget_get_style_context(area), cr, x + SWATCH_PX + 3,
                      (LEGEND_PX - height) / 2.0, layout);
    x += SWATCH_PX + width + 14;
  }
  g_object_unref(layout);
  return TRUE;
}

GtkWidget *mprof__view_legend_new(void) {
  GtkWidget *legend = gtk_drawing_area_new();
  gtk_widget_set_size_request(legend, -1, LEGEND_PX);
  g_signal_connect(legend, "draw", G_CALLBACK(on_draw), NULL);
  return legend;
}
