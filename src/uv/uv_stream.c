/* uv_stream.c -- the libuv tracing of streams: TCP, pipes and TTYs.  A
 * write, shutdown or connect is a request's thread; a read is counted on
 * the stream's own thread.  Each TCP read and write records its network
 * label (docs/libuv.md, "The network convention") from the connection's
 * two label heads, built once.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../record/record.h"
#include "uv_internal.h"

/* The label of every write request, hashed once for the process, and
 * kept per OS thread with the string id its trace interned it as. */
static mprof__uv_label_t write_label = MPROF__UV_LABEL("write");
static _Thread_local mprof__net_head_t write_head MPROF__UV_TLS;

__attribute__((constructor)) static void write_label_init(void) {
  mprof__uv_label_init(&write_label);
}

static inline mprof__net_head_t *write_head_get(void) {
  if (__builtin_expect(!write_head.text, 0))
    write_head = (mprof__net_head_t){
        write_label.text, write_label.length, write_label.hash, 0, 0, 0};
  return &write_head;
}

/* A traced write carries its mark (uv_internal.h). */
MPROF__UV_MARKED_DONE(write, uv_write_cb)

MPROF__UV_REQUEST_DONE(shutdown, uv_shutdown_cb)
MPROF__UV_REQUEST_DONE(connect, uv_connect_cb)

/* tcp_net() the first time: the two label heads built; NULL while an
 * address is unknown.  Keeps errno. */
__attribute__((noinline)) static mprof__uv_net_t *
tcp_net_build(mprof__uv_entry_t *entry, const uv_tcp_t *tcp) {
  int saved = errno;
  mprof__uv_net_t *net = NULL;
  if (entry->handle_type == UV_TCP && (net = mprof__uv_net_of(entry)) &&
      mprof__uv_address_cached(
          &net->local, (mprof__uv_name_fn)REAL->uv_tcp_getsockname, tcp) &&
      mprof__uv_address_cached(
          &net->peer, (mprof__uv_name_fn)REAL->uv_tcp_getpeername, tcp)) {
    mprof__uv_text_head(&net->send, "net send tcp ", &net->local, &net->peer);
    mprof__uv_text_head(&net->recv, "net recv tcp ", &net->peer, &net->local);
  } else {
    net = NULL;
  }
  errno = saved;
  return net;
}

/* A TCP handle's net part with its two label heads, built once; NULL while
 * an address is unknown.  Inlined: every read and write asks.  Keeps
 * errno. */
static inline mprof__uv_net_t *tcp_net(mprof__uv_entry_t *entry,
                                       const uv_tcp_t *tcp) {
  mprof__uv_net_t *net = entry->net;
  return net && net->send.head.length ? net : tcp_net_build(entry, tcp);
}

/* A stream's TCP net part with its label heads; NULL for other streams
 * and while an address is unknown.  Keeps errno. */
static inline mprof__uv_net_t *stream_net(uv_stream_t *stream) {
  mprof__uv_entry_t *handle = mprof__uv_map_get(stream);
  return handle ? tcp_net(handle, (uv_tcp_t *)stream) : NULL;
}

/* "net send tcp ..." on thread, now: length bytes written to a stream.
 * Keeps errno. */
static void stream_sent(uv_stream_t *stream, uint64_t thread, size_t length) {
  mprof__uv_net_t *net = stream_net(stream);
  if (!net) {
    mprof_counter_increase(mprof__uv_bytes_written, (int64_t)length);
    return;
  }
  mprof__label_net_head(MPROF__NET_NOW, thread, &net->send.head,
                        mprof__uv_bytes_written, net->sent_bytes, length);
  net->sent_bytes += length;
}

/* Switches to the handle's thread, which read length bytes: "net recv tcp
 * ...", at the same instant. */
static void stream_received(mprof__uv_entry_t *handle, uv_stream_t *stream,
                            size_t length) {
  mprof__uv_net_t *net = tcp_net(handle, (uv_tcp_t *)stream);
  if (!net) {
    mprof_switch(handle->thread);
    mprof_counter_increase(mprof__uv_bytes_read, (int64_t)length);
    return;
  }
  mprof__label_net_head(MPROF__NET_ENTER, handle->thread, &net->recv.head,
                        mprof__uv_bytes_read, net->received_bytes, length);
  net->received_bytes += length;
}

