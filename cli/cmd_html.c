/* cmd_html.c -- `mprof html TRACE [TRACE2] -o DIR` and `mprof html
 * --single-file TRACE [TRACE2] -o FILE.html`: the browser viewer with the
 * traces in it (two traces: the compare view).
 *
 * The page's assets are embedded in this program (web/web_assets.h).  The
 * wasm and the traces travel as base64 in a classic script (data.js, or
 * inline in the single file), because pages opened from file:// may not
 * fetch files or load modules; a big trace goes in slices, scripts of a
 * few MB in DIR/data/ that the page loads one after the other, drawing the
 * trace from the first one on.  A page of one trace that is not in slices
 * also holds its first frame for a few window sizes, built here
 * (html_frame.c), in a small script before viewer.js, which paints the one
 * of its size at once (in a pane of another size, the nearest one mapped
 * to it) and reads the rest (data.js) after.  A capture of `mprof watch`
 * (src/capture) carries what fired it to the page, which opens on it.
 * A trace past what the page models whole (INDEXED_BYTES) is read there
 * by its index (docs/web.md): written beside the page, DIR/data/T.mpidx,
 * and as a script, DIR/data/T-index.js; the page then loads only the
 * slices that hold the packets of the window it shows.  Such a trace is
 * read here from its file a piece at a time, never held whole. */
#define _DEFAULT_SOURCE /* strdup */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/capture/capture.h"
#include "cli.h"
#include "html_frame.h"
#include "html_spans.h"
#include "html_staging.h"
#include "mprof/index.h"
#include "scene.h"
#include "web_assets.h"

#define STYLE_MARK "<!--MPROF:STYLE-->"
#define SCRIPTS_MARK "<!--MPROF:SCRIPTS-->"

static const mprof_web_asset_t *asset(const char *name) {
  for (const mprof_web_asset_t *a = mprof_web_assets; a->name; a++)
    if (strcmp(a->name, name) == 0) return a;
  return NULL; /* the build embeds them all */
}

static void put_asset(FILE *f, const char *name) {
  const mprof_web_asset_t *a = asset(name);
  fwrite(a->data, 1, a->size, f);
}

static void put_base64(FILE *f, const unsigned char *data, size_t size) {
  static const char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16;
    if (i + 1 < size) v |= (uint32_t)data[i + 1] << 8;
    if (i + 2 < size) v |= data[i + 2];
    char out[4] = {digits[v >> 18 & 63], digits[v >> 12 & 63],
                   i + 1 < size ? digits[v >> 6 & 63] : '=',
                   i + 2 < size ? digits[v & 63] : '='};
    fwrite(out, 1, 4, f);
  }
}

/* A file name as a JS string literal that cannot end a <script>: only
 * letters, digits and a few marks stay as they are. */
static void put_js_string(FILE *f, const char *text) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
        (*p >= '0' && *p <= '9') || strchr("._- ", *p) || *p >= 0x80)
      fputc(*p, f);
    else
      fprintf(f, "\\u%04x", *p);
  }
  fputc('"', f);
}

/* A trace file's bytes. */
typedef struct trace_file_s {
  const char *path;    /* "-": standard input */
  char *member;        /* the one trace of a merged trace given as path, or
                          NULL; path then points to it */
  unsigned char *data; /* its bytes, or NULL: read from file, a piece at a
                          time (a trace read by its index) */
  size_t size;
  FILE *file;           /* where data is NULL */
  int64_t mtime_ns;     /* file's, with size, when opened */
  unsigned char *piece; /* PIECE bytes to read it through */
  span_t *spans;        /* the bytes the page gets (html_spans.h) */
  size_t spans_count;
  size_t slices;           /* 0: in data.js; else data/T-I.js, I < slices */
  mprof_capture_t capture; /* what fired it, if it is a capture */
  long fired;           /* the index of that finding in the analysis, or -1 */
  mprof_index_t *index; /* a trace the page reads by its index, else NULL */
} trace_file_t;

static int is_stdin(const trace_file_t *t) { return strcmp(t->path, "-") == 0; }

/* Read the whole file (or standard input); -1 with errno set if not. */
static int read_file(trace_file_t *t) {
  FILE *f = is_stdin(t) ? stdin : fopen(t->path, "rb");
  if (!f) return -1;
  size_t cap = 1 << 16;
  t->data = malloc(cap);
  t->size = 0;
  size_t n;
  while (t->data && (n = fread(t->data + t->size, 1, cap - t->size, f)) > 0) {
    t->size += n;
    if (t->size == cap) {
      unsigned char *d = realloc(t->data, cap *= 2);
      if (!d) free(t->data);
      t->data = d;
    }
  }
  int err = ferror(f) ? EIO : !t->data ? ENOMEM : 0;
  if (f != stdin) fclose(f);
  errno = err;
  return err ? -1 : 0;
}

