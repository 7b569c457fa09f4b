/* mprof/redact.h -- rewrite the private strings of traces, so that a trace
 * can be handed to someone else (`mprof redact`, docs/redact.md).
 *
 * A redactor maps each text it is given to a pseudonym by its class: a
 * path keeps its depth and extension and loses its names (/p1/p2/f3.log),
 * an IP address becomes one of a documentation range (192.0.2.x,
 * 2001:db8::x) with its port kept, a DNS name hN.example, other text
 * label-N.  The label heads that mprof itself writes ("fs open", "net send
 * tcp", "tcp from", "timer"...) are kept and only their arguments
 * rewritten.  The numbers come from a keyed hash of the text (SipHash-2-4,
 * keyed by the salt), so a text maps to the same pseudonym within one run
 * and in every run with the same salt, and two texts never share one: the
 * traces of several processes redacted together still line up.
 */
#ifndef MPROF_REDACT_H
#define MPROF_REDACT_H

#include <stddef.h>
#include <stdint.h>

#include "read.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Classes of private text, as bits of the `keep` mask: a kept class is
 * left as it was. */
enum {
  MPROF_REDACT_PATHS = 1,     /* file system paths */
  MPROF_REDACT_ADDRESSES = 2, /* IPv4 and IPv6 addresses (and hashes of
                                 datagrams' payloads) */
  MPROF_REDACT_NAMES = 4,     /* DNS names */
  MPROF_REDACT_LABELS = 8     /* any other text, the process name too */
};

typedef struct mprof_redactor_s mprof_redactor_t;

/* A redactor keyed by salt (salt_length bytes; NULL: 16 random bytes, so
 * pseudonyms differ from run to run and cannot be looked up), leaving the
 * classes in keep as they are.  Returns 0, MPROF_ENOMEM or MPROF_EIO (no
 * random bytes). */
int mprof_redactor_new(const void *salt, size_t salt_length, unsigned keep,
                       mprof_redactor_t **out);
void mprof_redactor_free(mprof_redactor_t *redactor);

/* The redacted form of text[0 .. length): *out points to it (valid until
 * the redactor is freed; not NUL-terminated).  Returns its length, or -1
 * when out of memory. */
long mprof_redact_text(mprof_redactor_t *redactor, const char *text,
                       size_t length, const char **out);

/* The redacted form of a datagram's payload hash (a net_hash_label's, the
 * HASH of "net send udp SRC DST HASH LENGTH"): the hash whose 16 hex digits
 * are the pseudonym of hash's, so a hash written as a number and as text
 * stay one.  Returns 0 or MPROF_ENOMEM. */
int mprof_redact_hash(mprof_redactor_t *redactor, uint64_t hash, uint64_t *out);

/* Write every mapping made so far to path, of mode 0600, one per line:
 * class, a tab, the original, a tab, the pseudonym, texts with control
 * characters, tabs, backslashes and bytes >= 0x7f as \xHH.  The file is
 * written whole or not at all (mprof_output_open(): a FIFO or device is
 * written in place).  Returns 0 or MPROF_EIO (errno set). */
int mprof_redactor_write_map(const mprof_redactor_t *redactor,
                             const char *path);

/* Write trace to path (mode 0600; "-": standard output) as a trace of the
 * same format whose strings (labels, interned strings, counter names,
 * failure reasons and the process name) and datagrams' payload hashes are
 * redacted: the same packets at the same places with the same headers,
 * events and timestamps, the packets made larger if the new strings need
 * it, the metadata made anew.  Stale bytes, damaged packets (told through
 * diag) and packets that were never written are left out as zeros.  A
 * mirage-profile trace is written as one: its good packets in order, each
 * as long as its redacted events.  Returns 0, MPROF_EINVAL (a packet would
 * pass 1 GiB, a mirage-profile one 512 MiB, told; no file is written),
 * MPROF_ENOMEM or MPROF_EIO (told: the file and why). */
int mprof_redact_trace(mprof_redactor_t *redactor, const mprof_trace_t *trace,
                       const char *path, mprof_diag_fn diag, void *context);

/* Write set into directory dir (created if missing): its traces redacted
 * as trace-1.ctf, trace-2.ctf... in order, and the manifest dir/mprof-merge
 * naming them at the set's offsets, a merged trace of them
 * (mprof_trace_open_merged).  Returns as mprof_redact_trace(). */
int mprof_redact_set(mprof_redactor_t *redactor, const mprof_trace_set_t *set,
                     const char *dir, mprof_diag_fn diag, void *context);

#ifdef __cplusplus
}
#endif

#endif /* MPROF_REDACT_H */