int mprof_uv_tcp_init_ex(uv_loop_t *loop, uv_tcp_t *handle,
                         unsigned int flags) {
  int result = REAL->uv_tcp_init_ex(loop, handle, flags);
  return mprof__uv_in_wrapped
             ? result
             : mprof__uv_handle_inited(loop, handle, UV_TCP, MPROF_HANDLE,
                                       "tcp", result);
}

int mprof_uv_tcp_init(uv_loop_t *loop, uv_tcp_t *handle) {
  mprof__uv_in_wrapped++;
  int result = REAL->uv_tcp_init(loop, handle);
  mprof__uv_in_wrapped--;
  return mprof__uv_handle_inited(loop, handle, UV_TCP, MPROF_HANDLE, "tcp",
                                 result);
}

int mprof_uv_pipe_init(uv_loop_t *loop, uv_pipe_t *handle, int ipc) {
  return mprof__uv_handle_inited(loop, handle, UV_NAMED_PIPE, MPROF_HANDLE,
                                 "pipe", REAL->uv_pipe_init(loop, handle, ipc));
}

int mprof_uv_tty_init(uv_loop_t *loop, uv_tty_t *handle, uv_file fd,
                      int readable) {
  return mprof__uv_handle_inited(loop, handle, UV_TTY, MPROF_HANDLE, "tty",
                                 REAL->uv_tty_init(loop, handle, fd, readable));
}

static void connection_fire(uv_stream_t *server, int status) {
  mprof__uv_entry_t *entry = mprof__uv_enter(server);
  ((uv_connection_cb)entry->cb)(server, status);
  mprof_switch(mprof__uv_running_loop);
}

int mprof_uv_listen(uv_stream_t *stream, int backlog, uv_connection_cb cb) {
  mprof__uv_entry_t *entry = mprof__uv_watch(stream, (mprof__uv_fn)cb,
                                             (mprof__uv_fn)connection_fire, 0);
  return REAL->uv_listen(stream, backlog, entry ? connection_fire : cb);
}

int mprof_uv_accept(uv_stream_t *server, uv_stream_t *client) {
  int result = REAL->uv_accept(server, client);
  mprof__uv_entry_t *entry = result ? NULL : mprof__uv_map_get(client);
  if (!entry) return result;
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
  mprof__uv_entry_t *entry = mprof__uv_map_get(stream);
  if (nread == 0) { /* nothing was there: the buffer given back */
    ((uv_read_cb)entry->read_cb)(stream, nread, buf);
    return;
  }
  if (nread > 0)
    stream_received(entry, stream, (size_t)nread);
  else
    mprof_switch(entry->thread);
  ((uv_read_cb)entry->read_cb)(stream, nread, buf);
  mprof_switch(mprof__uv_running_loop);
}

int mprof_uv_read_start(uv_stream_t *stream, uv_alloc_cb alloc_cb,
                        uv_read_cb read_cb) {
  mprof__uv_entry_t *entry = mprof__uv_watch(stream, (mprof__uv_fn)read_cb,
                                             (mprof__uv_fn)read_fire, 1);
  return REAL->uv_read_start(stream, alloc_cb, entry ? read_fire : read_cb);
}

/* A write request's thread, after the call that submitted it (result):
 * its create, label and (sent) net label, at the time minted before the
 * call, as one reservation; or its failure.  Keeps result and errno. */
static inline __attribute__((always_inline)) int
write_submitted(uint64_t thread, uint64_t at, uv_stream_t *handle,
                const uv_buf_t bufs[], unsigned int nbufs, int result) {
  size_t length = mprof__uv_bufs_length(bufs, nbufs);
  mprof__uv_net_t *net = result == 0 ? stream_net(handle) : NULL;
  mprof__create_sent(at, thread, MPROF_WRITE, write_head_get(),
                     net ? &net->send.head : NULL, mprof__uv_bytes_written,
                     net ? net->sent_bytes : 0, length);
  if (net)
    net->sent_bytes += length;
  else if (result == 0)
    mprof_counter_increase(mprof__uv_bytes_written, (int64_t)length);
  if (result < 0) mprof__uv_request_failed(thread, result);
  return result;
}

