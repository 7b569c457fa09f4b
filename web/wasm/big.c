/* big.c -- a trace too big for the page's memory, read by its index
 * (src/index, docs/index.md): the page holds the trace's head (header,
 * metadata, slot states) and the index, and reads packets with
 * File.slice() (or from `mprof html`'s slices) only when a window needs
 * them.
 *
 * Packets reach the reader in an image: the trace's head, its packet
 * count set to the slots the image holds, then packets copied from the
 * file, each whole in a slot of its own.  The reader sorts them (by
 * stream, then sequence) as it sorts a file's, so an image of some
 * packets is read as the file's packets would be.
 *
 * The index is the one `mprof index` writes, checked against the trace
 * (its size, its uuid, the file's modification time), or built here from
 * images of the file's slots a stretch at a time: one index per stretch,
 * its packets' offsets those of the image, each stretch's place in the
 * file remembered.  A window's packets are those each stretch's index
 * names for it (mprof_index_window()); the density the first frame draws
 * is the stretches' pyramids summed per stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "index_internal.h"
#include "web.h"

/* Bins a stretch indexed here keeps per stream, at its finest. */
#define STRETCH_BINS 1024

/* The index of the packets of one stretch of the file's slots (or of
 * them all), and where that stretch starts in the file. */
typedef struct stretch_s {
  mprof_index_t *index;
  uint64_t file_offset; /* of the image's first slot */
} stretch_t;

struct mprof_web_big_s {
  uint8_t *head; /* the bytes before the first packet */
  size_t head_size;
  uint64_t file_size;
  uint32_t packet_size;
  uint8_t uuid[16];
  char process[256]; /* the process that wrote it, as its metadata says */
  stretch_t *stretches;
  size_t stretch_count;
  uint64_t origin_ticks, last_ticks, freq;
  uint64_t *rows; /* the ring streams' instances, ascending */
  size_t row_count;
  double *window;      /* the last window's packets' file offsets */
  size_t window_count; /* and how many */
  float *density;      /* the last density, rows x columns */
  char text[512];      /* the last answer in words */
};

void mprof_web_big_close(mprof_web_big_t *b) {
  if (!b) return;
  for (size_t i = 0; i < b->stretch_count; i++)
    mprof_index_free(b->stretches[i].index);
  free(b->stretches);
  free(b->rows);
  free(b->window);
  free(b->density);
  free(b->head);
  free(b);
}

static size_t image_size(const mprof_web_big_t *b, size_t slots) {
  return b->head_size + slots * (size_t)b->packet_size;
}

/* An image of `slots` slots, the head in front: the reader's view of
 * some packets of the trace; NULL if its size is past size_t (32 bits
 * in the page, and a packet may be 1 GiB). */
static uint8_t *image_new(const mprof_web_big_t *b, size_t slots) {
  if (b->packet_size &&
      slots > (SIZE_MAX - b->head_size) / (size_t)b->packet_size)
    return NULL;
  size_t size = image_size(b, slots);
  uint8_t *image = calloc(1, size ? size : 1);
  if (!image) return NULL;
  memcpy(image, b->head, b->head_size);
  mprof__put_u32(image + MPROF__TH_PACKET_COUNT, (uint32_t)slots);
  /* a stopped trace: the slot states name the file's slots, not these */
  mprof__put_u32(image + MPROF__TH_STATE, 0);
  return image;
}

static void quiet(void *context, const char *message) {
  (void)context;
  (void)message;
}

static int image_open(const mprof_web_big_t *b, const uint8_t *image,
                      size_t slots, mprof_trace_t **trace) {
  return mprof_trace_open_memory(image, image_size(b, slots), "trace", quiet,
                                 NULL, trace);
}

mprof_web_big_t *mprof_web_big_new(const uint8_t *head, size_t head_size,
                                   double file_size) {
  mprof_web_big_t *b = calloc(1, sizeof *b);
  if (!b || head_size < MPROF__TH_PACKETS_OFFSET + 8 ||
      !(b->head = malloc(head_size))) {
    mprof_web_big_close(b);
    return NULL;
  }
  memcpy(b->head, head, head_size);
  b->head_size = head_size;
  b->file_size = (uint64_t)file_size;
  b->packet_size = mprof__get_u32(head + MPROF__TH_PACKET_SIZE);
  memcpy(b->uuid, head + MPROF__TH_UUID, 16);
  /* the head alone must read as a trace (of no packets) */
  uint8_t *image = image_new(b, 0);
  mprof_trace_t *trace = NULL;
  int bad = !image || image_open(b, image, 0, &trace);
  if (!bad &&
      mprof_trace_process_name(trace, b->process, sizeof b->process) < 0)
    b->process[0] = 0;
  mprof_trace_close(trace);
  free(image);
  if (bad) {
    mprof_web_big_close(b);
    return NULL;
  }
  b->freq = mprof__get_u64(head + MPROF__TH_CLOCK_FREQ);
  return b;
}

