/* uv_trace.c -- the one implementation of libuv tracing: the mprof_uv_*
 * wrappers that mprof/uv.h maps libuv's calls to, and that the LD_PRELOAD
 * shim calls from its own uv_* functions.  They reach the real libuv
 * through mprof__uv_real() only, and record nothing (forwarding each call
 * with the user's own callbacks) unless recording has started.
 *
 * A request is a thread from submission to the return of its callback; a
 * handle a thread from init to the return of its close callback; a loop a
 * thread that runs inside uv_run() and goes idle (mprof_suspend) in a
 * prepare handle of ours, the last thing before each poll.  Callbacks run
 * switched to their thread and switch back to the loop's thread.  See
 * docs/libuv.md for the labels, counters and the network convention.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/format.h"
#include "../record/record.h"
#include "uv_internal.h"

#define REAL (mprof__uv_real())

/* Thread-local state without __tls_get_addr calls in the shim, as the
 * recorder's own (docs/recording.md, "Thread-local storage"). */
#define MPROF__UV_TLS __attribute__((tls_model("initial-exec")))

/* The thread of the loop that uv_run() runs on this OS thread. */
static _Thread_local uint64_t running_loop MPROF__UV_TLS;

/* Nonzero inside a wrapped libuv call that calls another wrapped one
 * through the PLT, which the shim sees too (uv_tcp_init() and
 * uv_udp_init() their _ex forms, uv_poll_init_socket() uv_poll_init(),
 * uv_try_write() uv_try_write2(), uv_fs_poll_start() uv_timer_init() and
 * uv_fs_stat()): the outer call records, the inner one only forwards. */
static _Thread_local int in_wrapped MPROF__UV_TLS;

static mprof_counter_t bytes_read, bytes_written;

/* The label of every write request, hashed once. */
static const char write_label[] = "write";
static uint64_t write_label_hash;

__attribute__((constructor)) static void counters_init(void) {
  bytes_read = mprof_counter_make("uv bytes read");
  bytes_written = mprof_counter_make("uv bytes written");
  write_label_hash = mprof__label_hash(write_label, sizeof write_label - 1);
}

/* Our prepare handles carry this in their data, so uv_walk() skips them. */
static const char poll_mark_tag[] = "mprof poll mark";

/* --- Threads of requests and handles --- */

/* The entry of key, a new thread's, holding cb; NULL if out of memory. */
static mprof__uv_entry_t *entry_add(const void *key, uint64_t thread,
                                    mprof__uv_fn cb) {
  mprof__uv_entry_t *entry = mprof__uv_map_add(key, thread);
  if (entry)
    entry->cb = cb;
  else
    mprof_fail(thread, "mprof: out of memory");
  return entry;
}

/* A new thread for key, created by the current one, with its entry; NULL
 * when not recording (the call then goes through untraced). */
static mprof__uv_entry_t *begin(const void *key, mprof_type_t type,
                                const char *label, mprof__uv_fn cb) {
  if (!mprof_is_started())
    return NULL;
  uint64_t thread = mprof_create(type);
  mprof_label(thread, label);
  return entry_add(key, thread, cb);
}

/* begin() of a write request: its label is hashed once. */
static mprof__uv_entry_t *begin_write(uv_write_t *req, uv_write_cb cb) {
  if (!mprof_is_started())
    return NULL;
  uint64_t thread = mprof_create(MPROF_WRITE);
  mprof__label_hashed(thread, write_label, sizeof write_label - 1,
                      write_label_hash);
  return entry_add(req, thread, (mprof__uv_fn)cb);
}

/* The label "WHAT TARGET" (cut to fit), or "WHAT". */
static void label_text(char *label, size_t size, const char *what,
                       const char *target) {
  if (target)
    snprintf(label, size, "%s %s", what, target);
  else
    snprintf(label, size, "%s", what);
}

/* begin() with the label of label_text(). */
static mprof__uv_entry_t *begin_labelled(const void *key, mprof__uv_fn cb,
                                         mprof_type_t type, const char *what,
                                         const char *target) {
  if (!mprof_is_started())
    return NULL;
  char label[512];
  label_text(label, sizeof label, what, target);
  return begin(key, type, label, cb);
}

/* A synchronous request's thread and the thread that made the call. */
typedef struct sync_s {
  uint64_t thread, caller;
} sync_t;

/* Before a request that libuv runs asynchronously only when it has a
 * callback: with one, begin_labelled(); without (a synchronous call), its
 * thread, created by the current one and switched to while the call runs,
 * in *sync. */
static mprof__uv_entry_t *begin_request(sync_t *sync, const void *req,
                                        mprof__uv_fn cb, mprof_type_t type,
                                        const char *what, const char *target) {
  sync->thread = MPROF_NONE;
  if (cb || !mprof_is_started())
    return cb ? begin_labelled(req, cb, type, what, target) : NULL;
  char label[512];
  label_text(label, sizeof label, what, target);
  sync->caller = mprof_current();
  sync->thread = mprof_create(type);
  mprof_label(sync->thread, label);
  mprof_switch(sync->thread);
  return NULL;
}

/* After the submitting call: a request or handle that failed to start
 * ends now.  Keeps result and errno. */
static int submitted(mprof__uv_entry_t *entry, int result) {
  if (!entry || result >= 0)
    return result;
  int saved = errno;
  mprof_fail(entry->thread, REAL->uv_err_name(result));
  mprof__uv_map_release(mprof__uv_map_take(entry->key));
  errno = saved;
  return result;
}

/* After a request's call: a synchronous one ends now, as others do when
 * their callback returns; an asynchronous one as in submitted().  Keeps
 * result and errno. */
static int end_request(const sync_t *sync, mprof__uv_entry_t *entry,
                       int result) {
  if (sync->thread == MPROF_NONE)
    return submitted(entry, result);
  int saved = errno;
  if (result < 0)
    mprof_fail(sync->thread, REAL->uv_err_name(result));
  else
    mprof_resolve(sync->thread);
  mprof_switch(sync->caller);
  errno = saved;
  return result;
}

