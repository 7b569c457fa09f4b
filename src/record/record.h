/* record.h -- what platform layers (src/unix) and the libuv tracing
 * (src/uv) may call in the recorder beyond the public API.  Not installed. */
#ifndef MPROF_RECORD_H
#define MPROF_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "mprof.h"

/* mprof_start() of a buffer that is all zeros (a new file), which the
 * start leaves as it is but for the trace header, metadata and slot table.
 * prepare_packet(packet, size) makes each packet's memory ready when the
 * packet is first claimed (allocates its blocks); it
 * returns nonzero if it cannot, and that packet is never used (its events
 * are counted as discarded).  It runs on any recording OS thread. */
int mprof__start_fresh(const mprof_config_t *config,
                       int (*prepare_packet)(uint8_t *packet, uint32_t size));

/* In a forked child: stop recording without writing a byte to the parent's
 * trace, which the child still maps. */
void mprof__forget_after_fork(void);

/* Then, in that child: recording reads as started (the inline gates pass,
 * mprof_is_started() is nonzero), and the first event that any OS thread
 * records calls start(), once, which calls mprof_start() and returns 0 or
 * the error that leaves recording off.  Meanwhile the events of other OS
 * threads wait; mprof_stop() calls the start off.  A started recorder's
 * events pay nothing for this. */
void mprof__start_pending(int (*start)(void));

/* The hash that mprof__label_hashed() and mprof__label_net() take for a
 * label or head of `length` bytes: computed once by a caller that labels
 * many times with the same text. */
uint64_t mprof__label_hash(const char *text, size_t length);

/* mprof_label() of label (length bytes, no NUL needed) whose
 * mprof__label_hash() is hash: without measuring and hashing it again (the
 * libuv shim's "write", once per write). */
void mprof__label_hashed(uint64_t thread, const char *label, size_t length,
                         uint64_t hash);

/* When a net label happens (mprof__label_net()). */
typedef enum mprof__net_stamp_e {
  MPROF__NET_NOW,    /* now: a clock reading */
  MPROF__NET_ENTER,  /* now, after mprof_switch(thread) at the same instant:
                        a read callback entered with its bytes */
  MPROF__NET_AT_LAST /* at the time of this OS thread's last event, without a
                        clock reading: the bytes of a write request created
                        just before the system call that sent them, known
                        sent once it returned; they left during it, so a
                        peer's receive never precedes the request's create */
} mprof__net_stamp_t;

/* mprof_counter_increase(counter, length) (none if counter is 0), then
 * mprof_label() of "HEAD OFFSET LENGTH" (the numbers in decimal), where
 * head (head_length bytes, no NUL needed, of hash head_hash from
 * mprof__label_hash()) repeats and the numbers do not: the libuv shim's TCP
 * reads and writes, stamped as `how` says.  Written as one net_label event
 * (the head interned, the numbers binary), which readers turn back into
 * the same two events. */
void mprof__label_net(mprof__net_stamp_t how, uint64_t thread, const char *head,
                      size_t head_length, uint64_t head_hash,
                      mprof_counter_t counter, uint64_t offset,
                      uint64_t length);

/* mprof__label_net() of the label "HEAD HASH LENGTH", HASH in 16
 * lower-case hex digits: the libuv shim's UDP datagrams (the hash of the
 * payload).  Written as one net_hash_label event. */
void mprof__label_net_hash(mprof__net_stamp_t how, uint64_t thread,
                           const char *head, size_t head_length,
                           uint64_t head_hash, mprof_counter_t counter,
                           uint64_t hash, uint64_t length);

/* A net label head that the caller keeps and labels with again and again
 * (the libuv shim: each direction of a TCP connection, the last peer of a
 * UDP socket's), with the string id that an OS thread's trace interned it
 * as: the next labels of that OS thread reuse the id without looking the
 * head up.  The caller sets text, length and hash (mprof__label_hash()),
 * and zeroes id whenever it changes them. */
typedef struct mprof__net_head_s {
  const char *text; /* length bytes, no NUL needed */
  size_t length;
  uint64_t hash;
  uint32_t id;       /* 0: none yet */
  uint64_t session;  /* the trace and */
  uint64_t instance; /* the stream where id holds */
} mprof__net_head_t;

/* mprof__label_net() of a kept head. */
void mprof__label_net_head(mprof__net_stamp_t how, uint64_t thread,
                           mprof__net_head_t *head, mprof_counter_t counter,
                           uint64_t offset, uint64_t length);

/* mprof__label_net_hash() of a kept head. */
void mprof__label_net_hash_head(mprof__net_stamp_t how, uint64_t thread,
                                mprof__net_head_t *head,
                                mprof_counter_t counter, uint64_t hash,
                                uint64_t length);

/* mprof_create(type) and mprof__label_hashed() of the new thread, as one
 * reservation with one clock reading: both events in the ring, the label
 * a label_ref beside its create (docs/FORMAT.md, section 4.3), which dies
 * with it.  For a short-lived thread (the libuv shim's requests), whose
 * label need not outlive the ring, and would fill the names area. */
uint64_t mprof__create_labelled(mprof_type_t type, const char *label,
                                size_t length, uint64_t hash);

/* A thread id for a create that mprof__create_sent() records after the
 * call it stands for, and in *at the time it takes (0: none, the create
 * takes the time it is recorded at); MPROF_NONE when not recording. */
uint64_t mprof__mint(uint64_t *at);

/* child's create (minted by mprof__mint(), which gave at) by the current
 * thread, its label (a kept string, as a net label head is kept) and, when
 * head is not NULL, mprof__label_net_head() of child with head, counter,
 * offset and length: one reservation at time at.  A request submitted by a
 * call that sends its bytes (the libuv shim's writes), recorded once the
 * call returned, as if made before it. */
void mprof__create_sent(uint64_t at, uint64_t child, mprof_type_t type,
                        mprof__net_head_t *label, mprof__net_head_t *head,
                        mprof_counter_t counter, uint64_t offset,
                        uint64_t length);

/* mprof_resolve(thread), then mprof_switch(next), at one instant: a
 * request's end, back in its loop. */
void mprof__resolve_switch(uint64_t thread, uint64_t next);

#endif /* MPROF_RECORD_H */
