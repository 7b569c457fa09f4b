/* uv_internal.h -- what the libuv tracing code (uv_trace.c) shares with
 * its two ways in: uv_direct.c (a program built with mprof/uv.h) and
 * uv_preload.c (the LD_PRELOAD shim).  Both hand the tracing code the
 * real libuv functions in one table, so the tracing logic exists once.
 */
#ifndef MPROF_UV_INTERNAL_H
#define MPROF_UV_INTERNAL_H

#define MPROF_UV_NO_MACROS
#include "mprof/uv.h"

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

/* A network label under construction (uv_trace.c): its text, unterminated,
 * and (TCP label heads) the hash the recorder interns it by. */
typedef struct mprof__uv_text_s {
  char buf[192];
  size_t length;
  uint64_t hash;
} mprof__uv_text_t;

/* What an IP socket's handle keeps for its network labels, made at its
 * first send or receive.  TCP: each direction's label up to its offset
 * ("net send tcp LOCAL PEER", "net recv tcp PEER LOCAL"), built once, and
 * the bytes each way so far. */
typedef struct mprof__uv_net_s {
  mprof__uv_address_t local, peer;
  mprof__uv_text_t send, recv; /* .length: the head's length */
  uint64_t sent_bytes, received_bytes;
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
} mprof__uv_entry_t;

/* A new entry for key (replacing any old one); NULL if out of memory. */
mprof__uv_entry_t *mprof__uv_map_add(const void *key, uint64_t thread);
/* key's entry, or NULL. */
mprof__uv_entry_t *mprof__uv_map_get(const void *key);
/* key's entry, removed from the map (the caller releases it), or NULL. */
mprof__uv_entry_t *mprof__uv_map_take(const void *key);
/* key's thread, or MPROF_NONE: safe from any OS thread. */
uint64_t mprof__uv_map_thread(const void *key);
/* Gives back an entry no longer in the map (and its net part); NULL: none. */
void mprof__uv_map_release(mprof__uv_entry_t *entry);

#endif /* MPROF_UV_INTERNAL_H */
