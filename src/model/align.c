/* align.c -- put the traces of a combined model (mprof_model_load_many) on
 * one clock from the messages they exchanged.  Threads that send or receive
 * bytes are labelled (docs/interop.md):
 *
 *   net send tcp SRC DST OFFSET LEN    net recv tcp SRC DST OFFSET LEN
 *   net send udp SRC DST HASH LEN      net recv udp SRC DST HASH LEN
 *
 * A receive of TCP bytes [o, o+len) cannot happen before the send that
 * holds byte o; a UDP datagram cannot arrive before the first send of the
 * same payload hash.  Each matched pair bounds the receiver's clock
 * against the sender's from one side; messages both ways bound it from
 * both (as NTP does), and the midpoint of what remains is taken.  Traces
 * are placed one by one, each against those already placed, starting
 * from trace 0.
 */
#include <string.h>

#include "model_internal.h"

/* A send or receive label, parsed. */
typedef struct message_s {
  const char *key; /* "tcp SRC DST" or "udp SRC DST HASH" */
  size_t key_length;
  uint64_t offset; /* TCP: bytes before this in that direction */
  uint64_t length;
  int64_t time_ns;
  uint32_t trace;
  uint32_t thread; /* the labelled thread */
} message_t;

/* A matched pair: the receiver's trace minus the sender's must be moved
 * by at least `least_ns`. */
typedef struct bound_s {
  uint32_t sender, receiver;
  int64_t least_ns;
  mprof_message_t message;
} bound_t;

