/* uv_internal.h -- the private interface of the libuv tracing code.  The
 * wrappers are split by what they wrap, as libuv splits its src/unix/:
 * uv_loop.c, uv_handle.c, uv_stream.c, uv_udp.c, uv_work.c and uv_fs.c, on
 * the helpers of uv_common.c and the entry map of uv_map.c.  They reach
 * the real libuv through one table that their two ways in fill:
 * uv_direct.c (a program built with mprof/uv.h) and uv_preload.c (the
 * LD_PRELOAD shim), so the tracing logic exists once.
 */
#ifndef MPROF_UV_INTERNAL_H
#define MPROF_UV_INTERNAL_H

#define MPROF_UV_NO_MACROS
#include <stdatomic.h>
#include <string.h>

#include "mprof/uv.h"

#include "../record/record.h"

/* libuv calls the tracing code makes that it does not wrap. */
#define MPROF__UV_HELPERS(X)                                                   \
  X(uv_default_loop)                                                           \
  X(uv_err_name)                                                               \
  X(uv_tcp_getsockname)                                                        \
  X(uv_tcp_getpeername)                                                        \
  X(uv_udp_getsockname)                                                        \
  X(uv_udp_getpeername)                                                        \
  X(uv_unref)

/* The real libuv: every wrapped call and every helper. */
typedef struct mprof__uv_real_s {
#define MPROF__UV_FIELD(ret, name, params, args) __typeof__(name) *name;
#define MPROF__UV_FS_FIELD(ret, name, params, args, target)                    \
  __typeof__(name) *name;
#define MPROF__UV_HELPER_FIELD(name) __typeof__(name) *name;
  MPROF_UV_CALLS(MPROF__UV_FIELD)
  MPROF_UV_VOID_CALLS(MPROF__UV_FIELD)
  MPROF_UV_FS_CALLS(MPROF__UV_FS_FIELD)
  MPROF__UV_HELPERS(MPROF__UV_HELPER_FIELD)
#undef MPROF__UV_FIELD
#undef MPROF__UV_FS_FIELD
#undef MPROF__UV_HELPER_FIELD
} mprof__uv_real_t;

/* The table, from the way in that is linked (uv_direct.c or uv_preload.c);
 * hidden, so the shim's wrappers reach it without the PLT. */
__attribute__((visibility("hidden"))) const mprof__uv_real_t *
mprof__uv_real(void);

/* A callback of any type, cast back to its own type before the call. */
typedef void (*mprof__uv_fn)(void);

/* An IP socket's address as the labels show it: "ip:port", or empty. */
typedef struct mprof__uv_address_s {
  char text[64];
  size_t length; /* strlen(text), so a label takes it without a strlen */
} mprof__uv_address_t;

/* A network label head: its text, unterminated, in buf, and what the
 * recorder keeps of it (mprof__net_head_t: text is buf). */
typedef struct mprof__uv_text_s {
  char buf[192];
  mprof__net_head_t head;
} mprof__uv_text_t;

/* What an IP socket's handle keeps for its network labels, made at its
 * first send or receive.  TCP: each direction's label up to its offset
 * ("net send tcp LOCAL PEER", "net recv tcp PEER LOCAL"), built once, and
 * the bytes each way so far.  UDP: each direction's head for the last peer
 * it was built for (uv_udp.c). */
typedef struct mprof__uv_net_s {
  mprof__uv_address_t local, peer;
  mprof__uv_text_t send, recv; /* head.length 0: not built */
  uint64_t sent_bytes, received_bytes;
  struct sockaddr_in6 send_peer, recv_peer; /* UDP; AF_UNSPEC: connected */
} mprof__uv_net_t;

/* What the tracing code keeps about one request, handle or loop. */
typedef struct mprof__uv_entry_s {
  struct mprof__uv_entry_s *next; /* in its hash chain (uv_map.c) */
  const void *key;                /* the request, handle or loop */
  uint64_t thread;                /* its mprof thread */
  int handle_type;                /* UV_TCP, ...; 0 for requests */
  mprof__uv_fn cb;                /* the user's callback (handles: main one) */
  mprof__uv_fn read_cb;           /* streams and UDP: read or receive */
  mprof__uv_fn close_cb;          /* handles: the close callback */
  mprof__uv_fn work_cb;           /* work requests: the pool's part */
  uv_prepare_t *poll_mark;        /* loops: runs just before each poll */
  mprof__uv_net_t *net;           /* IP sockets, once they send or receive */
  int remembered; /* looked up, so an OS thread may remember it (uv_map.c) */
} mprof__uv_entry_t;

