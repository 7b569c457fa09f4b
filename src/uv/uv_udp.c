/* uv_udp.c -- the libuv tracing of UDP sockets: a send is a request's
 * thread, a receive is counted on the socket's own thread, and each
 * datagram records its network label, "net DIRECTION udp SOURCE
 * DESTINATION HASH LENGTH" (docs/libuv.md, "The network convention"), as
 * one net_hash_label event whose head is built once per peer.
 */
#include <errno.h>
#include <string.h>

#include "../format/format.h"
#include "../record/record.h"
#include "uv_internal.h"

/* A traced send carries its mark (uv_internal.h). */
MPROF__UV_MARKED_DONE(udp_send, uv_udp_send_cb)

/* The label of every send request. */
static mprof__uv_label_t send_label = MPROF__UV_LABEL("udp send");

__attribute__((constructor)) static void send_label_init(void) {
  mprof__uv_label_init(&send_label);
}

/* FNV-1a 64 of n bytes at p, after hash; four bytes a turn, which a
 * server pays for every datagram. */
static uint64_t fnv1a(uint64_t hash, const unsigned char *p, size_t n) {
  const uint64_t prime = 0x100000001b3u;
  const unsigned char *end = p + n;
  for (; end - p >= 4; p += 4)
    hash = ((((hash ^ p[0]) * prime ^ p[1]) * prime ^ p[2]) * prime ^ p[3]) *
           prime;
  for (; p < end; p++) hash = (hash ^ *p) * prime;
  return hash;
}

/* FNV-1a 64 of a datagram's payload, as the UDP labels carry it. */
static uint64_t payload_hash(const uv_buf_t bufs[], unsigned int nbufs,
                             size_t length) {
  uint64_t hash = 0xcbf29ce484222325u;
  for (unsigned int i = 0; i < nbufs && length; i++) {
    size_t n = bufs[i].len < length ? bufs[i].len : length;
    hash = fnv1a(hash, (const unsigned char *)bufs[i].base, n);
    length -= n;
  }
  return hash;
}