/* Ends a request's thread after its callback, back on the loop's thread. */
static void finish(mprof__uv_entry_t *entry, int status) {
  if (status < 0)
    mprof_fail(entry->thread, REAL->uv_err_name(status));
  else
    mprof_resolve(entry->thread);
  mprof_switch(running_loop);
  mprof__uv_map_release(entry);
}

/* A handle's entry, switched to for one of its callbacks. */
static mprof__uv_entry_t *enter(const void *handle) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(handle);
  mprof_switch(entry->thread);
  return entry;
}

/* A handle's entry, holding cb as its main callback or (read) its read
 * callback: NULL if it has none.
 * libuv may start a handle again with the callback it holds, which is
 * then our own fire. */
static mprof__uv_entry_t *watch(const void *handle, mprof__uv_fn cb,
                                mprof__uv_fn fire, int read) {
  mprof__uv_entry_t *entry = cb ? mprof__uv_map_get(handle) : NULL;
  if (entry && cb != fire)
    *(read ? &entry->read_cb : &entry->cb) = cb;
  return entry;
}

/* --- Addresses and the network labels --- */

/* "ip:port" or "[ip6]:port" of an IP address; empty for other families. */
static void address_text(const struct sockaddr *sa, mprof__uv_address_t *out) {
  char ip[INET6_ADDRSTRLEN];
  out->text[0] = 0;
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    if (inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip))
      snprintf(out->text, sizeof out->text, "%s:%u", ip, ntohs(in->sin_port));
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    if (inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip))
      snprintf(out->text, sizeof out->text, "[%s]:%u", ip,
               ntohs(in6->sin6_port));
  }
  out->length = strlen(out->text);
}

typedef int (*name_fn)(const void *handle, struct sockaddr *name, int *length);

/* Fill *address once from a getsockname-like call; nonzero if known. */
static int address_cached(mprof__uv_address_t *address, name_fn fn,
                          const void *handle) {
  if (!address->length) {
    struct sockaddr_storage name;
    int length = sizeof name;
    if (fn(handle, (struct sockaddr *)&name, &length) == 0)
      address_text((struct sockaddr *)&name, address);
  }
  return address->length != 0;
}

/* The handle's net part, made at its first use; NULL if out of memory. */
static mprof__uv_net_t *net_of(mprof__uv_entry_t *entry) {
  if (!entry->net)
    entry->net = calloc(1, sizeof *entry->net);
  return entry->net;
}

static size_t bufs_length(const uv_buf_t bufs[], unsigned int nbufs) {
  size_t length = 0;
  for (unsigned int i = 0; i < nbufs; i++)
    length += bufs[i].len;
  return length;
}

/* FNV-1a 64 of a datagram's payload, as the UDP labels carry it. */
static uint64_t payload_hash(const uv_buf_t bufs[], unsigned int nbufs,
                             size_t length) {
  uint64_t hash = 0xcbf29ce484222325u;
  for (unsigned int i = 0; i < nbufs && length; i++)
    for (size_t j = 0; j < bufs[i].len && length; j++, length--) {
      hash ^= (unsigned char)bufs[i].base[j];
      hash *= 0x100000001b3u;
    }
  return hash;
}

/* The network labels are built by hand, as they come with every read and
 * write (snprintf costs several times as much), from parts whose lengths
 * are known (no strlen). */
static void text_put(mprof__uv_text_t *text, const char *part, size_t n) {
  if (n > sizeof text->buf - text->length)
    n = sizeof text->buf - text->length;
  memcpy(text->buf + text->length, part, n);
  text->length += n;
}

/* " HASH LENGTH": hash in base 16 (all 16 digits), length in base 10. */
static void text_tail(mprof__uv_text_t *text, uint64_t hash, size_t length) {
  char tail[18 + 20];
  tail[0] = ' ';
  for (int i = 16; i > 0; i--, hash >>= 4)
    tail[i] = "0123456789abcdef"[hash & 15];
  tail[17] = ' ';
  text_put(text, tail, 18 + mprof__put_decimal(tail + 18, length));
}

/* text = head ("net DIRECTION PROTOCOL ") "SOURCE DESTINATION". */
static void text_head(mprof__uv_text_t *text, const char *head,
                      const mprof__uv_address_t *source,
                      const mprof__uv_address_t *destination) {
  text->length = 0;
  text_put(text, head, strlen(head));
  text_put(text, source->text, source->length);
  text_put(text, " ", 1);
  text_put(text, destination->text, destination->length);
}

/* Records text_head()'s text, then text_tail(), on thread.  The payload
 * hashes make each label unique, so the recorder writes them without
 * interning them. */
static void text_emit(uint64_t thread, mprof__uv_text_t *text, uint64_t hash,
                      size_t length) {
  text_tail(text, hash, length);
  mprof__label_unique(thread, text->buf, text->length);
}

/* A TCP handle's net part with its two label heads, built once; NULL while
 * an address is unknown. */
static mprof__uv_net_t *tcp_net(mprof__uv_entry_t *entry, const uv_tcp_t *tcp) {
  mprof__uv_net_t *net = entry->net;
  if (net && net->send.length)
    return net;
  if (entry->handle_type != UV_TCP || !(net = net_of(entry)) ||
      !address_cached(&net->local, (name_fn)REAL->uv_tcp_getsockname, tcp) ||
      !address_cached(&net->peer, (name_fn)REAL->uv_tcp_getpeername, tcp))
    return NULL;
  text_head(&net->send, "net send tcp ", &net->local, &net->peer);
  text_head(&net->recv, "net recv tcp ", &net->peer, &net->local);
  net->send.hash = mprof__label_hash(net->send.buf, net->send.length);
  net->recv.hash = mprof__label_hash(net->recv.buf, net->recv.length);
  return net;
}