/* A new entry for key (replacing any old one); NULL if out of memory. */
mprof__uv_entry_t *mprof__uv_map_add(const void *key, uint64_t thread);
/* A lookup that an OS thread remembers (uv_map.c): valid while generation
 * is the map's. */
typedef struct mprof__uv_remembered_s {
  const void *key;
  mprof__uv_entry_t *entry;
  unsigned long generation;
} mprof__uv_remembered_t;

#define MPROF__UV_REMEMBERED 4 /* lookups each OS thread remembers */
__attribute__((
    visibility("hidden"))) extern _Thread_local mprof__uv_remembered_t
    mprof__uv_remembered[MPROF__UV_REMEMBERED]
    __attribute__((tls_model("initial-exec")));
__attribute__((visibility("hidden"))) extern atomic_ulong mprof__uv_generation;

/* key's entry, found under the map's lock and remembered in memory (a
 * memory of key that is out of date), or (memory NULL) in place of this OS
 * thread's oldest; NULL if key has none. */
mprof__uv_entry_t *mprof__uv_map_get_locked(const void *key,
                                            mprof__uv_remembered_t *memory);

/* key's entry, or NULL: without the lock when this OS thread remembers it.
 * Inlined: every read and write looks its stream up. */
static inline mprof__uv_entry_t *mprof__uv_map_get(const void *key) {
  mprof__uv_remembered_t *memory = mprof__uv_remembered;
  for (int i = 0; i < MPROF__UV_REMEMBERED; i++, memory++)
    if (memory->key == key)
      return memory->generation == atomic_load_explicit(&mprof__uv_generation,
                                                        memory_order_relaxed)
                 ? memory->entry
                 : mprof__uv_map_get_locked(key, memory);
  return mprof__uv_map_get_locked(key, NULL);
}
/* key's entry, removed from the map (the caller releases it), or NULL. */
mprof__uv_entry_t *mprof__uv_map_take(const void *key);
/* key's thread, or MPROF_NONE: safe from any OS thread. */
uint64_t mprof__uv_map_thread(const void *key);
/* Gives back an entry no longer in the map (and its net part); NULL: none. */
void mprof__uv_map_release(mprof__uv_entry_t *entry);

/* --- What the wrapper files share (uv_common.c) ----------------------------
 * Hidden, so the shim exports nothing more than libuv's functions and the
 * mprof_uv_* wrappers, and reaches these without its PLT. */
#pragma GCC visibility push(hidden)

/* The real libuv table, as every wrapper file calls it. */
#define REAL (mprof__uv_real())

/* Thread-local state without __tls_get_addr calls in the shim, as the
 * recorder's own (docs/recording.md, "Thread-local storage"). */
#define MPROF__UV_TLS __attribute__((tls_model("initial-exec")))

/* The thread of the loop that uv_run() runs on this OS thread. */
extern _Thread_local uint64_t mprof__uv_running_loop MPROF__UV_TLS;

/* Nonzero inside a wrapped libuv call that calls another wrapped one
 * through the PLT, which the shim sees too (uv_tcp_init() and
 * uv_udp_init() their _ex forms, uv_poll_init_socket() uv_poll_init(),
 * uv_try_write() uv_try_write2(), uv_fs_poll_start() uv_timer_init() and
 * uv_fs_stat()): the outer call records, the inner one only forwards. */
extern _Thread_local int mprof__uv_in_wrapped MPROF__UV_TLS;

/* The counters "uv bytes read" and "uv bytes written". */
extern mprof_counter_t mprof__uv_bytes_read, mprof__uv_bytes_written;

/* A new thread for key, created by the current one, with its entry; NULL
 * when not recording (the call then goes through untraced). */
mprof__uv_entry_t *mprof__uv_begin(const void *key, mprof_type_t type,
                                   const char *label, mprof__uv_fn cb);

