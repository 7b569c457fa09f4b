/* cmd_html.c -- `mprof html TRACE [TRACE2] -o DIR` and `mprof html
 * --single-file TRACE [TRACE2] -o FILE.html`: the browser viewer with the
 * traces in it (two traces: the compare view).
 *
 * The page's assets are embedded in this program (web/web_assets.h).  The
 * wasm and the traces travel as base64 in a classic script (data.js, or
 * inline in the single file), because pages opened from file:// may not
 * fetch files or load modules.  A page of one trace also holds its first
 * frame, built here (html_frame.c), in a small script before viewer.js,
 * which paints it at once and reads the rest (data.js) after. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "html_frame.h"
#include "mprof/scene.h"
#include "web_assets.h"

#define STYLE_MARK "<!--MPROF:STYLE-->"
#define SCRIPTS_MARK "<!--MPROF:SCRIPTS-->"

static const mprof_web_asset_t *asset(const char *name) {
  for (const mprof_web_asset_t *a = mprof_web_assets; a->name; a++)
    if (strcmp(a->name, name) == 0)
      return a;
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
    if (i + 1 < size)
      v |= (uint32_t)data[i + 1] << 8;
    if (i + 2 < size)
      v |= data[i + 2];
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
  const char *path; /* "-": standard input */
  unsigned char *data;
  size_t size;
} trace_file_t;

static int is_stdin(const trace_file_t *t) {
  return strcmp(t->path, "-") == 0;
}

/* Read the whole file (or standard input); -1 with errno set if not. */
static int read_file(trace_file_t *t) {
  FILE *f = is_stdin(t) ? stdin : fopen(t->path, "rb");
  if (!f)
    return -1;
  size_t cap = 1 << 16;
  t->data = malloc(cap);
  t->size = 0;
  size_t n;
  while (t->data && (n = fread(t->data + t->size, 1, cap - t->size, f)) > 0) {
    t->size += n;
    if (t->size == cap) {
      unsigned char *d = realloc(t->data, cap *= 2);
      if (!d)
        free(t->data);
      t->data = d;
    }
  }
  int err = ferror(f) ? EIO : !t->data ? ENOMEM : 0;
  if (f != stdin)
    fclose(f);
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

/* Runs of zeros at least this long are left out of the page's copy of a
 * trace (most of a trace file can be packets never written). */
#define ZERO_RUN 4096

static size_t zeros_at(const unsigned char *data, size_t at, size_t size) {
  size_t end = at;
  while (end < size && data[end] == 0)
    end++;
  return end - at;
}

/* A trace's bytes as [[offset, "base64"], ...]: the parts between runs of
 * ZERO_RUN zeros or more, which the page fills in. */
static void put_parts(FILE *f, const unsigned char *data, size_t size) {
  const char *sep = "";
  fputc('[', f);
  for (size_t at = 0; at < size;) {
    size_t end = at, run;
    while ((run = zeros_at(data, end, size)) < ZERO_RUN && end < size)
      end += run ? run : 1;
    if (end > at) {
      fprintf(f, "%s[%zu, \"", sep, at);
      put_base64(f, data + at, end - at);
      fputs("\"]", f);
      sep = ", ";
    }
    at = end + run;
  }
  fputc(']', f);
}

/* window.MPROF_DATA: the wasm and the traces. */
static void put_data(FILE *f, const trace_file_t *traces, int count) {
  const mprof_web_asset_t *wasm = asset("mprof.wasm");
  fputs("window.MPROF_DATA = {wasm: \"", f);
  put_base64(f, wasm->data, wasm->size);
  fputs("\", traces: [", f);
  for (int i = 0; i < count; i++) {
    fputs(i ? ", {name: " : "{name: ", f);
    put_js_string(f, base_name(&traces[i]));
    fprintf(f, ", size: %zu, parts: ", traces[i].size);
    put_parts(f, traces[i].data, traces[i].size);
    fputc('}', f);
  }
  fputs("]};\n", f);
}

/* window.MPROF_FRAME: the first frame (html_frame.h) of the trace named
 * name; data_src: the script holding MPROF_DATA, or NULL where it follows
 * inline. */
static void put_frame(FILE *f, const html_frame_t *frame, const char *name,
                      const char *data_src) {
  fputs("window.MPROF_FRAME = {name: ", f);
  put_js_string(f, name);
  fprintf(f, ", width: %d, height: %d, row: %d, t0: %.17g, t1: %.17g",
          HTML_FRAME_WIDTH_PX, HTML_FRAME_HEIGHT_PX, HTML_FRAME_ROW_PX,
          frame->t0_ns, frame->t1_ns);
  fputs(", palette: [", f);
  for (int c = 0; c < MPROF_COLOUR_COUNT; c++)
    fprintf(f, "%s\"#%06x\"", c ? ", " : "",
            (unsigned)mprof_scene_palette[c].rgb);
  fputs("], prims: \"", f);
  put_base64(f, frame->prims, frame->prims_size);
  fputs("\", text: \"", f);
  put_base64(f, (const unsigned char *)frame->text, frame->text_size);
  fputc('"', f);
  if (data_src) {
    fputs(", data: ", f);
    put_js_string(f, data_src);
  }
  fputs("};\n", f);
}

/* What is written: the traces, their first frame (NULL: none) and whether
 * in a single file. */
typedef struct page_s {
  const trace_file_t *traces;
  int count;
  const html_frame_t *frame;
  int single;
} page_t;

/* The data: inline in a single file, else data.js. */
static void put_data_script(FILE *f, const page_t *pg) {
  if (!pg->single) {
    fputs("<script src=\"data.js\"></script>\n", f);
    return;
  }
  fputs("<script>\n", f);
  put_data(f, pg->traces, pg->count);
  fputs("</script>\n", f);
}

/* The scripts of a page, viewer.js inline (no fetch before the first
 * frame).  With a first frame: the frame, viewer.js, then the data inline
 * (single file; in a directory viewer.js loads data.js once the frame is
 * shown); without: the data, then viewer.js. */
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
  if (pg->frame && pg->single)
    put_data_script(f, pg);
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

/* Write one file of the output (TRACE: the trace file pg->traces[trace]);
 * returns 0, or -1 after saying why. */
static int write_part(const char *path, part_t part, const page_t *pg,
                      int trace) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "mprof: html: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (part == PAGE)
    put_page(f, pg);
  if (part == DATA)
    put_data(f, pg->traces, pg->count);
  if (part == TRACE)
    fwrite(pg->traces[trace].data, 1, pg->traces[trace].size, f);
  if (fclose(f) != 0) {
    fprintf(stderr, "mprof: html: %s: write failed\n", path);
    return -1;
  }
  return 0;
}

