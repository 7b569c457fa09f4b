/* uv_common.c -- what every libuv wrapper file shares (uv_internal.h): the
 * threads of requests and handles, from their start to their end, and the
 * addresses and text of the network labels.
 *
 * A request is a thread from submission to the return of its callback; a
 * handle a thread from init to the return of its close callback; a loop a
 * thread that runs inside uv_run() (uv_loop.c).  Callbacks run switched to
 * their thread and switch back to the loop's thread.  See docs/libuv.md
 * for the labels, counters and the network convention.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/format.h"
#include "../record/record.h"
#include "uv_internal.h"

_Thread_local uint64_t mprof__uv_running_loop MPROF__UV_TLS;
_Thread_local int mprof__uv_in_wrapped MPROF__UV_TLS;

mprof_counter_t mprof__uv_bytes_read, mprof__uv_bytes_written;

__attribute__((constructor)) static void counters_init(void) {
  mprof__uv_bytes_read = mprof_counter_make("uv bytes read");
  mprof__uv_bytes_written = mprof_counter_make("uv bytes written");
}

/* --- Threads of requests and handles --- */

/* Do threads of type live as long as a handle or a loop?  Their labels
 * must outlive the ring, in the names area.  Requests' labels go into the
 * ring with their creates (mprof__create_labelled()). */
static int lasting(mprof_type_t type) {
  return type == MPROF_HANDLE || type == MPROF_TIMER || type == MPROF_LOOP;
}

/* A new thread of type labelled label, created by the current one;
 * MPROF_NONE when not recording. */
static uint64_t thread_begin(mprof_type_t type, const char *label) {
  size_t length = strlen(label);
  uint64_t hash = mprof__label_hash(label, length);
  if (!lasting(type)) return mprof__create_labelled(type, label, length, hash);
  uint64_t thread = mprof_create(type);
  if (thread != MPROF_NONE) mprof__label_hashed(thread, label, length, hash);
  return thread;
}

mprof__uv_entry_t *mprof__uv_begin(const void *key, mprof_type_t type,
                                   const char *label, mprof__uv_fn cb) {
  if (!mprof_is_started()) return NULL;
  uint64_t thread = thread_begin(type, label);
  if (thread == MPROF_NONE) return NULL;
  mprof__uv_entry_t *entry = mprof__uv_map_add(key, thread);
  if (entry)
    entry->cb = cb;
  else
    mprof_fail(thread, "mprof: out of memory");
  return entry;
}

void mprof__uv_label_init(mprof__uv_label_t *label) {
  label->hash = mprof__label_hash(label->text, label->length);
}

/* The label "WHAT TARGET" (cut to fit), or "WHAT". */
static void label_text(char *label, size_t size, const char *what,
                       const char *target) {
  if (target)
    snprintf(label, size, "%s %s", what, target);
  else
    snprintf(label, size, "%s", what);
}

mprof__uv_entry_t *mprof__uv_begin_labelled(const void *key, mprof__uv_fn cb,
                                            mprof_type_t type, const char *what,
                                            const char *target) {
  if (!mprof_is_started()) return NULL;
  char label[512];
  label_text(label, sizeof label, what, target);
  return mprof__uv_begin(key, type, label, cb);
}

mprof__uv_entry_t *mprof__uv_begin_request(mprof__uv_sync_t *sync,
                                           const void *req, mprof__uv_fn cb,
                                           mprof_type_t type, const char *what,
                                           const char *target) {
  sync->thread = MPROF_NONE;
  if (cb || !mprof_is_started())
    return cb ? mprof__uv_begin_labelled(req, cb, type, what, target) : NULL;
  char label[512];
  label_text(label, sizeof label, what, target);
  size_t length = strlen(label);
  sync->caller = mprof_current();
  sync->thread = mprof__create_labelled(type, label, length,
                                        mprof__label_hash(label, length));
  mprof_switch(sync->thread);
  return NULL;
}