/* A request's label, hashed once for the process (by a constructor of
 * the file that uses it), as the recorder interns it. */
typedef struct mprof__uv_label_s {
  const char *text;
  size_t length;
  uint64_t hash;
} mprof__uv_label_t;

#define MPROF__UV_LABEL(literal)                                               \
  { literal, sizeof literal - 1, 0 }

/* Hashes label, once. */
void mprof__uv_label_init(mprof__uv_label_t *label);

/* What a traced request that comes with every message (a write, a UDP
 * send) carries in its reserved fields, which libuv 1.x sets aside for
 * itself and never uses: its thread and the program's callback.  Its end
 * then needs no entry in the map: no lookup, no allocation, no lock.
 * Each kind asserts that the mark fits its request. */
typedef struct mprof__uv_mark_s {
  uint64_t thread;
  mprof__uv_fn cb;
} mprof__uv_mark_t;

static inline void mprof__uv_mark_put(void *reserved, uint64_t thread,
                                      mprof__uv_fn cb) {
  mprof__uv_mark_t mark = {thread, cb};
  memcpy(reserved, &mark, sizeof mark);
}

static inline mprof__uv_mark_t mprof__uv_mark_get(const void *reserved) {
  mprof__uv_mark_t mark;
  memcpy(&mark, reserved, sizeof mark);
  return mark;
}

/* The callback of a marked request kind (req, status): the program's
 * callback on the request's thread, then its end. */