static int write_directory(const char *dir, const page_t *pg) {
  static const struct {
    const char *name;
    part_t part;
  } parts[] = {{"index.html", PAGE}, {"data.js", DATA}};
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "mprof: html: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  char path[4096];
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, parts[i].name);
    if (write_part(path, parts[i].part, pg, 0))
      return -1;
  }
  for (int i = 0; i < pg->count; i++) { /* the traces, to download */
    snprintf(path, sizeof path, "%s/%s", dir, base_name(&pg->traces[i]));
    if (write_part(path, TRACE, pg, i))
      return -1;
  }
  return 0;
}

static int usage(FILE *f, int code) {
  fprintf(
      f, "usage: mprof html [--single-file] TRACE [TRACE2] -o OUT\n"
         "  (a TRACE of - is read from standard input)\n"
         "  Write the browser viewer with the trace in it: a directory OUT\n"
         "  (index.html, assets, the trace) that works from disk or any\n"
         "  static server, or with --single-file one self-contained OUT.html.\n"
         "  Two traces: the compare view (a good run above a bad run, the\n"
         "  first divergence marked).\n");
  return code;
}

/* Read each trace (a file, or standard input for "-"), then check it
 * opens (damage is told and counted). */
static int load_traces(trace_file_t *traces, int count, int *problems) {
  for (int i = 0; i < count; i++) {
    mprof_trace_t *trace;
    if (read_file(&traces[i])) {
      fprintf(stderr, "mprof: html: %s: %s\n", shown_name(&traces[i]),
              strerror(errno));
      return -1;
    }
    if (cli_open_trace_memory(traces[i].data, traces[i].size,
                              shown_name(&traces[i]), problems, &trace))
      return -1;
    mprof_trace_close(trace);
  }
  return 0;
}

int cmd_html(int argc, char **argv) {
  trace_file_t traces[2] = {{0}};
  const char *out = NULL;
  int single = 0, count = 0, problems = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0)
      return usage(stdout, CLI_OK);
    if (strcmp(argv[i], "--single-file") == 0)
      single = 1;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1])
      return usage(stderr, CLI_USAGE);
    else if (count < 2)
      traces[count++].path = argv[i];
    else
      return usage(stderr, CLI_USAGE);
  }
  if (!out || count == 0)
    return usage(stderr, CLI_USAGE);
  int err = load_traces(traces, count, &problems);
  html_frame_t frame = {0};
  /* one trace: its first frame (none if its model cannot be built) */
  int framed = !err && count == 1 &&
               html_frame_build(traces[0].data, traces[0].size, &frame) == 0;
  page_t pg = {traces, count, framed ? &frame : NULL, single};
  if (!err)
    err = single ? write_part(out, PAGE, &pg, 0) : write_directory(out, &pg);
  html_frame_free(&frame);
  for (int i = 0; i < count; i++)
    free(traces[i].data);
  return err ? CLI_FAILED : problems ? CLI_DAMAGED : CLI_OK;
}