int mprof_uv_write(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
                   unsigned int nbufs, uv_write_cb cb) {
  uint64_t at, thread = mprof__mint(&at);
  if (thread == MPROF_NONE) return REAL->uv_write(req, handle, bufs, nbufs, cb);
  mprof__uv_mark_put(req->reserved, thread, (mprof__uv_fn)cb);
  /* What libuv's uv_write() does, without its call of uv_write2() through
   * the PLT, which would come back into the shim. */
  return write_submitted(
      thread, at, handle, bufs, nbufs,
      REAL->uv_write2(req, handle, bufs, nbufs, NULL, write_done));
}

int mprof_uv_write2(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
                    unsigned int nbufs, uv_stream_t *send_handle,
                    uv_write_cb cb) {
  /* libuv's uv_write() calls uv_write2(), which the shim sees too. */
  if (cb == write_done)
    return REAL->uv_write2(req, handle, bufs, nbufs, send_handle, cb);
  uint64_t at, thread = mprof__mint(&at);
  if (thread == MPROF_NONE)
    return REAL->uv_write2(req, handle, bufs, nbufs, send_handle, cb);
  mprof__uv_mark_put(req->reserved, thread, (mprof__uv_fn)cb);
  return write_submitted(
      thread, at, handle, bufs, nbufs,
      REAL->uv_write2(req, handle, bufs, nbufs, send_handle, write_done));
}

void mprof_uv_pipe_connect(uv_connect_t *req, uv_pipe_t *handle,
                           const char *name, uv_connect_cb cb) {
  mprof__uv_entry_t *entry = mprof__uv_begin_labelled(
      req, (mprof__uv_fn)cb, MPROF_CONNECT, "connect", name);
  REAL->uv_pipe_connect(req, handle, name, entry ? connect_done : cb);
}

/* After a try_write: its bytes and the net label, on the handle's thread. */
static int try_written(uv_stream_t *handle, int result) {
  if (result > 0 && mprof_is_started())
    stream_sent(handle, mprof__uv_map_thread(handle), (size_t)result);
  return result;
}

int mprof_uv_try_write(uv_stream_t *handle, const uv_buf_t bufs[],
                       unsigned int nbufs) {
  mprof__uv_in_wrapped++;
  int result = REAL->uv_try_write(handle, bufs, nbufs);
  mprof__uv_in_wrapped--;
  return try_written(handle, result);
}

int mprof_uv_try_write2(uv_stream_t *handle, const uv_buf_t bufs[],
                        unsigned int nbufs, uv_stream_t *send_handle) {
  int result = REAL->uv_try_write2(handle, bufs, nbufs, send_handle);
  return mprof__uv_in_wrapped ? result : try_written(handle, result);
}

int mprof_uv_shutdown(uv_shutdown_t *req, uv_stream_t *handle,
                      uv_shutdown_cb cb) {
  mprof__uv_entry_t *entry =
      mprof__uv_begin(req, MPROF_SHUTDOWN, "shutdown", (mprof__uv_fn)cb);
  return mprof__uv_submitted(
      entry, REAL->uv_shutdown(req, handle, entry ? shutdown_done : cb));
}

int mprof_uv_tcp_connect(uv_connect_t *req, uv_tcp_t *handle,
                         const struct sockaddr *addr, uv_connect_cb cb) {
  mprof__uv_entry_t *entry = NULL;
  if (cb && addr && mprof_is_started()) {
    char label[96];
    mprof__uv_address_t target;
    mprof__uv_address_text(addr, &target);
    snprintf(label, sizeof label, "connect %s", target.text);
    entry = mprof__uv_begin(req, MPROF_CONNECT, label, (mprof__uv_fn)cb);
  }
  return mprof__uv_submitted(
      entry,
      REAL->uv_tcp_connect(req, handle, addr, entry ? connect_done : cb));
}