/* The trace's name in messages. */
static const char *shown_name(const trace_file_t *t) {
  return is_stdin(t) ? "(stdin)" : t->path;
}

/* The trace's file name in the page and the output directory. */
static const char *base_name(const trace_file_t *t) {
  const char *slash = strrchr(t->path, '/');
  return is_stdin(t) ? "stdin.ctf" : slash ? slash + 1 : t->path;
}

/* A trace's bytes as [[offset, "base64"], ...]: its spans, the page fills
 * in the zeros between them. */
static void put_parts(FILE *f, const trace_file_t *t) {
  fputc('[', f);
  for (size_t i = 0; i < t->spans_count; i++) {
    const span_t *s = &t->spans[i];
    fprintf(f, "%s[%zu, \"", i ? ", " : "", s->start);
    put_base64(f, t->data + s->start, s->end - s->start);
    fputs("\"]", f);
  }
  fputc(']', f);
}

/* Traces of more than this many bytes (leaving out runs of zeros) go to
 * the page in slices of this many (the first a quarter of it), each a
 * script the page loads in turn, showing the trace from the first one on.
 * MPROF_HTML_SLICE sets it (bytes, at least 1024: tests make many slices
 * of a small trace). */
#define SLICE_BYTES ((size_t)4 << 20)

static size_t slice_bytes(void) {
  const char *v = getenv("MPROF_HTML_SLICE");
  char *end;
  unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
  return n >= 1024 && !*end ? (size_t)n : SLICE_BYTES;
}

/* Traces of this many bytes or more (the page's reading.bigFrom: their
 * whole model would take more than 1.5 GiB of its memory) are read by
 * their index, in a directory.  MPROF_HTML_INDEXED sets it (bytes: tests
 * make a small trace read so). */
#define INDEXED_BYTES ((size_t)512 << 20)

static size_t indexed_bytes(void) {
  const char *v = getenv("MPROF_HTML_INDEXED");
  char *end;
  unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
  return v && *v && !*end ? (size_t)n : INDEXED_BYTES;
}

/* A trace read from its file goes through a buffer of this many bytes (a
 * multiple of 3: the base64 of a span's pieces, in a row, is the span's). */
#define PIECE ((size_t)3 << 20)

/* Read n bytes of t's file at offset into t->piece; -1 if they are not
 * there (errno set). */
static int read_piece(const trace_file_t *t, size_t offset, size_t n) {
  if (fseeko(t->file, (off_t)offset, SEEK_SET) != 0) return -1;
  if (fread(t->piece, 1, n, t->file) == n) return 0;
  errno = ferror(t->file) ? EIO : ENODATA;
  return -1;
}

/* Whether t's file is not what it was when opened, or what its index is
 * of: a trace being recorded is rewritten in place, and the page would get
 * packets the index lists as zeros, or lose its end. */
static int changed(const trace_file_t *t) {
  size_t size;
  int64_t mtime_ns;
  if (t->data) return 0;
  if (staging_file_key(t->file, &size, &mtime_ns)) return 1;
  const mprof_index_key_t *key = t->index ? mprof_index_key_of(t->index) : 0;
  return size != t->size || mtime_ns != t->mtime_ns ||
         (key && (key->size != size || key->mtime_ns != mtime_ns));
}

/* Say that trace t could not be read (errno) or changed as it was; -1. */
static int say_unread(const trace_file_t *t) {
  const char *why = strerror(errno);
  cli_progress_wipe();
  fprintf(stderr, "mprof html: %s: %s\n", shown_name(t),
          changed(t) ? "changed while being read" : why);
  return -1;
}

/* Hand t's bytes to s: from memory, or its file's, a piece at a time. */
static int feed_trace(spanner_t *s, const trace_file_t *t) {
  if (t->data) {
    spanner_feed(s, t->data, t->size);
    return 0;
  }
  for (size_t at = 0; at < t->size; at += PIECE) {
    size_t n = t->size - at < PIECE ? t->size - at : PIECE;
    if (read_piece(t, at, n)) return -1;
    spanner_feed(s, t->piece, n);
  }
  return 0;
}

/* The spans of t, and its slices if it has more than one slice's bytes,
 * or if it is read from its file (so that it is never held whole); -1 if
 * memory ran out or the file could not be read (errno set). */