uint32_t mprof_web_big_packet_size(const mprof_web_big_t *b) {
  return b->packet_size;
}

/* --- The index ------------------------------------------------------------ */

/* The rows (ring streams, by instance) and the time span of the
 * stretches' indexes. */
static int survey(mprof_web_big_t *b) {
  b->origin_ticks = UINT64_MAX;
  b->last_ticks = 0;
  b->row_count = 0;
  for (size_t s = 0; s < b->stretch_count; s++) {
    const mprof_index_t *x = b->stretches[s].index;
    if (mprof_index_events(x)) {
      uint64_t first = mprof_index_first_ticks(x),
               last = mprof_index_last_ticks(x);
      if (first < b->origin_ticks) b->origin_ticks = first;
      if (last > b->last_ticks) b->last_ticks = last;
    }
    size_t n = mprof_index_stream_count(x);
    uint64_t *rows = realloc(b->rows, (b->row_count + n + 1) * sizeof *rows);
    if (!rows) return MPROF_ENOMEM;
    b->rows = rows;
    for (size_t i = 0; i < n; i++) {
      const mprof_index_stream_t *st = mprof_index_stream(x, i);
      size_t at = 0;
      while (at < b->row_count && rows[at] < st->instance) at++;
      if (st->stream_class != 0 ||
          (at < b->row_count && rows[at] == st->instance))
        continue;
      memmove(rows + at + 1, rows + at, (b->row_count - at) * sizeof *rows);
      rows[at] = st->instance;
      b->row_count++;
    }
  }
  if (b->origin_ticks == UINT64_MAX) b->origin_ticks = b->last_ticks = 0;
  return 0;
}

static int add_stretch(mprof_web_big_t *b, mprof_index_t *index,
                       uint64_t file_offset) {
  stretch_t *s =
      realloc(b->stretches, (b->stretch_count + 1) * sizeof *b->stretches);
  if (!s) {
    mprof_index_free(index);
    return MPROF_ENOMEM;
  }
  b->stretches = s;
  s[b->stretch_count++] = (stretch_t){index, file_offset};
  return survey(b);
}

/* The key of the trace file: its size and uuid, and its modification
 * time, which the page knows to the ms only: the index's own, if that
 * is the same ms. */
static mprof_index_key_t file_key(const mprof_web_big_t *b,
                                  const uint8_t *index, size_t size,
                                  double mtime_ms) {
  mprof_index_key_t key = {b->file_size, (int64_t)mtime_ms * 1000000, {0}};
  memcpy(key.uuid, b->uuid, 16);
  if (size >= 32) {
    int64_t theirs = (int64_t)mprof__get_u64(index + 24);
    if (theirs / 1000000 == (int64_t)mtime_ms || mtime_ms < 0)
      key.mtime_ns = theirs;
  }
  return key;
}

const char *mprof_web_big_use_index(mprof_web_big_t *b, const uint8_t *bytes,
                                    size_t size, double mtime_ms) {
  mprof_index_key_t key = file_key(b, bytes, size, mtime_ms);
  mprof_index_t *index;
  const char *why = NULL;
  int err = mprof_index_parse(bytes, size, &key, &index, &why);
  if (!err && b->stretch_count) err = MPROF_EINVAL, why = "a second index";
  if (!err) err = add_stretch(b, index, b->head_size);
  if (!err) return "";
  snprintf(b->text, sizeof b->text, "%s", why ? why : mprof_strerror(err));
  return b->text;
}

uint8_t *mprof_web_big_image(const mprof_web_big_t *b, size_t slots) {
  return image_new(b, slots);
}

/* Let go of what a stretch's index holds that the page never reads, so
 * that the stretches of a trace of any size fit: its packets' cells
 * (what an extension reuses) and its levels finer than a STRETCH_BINS-th
 * of its span (a window that narrow is drawn from its model, unless its
 * packets are over the budget, and then its density is that coarse). */