void mprof__uv_request_failed(uint64_t thread, int result) {
  int saved = errno;
  mprof_fail(thread, REAL->uv_err_name(result));
  errno = saved;
}

int mprof__uv_start_failed(mprof__uv_entry_t *entry, int result) {
  int saved = errno;
  mprof__uv_request_failed(entry->thread, result);
  mprof__uv_map_release(mprof__uv_map_take(entry->key));
  errno = saved;
  return result;
}

int mprof__uv_end_request(const mprof__uv_sync_t *sync,
                          mprof__uv_entry_t *entry, int result) {
  if (sync->thread == MPROF_NONE) return mprof__uv_submitted(entry, result);
  int saved = errno;
  if (result < 0)
    mprof_fail(sync->thread, REAL->uv_err_name(result));
  else
    mprof_resolve(sync->thread);
  mprof_switch(sync->caller);
  errno = saved;
  return result;
}

int mprof__uv_handle_inited(uv_loop_t *loop, void *handle,
                            uv_handle_type handle_type, mprof_type_t type,
                            const char *label, int result) {
  if (result < 0 || mprof__uv_libuv_own(loop, handle)) return result;
  int saved = errno;
  mprof__uv_entry_t *entry = mprof__uv_begin(handle, type, label, NULL);
  if (entry) entry->handle_type = handle_type;
  errno = saved;
  return result;
}

/* --- Addresses and the network labels --- */

/* Written by hand, not by snprintf(), which cost a UDP server thousands of
 * instructions a datagram. */
void mprof__uv_address_text(const struct sockaddr *sa,
                            mprof__uv_address_t *out) {
  char *at = out->text;
  uint16_t port;
  out->text[0] = 0;
  out->length = 0;
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    const uint8_t *ip = (const uint8_t *)&in->sin_addr;
    for (int i = 0; i < 4; i++) {
      if (i) *at++ = '.';
      at += mprof__put_decimal(at, ip[i]);
    }
    port = ntohs(in->sin_port);
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    *at++ = '[';
    if (!inet_ntop(AF_INET6, &in6->sin6_addr, at, INET6_ADDRSTRLEN)) {
      out->text[0] = 0;
      return;
    }
    at += strlen(at);
    *at++ = ']';
    port = ntohs(in6->sin6_port);
  } else {
    return;
  }
  *at++ = ':';
  at += mprof__put_decimal(at, port);
  *at = 0;
  out->length = (size_t)(at - out->text);
}

int mprof__uv_address_cached(mprof__uv_address_t *address, mprof__uv_name_fn fn,
                             const void *handle) {
  if (!address->length) {
    struct sockaddr_storage name;
    int length = sizeof name;
    if (fn(handle, (struct sockaddr *)&name, &length) == 0)
      mprof__uv_address_text((struct sockaddr *)&name, address);
  }
  return address->length != 0;
}

mprof__uv_net_t *mprof__uv_net_of(mprof__uv_entry_t *entry) {
  if (!entry->net) entry->net = calloc(1, sizeof *entry->net);
  return entry->net;
}

void mprof__uv_text_put(mprof__uv_text_t *text, const char *part, size_t n) {
  size_t *length = &text->head.length;
  if (n > sizeof text->buf - *length) n = sizeof text->buf - *length;
  memcpy(text->buf + *length, part, n);
  *length += n;
}

void mprof__uv_text_head(mprof__uv_text_t *text, const char *head,
                         const mprof__uv_address_t *source,
                         const mprof__uv_address_t *destination) {
  text->head = (mprof__net_head_t){.text = text->buf};
  mprof__uv_text_put(text, head, strlen(head));
  mprof__uv_text_put(text, source->text, source->length);
  mprof__uv_text_put(text, " ", 1);
  mprof__uv_text_put(text, destination->text, destination->length);
  text->head.hash = mprof__label_hash(text->buf, text->head.length);
}