static int plan_trace(trace_file_t *t) {
  size_t slice = slice_bytes(), bytes = 0;
  spanner_t s;
  spanner_start(&s, slice);
  if (feed_trace(&s, t)) {
    free(s.spans);
    return -1;
  }
  if (!(t->spans = spanner_end(&s, &t->spans_count))) {
    errno = ENOMEM;
    return -1;
  }
  for (size_t i = 0; i < t->spans_count; i++)
    bytes += t->spans[i].end - t->spans[i].start;
  size_t last = t->spans_count ? t->spans[t->spans_count - 1].slice + 1 : 1;
  t->slices = bytes > slice || !t->data ? last : 0;
  return 0;
}

/* The base64 of t's bytes [start, end): from memory, or read from its
 * file a piece at a time; -1 if they could not be read (errno set). */
static int put_bytes(FILE *f, const trace_file_t *t, size_t start, size_t end) {
  if (t->data) {
    put_base64(f, t->data + start, end - start);
    return 0;
  }
  for (size_t at = start; at < end; at += PIECE) {
    size_t n = end - at < PIECE ? end - at : PIECE;
    if (read_piece(t, at, n)) return -1;
    put_base64(f, t->piece, n);
  }
  return 0;
}

/* Slice k of trace `index`, its spans from *span on, as the script
 * mprofSlice(index, k, end, [[offset, bytes], ...], function () {/\*the
 * spans' base64, in a row*\/}): the base64 is in a comment, which the
 * browser's parser skips (a string literal this long parses several times
 * slower); the page reads it back with Function.prototype.toString. */
static int put_slice(FILE *f, int index, const trace_file_t *t, size_t k,
                     size_t *span) {
  size_t first = *span, end = first;
  while (end < t->spans_count && t->spans[end].slice == k) end++;
  fprintf(f, "mprofSlice(%d, %zu, %zu, [", index, k,
          end == t->spans_count ? t->size : t->spans[end - 1].end);
  for (size_t i = first; i < end; i++)
    fprintf(f, "%s[%zu, %zu]", i > first ? ", " : "", t->spans[i].start,
            t->spans[i].end - t->spans[i].start);
  fputs("], function () {/*", f);
  for (size_t i = first; i < end; i++)
    if (put_bytes(f, t, t->spans[i].start, t->spans[i].end)) return -1;
  fputs("*/});\n", f);
  *span = end;
  return 0;
}

/* Where each slice starts in the file, for a page that reads the slices
 * that hold a window's packets: ", index: true, starts: [...]". */
static void put_slice_starts(FILE *f, const trace_file_t *t) {
  fputs(", index: true, starts: [", f);
  for (size_t i = 0, k = 0; i < t->spans_count; i++)
    if (t->spans[i].slice == k)
      fprintf(f, "%s%zu", k++ ? ", " : "", t->spans[i].start);
  fputc(']', f);
}

/* A capture's trigger for the page: ", capture: {kind, summary, finding}"
 * (finding: the index of the page's finding that fired it, or -1). */
static void put_capture(FILE *f, const trace_file_t *t) {
  if (!t->capture.summary) return;
  fputs(", capture: {kind: ", f);
  put_js_string(f, t->capture.kind);
  fputs(", summary: ", f);
  put_js_string(f, t->capture.summary);
  fprintf(f, ", finding: %ld}", t->fired);
}

/* window.MPROF_DATA: the wasm and the traces (their slices, if any, inline
 * in the page if single, else in data/). */
static void put_data(FILE *f, const trace_file_t *traces, int count,
                     int single) {
  const mprof_web_asset_t *wasm = asset("mprof.wasm");
  fputs("window.MPROF_DATA = {wasm: \"", f);
  put_base64(f, wasm->data, wasm->size);
  fputs("\", traces: [", f);
  for (int i = 0; i < count; i++) {
    fputs(i ? ", {name: " : "{name: ", f);
    put_js_string(f, base_name(&traces[i]));
    fprintf(f, ", size: %zu", traces[i].size);
    put_capture(f, &traces[i]);
    if (traces[i].index) put_slice_starts(f, &traces[i]);
    if (traces[i].slices) {
      fprintf(f, ", slices: %zu%s}", traces[i].slices,
              single ? ", inline: true" : "");
      continue;
    }
    fputs(", parts: ", f);
    put_parts(f, &traces[i]);
    fputc('}', f);
  }
  fputs("]};\n", f);
}

/* The slices of the traces that have them, each in its own <script> (after
 * viewer.js, which is running and shows the first while the parser reads
 * the rest). */
