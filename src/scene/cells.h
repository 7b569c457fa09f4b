/* cells.h -- the picture of a trace too big to model: its summary
 * (src/model/scene_stream.h) turned into a display list (scene.h) with the
 * drawing rules of a model's: the same axis, name column, colours, line
 * widths and arrows, so that --png draws the same kind of picture of any
 * trace.  No OS calls. */
#ifndef MPROF_SCENE_CELLS_H
#define MPROF_SCENE_CELLS_H

#include "../model/scene_stream.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The viewport that shows cells in a picture width_px x height_px, its
 * rows scrolled down scroll_px as a model's pane scrolls them: its time
 * range, a name column as a model's pane has, the rest a pixel column
 * each (cells->columns must be what is left of width_px: see
 * mprof_scene_cells_columns()). */
mprof_viewport_t mprof_scene_cells_viewport(const mprof_cells_t *cells,
                                            uint32_t width_px,
                                            uint32_t height_px,
                                            uint32_t scroll_px);

/* The pixel columns of the time range, and the rows, of a picture
 * width_px x height_px with no counter strips: what a summary for it is
 * made of.  Scrolled down scroll_px, its first row in view is
 * mprof_scene_cells_first_row() (partly above the rows' part unless
 * scroll_px is a multiple of MPROF_SCENE_ROW_PX), and the summary holds
 * mprof_scene_cells_rows_to() rows: down to the last that fits whole,
 * those above the first in view left empty (mprof_pyramid_frame()'s
 * first_row). */
uint32_t mprof_scene_cells_columns(uint32_t width_px);
uint32_t mprof_scene_cells_rows(uint32_t height_px);
uint32_t mprof_scene_cells_first_row(uint32_t scroll_px);
uint32_t mprof_scene_cells_rows_to(uint32_t height_px, uint32_t scroll_px);

/* Build the display list of cells in vp (from
 * mprof_scene_cells_viewport()), the rows from the one its scroll puts
 * at the top (see mprof_scene_cells_first_row()): idle bands, the axis,
 * each row's lines
 * (a failed or stalled thread's colour first where several fall in a
 * pixel) and running spans, the arrows kept, the name column (the last
 * row, where rows were folded into it, says how many), and a strip per
 * counter at the bottom (the rows that no longer fit above them folded
 * into the last that does).  Returns 0, MPROF_EINVAL (vp is not cells')
 * or MPROF_ENOMEM. */
int mprof_scene_build_cells(mprof_scene_t *scene, const mprof_cells_t *cells,
                            const mprof_viewport_t *vp);

/* The legend of cells, as mprof_scene_legend() of a model: the colours
 * its picture shows, in palette order, into out (MPROF_COLOUR_COUNT
 * entries are enough).  Returns how many. */
size_t mprof_scene_cells_legend(const mprof_cells_t *cells,
                                mprof_colour_t *out);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_SCENE_CELLS_H */