static void coarsen(mprof_index_t *x) {
  free(x->cells);
  free(x->cell_first);
  x->cells = NULL;
  x->cell_first = NULL;
  x->cell_count = 0;
  double span_ns =
      (double)(mprof_index_last_ticks(x) - mprof_index_first_ticks(x)) * 1e9 /
      (double)x->clock_freq_hz;
  size_t k = 0;
  while (k + 1 < x->level_count &&
         (double)((uint64_t)1 << (x->finest_log2_ns + k)) * STRETCH_BINS <
             span_ns)
    k++;
  size_t from = x->level_first[k];
  memmove(x->bins, x->bins + from, (x->bin_count - from) * sizeof *x->bins);
  x->bin_count -= from;
  mprof_index_bin_t *kept =
      realloc(x->bins, (x->bin_count + 1) * sizeof *x->bins);
  if (kept) x->bins = kept;
  for (size_t level = k; level <= x->level_count; level++)
    x->level_first[level - k] = x->level_first[level] - from;
  x->level_count -= k;
  x->finest_log2_ns += (unsigned)k;
}

int mprof_web_big_index_image(mprof_web_big_t *b, uint8_t *image, size_t slots,
                              double file_offset) {
  mprof_trace_t *trace;
  mprof_index_t *index = NULL;
  mprof_index_key_t key = {0};
  int err = image_open(b, image, slots, &trace);
  if (!err) {
    err = mprof_index_build(trace, &key, 1, &index);
    mprof_trace_close(trace);
  }
  if (!err) coarsen(index);
  free(image);
  return err ? err : add_stretch(b, index, (uint64_t)file_offset);
}

/* --- The first frame: a density ------------------------------------------ */

static double ticks_ns(const mprof_web_big_t *b, uint64_t ticks) {
  return ((double)ticks - (double)b->origin_ticks) * 1e9 / (double)b->freq;
}

static uint64_t ns_ticks(const mprof_web_big_t *b, double ns) {
  double t = (double)b->origin_ticks + ns * (double)b->freq / 1e9;
  return t <= 0 ? 0 : t >= 1.8e19 ? UINT64_MAX : (uint64_t)t;
}

const char *mprof_web_big_summary(mprof_web_big_t *b) {
  uint64_t events = 0, packets = 0;
  for (size_t s = 0; s < b->stretch_count; s++) {
    events += mprof_index_events(b->stretches[s].index);
    packets += mprof_index_packet_count(b->stretches[s].index);
  }
  snprintf(b->text, sizeof b->text,
           "{\"duration\":%.0f,\"events\":%llu,\"packets\":%llu,"
           "\"rows\":%zu,\"indexes\":%zu}",
           ticks_ns(b, b->last_ticks), (unsigned long long)events,
           (unsigned long long)packets, b->row_count, b->stretch_count);
  return b->text;
}

const char *mprof_web_big_process(const mprof_web_big_t *b) {
  return b->process;
}

double mprof_web_big_row(const mprof_web_big_t *b, size_t row) {
  return row < b->row_count ? (double)b->rows[row] : -1;
}

/* The level of x whose bins are the widest no wider than ns (else its
 * finest). */
static size_t level_for(const mprof_index_t *x, double ns) {
  size_t best = 0, levels = mprof_index_level_count(x);
  for (size_t k = 0; k < levels; k++) {
    unsigned log2_ns;
    const mprof_index_bin_t *bins;
    mprof_index_level(x, k, &log2_ns, &bins);
    if ((double)((uint64_t)1 << log2_ns) <= ns) best = k;
  }
  return best;
}