static void put_inline_slices(FILE *f, const trace_file_t *traces, int count,
                              cli_progress_t *progress) {
  for (int i = 0; i < count; i++) {
    size_t span = 0;
    for (size_t k = 0; k < traces[i].slices; k++) {
      fputs("\n<script>", f);
      put_slice(f, i, &traces[i], k, &span);
      fputs("</script>", f);
      cli_progress_update(progress, ++progress->done);
    }
  }
}

/* window.MPROF_FRAME: the first frames (html_frame.h: one per window
 * size) of the trace named name, each frame's primitives and texts as
 * base64 in a comment (`prims` characters of it, then the texts): the
 * page's script parses a comment faster than a string, and reads it back
 * with Function.prototype.toString.  data_src: the script holding
 * MPROF_DATA, or NULL where it follows inline. */
static void put_frame(FILE *f, const html_frame_t *frames, const char *name,
                      const char *data_src) {
  fputs("window.MPROF_FRAME = {name: ", f);
  put_js_string(f, name);
  fprintf(f, ", t0: %.17g, t1: %.17g", frames[0].t0_ns, frames[0].t1_ns);
  fputs(", palette: [", f);
  for (int c = 0; c < MPROF_COLOUR_COUNT; c++)
    fprintf(f, "%s\"#%06x\"", c ? ", " : "",
            (unsigned)mprof_scene_palette[c].rgb);
  fputs("], frames: [", f);
  for (int i = 0; i < HTML_FRAME_COUNT; i++) {
    const html_frame_t *frame = &frames[i];
    fprintf(f, "%s{width: %d, height: %d, prims: %zu, data: function () {/*",
            i ? ", " : "", frame->width_px, frame->height_px,
            (frame->prims_size + 2) / 3 * 4);
    put_base64(f, frame->prims, frame->prims_size);
    put_base64(f, (const unsigned char *)frame->text, frame->text_size);
    fputs("*/}}", f);
  }
  fputc(']', f);
  if (data_src) {
    fputs(", data: ", f);
    put_js_string(f, data_src);
  }
  fputs("};\n", f);
}

/* What is written: the traces, their first frames (NULL: none) and
 * whether in a single file. */
typedef struct page_s {
  const trace_file_t *traces;
  int count;
  const html_frame_t *frame; /* HTML_FRAME_COUNT of them */
  int single;
  cli_progress_t *progress; /* counts the slices written */
} page_t;

/* The data: inline in a single file, else data.js. */
static void put_data_script(FILE *f, const page_t *pg) {
  if (!pg->single) {
    fputs("<script src=\"data.js\"></script>\n", f);
    return;
  }
  fputs("<script>\n", f);
  put_data(f, pg->traces, pg->count, 1);
  fputs("</script>\n", f);
}

/* The scripts of a page, viewer.js inline (no fetch before the first
 * frame).  With a first frame: the frame, viewer.js, then the data inline
 * (single file; in a directory viewer.js loads data.js once the frame is
 * shown); without: the data, then viewer.js, then in a single file the
 * slices of the traces in slices (never framed: see cmd_html()). */
static void put_scripts(FILE *f, const page_t *pg) {
  if (pg->frame) {
    fputs("<script>\n", f);
    put_frame(f, pg->frame, base_name(&pg->traces[0]),
              pg->single ? NULL : "data.js");
    fputs("</script>\n", f);
  } else {
    put_data_script(f, pg);
  }
  fputs("<script>\n", f);
  put_asset(f, "viewer.js");
  fputs("</script>\n", f);
  if (pg->frame && pg->single) put_data_script(f, pg);
  if (pg->single) put_inline_slices(f, pg->traces, pg->count, pg->progress);
}

/* index.html with its two marks replaced by the style and the scripts. */
static void put_page(FILE *f, const page_t *pg) {
  const mprof_web_asset_t *page = asset("index.html");
  const char *text = (const char *)page->data, *end = text + page->size;
  const char *style = strstr(text, STYLE_MARK);
  const char *scripts = strstr(text, SCRIPTS_MARK);
  fwrite(text, 1, (size_t)(style - text), f);
  fputs("<style>\n", f);
  put_asset(f, "viewer.css");
  fputs("</style>", f);
  style += strlen(STYLE_MARK);
  fwrite(style, 1, (size_t)(scripts - style), f);
  put_scripts(f, pg);
  scripts += strlen(SCRIPTS_MARK);
  fwrite(scripts, 1, (size_t)(end - scripts), f);
}

typedef enum part_e { PAGE, DATA, TRACE } part_t;

/* Say "mprof html: PATH: why" (errno's), PATH named as the page will be
 * (html_staging.h); returns -1. */