#define MPROF__UV_MARKED_DONE(kind, cb_type)                                   \
  _Static_assert(sizeof(mprof__uv_mark_t) <=                                   \
                     sizeof(((uv_##kind##_t *)0)->reserved),                   \
                 "a mark fits the reserved fields of uv_" #kind "_t");         \
  static void kind##_done(uv_##kind##_t *req, int status) {                    \
    mprof__uv_mark_t mark = mprof__uv_mark_get(req->reserved);                 \
    mprof_switch(mark.thread);                                                 \
    if (mark.cb) ((cb_type)mark.cb)(req, status);                              \
    mprof__uv_end(mark.thread, status);                                        \
  }

/* A marked request's thread failed at its submission with result (< 0):
 * ends it.  Keeps errno. */
void mprof__uv_request_failed(uint64_t thread, int result);

/* mprof__uv_begin() with the label "WHAT TARGET" (cut to fit), or "WHAT"
 * when target is NULL. */
mprof__uv_entry_t *mprof__uv_begin_labelled(const void *key, mprof__uv_fn cb,
                                            mprof_type_t type, const char *what,
                                            const char *target);

/* A synchronous request's thread and the thread that made the call. */
typedef struct mprof__uv_sync_s {
  uint64_t thread, caller;
} mprof__uv_sync_t;

/* Before a request that libuv runs asynchronously only when it has a
 * callback: with one, mprof__uv_begin_labelled(); without (a synchronous
 * call), its thread, created by the current one and switched to while the
 * call runs, in *sync. */
mprof__uv_entry_t *mprof__uv_begin_request(mprof__uv_sync_t *sync,
                                           const void *req, mprof__uv_fn cb,
                                           mprof_type_t type, const char *what,
                                           const char *target);

/* Ends the thread of entry, whose request or handle failed to start with
 * result (< 0); returns result and keeps errno. */
int mprof__uv_start_failed(mprof__uv_entry_t *entry, int result);

/* After the submitting call: a request or handle that failed to start
 * ends now.  Keeps result and errno. */
static inline int mprof__uv_submitted(mprof__uv_entry_t *entry, int result) {
  return entry && result < 0 ? mprof__uv_start_failed(entry, result) : result;
}

/* After a request's call: a synchronous one ends now, as others do when
 * their callback returns; an asynchronous one as in mprof__uv_submitted().
 * Keeps result and errno. */
int mprof__uv_end_request(const mprof__uv_sync_t *sync,
                          mprof__uv_entry_t *entry, int result);

/* Ends a request's thread after its callback, back on the loop's thread.
 * Inlined: every write's ends so. */
static inline void mprof__uv_end(uint64_t thread, int status) {
  if (status < 0) {
    mprof_fail(thread, REAL->uv_err_name(status));
    mprof_switch(mprof__uv_running_loop);
  } else {
    mprof__resolve_switch(thread, mprof__uv_running_loop);
  }
}

/* mprof__uv_end() of a request's entry, then the entry given back. */
static inline void mprof__uv_finish(mprof__uv_entry_t *entry, int status) {
  mprof__uv_end(entry->thread, status);
  mprof__uv_map_release(entry);
}

/* A handle's thread, from its init on (result: the init's). */
int mprof__uv_handle_inited(uv_loop_t *loop, void *handle,
                            uv_handle_type handle_type, mprof_type_t type,
                            const char *label, int result);

/* A handle's entry, switched to for one of its callbacks. */
static inline mprof__uv_entry_t *mprof__uv_enter(const void *handle) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(handle);
  mprof_switch(entry->thread);
  return entry;
}

/* A handle's entry, holding cb as its main callback or (read) its read
 * callback: NULL if it has none.
 * libuv may start a handle again with the callback it holds, which is
 * then our own fire. */
static inline mprof__uv_entry_t *mprof__uv_watch(const void *handle,
                                                 mprof__uv_fn cb,
                                                 mprof__uv_fn fire, int read) {
  mprof__uv_entry_t *entry = cb ? mprof__uv_map_get(handle) : NULL;
  if (entry && cb != fire) *(read ? &entry->read_cb : &entry->cb) = cb;
  return entry;
}

/* Is handle one that libuv keeps inside the loop for itself (its thread
 * pool's async, its child watcher)?  The shim sees them, a program built
 * with mprof/uv.h does not; neither traces them. */
static inline int mprof__uv_libuv_own(const uv_loop_t *loop,
                                      const void *handle) {
  const char *at = handle;
  return at >= (const char *)loop && at < (const char *)(loop + 1);
}

/* The callbacks of requests that take (req, status); libuv lets most of
 * them be NULL. */
#define MPROF__UV_REQUEST_DONE(kind, cb_type)                                  \
  static void kind##_done(uv_##kind##_t *req, int status) {                    \
    mprof__uv_entry_t *entry = mprof__uv_map_take(req);                        \
    mprof_switch(entry->thread);                                               \
    if (entry->cb) ((cb_type)entry->cb)(req, status);                          \
    mprof__uv_finish(entry, status);                                           \
  }

/* "ip:port" or "[ip6]:port" of an IP address; empty for other families. */
void mprof__uv_address_text(const struct sockaddr *sa,
                            mprof__uv_address_t *out);

/* A getsockname-like call of libuv's. */
typedef int (*mprof__uv_name_fn)(const void *handle, struct sockaddr *name,
                                 int *length);

/* Fill *address once from a getsockname-like call; nonzero if known. */
int mprof__uv_address_cached(mprof__uv_address_t *address, mprof__uv_name_fn fn,
                             const void *handle);

/* The handle's net part, made at its first use; NULL if out of memory. */
mprof__uv_net_t *mprof__uv_net_of(mprof__uv_entry_t *entry);

/* The bytes of a write's or a send's buffers.  One buffer, as nearly
 * every write has, is taken alone: the vectorised loop that the compiler
 * makes of the sum costs several times as much for it. */
static inline size_t mprof__uv_bufs_length(const uv_buf_t bufs[],
                                           unsigned int nbufs) {
  if (nbufs == 1) return bufs[0].len;
  size_t length = 0;
  for (unsigned int i = 0; i < nbufs; i++) length += bufs[i].len;
  return length;
}

/* Appends n bytes of part to text, cut to fit.  The network labels are
 * built by hand, as they come with every read and write (snprintf costs
 * several times as much), from parts whose lengths are known (no strlen). */
void mprof__uv_text_put(mprof__uv_text_t *text, const char *part, size_t n);

/* text = head ("net DIRECTION PROTOCOL ") "SOURCE DESTINATION", hashed. */
void mprof__uv_text_head(mprof__uv_text_t *text, const char *head,
                         const mprof__uv_address_t *source,
                         const mprof__uv_address_t *destination);

#pragma GCC visibility pop

#endif /* MPROF_UV_INTERNAL_H */