/* Parse a decimal (digits only) of [p, end); 0 on success. */
static int parse_decimal(const char *p, const char *end, uint64_t *out) {
  uint64_t v = 0;
  if (p == end || end - p > 19) return -1;
  for (; p < end; p++) {
    if (*p < '0' || *p > '9') return -1;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  *out = v;
  return 0;
}

static int is_hex16(const char *p, const char *end) {
  if (end - p != 16) return 0;
  for (; p < end; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return 0;
  return 1;
}

/* Split text into exactly n space-separated non-empty fields. */
static int split(const char *text, const char **starts, const char **ends,
                 int n) {
  const char *p = text;
  for (int i = 0; i < n; i++) {
    starts[i] = p;
    while (*p && *p != ' ') p++;
    ends[i] = p;
    if (ends[i] == starts[i] || (i < n - 1 && *p++ != ' ')) return -1;
  }
  return *p ? -1 : 0;
}

/* Parse a label; returns 1 (send), 2 (receive) or 0 (not a message). */
static int parse_message(const char *text, message_t *msg) {
  size_t n = strlen(text);
  int kind = n > 9 && !memcmp(text, "net send ", 9)   ? 1
             : n > 9 && !memcmp(text, "net recv ", 9) ? 2
                                                      : 0;
  const char *s[5], *e[5];
  if (!kind || split(text + 9, s, e, 5)) return 0;
  int tcp = e[0] - s[0] == 3 && !memcmp(s[0], "tcp", 3);
  int udp = e[0] - s[0] == 3 && !memcmp(s[0], "udp", 3);
  if (parse_decimal(s[4], e[4], &msg->length)) return 0;
  msg->offset = 0;
  if (tcp ? parse_decimal(s[3], e[3], &msg->offset)
          : !udp || !is_hex16(s[3], e[3]))
    return 0;
  msg->key = s[0];
  msg->key_length = (size_t)((tcp ? e[2] : e[3]) - s[0]);
  return kind;
}

static int compare_messages(const void *pa, const void *pb) {
  const message_t *a = pa, *b = pb;
  size_t n = a->key_length < b->key_length ? a->key_length : b->key_length;
  int c = memcmp(a->key, b->key, n);
  if (c) return c;
  if (a->key_length != b->key_length)
    return a->key_length < b->key_length ? -1 : 1;
  if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
  return a->time_ns < b->time_ns ? -1 : a->time_ns > b->time_ns;
}

static int same_key(const message_t *a, const message_t *b) {
  return a->key_length == b->key_length &&
         !memcmp(a->key, b->key, a->key_length);
}

/* The earliest send holding the first byte of receive r (sends sorted),
 * or NULL. */
static const message_t *send_of(const message_t *sends, size_t n,
                                const message_t *r) {
  message_t probe = *r; /* the last send at or before (key, offset) */
  probe.time_ns = INT64_MAX;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (compare_messages(&sends[mid], &probe) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || !same_key(&sends[lo - 1], r)) return NULL;
  const message_t *s = &sends[lo - 1];
  while (s > sends && same_key(s - 1, s) && s[-1].offset == s->offset)
    s--; /* the same bytes sent again: the first send */
  return r->offset < s->offset + (s->length ? s->length : 1) ? s : NULL;
}

/* Every label that is a send or receive, into two arrays. */
static int collect_messages(const mprof_model_t *m, message_t **sends,
                            size_t *send_count, message_t **receives,
                            size_t *receive_count) {
  const mprof_model_view_t *v = &m->view;
  size_t send_cap = 0, receive_cap = 0;
  for (size_t i = 0; i < v->label_count; i++) {
    mprof_label_t label = mprof_label_at(v, i);
    message_t msg;
    int kind = parse_message(v->strings + label.text, &msg);
    if (!kind) continue;
    msg.time_ns = label.time_ns;
    msg.thread = label.thread;
    msg.trace = MPROF_MODEL_THREAD_TRACE(v->threads[msg.thread].id);
    message_t **array = kind == 1 ? sends : receives;
    size_t *count = kind == 1 ? send_count : receive_count;
    if (mprof__grow(array, kind == 1 ? &send_cap : &receive_cap, *count + 1,
                    sizeof **array))
      return MPROF_ENOMEM;
    (*array)[(*count)++] = msg;
  }
  return 0;
}

/* Pairs of matched send and receive in different traces (of the first
 * trace_count). */
static int match_messages(const mprof_model_t *m, size_t trace_count,
                          bound_t **bounds, size_t *bound_count) {
  message_t *sends = NULL, *receives = NULL;
  size_t send_count = 0, receive_count = 0, cap = 0;
  int err = collect_messages(m, &sends, &send_count, &receives, &receive_count);
  if (!err && send_count)
    qsort(sends, send_count, sizeof *sends, compare_messages);
  for (size_t i = 0; !err && i < receive_count; i++) {
    const message_t *r = &receives[i];
    const message_t *s = send_of(sends, send_count, r);
    if (!s || s->trace == r->trace || s->trace >= trace_count ||
        r->trace >= trace_count)
      continue;
    if (mprof__grow(bounds, &cap, *bound_count + 1, sizeof **bounds)) {
      err = MPROF_ENOMEM;
      break;
    }
    (*bounds)[(*bound_count)++] =
        (bound_t){s->trace,
                  r->trace,
                  s->time_ns - r->time_ns,
                  {s->thread, r->thread, s->time_ns, r->time_ns}};
  }
  free(sends);
  free(receives);
  return err;
}

/* Place trace t against the traces already placed, if bounds join them. */
static int place(const bound_t *bounds, size_t n, uint32_t t,
                 mprof_alignment_t *out) {
  int64_t low = INT64_MIN, high = INT64_MAX;
  uint32_t messages = 0;
  for (size_t i = 0; i < n; i++) {
    const bound_t *b = &bounds[i];
    if (b->receiver == t && out[b->sender].status <= MPROF_ALIGN_ONE_WAY) {
      int64_t least = b->least_ns + out[b->sender].offset_ns;
      if (least > low) low = least;
      messages++;
    } else if (b->sender == t &&
               out[b->receiver].status <= MPROF_ALIGN_ONE_WAY) {
      int64_t most = out[b->receiver].offset_ns - b->least_ns;
      if (most < high) high = most;
      messages++;
    }
  }
  if (!messages) return 0;
  mprof_alignment_t *a = &out[t];
  a->low_ns = low;
  a->high_ns = high;
  a->messages = messages;
  if (low > high) {
    a->status = MPROF_ALIGN_CONFLICT;
  } else if (low != INT64_MIN && high != INT64_MAX) {
    a->status = MPROF_ALIGN_BOTH;
    a->offset_ns = low + (high - low) / 2;
  } else {
    a->status = MPROF_ALIGN_ONE_WAY; /* move no further than needed */
    a->offset_ns = low > 0 ? low : high < 0 ? high : 0;
  }
  return 1;
}

int mprof_model_align(const mprof_model_t *m, size_t trace_count,
                      mprof_alignment_t *out) {
  if (!m->finished || trace_count == 0) return MPROF_EINVAL;
  for (size_t i = 0; i < trace_count; i++)
    out[i] = (mprof_alignment_t){0, INT64_MIN, INT64_MAX, 0,
                                 i ? MPROF_ALIGN_NONE : MPROF_ALIGN_REFERENCE};
  bound_t *bounds = NULL;
  size_t n = 0;
  int err = match_messages(m, trace_count, &bounds, &n);
  for (int progress = 1; !err && progress;) {
    progress = 0;
    for (uint32_t t = 1; t < trace_count; t++)
      if (out[t].status == MPROF_ALIGN_NONE && place(bounds, n, t, out))
        progress = 1;
  }
  free(bounds);
  return err;
}

int mprof_model_messages(const mprof_model_t *m, mprof_message_fn fn,
                         void *context) {
  if (!m->finished) return MPROF_EINVAL;
  bound_t *bounds = NULL;
  size_t n = 0;
  int err = match_messages(m, MPROF_MODEL_MAX_TRACES, &bounds, &n);
  for (size_t i = 0; !err && i < n; i++)
    if (fn(context, &bounds[i].message)) break;
  free(bounds);
  return err;
}
