/* legend.c -- the legend of the window and of --png: a swatch and a name
 * for each colour the view state's legend lists (mprof_timeline_legend():
 * what the traces shown hold), painted with cairo, so that the window,
 * the PNG and the browser viewer explain the same colours the same way. */
#include <pango/pangocairo.h>

#include "window.h"

#define SWATCH_PX 14
/* Between an entry's name and the next swatch. */
#define ENTRY_GAP_PX 14

static void set_rgb(cairo_t *cr, uint32_t rgb) {
  cairo_set_source_rgb(cr, (rgb >> 16 & 255) / 255.0, (rgb >> 8 & 255) / 255.0,
                       (rgb & 255) / 255.0);
}

/* One entry at x: its swatch, outlined, and its name; returns its width. */
static double paint_entry(cairo_t *cr, PangoLayout *layout,
                          const mprof_swatch_t *swatch, double x) {
  double top = (MPROF_VIEW_LEGEND_PX - SWATCH_PX) / 2.0;
  set_rgb(cr, swatch->rgb);
  cairo_rectangle(cr, x + 0.5, top + 0.5, SWATCH_PX - 1, SWATCH_PX - 1);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  pango_layout_set_text(layout, swatch->name, -1);
  int width, height;
  pango_layout_get_pixel_size(layout, &width, &height);
  set_rgb(cr, mprof_scene_palette[MPROF_COLOUR_TEXT].rgb);
  cairo_move_to(cr, x + SWATCH_PX + 3, (MPROF_VIEW_LEGEND_PX - height) / 2.0);
  pango_cairo_show_layout(cr, layout);
  return SWATCH_PX + 3 + width + ENTRY_GAP_PX;
}

void mprof__view_legend_colours(cairo_t *cr, const mprof_colour_t *colours,
                                size_t count, double width) {
  cairo_save(cr);
  set_rgb(cr, mprof_scene_palette[MPROF_COLOUR_NAMES].rgb);
  cairo_rectangle(cr, 0, 0, width, MPROF_VIEW_LEGEND_PX);
  cairo_fill(cr);
  PangoLayout *layout = pango_cairo_create_layout(cr);
  PangoFontDescription *font = pango_font_description_from_string("Sans");
  pango_font_description_set_absolute_size(font, 11 * PANGO_SCALE);
  pango_layout_set_font_description(layout, font);
  pango_font_description_free(font);
  double x = 4;
  for (size_t i = 0; i < count && x < width; i++)
    x += paint_entry(cr, layout, &mprof_scene_palette[colours[i]], x);
  g_object_unref(layout);
  cairo_restore(cr);
}

void mprof__view_legend_paint(cairo_t *cr, const mprof_timeline_t *tl,
                              double width) {
  mprof_colour_t colours[MPROF_COLOUR_COUNT];
  size_t count = 0;
  for (int c; count < MPROF_COLOUR_COUNT &&
              (c = mprof_timeline_legend(tl, (int)count)) >= 0;)
    colours[count++] = (mprof_colour_t)c;
  mprof__view_legend_colours(cr, colours, count, width);
}

static gboolean on_draw(GtkWidget *area, cairo_t *cr, gpointer data) {
  const mprof_view_window_t *w = data;
  int width = gtk_widget_get_allocated_width(area);
  if (w->big)
    mprof__view_big_legend(cr, w->big, width);
  else
    mprof__view_legend_paint(cr, w->timeline, width);
  return TRUE;
}

GtkWidget *mprof__view_legend_new(mprof_view_window_t *w) {
  GtkWidget *legend = gtk_drawing_area_new();
  gtk_widget_set_size_request(legend, -1, MPROF_VIEW_LEGEND_PX);
  g_signal_connect(legend, "draw", G_CALLBACK(on_draw), w);
  return legend;
}