/* "net send tcp ..." on thread: length bytes written to a stream. */
static void stream_sent(uv_stream_t *stream, uint64_t thread, size_t length) {
  mprof__uv_entry_t *handle = mprof__uv_map_get(stream);
  mprof__uv_net_t *net = handle ? tcp_net(handle, (uv_tcp_t *)stream) : NULL;
  if (!net) {
    mprof_counter_increase(bytes_written, (int64_t)length);
    return;
  }
  mprof__label_net(thread, net->send.buf, net->send.length, net->send.hash,
                   bytes_written, net->sent_bytes, length);
  net->sent_bytes += length;
}

/* "net recv tcp ..." on the handle's thread: length bytes read. */
static void stream_received(mprof__uv_entry_t *handle, uv_stream_t *stream,
                            size_t length) {
  mprof__uv_net_t *net = tcp_net(handle, (uv_tcp_t *)stream);
  if (!net) {
    mprof_counter_increase(bytes_read, (int64_t)length);
    return;
  }
  mprof__label_net(handle->thread, net->recv.buf, net->recv.length,
                   net->recv.hash, bytes_read, net->received_bytes, length);
  net->received_bytes += length;
}

/* "net DIRECTION udp SOURCE DESTINATION HASH LENGTH" of a datagram. */
static void udp_label(uint64_t thread, const char *head,
                      const mprof__uv_address_t *source,
                      const mprof__uv_address_t *destination,
                      const uv_buf_t bufs[], unsigned int nbufs,
                      size_t length) {
  if (!source->length || !destination->length)
    return;
  mprof__uv_text_t text;
  text_head(&text, head, source, destination);
  text_emit(thread, &text, payload_hash(bufs, nbufs, length), length);
}

/* --- Loops --- */

static void poll_mark_fire(uv_prepare_t *prepare) {
  (void)prepare;
  mprof_suspend();
}

/* Our prepare handle on loop, unreferenced: it keeps no loop alive. */
static uv_prepare_t *poll_mark_new(uv_loop_t *loop) {
  uv_prepare_t *mark = malloc(sizeof *mark);
  if (!mark || REAL->uv_prepare_init(loop, mark)) {
    free(mark);
    return NULL;
  }
  mark->data = (void *)poll_mark_tag;
  REAL->uv_prepare_start(mark, poll_mark_fire);
  REAL->uv_unref((uv_handle_t *)mark);
  return mark;
}

/* The loop's entry, made on its first traced uv_run(). */
static mprof__uv_entry_t *loop_entry(uv_loop_t *loop) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(loop);
  if (!entry)
    entry =
        begin(loop, MPROF_LOOP,
              loop == REAL->uv_default_loop() ? "default loop" : "loop", NULL);
  if (entry && !entry->poll_mark)
    entry->poll_mark = poll_mark_new(loop);
  return entry;
}

int mprof_uv_run(uv_loop_t *loop, uv_run_mode mode) {
  mprof__uv_entry_t *entry = mprof_is_started() ? loop_entry(loop) : NULL;
  if (!entry)
    return REAL->uv_run(loop, mode);
  uint64_t outer = running_loop, before = mprof_current();
  running_loop = entry->thread;
  mprof_switch(entry->thread);
  int result = REAL->uv_run(loop, mode);
  int saved = errno;
  running_loop = outer;
  mprof_switch(before);
  errno = saved;
  return result;
}

static void poll_mark_closed(uv_handle_t *handle) { free(handle); }

static void count_user_handle(uv_handle_t *handle, void *arg) {
  if (handle->data != poll_mark_tag)
    ++*(int *)arg;
}

int mprof_uv_loop_close(uv_loop_t *loop) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(loop);
  int others = 0;
  if (entry && entry->poll_mark)
    REAL->uv_walk(loop, count_user_handle, &others);
  if (entry && entry->poll_mark && !others) {
    /* Our handle must be gone before libuv agrees to close the loop; with
     * no other handle left, one turn of the loop only closes it. */
    REAL->uv_close((uv_handle_t *)entry->poll_mark, poll_mark_closed);
    REAL->uv_run(loop, UV_RUN_NOWAIT);
    entry->poll_mark = NULL;
  }
  int result = REAL->uv_loop_close(loop);
  if (entry && result == 0) {
    int saved = errno;
    mprof_resolve(entry->thread);
    mprof__uv_map_release(mprof__uv_map_take(loop));
    errno = saved;
  }
  return result;
}

typedef struct walk_s {
  uv_walk_cb cb;
  void *arg;
} walk_t;

static void walk_user_handles(uv_handle_t *handle, void *arg) {
  const walk_t *walk = arg;
  if (handle->data != poll_mark_tag)
    walk->cb(handle, walk->arg);
}

void mprof_uv_walk(uv_loop_t *loop, uv_walk_cb walk_cb, void *arg) {
  walk_t walk = {walk_cb, arg};
  REAL->uv_walk(loop, walk_user_handles, &walk);
}

/* --- Handles --- */

/* Is handle one that libuv keeps inside the loop for itself (its thread
 * pool's async, its child watcher)?  The shim sees them, a program built
 * with mprof/uv.h does not; neither traces them. */
static int libuv_own(const uv_loop_t *loop, const void *handle) {
  const char *at = handle;
  return at >= (const char *)loop && at < (const char *)(loop + 1);
}

/* A handle's thread, from its init on. */
static int handle_inited(uv_loop_t *loop, void *handle,
                         uv_handle_type handle_type, mprof_type_t type,
                         const char *label, int result) {
  if (result < 0 || libuv_own(loop, handle))
    return result;
  int saved = errno;
  mprof__uv_entry_t *entry = begin(handle, type, label, NULL);
  if (entry)
    entry->handle_type = handle_type;
  errno = saved;
  return result;
}

