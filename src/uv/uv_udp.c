/* uv_udp.c -- the libuv tracing of UDP sockets: a send is a request's
 * thread, a receive is counted on the socket's own thread, and each
 * datagram records its network label, "net DIRECTION udp SOURCE
 * DESTINATION HASH LENGTH" (docs/libuv.md, "The network convention").
 */
#include <errno.h>

#include "../format/format.h"
#include "../record/record.h"
#include "uv_internal.h"

MPROF__UV_REQUEST_DONE(udp_send, uv_udp_send_cb)

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

/* " HASH LENGTH": hash in base 16 (all 16 digits), length in base 10. */
static void text_tail(mprof__uv_text_t *text, uint64_t hash, size_t length) {
  char tail[18 + 20];
  tail[0] = ' ';
  for (int i = 16; i > 0; i--, hash >>= 4)
    tail[i] = "0123456789abcdef"[hash & 15];
  tail[17] = ' ';
  mprof__uv_text_put(text, tail, 18 + mprof__put_decimal(tail + 18, length));
}

/* Records mprof__uv_text_head()'s text, then text_tail(), on thread.  The
 * payload hashes make each label unique, so the recorder writes them
 * without interning them. */
static void text_emit(uint64_t thread, mprof__uv_text_t *text, uint64_t hash,
                      size_t length) {
  text_tail(text, hash, length);
  mprof__label_unique(thread, text->buf, text->length);
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
  mprof__uv_text_head(&text, head, source, destination);
  text_emit(thread, &text, payload_hash(bufs, nbufs, length), length);
}

int mprof_uv_udp_init_ex(uv_loop_t *loop, uv_udp_t *handle,
                         unsigned int flags) {
  int result = REAL->uv_udp_init_ex(loop, handle, flags);
  return mprof__uv_in_wrapped
             ? result
             : mprof__uv_handle_inited(loop, handle, UV_UDP, MPROF_HANDLE,
                                       "udp", result);
}

int mprof_uv_udp_init(uv_loop_t *loop, uv_udp_t *handle) {
  mprof__uv_in_wrapped++;
  int result = REAL->uv_udp_init(loop, handle);
  mprof__uv_in_wrapped--;
  return mprof__uv_handle_inited(loop, handle, UV_UDP, MPROF_HANDLE, "udp",
                                 result);
}

/* The send's label and counter, once libuv has bound the socket. */
static void udp_sent(uint64_t thread, uv_udp_t *udp, const uv_buf_t bufs[],
                     unsigned int nbufs, const struct sockaddr *addr) {
  mprof__uv_entry_t *handle = mprof__uv_map_get(udp);
  size_t length = mprof__uv_bufs_length(bufs, nbufs);
  mprof_counter_increase(mprof__uv_bytes_written, (int64_t)length);
  mprof__uv_net_t *net = handle ? mprof__uv_net_of(handle) : NULL;
  if (!net)
    return;
  mprof__uv_address_t destination;
  if (addr)
    mprof__uv_address_text(addr, &destination);
  else
    mprof__uv_address_cached(&net->peer,
                             (mprof__uv_name_fn)REAL->uv_udp_getpeername, udp);
  mprof__uv_address_cached(&net->local,
                           (mprof__uv_name_fn)REAL->uv_udp_getsockname, udp);
  udp_label(thread, "net send udp ", &net->local,
            addr ? &destination : &net->peer, bufs, nbufs, length);
}

int mprof_uv_udp_send(uv_udp_send_t *req, uv_udp_t *handle,
                      const uv_buf_t bufs[], unsigned int nbufs,
                      const struct sockaddr *addr, uv_udp_send_cb cb) {
  mprof__uv_entry_t *entry =
      mprof__uv_begin(req, MPROF_UDP_SEND, "udp send", (mprof__uv_fn)cb);
  int result = REAL->uv_udp_send(req, handle, bufs, nbufs, addr,
                                 entry ? udp_send_done : cb);
  if (entry && result == 0) {
    int saved = errno;
    udp_sent(entry->thread, handle, bufs, nbufs, addr);
    errno = saved;
  }
  return mprof__uv_submitted(entry, result);
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
  mprof__uv_entry_t *entry = mprof__uv_enter(udp);
  mprof__uv_net_t *net = nread > 0 ? mprof__uv_net_of(entry) : NULL;
  if (nread > 0)
    mprof_counter_increase(mprof__uv_bytes_read, nread);
  if (net) {
    mprof__uv_address_t source = {"", 0};
    if (addr)
      mprof__uv_address_text(addr, &source);
    mprof__uv_address_cached(&net->local,
                             (mprof__uv_name_fn)REAL->uv_udp_getsockname, udp);
    udp_label(entry->thread, "net recv udp ", &source, &net->local, buf, 1,
              (size_t)nread);
  }
  ((uv_udp_recv_cb)entry->read_cb)(udp, nread, buf, addr, flags);
  mprof_switch(mprof__uv_running_loop);
}

int mprof_uv_udp_recv_start(uv_udp_t *handle, uv_alloc_cb alloc_cb,
                            uv_udp_recv_cb recv_cb) {
  mprof__uv_entry_t *entry = mprof__uv_watch(handle, (mprof__uv_fn)recv_cb,
                                             (mprof__uv_fn)udp_recv_fire, 1);
  return REAL->uv_udp_recv_start(handle, alloc_cb,
                                 entry ? udp_recv_fire : recv_cb);
}