static int say_errno(const char *path) {
  int err = errno;
  cli_progress_wipe();
  fprintf(stderr, "mprof html: %s: %s\n", staging_shown(path), strerror(err));
  return -1;
}

/* Start writing path, whole or not at all (mprof_output_open); 0, or -1
 * after saying why not. */
static int create(mprof_output_t *out, const char *path) {
  return mprof_output_open(out, path) == 0 ? 0 : say_errno(path);
}

/* Give what was written its name; -1 after saying so if writing failed. */
static int finish(mprof_output_t *out) {
  if (mprof_output_close(out, 1) != 0) {
    cli_progress_wipe();
    cli_output_failed("html", staging_shown(out->path));
    return -1;
  }
  return 0;
}

/* Make directory path (0700: it holds traces) if it is not there; -1 after
 * saying why not. */
static int make_dir(const char *path) {
  if (mkdir(path, 0700) != 0 && errno != EEXIST) return say_errno(path);
  return 0;
}

/* Drop what was being written, after saying that trace t could not be
 * read (errno); -1. */
static int unread(mprof_output_t *out, const trace_file_t *t) {
  int err = errno;
  mprof_output_close(out, 0);
  errno = err;
  return say_unread(t);
}

static int all_zeros(const unsigned char *p, size_t n) {
  return !n || (!p[0] && memcmp(p, p + 1, n - 1) == 0);
}

/* A copy of trace t: from memory, or from its file a piece at a time, a
 * piece of zeros left a hole (a sparse trace's copy stays sparse). */
static int put_trace(FILE *f, const trace_file_t *t) {
  if (t->data) {
    fwrite(t->data, 1, t->size, f);
    return 0;
  }
  for (size_t at = 0; at < t->size; at += PIECE) {
    size_t n = t->size - at < PIECE ? t->size - at : PIECE;
    if (read_piece(t, at, n)) return -1;
    if (at + n < t->size && all_zeros(t->piece, n)) /* the last sets the size */
      fseeko(f, (off_t)n, SEEK_CUR);
    else
      fwrite(t->piece, 1, n, f);
  }
  return 0;
}

/* Write one file of the output (TRACE: the trace file pg->traces[trace]);
 * returns 0, or -1 after saying why. */
static int write_part(const char *path, part_t part, const page_t *pg,
                      int trace) {
  mprof_output_t out;
  if (create(&out, path)) return -1;
  if (part == PAGE) put_page(out.f, pg);
  if (part == DATA) put_data(out.f, pg->traces, pg->count, pg->single);
  if (part == TRACE && put_trace(out.f, &pg->traces[trace]))
    return unread(&out, &pg->traces[trace]);
  return finish(&out);
}

/* The file at path whole, into a new buffer of *size; NULL if it cannot
 * be read (errno set). */
static unsigned char *slurp(const char *path, size_t *size) {
  trace_file_t file = {.path = path};
  if (read_file(&file)) return NULL;
  *size = file.size;
  return file.data;
}

/* Trace T's index beside the page, DIR/data/T.mpidx, and as the script
 * DIR/data/T-index.js: mprofIndex(T, function () {/\*its base64*\/}). */
static int write_index(const char *dir, int trace, const mprof_index_t *index) {
  char path[4096], script[4096];
  snprintf(path, sizeof path, "%s/data/%d.mpidx", dir, trace);
  snprintf(script, sizeof script, "%s/data/%d-index.js", dir, trace);
  size_t size = 0;
  unsigned char *bytes = NULL;
  mprof_output_t out;
  if (mprof_index_write(index, path) || !(bytes = slurp(path, &size)))
    return say_errno(path);
  int err = create(&out, script);
  if (!err) {
    fprintf(out.f, "mprofIndex(%d, function () {/*", trace);
    put_base64(out.f, bytes, size);
    fputs("*/});\n", out.f);
    err = finish(&out);
  }
  free(bytes);
  return err;
}

/* The slices of the traces that have them: DIR/data/T-K.js, slice K of
 * trace T, and the index of a trace read by it. */
static int write_slices(const char *dir, const trace_file_t *traces, int count,
                        cli_progress_t *progress) {
  char path[4096];
  snprintf(path, sizeof path, "%s/data", dir);
  if ((traces[0].slices || (count > 1 && traces[1].slices)) && make_dir(path))
    return -1;
  for (int i = 0; i < count; i++) {
    size_t span = 0;
    if (traces[i].index && write_index(dir, i, traces[i].index)) return -1;
    for (size_t k = 0; k < traces[i].slices; k++) {
      snprintf(path, sizeof path, "%s/data/%d-%zu.js", dir, i, k);
      mprof_output_t out;
      if (create(&out, path)) return -1;
      if (put_slice(out.f, i, &traces[i], k, &span))
        return unread(&out, &traces[i]);
      if (finish(&out)) return -1;
      cli_progress_update(progress, ++progress->done);
    }
  }
  return 0;
}