static void close_fire(uv_handle_t *handle) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(handle);
  mprof_switch(entry->thread);
  if (entry->close_cb)
    ((uv_close_cb)entry->close_cb)(handle);
  finish(entry, 0);
}

/* A traced handle's entry, holding close_cb for close_fire(); NULL if the
 * handle is not traced.  libuv's uv_tcp_close_reset() calls uv_close()
 * with the callback it got, then our own close_fire. */
static mprof__uv_entry_t *close_watch(uv_handle_t *handle,
                                      uv_close_cb close_cb) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(handle);
  if (entry && close_cb != close_fire)
    entry->close_cb = (mprof__uv_fn)close_cb;
  return entry;
}

void mprof_uv_close(uv_handle_t *handle, uv_close_cb close_cb) {
  mprof__uv_entry_t *entry = close_watch(handle, close_cb);
  REAL->uv_close(handle, entry ? close_fire : close_cb);
}

int mprof_uv_tcp_close_reset(uv_tcp_t *handle, uv_close_cb close_cb) {
  mprof__uv_entry_t *entry = close_watch((uv_handle_t *)handle, close_cb);
  return REAL->uv_tcp_close_reset(handle, entry ? close_fire : close_cb);
}

/* The callbacks with only the handle as argument. */
#define MPROF__UV_SIMPLE_HANDLE(kind)                                          \
  static void kind##_fire(uv_##kind##_t *handle) {                             \
    mprof__uv_entry_t *entry = enter(handle);                                  \
    ((uv_##kind##_cb)entry->cb)(handle);                                       \
    mprof_switch(running_loop);                                                \
  }
MPROF__UV_SIMPLE_HANDLE(timer)
MPROF__UV_SIMPLE_HANDLE(idle)
MPROF__UV_SIMPLE_HANDLE(check)
MPROF__UV_SIMPLE_HANDLE(prepare)
MPROF__UV_SIMPLE_HANDLE(async)

int mprof_uv_timer_init(uv_loop_t *loop, uv_timer_t *handle) {
  int result = REAL->uv_timer_init(loop, handle);
  return in_wrapped ? result
                    : handle_inited(loop, handle, UV_TIMER, MPROF_TIMER,
                                    "timer", result);
}

int mprof_uv_timer_start(uv_timer_t *handle, uv_timer_cb cb, uint64_t timeout,
                         uint64_t repeat) {
  mprof__uv_entry_t *entry =
      watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)timer_fire, 0);
  return REAL->uv_timer_start(handle, entry ? timer_fire : cb, timeout, repeat);
}

/* Idle, check and prepare handles: init, start and callback alike. */
#define MPROF__UV_LOOP_WATCHER(kind, KIND)                                     \
  int mprof_uv_##kind##_init(uv_loop_t *loop, uv_##kind##_t *handle) {         \
    return handle_inited(loop, handle, UV_##KIND, MPROF_HANDLE, #kind,         \
                         REAL->uv_##kind##_init(loop, handle));                \
  }                                                                            \
  int mprof_uv_##kind##_start(uv_##kind##_t *handle, uv_##kind##_cb cb) {      \
    mprof__uv_entry_t *entry =                                                 \
        watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)kind##_fire, 0);         \
    return REAL->uv_##kind##_start(handle, entry ? kind##_fire : cb);          \
  }
MPROF__UV_LOOP_WATCHER(idle, IDLE)
MPROF__UV_LOOP_WATCHER(check, CHECK)
MPROF__UV_LOOP_WATCHER(prepare, PREPARE)

int mprof_uv_async_init(uv_loop_t *loop, uv_async_t *handle, uv_async_cb cb) {
  /* The callback is given here, so the entry must exist first. */
  mprof__uv_entry_t *entry =
      cb && !libuv_own(loop, handle)
          ? begin(handle, MPROF_HANDLE, "async", (mprof__uv_fn)cb)
          : NULL;
  if (entry)
    entry->handle_type = UV_ASYNC;
  return submitted(entry,
                   REAL->uv_async_init(loop, handle, entry ? async_fire : cb));
}

/* The thread that sends from an OS thread where nothing traced runs: one
 * per OS thread, made at its first send. */
static _Thread_local uint64_t async_sender MPROF__UV_TLS;

int mprof_uv_async_send(uv_async_t *handle) {
  uint64_t target =
      mprof_is_started() ? mprof__uv_map_thread(handle) : MPROF_NONE;
  if (target != MPROF_NONE && mprof_current() != MPROF_NONE) {
    mprof_signal(target);
  } else if (target != MPROF_NONE) {
    if (async_sender == MPROF_NONE) {
      async_sender = mprof_create(MPROF_CALLBACK);
      mprof_label(async_sender, "async sender");
    }
    mprof_switch(async_sender);
    mprof_signal(target);
    mprof_switch(MPROF_NONE);
  }
  return REAL->uv_async_send(handle);
}

static void signal_fire(uv_signal_t *handle, int signum) {
  mprof__uv_entry_t *entry = enter(handle);
  ((uv_signal_cb)entry->cb)(handle, signum);
  mprof_switch(running_loop);
}

int mprof_uv_signal_init(uv_loop_t *loop, uv_signal_t *handle) {
  return handle_inited(loop, handle, UV_SIGNAL, MPROF_HANDLE, "signal",
                       REAL->uv_signal_init(loop, handle));
}

/* A signal handle's entry, holding cb, with its label "signal N". */
static mprof__uv_entry_t *signal_watch(uv_signal_t *handle, uv_signal_cb cb,
                                       int signum) {
  mprof__uv_entry_t *entry =
      watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)signal_fire, 0);
  if (entry) {
    char label[32];
    snprintf(label, sizeof label, "signal %d", signum);
    mprof_label(entry->thread, label);
  }
  return entry;
}

int mprof_uv_signal_start(uv_signal_t *handle, uv_signal_cb cb, int signum) {
  mprof__uv_entry_t *entry = signal_watch(handle, cb, signum);
  return REAL->uv_signal_start(handle, entry ? signal_fire : cb, signum);
}