static size_t row_of(const mprof_web_big_t *b, uint64_t instance) {
  size_t lo = 0, hi = b->row_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (b->rows[mid] < instance)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Spread events over the columns that [a, z) ns covers, by share. */
static void spread(float *row, size_t columns, double t0, double column_ns,
                   double a, double z, double events) {
  double c0 = (a - t0) / column_ns, c1 = (z - t0) / column_ns;
  if (c1 <= 0 || c0 >= (double)columns) return;
  double width = c1 - c0 > 0 ? c1 - c0 : 1;
  for (size_t c = c0 < 0 ? 0 : (size_t)c0; c < columns && (double)c < c1; c++) {
    double lo = c0 > (double)c ? c0 : (double)c;
    double hi = c1 < (double)c + 1 ? c1 : (double)c + 1;
    if (c1 == c0) hi = lo + 1;
    row[c] += (float)(events * (hi - lo) / width);
  }
}

static void density_of(const mprof_web_big_t *b, const mprof_index_t *x,
                       double t0, double column_ns, size_t columns) {
  unsigned log2_ns;
  const mprof_index_bin_t *bins;
  size_t n = mprof_index_level(x, level_for(x, column_ns), &log2_ns, &bins);
  double width = (double)((uint64_t)1 << log2_ns);
  double start = ticks_ns(b, mprof_index_start_ticks(x));
  for (size_t i = 0; i < n; i++) {
    const mprof_index_stream_t *st = mprof_index_stream(x, bins[i].stream);
    if (st->stream_class != 0) continue;
    double a = start + (double)bins[i].bin * width;
    spread(b->density + row_of(b, st->instance) * columns, columns, t0,
           column_ns, a, a + width, (double)bins[i].events);
  }
}

float *mprof_web_big_density(mprof_web_big_t *b, double t0_ns, double t1_ns,
                             size_t columns) {
  free(b->density);
  b->density = calloc(b->row_count * columns + 1, sizeof *b->density);
  if (!b->density || !columns || !(t1_ns > t0_ns)) return b->density;
  double column_ns = (t1_ns - t0_ns) / (double)columns;
  for (size_t s = 0; s < b->stretch_count; s++)
    density_of(b, b->stretches[s].index, t0_ns, column_ns, columns);
  return b->density;
}

/* --- A window's packets, and its model ------------------------------------ */

/* Whether packet p of index x is a names packet. */
static int is_names(const mprof_index_t *x, const mprof_index_packet_t *p) {
  return mprof_index_stream(x, p->stream)->stream_class != 0;
}

static int add_window_packets(mprof_web_big_t *b, const stretch_t *s,
                              uint64_t from, uint64_t to, int names) {
  size_t *packets, count;
  int err = mprof_index_window(s->index, from, to, &packets, &count);
  if (err) return err;
  double *w = realloc(b->window, (b->window_count + count + 1) * sizeof *w);
  if (w) {
    b->window = w;
    for (size_t i = 0; i < count; i++) {
      const mprof_index_packet_t *p = mprof_index_packet(s->index, packets[i]);
      if (!names && is_names(s->index, p)) continue;
      w[b->window_count++] =
          (double)(s->file_offset + (p->offset - b->head_size));
    }
  }
  free(packets);
  return w ? 0 : MPROF_ENOMEM;
}

/* The packets a model of [t0_ns, t1_ns] needs (a tick more each side: ns
 * and ticks round), with the names packets or (names 0) without them, its
 * threads then unnamed: how many; their file offsets are
 * mprof_web_big_window_offsets()'s. */
size_t mprof_web_big_window(mprof_web_big_t *b, double t0_ns, double t1_ns,
                            int names) {
  uint64_t from = ns_ticks(b, t0_ns), to = ns_ticks(b, t1_ns);
  from = from ? from - 1 : 0;
  to = to < UINT64_MAX ? to + 1 : to;
  b->window_count = 0;
  for (size_t s = 0; s < b->stretch_count; s++)
    if (add_window_packets(b, &b->stretches[s], from, to, names)) return 0;
  return b->window_count;
}

const double *mprof_web_big_window_offsets(const mprof_web_big_t *b) {
  return b->window;
}

/* The model of the packets in image (mprof_web_big_image(), which this
 * frees), time counted from the trace's first event as a whole model's. */
mprof_web_t *mprof_web_big_open_window(mprof_web_big_t *b, uint8_t *image,
                                       size_t slots) {
  mprof_trace_t *trace;
  mprof_model_t *model = NULL;
  int err = image_open(b, image, slots, &trace);
  if (!err) {
    size_t *all = malloc((slots + 1) * sizeof *all);
    size_t count = mprof_trace_packet_count(trace);
    for (size_t i = 0; all && i < count; i++) all[i] = i;
    err = all ? mprof_model_load_packets(trace, all, count, b->origin_ticks,
                                         &model)
              : MPROF_ENOMEM;
    free(all);
    mprof_trace_close(trace);
  }
  free(image);
  return mprof_web_of_model(model, err);
}