/* -1, after saying so, if a trace's copy in the directory would have the
 * name of one of the viewer's own files (or of its slices' directory). */
static int names_free(const page_t *pg, const char *const *own, size_t n) {
  for (int i = 0; i < pg->count; i++)
    for (size_t k = 0; k < n; k++)
      if (!strcmp(base_name(&pg->traces[i]), own[k])) {
        fprintf(stderr,
                "mprof html: %s: a trace named %s would overwrite "
                "the viewer's own %s; copy it under another name\n",
                shown_name(&pg->traces[i]), own[k], own[k]);
        return -1;
      }
  return 0;
}

/* The page's files in directory dir; 0, or -1 after saying why. */
static int write_files(const char *dir, const page_t *pg) {
  static const struct {
    const char *name;
    part_t part;
  } parts[] = {{"index.html", PAGE}, {"data.js", DATA}};
  if (write_slices(dir, pg->traces, pg->count, pg->progress)) return -1;
  char path[4096];
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, parts[i].name);
    if (write_part(path, parts[i].part, pg, 0)) return -1;
  }
  for (int i = 0; i < pg->count; i++) { /* the traces, to download */
    snprintf(path, sizeof path, "%s/%s", dir, base_name(&pg->traces[i]));
    if (write_part(path, TRACE, pg, i)) return -1;
  }
  for (int i = 0; i < pg->count; i++)
    if (changed(&pg->traces[i])) return say_unread(&pg->traces[i]);
  return 0;
}

/* The page's directory, whole or not at all (html_staging.h): moved in
 * once each trace read was the file its index is of; 0, or -1 if not. */