int mprof_uv_signal_start_oneshot(uv_signal_t *handle, uv_signal_cb cb,
                                  int signum) {
  mprof__uv_entry_t *entry = signal_watch(handle, cb, signum);
  return REAL->uv_signal_start_oneshot(handle, entry ? signal_fire : cb,
                                       signum);
}

/* The callbacks of requests that take (req, status); libuv lets most of
 * them be NULL. */
#define MPROF__UV_REQUEST_DONE(kind, cb_type)                                  \
  static void kind##_done(uv_##kind##_t *req, int status) {                    \
    mprof__uv_entry_t *entry = mprof__uv_map_take(req);                        \
    mprof_switch(entry->thread);                                               \
    if (entry->cb)                                                             \
      ((cb_type)entry->cb)(req, status);                                       \
    finish(entry, status);                                                     \
  }
MPROF__UV_REQUEST_DONE(write, uv_write_cb)
MPROF__UV_REQUEST_DONE(shutdown, uv_shutdown_cb)
MPROF__UV_REQUEST_DONE(connect, uv_connect_cb)
MPROF__UV_REQUEST_DONE(udp_send, uv_udp_send_cb)
MPROF__UV_REQUEST_DONE(work, uv_after_work_cb)

static void poll_fire(uv_poll_t *handle, int status, int events) {
  mprof__uv_entry_t *entry = enter(handle);
  ((uv_poll_cb)entry->cb)(handle, status, events);
  mprof_switch(running_loop);
}

int mprof_uv_poll_init(uv_loop_t *loop, uv_poll_t *handle, int fd) {
  int result = REAL->uv_poll_init(loop, handle, fd);
  return in_wrapped ? result
                    : handle_inited(loop, handle, UV_POLL, MPROF_HANDLE, "poll",
                                    result);
}

int mprof_uv_poll_init_socket(uv_loop_t *loop, uv_poll_t *handle,
                              uv_os_sock_t socket) {
  in_wrapped++;
  int result = REAL->uv_poll_init_socket(loop, handle, socket);
  in_wrapped--;
  return handle_inited(loop, handle, UV_POLL, MPROF_HANDLE, "poll", result);
}

int mprof_uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb) {
  mprof__uv_entry_t *entry =
      watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)poll_fire, 0);
  return REAL->uv_poll_start(handle, events, entry ? poll_fire : cb);
}

/* A handle's second label, with the path it watches. */
static void label_path(mprof__uv_entry_t *entry, const char *what,
                       const char *path) {
  if (!entry || !path)
    return;
  char label[512];
  snprintf(label, sizeof label, "%s %s", what, path);
  mprof_label(entry->thread, label);
}

static void fs_event_fire(uv_fs_event_t *handle, const char *filename,
                          int events, int status) {
  mprof__uv_entry_t *entry = enter(handle);
  ((uv_fs_event_cb)entry->cb)(handle, filename, events, status);
  mprof_switch(running_loop);
}

int mprof_uv_fs_event_init(uv_loop_t *loop, uv_fs_event_t *handle) {
  return handle_inited(loop, handle, UV_FS_EVENT, MPROF_HANDLE, "fs event",
                       REAL->uv_fs_event_init(loop, handle));
}

int mprof_uv_fs_event_start(uv_fs_event_t *handle, uv_fs_event_cb cb,
                            const char *path, unsigned int flags) {
  mprof__uv_entry_t *entry =
      watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)fs_event_fire, 0);
  label_path(entry, "fs event", path);
  return REAL->uv_fs_event_start(handle, entry ? fs_event_fire : cb, path,
                                 flags);
}

static void fs_poll_fire(uv_fs_poll_t *handle, int status,
                         const uv_stat_t *prev, const uv_stat_t *curr) {
  mprof__uv_entry_t *entry = enter(handle);
  ((uv_fs_poll_cb)entry->cb)(handle, status, prev, curr);
  mprof_switch(running_loop);
}

int mprof_uv_fs_poll_init(uv_loop_t *loop, uv_fs_poll_t *handle) {
  return handle_inited(loop, handle, UV_FS_POLL, MPROF_HANDLE, "fs poll",
                       REAL->uv_fs_poll_init(loop, handle));
}

int mprof_uv_fs_poll_start(uv_fs_poll_t *handle, uv_fs_poll_cb cb,
                           const char *path, unsigned int interval) {
  mprof__uv_entry_t *entry =
      watch(handle, (mprof__uv_fn)cb, (mprof__uv_fn)fs_poll_fire, 0);
  label_path(entry, "fs poll", path);
  in_wrapped++;
  int result =
      REAL->uv_fs_poll_start(handle, entry ? fs_poll_fire : cb, path, interval);
  in_wrapped--;
  return result;
}

static void exit_fire(uv_process_t *process, int64_t exit_status,
                      int term_signal) {
  mprof__uv_entry_t *entry = enter(process);
  if (entry->cb)
    ((uv_exit_cb)entry->cb)(process, exit_status, term_signal);
  mprof_switch(running_loop);
}

/* A process handle is born in uv_spawn(); its exit callback is in the
 * options, which libuv reads during the call only. */
int mprof_uv_spawn(uv_loop_t *loop, uv_process_t *handle,
                   const uv_process_options_t *options) {
  mprof__uv_entry_t *entry =
      options ? begin_labelled(handle, (mprof__uv_fn)options->exit_cb,
                               MPROF_HANDLE, "process", options->file)
              : NULL;
  if (!entry)
    return REAL->uv_spawn(loop, handle, options);
  entry->handle_type = UV_PROCESS;
  uv_process_options_t ours = *options;
  ours.exit_cb = exit_fire;
  return submitted(entry, REAL->uv_spawn(loop, handle, &ours));
}

/* --- Streams: TCP, pipes, TTYs --- */