/* Do a and b, IP addresses, show as the same "ip:port"? */
static int same_address(const struct sockaddr *a, const struct sockaddr *b) {
  if (a->sa_family != b->sa_family) return 0;
  if (a->sa_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_port == y->sin_port &&
           x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return a->sa_family == AF_INET6 && x->sin6_port == y->sin6_port &&
         !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
}

/* The head of a datagram's label, "net send udp LOCAL PEER" (send) or "net
 * recv udp PEER LOCAL", peer the address at sa (NULL: the socket's
 * connected peer), hashed: kept in net for the last peer of each
 * direction, so a server answering the client it heard from, or a client
 * talking to one server, builds it once.  NULL while an address is
 * unknown. */
static mprof__uv_text_t *udp_head(uv_udp_t *udp, mprof__uv_net_t *net, int send,
                                  const struct sockaddr *sa) {
  mprof__uv_text_t *head = send ? &net->send : &net->recv;
  struct sockaddr_in6 *of = send ? &net->send_peer : &net->recv_peer;
  if (head->head.length && (sa ? same_address(sa, (const struct sockaddr *)of)
                               : of->sin6_family == AF_UNSPEC))
    return head;
  mprof__uv_address_t address, *peer = &address;
  if (sa)
    mprof__uv_address_text(sa, &address);
  else if (mprof__uv_address_cached(
               &net->peer, (mprof__uv_name_fn)REAL->uv_udp_getpeername, udp))
    peer = &net->peer;
  head->head.length = 0;
  if (!peer->length ||
      !mprof__uv_address_cached(
          &net->local, (mprof__uv_name_fn)REAL->uv_udp_getsockname, udp))
    return NULL;
  if (send)
    mprof__uv_text_head(head, "net send udp ", &net->local, peer);
  else
    mprof__uv_text_head(head, "net recv udp ", peer, &net->local);
  memset(of, 0, sizeof *of);
  if (sa)
    memcpy(of, sa,
           sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof *of);
  return head;
}

/* What a datagram's label stands for, as it is stamped: a receive, whose
 * callback it enters, a send request's send, at the time of the request's
 * create, or uv_udp_try_send()'s. */
enum {
  UDP_RECEIVED = MPROF__NET_ENTER,
  UDP_SENT = MPROF__NET_AT_LAST,
  UDP_TRIED = MPROF__NET_NOW
};

/* "net DIRECTION udp SOURCE DESTINATION HASH LENGTH" of a datagram to or
 * from sa (NULL: the connected peer), with the counter's increase by its
 * length; the increase alone while an address is unknown. */
static void udp_label(uint64_t thread, mprof__uv_entry_t *handle, int how,
                      const struct sockaddr *sa, const uv_buf_t bufs[],
                      unsigned int nbufs, size_t length) {
  int send = how != UDP_RECEIVED;
  mprof_counter_t counter =
      send ? mprof__uv_bytes_written : mprof__uv_bytes_read;
  mprof__uv_net_t *net = handle ? mprof__uv_net_of(handle) : NULL;
  mprof__uv_text_t *head =
      net ? udp_head((uv_udp_t *)handle->key, net, send, sa) : NULL;
  if (!head) {
    if (!send) mprof_switch(thread);
    mprof_counter_increase(counter, (int64_t)length);
    return;
  }
  uint64_t hash = payload_hash(bufs, nbufs, length);
  mprof__label_net_hash_head((mprof__net_stamp_t)how, thread, &head->head,
                             counter, hash, length);
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

/* The send's label and counter (how: UDP_SENT or UDP_TRIED), once libuv
 * has bound the socket. */
static void udp_sent(uint64_t thread, int how, uv_udp_t *udp,
                     const uv_buf_t bufs[], unsigned int nbufs,
                     const struct sockaddr *addr) {
  udp_label(thread, mprof__uv_map_get(udp), how, addr, bufs, nbufs,
            mprof__uv_bufs_length(bufs, nbufs));
}

int mprof_uv_udp_send(uv_udp_send_t *req, uv_udp_t *handle,
                      const uv_buf_t bufs[], unsigned int nbufs,
                      const struct sockaddr *addr, uv_udp_send_cb cb) {
  uint64_t thread = mprof__create_labelled(MPROF_UDP_SEND, send_label.text,
                                           send_label.length, send_label.hash);
  if (thread == MPROF_NONE)
    return REAL->uv_udp_send(req, handle, bufs, nbufs, addr, cb);
  mprof__uv_mark_put(req->reserved, thread, (mprof__uv_fn)cb);
  int result = REAL->uv_udp_send(req, handle, bufs, nbufs, addr, udp_send_done);
  if (result < 0) {
    mprof__uv_request_failed(thread, result);
    return result;
  }
  int saved = errno;
  udp_sent(thread, UDP_SENT, handle, bufs, nbufs, addr);
  errno = saved;
  return result;
}

int mprof_uv_udp_try_send(uv_udp_t *handle, const uv_buf_t bufs[],
                          unsigned int nbufs, const struct sockaddr *addr) {
  int result = REAL->uv_udp_try_send(handle, bufs, nbufs, addr);
  if (result >= 0 && mprof_is_started()) {
    int saved = errno;
    udp_sent(mprof__uv_map_thread(handle), UDP_TRIED, handle, bufs, nbufs,
             addr);
    errno = saved;
  }
  return result;
}

static void udp_recv_fire(uv_udp_t *udp, ssize_t nread, const uv_buf_t *buf,
                          const struct sockaddr *addr, unsigned flags) {
  mprof__uv_entry_t *entry = mprof__uv_map_get(udp);
  if (nread == 0 && !addr) { /* nothing was there: the buffer given back */
    ((uv_udp_recv_cb)entry->read_cb)(udp, nread, buf, addr, flags);
    return;
  }
  if (nread > 0 && addr) {
    udp_label(entry->thread, entry, UDP_RECEIVED, addr, buf, 1, (size_t)nread);
  } else {
    mprof_switch(entry->thread);
    if (nread > 0) mprof_counter_increase(mprof__uv_bytes_read, nread);
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