static int write_directory(const char *dir, const page_t *pg) {
  static const char *const own[] = {"index.html", "data.js", "data"};
  char tmp[1024], failed[4096];
  if (names_free(pg, own, sizeof own / sizeof *own)) return -1;
  if (staging_make(dir, tmp, sizeof tmp)) {
    fprintf(stderr, "mprof html: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  if (write_files(tmp, pg)) {
    staging_drop(tmp);
    return -1;
  }
  if (staging_commit(tmp, dir, failed, sizeof failed) == 0) return 0;
  cli_progress_wipe();
  fprintf(stderr, "mprof html: %s: %s\n", failed, strerror(errno));
  return -1;
}

static int usage(FILE *f, int code) {
  fprintf(
      f,
      "usage: mprof html [--single-file] [--redact] TRACE [TRACE2] -o OUT\n"
      "  (a TRACE of - is read from standard input)\n"
      "  Write the browser viewer with the trace in it: a directory OUT\n"
      "  (index.html, assets, the trace) that works from disk or any\n"
      "  static server, or with --single-file one self-contained OUT.html.\n"
      "  Two traces: the compare view (a good run above a bad run, the\n"
      "  first divergence marked).  --redact: the traces' labels and names\n"
      "  redacted first, as `mprof redact` does (with a random key).\n"
      "  -o names OUT: a directory, or with --single-file a file.\n"
      "examples:\n"
      "  mprof html trace.ctf -o trace-html && xdg-open trace-html/index.html\n"
      "  mprof html --single-file good.ctf bad.ctf -o compare.html\n");
  return code;
}

typedef struct members_s {
  char *first; /* the first member's trace file */
  int count;
} members_t;

static int note_member(void *context, const char *path, const char *file,
                       int64_t offset_ns) {
  (void)path;
  (void)offset_ns;
  members_t *members = context;
  if (members->count++ == 0 && !(members->first = strdup(file)))
    return MPROF_ENOMEM;
  return 0;
}

/* The browser viewer reads one trace file: a merged trace of one member
 * (mprof record's manifest of one process) is read as that member, one of
 * several is refused.  0, or -1 after saying why. */
static int open_member(trace_file_t *t, int *problems) {
  members_t members = {NULL, 0};
  int err = mprof_trace_merged_members(t->path, note_member, &members,
                                       cli_count_problem, problems);
  if (!err && members.count == 1) {
    t->path = t->member = members.first;
    return 0;
  }
  free(members.first);
  if (err == MPROF_ENOMEM)
    fprintf(stderr, "mprof html: out of memory\n");
  else if (!err)
    fprintf(stderr,
            "mprof html: %s: a merged trace of %d traces: the "
            "browser viewer reads one (mprof view reads all)\n",
            t->path, members.count);
  return -1;
}

/* Events are decoded for the damage they tell (as mprof check), and
 * counted (*context). */
static int count_event(void *context, const mprof_event_t *ev) {
  (void)ev;
  ++*(uint64_t *)context;
  return 0;
}

/* Where t is a capture of `mprof watch`: what fired it, and that
 * finding's index in the analysis of trace, which the page's analysis
 * repeats (the same code, so the same list). */
static void find_capture(trace_file_t *t, const mprof_trace_t *trace) {
  mprof_model_t *m;
  mprof_analysis_t a;
  t->fired = -1;
  if (mprof_capture_read(t->path, &t->capture) != 1 ||
      mprof_model_load(trace, &m))
    return;
  if (!mprof_model_analyse(m, &a)) {
    t->fired = mprof_capture_finding(&t->capture, m, &a);
    mprof_analysis_free(&a);
  }
  mprof_model_free(m);
}

/* The index of the big trace t (opened as trace), read from beside it if
 * one is there and good, else built and written there (or in the cache),
 * as `mprof index` does.  Without one (no memory), the page reads t
 * whole, as any trace. */
static void index_trace(trace_file_t *t, const mprof_trace_t *trace) {
  const char *why = NULL;
  int err = mprof_index_open(t->path, trace, 0, NULL, &why, &t->index);
  if (err) {
    cli_progress_wipe();
    fprintf(stderr,
            "mprof html: %s: cannot index it (%s): the page reads it whole\n",
            t->path, mprof_strerror(err));
  }
}

/* Whether t is read by its index: a file of indexed_bytes() or more,
 * alone in a directory.  Such a trace is read from its file a piece at a
 * time, never whole. */
static int is_indexed(const trace_file_t *t, int may_index) {
  struct stat st;
  return may_index && !is_stdin(t) && stat(t->path, &st) == 0 &&
         S_ISREG(st.st_mode) && (size_t)st.st_size >= indexed_bytes();
}

/* The damage the index of t found, told and counted: decoding each packet
 * whole is the index's build, not this command's. */
static void count_damage(const trace_file_t *t, int *problems) {
  size_t damaged = 0, n = mprof_index_packet_count(t->index);
  for (size_t i = 0; i < n; i++)
    damaged += mprof_index_packet(t->index, i)->damaged != 0;
  if (!damaged) return;
  (*problems)++;
  cli_progress_wipe();
  fprintf(stderr,
          "mprof html: %s: %zu of its %zu packets damaged (their events "
          "past the damage left out; mprof check says where)\n",
          t->path, damaged, n);
}

/* Open the big trace t from its file (its size and time then are what
 * the page gets: changed() tells it was rewritten after), index it (its
 * damage told from the index if tell_damage), and plan its slices, reading
 * it a piece at a time.  Its capture's finding, if any, is not looked for
 * (that takes its whole model).  0, or -1 after saying why. */
static int load_indexed(trace_file_t *t, int *problems, int tell_damage) {
  mprof_trace_t *trace;
  if (!(t->file = fopen(t->path, "rb")) ||
      staging_file_key(t->file, &t->size, &t->mtime_ns) ||
      !(t->piece = malloc(PIECE))) {
    fprintf(stderr, "mprof html: %s: %s\n", t->path, strerror(errno));
    return -1;
  }
  t->fired = -1;
  if (cli_open_trace(t->path, problems, &trace)) return -1;
  index_trace(t, trace);
  mprof_trace_close(trace);
  if (t->index && tell_damage) count_damage(t, problems);
  if (plan_trace(t)) return say_unread(t);
  return 0;
}

/* Read the trace t whole (a file, or standard input for "-"), check it
 * opens and decodes (damage is told and counted; *events: its events),
 * and plan what the page gets of it.  0, or -1 after saying why. */
static int load_whole(trace_file_t *t, int *problems, uint64_t *events) {
  mprof_trace_t *trace;
  if (read_file(t)) {
    fprintf(stderr, "mprof html: %s: %s\n", shown_name(t), strerror(errno));
    return -1;
  }
  if (cli_open_trace_memory(t->data, t->size, shown_name(t), problems, &trace))
    return -1;
  cli_trace_events(trace, "html", count_event, events, problems);
  find_capture(t, trace);
  mprof_trace_close(trace);
  if (plan_trace(t)) {
    fprintf(stderr, "mprof html: %s: out of memory\n", shown_name(t));
    return -1;
  }
  return 0;
}

/* Whether the page's memory would be over its budget (MPROF_HTML_BUDGET
 * bytes, else 1.5 GiB) with the file of t and the whole model of its
 * events, about MODEL_BYTES_PER_EVENT each (the page's
 * reading.modelBytesPerEvent): a dense trace of 256 MiB (27 M events)
 * took 6.8 times its size. */
#define MODEL_BYTES_PER_EVENT 64

static int over_budget(const trace_file_t *t, uint64_t events) {
  const char *v = getenv("MPROF_HTML_BUDGET");
  char *end;
  unsigned long long budget = v && *v ? strtoull(v, &end, 10) : 0;
  if (!v || !*v || *end) budget = (unsigned long long)3 << 29;
  return t->size + events * MODEL_BYTES_PER_EVENT > budget;
}

/* Load each trace: one by its index if it may be (one trace, in a
 * directory, from a file) and it is big, or its model would be; else
 * whole. */
static int load_traces(trace_file_t *traces, int count, int may_index,
                       int *problems) {
  for (int i = 0; i < count; i++) {
    trace_file_t *t = &traces[i];
    uint64_t events = 0;
    if (cli_input_check("html", t->path)) return -1;
    if (mprof_trace_is_merged(t->path) && open_member(t, problems)) return -1;
    if (is_indexed(t, may_index)) {
      if (load_indexed(t, problems, 1)) return -1;
      continue;
    }
    if (load_whole(t, problems, &events)) return -1;
    if (!may_index || is_stdin(t) || !over_budget(t, events)) continue;
    free(t->data);
    free(t->spans);
    t->data = NULL;
    t->spans = NULL;
    if (load_indexed(t, problems, 0)) return -1;
  }
  return 0;
}

static size_t all_slices(const trace_file_t *traces, int count) {
  size_t n = 0;
  for (int i = 0; i < count; i++) n += traces[i].slices;
  return n;
}

int cmd_html(int argc, char **argv) {
  trace_file_t traces[2] = {{0}};
  const char *out = NULL;
  int single = 0, count = 0, problems = 0, redact = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0) return usage(stdout, CLI_OK);
    if (strcmp(argv[i], "--single-file") == 0)
      single = 1;
    else if (strcmp(argv[i], "--redact") == 0)
      redact = 1;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      out = argv[++i];
    else if (strcmp(argv[i], "-o") == 0)
      return cli_fail(CLI_USAGE, "html", "-o",
                      "needs a value; see mprof help html");
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_fail(CLI_USAGE, "html", argv[i],
                      "no such option; see mprof help html");
    else if (count < 2)
      traces[count++].path = argv[i];
    else
      return cli_fail(CLI_USAGE, "html", argv[i],
                      "a third trace; html shows "
                      "one, or two to compare");
  }
  if (count == 0)
    return cli_missing("html", "TRACE", "trace.ctf -o trace-html");
  if (!out)
    return cli_fail(CLI_USAGE, "html", "-o",
                    "missing; name the directory to "
                    "write, as mprof html %s -o trace-html",
                    traces[0].path);
  char *paths[2] = {(char *)traces[0].path, (char *)traces[1].path};
  cli_redacted_t redacted = {.count = 0};
  int err = redact && cli_redact_inputs(paths, count, &problems, &redacted);
  for (int i = 0; redact && !err && i < count; i++)
    traces[i].path = redacted.paths[i];
  if (!err) err = load_traces(traces, count, !single && count == 1, &problems);
  html_frame_t frames[HTML_FRAME_COUNT] = {{0}};
  /* one trace, not in slices: its first frame (none if its model cannot
   * be built).  A trace in slices is big: its model would cost mprof html
   * the time and memory of a load; the page draws it from its first slice
   * on instead. */
  int framed = !err && count == 1 && !traces[0].slices &&
               html_frame_build(traces[0].data, traces[0].size, frames) == 0;
  cli_progress_t progress; /* writing a big trace's slices takes seconds */
  cli_progress_start(&progress, "html", 0);
  cli_progress_phase(&progress, "html: writing", all_slices(traces, count),
                     "slice");
  page_t pg = {traces, count, framed ? frames : NULL, single, &progress};
  if (!err)
    err = single ? write_part(out, PAGE, &pg, 0) : write_directory(out, &pg);
  cli_progress_finish(&progress);
  html_frame_free(frames);
  for (int i = 0; i < count; i++) {
    free(traces[i].data);
    free(traces[i].piece);
    if (traces[i].file) fclose(traces[i].file);
    free(traces[i].spans);
    free(traces[i].member);
    mprof_index_free(traces[i].index);
    mprof_capture_free(&traces[i].capture);
  }
  cli_redacted_remove(&redacted);
  return err ? CLI_FAILED : problems ? CLI_DAMAGED : CLI_OK;
}