int mprof_uv_tcp_init_ex(uv_loop_t *loop, uv_tcp_t *handle,
                         unsigned int flags) {
  int result = REAL->uv_tcp_init_ex(loop, handle, flags);
  return in_wrapped
             ? result
             : handle_inited(loop, handle, UV_TCP, MPROF_HANDLE, "tcp", result);
}

int mprof_uv_tcp_init(uv_loop_t *loop, uv_tcp_t *handle) {
  in_wrapped++;
  int result = REAL->uv_tcp_init(loop, handle);
  in_wrapped--;
  return handle_inited(loop, handle, UV_TCP, MPROF_HANDLE, "tcp", result);
}

int mprof_uv_pipe_init(uv_loop_t *loop, uv_pipe_t *handle, int ipc) {
  return handle_inited(loop, handle, UV_NAMED_PIPE, MPROF_HANDLE, "pipe",
                       REAL->uv_pipe_init(loop, handle, ipc));
}

int mprof_uv_tty_init(uv_loop_t *loop, uv_tty_t *handle, uv_file fd,
                      int readable) {
  return handle_inited(loop, handle, UV_TTY, MPROF_HANDLE, "tty",
                       REAL->uv_tty_init(loop, handle, fd, readable));
}

static void connection_fire(uv_stream_t *server, int status) {
  mprof__uv_entry_t *entry = enter(server);
  ((uv_connection_cb)entry->cb)(server, status);
  mprof_switch(running_loop);
}

int mprof_uv_listen(uv_stream_t *stream, int backlog, uv_connection_cb cb) {
  mprof__uv_entry_t *entry =
      watch(stream, (mprof__uv_fn)cb, (mprof__uv_fn)connection_fire, 0);
  return REAL->uv_listen(stream, backlog, entry ? connection_fire : cb);
}

int mprof_uv_accept(uv_stream_t *server, uv_stream_t *client) {
  int result = REAL->uv_accept(server, client);
  mprof__uv_entry_t *entry = result ? NULL : mprof__uv_map_get(client);
  if (!entry)
    return result;
  int saved = errno;
  mprof__uv_net_t *net = tcp_net(entry, (uv_tcp_t *)client);
  if (net) {
    char label[96];
    snprintf(label, sizeof label, "tcp from %s", net->peer.text);
    mprof_label(entry->thread, label);
  }
  errno = saved;
  return result;
}

static void read_fire(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  mprof__uv_entry_t *entry = enter(stream);
  if (nread > 0)
    stream_received(entry, stream, (size_t)nread);
  ((uv_read_cb)entry->read_cb)(stream, nread, buf);
  mprof_switch(running_loop);
}

int mprof_uv_read_start(uv_stream_t *stream, uv_alloc_cb alloc_cb,
                        uv_read_cb read_cb) {
  mprof__uv_entry_t *entry =
      watch(stream, (mprof__uv_fn)read_cb, (mprof__uv_fn)read_fire, 1);
  return REAL->uv_read_start(stream, alloc_cb, entry ? read_fire : read_cb);
}

/* After uv_write() or uv_write2(): the bytes and the net label. */
static int write_submitted(mprof__uv_entry_t *entry, uv_stream_t *handle,
                           const uv_buf_t bufs[], unsigned int nbufs,
                           int result) {
  if (entry && result == 0) {
    int saved = errno;
    stream_sent(handle, entry->thread, bufs_length(bufs, nbufs));
    errno = saved;
  }
  return submitted(entry, result);
}

int mprof_uv_write(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
                   unsigned int nbufs, uv_write_cb cb) {
  mprof__uv_entry_t *entry = begin_write(req, cb);
  if (!entry)
    return REAL->uv_write(req, handle, bufs, nbufs, cb);
  /* What libuv's uv_write() does, without its call of uv_write2() through
   * the PLT, which would come back into the shim. */
  return write_submitted(
      entry, handle, bufs, nbufs,
      REAL->uv_write2(req, handle, bufs, nbufs, NULL, write_done));
}

int mprof_uv_write2(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
                    unsigned int nbufs, uv_stream_t *send_handle,
                    uv_write_cb cb) {
  /* libuv's uv_write() calls uv_write2(), which the shim sees too. */
  if (cb == write_done)
    return REAL->uv_write2(req, handle, bufs, nbufs, send_handle, cb);
  mprof__uv_entry_t *entry = begin_write(req, cb);
  return write_submitted(entry, handle, bufs, nbufs,
                         REAL->uv_write2(req, handle, bufs, nbufs, send_handle,
                                         entry ? write_done : cb));
}

void mprof_uv_pipe_connect(uv_connect_t *req, uv_pipe_t *handle,
                           const char *name, uv_connect_cb cb) {
  mprof__uv_entry_t *entry =
      begin_labelled(req, (mprof__uv_fn)cb, MPROF_CONNECT, "connect", name);
  REAL->uv_pipe_connect(req, handle, name, entry ? connect_done : cb);
}

/* After a try_write: its bytes and the net label, on the handle's thread. */
static int try_written(uv_stream_t *handle, int result) {
  if (result > 0 && mprof_is_started()) {
    int saved = errno;
    stream_sent(handle, mprof__uv_map_thread(handle), (size_t)result);
    errno = saved;
  }
  return result;
}

int mprof_uv_try_write(uv_stream_t *handle, const uv_buf_t bufs[],
                       unsigned int nbufs) {
  in_wrapped++;
  int result = REAL->uv_try_write(handle, bufs, nbufs);
  in_wrapped--;
  return try_written(handle, result);
}

int mprof_uv_try_write2(uv_stream_t *handle, const uv_buf_t bufs[],
                        unsigned int nbufs, uv_stream_t *send_handle) {
  int result = REAL->uv_try_write2(handle, bufs, nbufs, send_handle);
  return in_wrapped ? result : try_written(handle, result);
}

int mprof_uv_shutdown(uv_shutdown_t *req, uv_stream_t *handle,
                      uv_shutdown_cb cb) {
  mprof__uv_entry_t *entry =
      begin(req, MPROF_SHUTDOWN, "shutdown", (mprof__uv_fn)cb);
  return submitted(entry,
                   REAL->uv_shutdown(req, handle, entry ? shutdown_done : cb));
}

int mprof_uv_tcp_connect(uv_connect_t *req, uv_tcp_t *handle,
                         const struct sockaddr *addr, uv_connect_cb cb) {
  mprof__uv_entry_t *entry = NULL;
  if (cb && addr && mprof_is_started()) {
    char label[96];
    mprof__uv_address_t target;
    address_text(addr, &target);
    snprintf(label, sizeof label, "connect %s", target.text);
    entry = begin(req, MPROF_CONNECT, label, (mprof__uv_fn)cb);
  }
  return submitted(entry, REAL->uv_tcp_connect(req, handle, addr,
                                               entry ? connect_done : cb));
}

/* --- UDP --- */

/* The send's label and counter, once libuv has bound the socket. */
int mprof_uv_udp_init_ex(uv_loop_t *loop, uv_udp_t *handle,
                         unsigned int flags) {
  int result = REAL->uv_udp_init_ex(loop, handle, flags);
  return in_wrapped
             ? result
             : handle_inited(loop, handle, UV_UDP, MPROF_HANDLE, "udp", result);
}

int mprof_uv_udp_init(uv_loop_t *loop, uv_udp_t *handle) {
  in_wrapped++;
  int result = REAL->uv_udp_init(loop, handle);
  in_wrapped--;
  return handle_inited(loop, handle, UV_UDP, MPROF_HANDLE, "udp", result);
}

static void udp_sent(uint64_t thread, uv_udp_t *udp, const uv_buf_t bufs[],
                     unsigned int nbufs, const struct sockaddr *addr) {
  mprof__uv_entry_t *handle = mprof__uv_map_get(udp);
  size_t length = bufs_length(bufs, nbufs);
  mprof_counter_increase(bytes_written, (int64_t)length);
  mprof__uv_net_t *net = handle ? net_of(handle) : NULL;
  if (!net)
    return;
  mprof__uv_address_t destination;
  if (addr)
    address_text(addr, &destination);
  else
    address_cached(&net->peer, (name_fn)REAL->uv_udp_getpeername, udp);
  address_cached(&net->local, (name_fn)REAL->uv_udp_getsockname, udp);
  udp_label(thread, "net send udp ", &net->local,
            addr ? &destination : &net->peer, bufs, nbufs, length);
}

int mprof_uv_udp_send(uv_udp_send_t *req, uv_udp_t *handle,
                      const uv_buf_t bufs[], unsigned int nbufs,
                      const struct sockaddr *addr, uv_udp_send_cb cb) {
  mprof__uv_entry_t *entry =
      begin(req, MPROF_UDP_SEND, "udp send", (mprof__uv_fn)cb);
  int result = REAL->uv_udp_send(req, handle, bufs, nbufs, addr,
                                 entry ? udp_send_done : cb);
  if (entry && result == 0) {
    int saved = errno;
    udp_sent(entry->thread, handle, bufs, nbufs, addr);
    errno = saved;
  }
  return submitted(entry, result);
}

int mprof_uv_udp_try_send(uv_udp_t *handle, const uv_buf_t bufs[],
                          unsigned int nbufs, const struct sockaddr *addr) {
  int result = REAL->uv_udp_try_send(handle, bufs, nbufs, addr);
  if (result >= 0 && mprof_is_started()) {
    int saved = errno;
    udp_sent(mprof__uv_map_thread(handle), handle, bufs, nbufs, addr);
    errno = saved;
  }
  return result;
}

static void udp_recv_fire(uv_udp_t *udp, ssize_t nread, const uv_buf_t *buf,
                          const struct sockaddr *addr, unsigned flags) {
  mprof__uv_entry_t *entry = enter(udp);
  mprof__uv_net_t *net = nread > 0 ? net_of(entry) : NULL;
  if (nread > 0)
    mprof_counter_increase(bytes_read, nread);
  if (net) {
    mprof__uv_address_t source = {"", 0};
    if (addr)
      address_text(addr, &source);
    address_cached(&net->local, (name_fn)REAL->uv_udp_getsockname, udp);
    udp_label(entry->thread, "net recv udp ", &source, &net->local, buf, 1,
              (size_t)nread);
  }
  ((uv_udp_recv_cb)entry->read_cb)(udp, nread, buf, addr, flags);
  mprof_switch(running_loop);
}

int mprof_uv_udp_recv_start(uv_udp_t *handle, uv_alloc_cb alloc_cb,
                            uv_udp_recv_cb recv_cb) {
  mprof__uv_entry_t *entry =
      watch(handle, (mprof__uv_fn)recv_cb, (mprof__uv_fn)udp_recv_fire, 1);
  return REAL->uv_udp_recv_start(handle, alloc_cb,
                                 entry ? udp_recv_fire : recv_cb);
}

/* --- The thread pool --- */

/* On a pool thread: the work runs as the request's thread. */
static void work_run(uv_work_t *req) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(req);
  mprof_switch(entry->thread);
  ((uv_work_cb)entry->work_cb)(req);
  mprof_switch(MPROF_NONE);
}

int mprof_uv_queue_work(uv_loop_t *loop, uv_work_t *req, uv_work_cb work_cb,
                        uv_after_work_cb after_work_cb) {
  mprof__uv_entry_t *entry =
      work_cb ? begin(req, MPROF_WORK, "work", (mprof__uv_fn)after_work_cb)
              : NULL;
  if (entry)
    entry->work_cb = (mprof__uv_fn)work_cb;
  return submitted(entry,
                   REAL->uv_queue_work(loop, req, entry ? work_run : work_cb,
                                       entry ? work_done : after_work_cb));
}

static void getaddrinfo_done(uv_getaddrinfo_t *req, int status,
                             struct addrinfo *res) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  mprof_switch(entry->thread);
  ((uv_getaddrinfo_cb)entry->cb)(req, status, res);
  finish(entry, status);
}

int mprof_uv_getaddrinfo(uv_loop_t *loop, uv_getaddrinfo_t *req,
                         uv_getaddrinfo_cb cb, const char *node,
                         const char *service, const struct addrinfo *hints) {
  sync_t sync;
  mprof__uv_entry_t *entry =
      begin_request(&sync, req, (mprof__uv_fn)cb, MPROF_GETADDRINFO,
                    "getaddrinfo", node ? node : service);
  return end_request(&sync, entry,
                     REAL->uv_getaddrinfo(loop, req,
                                          entry ? getaddrinfo_done : cb, node,
                                          service, hints));
}

static void getnameinfo_done(uv_getnameinfo_t *req, int status,
                             const char *hostname, const char *service) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  mprof_switch(entry->thread);
  ((uv_getnameinfo_cb)entry->cb)(req, status, hostname, service);
  finish(entry, status);
}

int mprof_uv_getnameinfo(uv_loop_t *loop, uv_getnameinfo_t *req,
                         uv_getnameinfo_cb cb, const struct sockaddr *addr,
                         int flags) {
  mprof__uv_address_t target = {"", 0};
  if (addr && mprof_is_started())
    address_text(addr, &target);
  sync_t sync;
  mprof__uv_entry_t *entry =
      begin_request(&sync, req, (mprof__uv_fn)cb, MPROF_GETNAMEINFO,
                    "getnameinfo", target.length ? target.text : NULL);
  return end_request(&sync, entry,
                     REAL->uv_getnameinfo(loop, req,
                                          entry ? getnameinfo_done : cb, addr,
                                          flags));
}

static void random_done(uv_random_t *req, int status, void *buf,
                        size_t buflen) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  mprof_switch(entry->thread);
  ((uv_random_cb)entry->cb)(req, status, buf, buflen);
  finish(entry, status);
}

int mprof_uv_random(uv_loop_t *loop, uv_random_t *req, void *buf, size_t buflen,
                    unsigned flags, uv_random_cb cb) {
  sync_t sync;
  mprof__uv_entry_t *entry =
      begin_request(&sync, req, (mprof__uv_fn)cb, MPROF_RANDOM, "random", NULL);
  return end_request(
      &sync, entry,
      REAL->uv_random(loop, req, buf, buflen, flags, entry ? random_done : cb));
}

/* --- Files --- */

/* The counters of a read, write or sendfile that moved result bytes (a
 * result of 0 or less: nothing, and req may not even be filled in). */
static void fs_count(const uv_fs_t *req, ssize_t result) {
  if (result <= 0)
    return;
  if (req->fs_type == UV_FS_READ)
    mprof_counter_increase(bytes_read, result);
  else if (req->fs_type == UV_FS_WRITE || req->fs_type == UV_FS_SENDFILE)
    mprof_counter_increase(bytes_written, result);
}

static void fs_done(uv_fs_t *req) {
  mprof__uv_entry_t *entry = mprof__uv_map_take(req);
  ssize_t result = req->result;
  mprof_switch(entry->thread);
  fs_count(req, result);
  ((uv_fs_cb)entry->cb)(req);
  finish(entry, result < 0 ? (int)result : 0);
}

/* The callback of the stat requests that an fs poll handle makes, one per
 * interval: libuv's own, learned from the first, which libuv makes inside
 * uv_fs_poll_start() (in_wrapped); the next ones come from libuv's own
 * timer, with the same callback. */
static _Atomic(uv_fs_cb) fs_poll_stat_cb;

/* Is an fs call with callback cb one that libuv makes for an fs poll
 * handle? */
static int fs_poll_own(uv_fs_cb cb) {
  if (in_wrapped)
    atomic_store_explicit(&fs_poll_stat_cb, cb, memory_order_relaxed);
  return cb &&
         cb == atomic_load_explicit(&fs_poll_stat_cb, memory_order_relaxed);
}

/* Before an fs call NAME ("open") with its label's target (or NULL), as
 * begin_request().  libuv's own calls are not traced: the synchronous ones
 * made with no loop from inside uv_fs_copyfile(), and an fs poll handle's
 * stat requests. */
static mprof__uv_entry_t *fs_begin(sync_t *sync, const uv_loop_t *loop,
                                   uv_fs_t *req, uv_fs_cb cb, const char *name,
                                   const char *target) {
  sync->thread = MPROF_NONE;
  if (fs_poll_own(cb) || !mprof_is_started() || (!cb && !loop))
    return NULL;
  char what[32];
  snprintf(what, sizeof what, "fs %s", name);
  return begin_request(sync, req, (mprof__uv_fn)cb, MPROF_FS, what, target);
}

/* After the fs call, as end_request(), counting a synchronous call's bytes. */
static int fs_end(const sync_t *sync, mprof__uv_entry_t *entry,
                  const uv_fs_t *req, int result) {
  if (sync->thread != MPROF_NONE) {
    int saved = errno;
    fs_count(req, result);
    errno = saved;
  }
  return end_request(sync, entry, result);
}

/* Every fs call alike: its callback, if any, becomes fs_done. */
#define MPROF__UV_FS_WRAPPER(ret, name, params, args, target)                  \
  ret mprof_##name params {                                                    \
    sync_t sync;                                                               \
    mprof__uv_entry_t *entry =                                                 \
        fs_begin(&sync, loop, req, cb, &#name[sizeof "uv_fs_" - 1], target);   \
    if (entry)                                                                 \
      cb = fs_done;                                                            \
    return fs_end(&sync, entry, req, REAL->name args);                         \
  }
MPROF_UV_FS_CALLS(MPROF__UV_FS_WRAPPER)
