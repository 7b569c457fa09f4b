/* redact_text.c -- the pseudonyms of `mprof redact` (mprof/redact.h): how a
 * text is cut into mprof's own label head and its arguments, which class
 * each argument is of, and the keyed, collision-free numbering that makes
 * the same text the same pseudonym everywhere in a run.
 */
#define _GNU_SOURCE /* getrandom */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mprof/redact.h"

/* --- SipHash-2-4: the keyed hash ------------------------------------------ */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4]) {
  v[0] += v[1];
  v[1] = ROTL(v[1], 13);
  v[1] ^= v[0];
  v[0] = ROTL(v[0], 32);
  v[2] += v[3];
  v[3] = ROTL(v[3], 16);
  v[3] ^= v[2];
  v[0] += v[3];
  v[3] = ROTL(v[3], 21);
  v[3] ^= v[0];
  v[2] += v[1];
  v[1] = ROTL(v[1], 17);
  v[1] ^= v[2];
  v[2] = ROTL(v[2], 32);
}

static uint64_t siphash(const uint64_t key[2], const uint8_t *in, size_t n) {
  uint64_t v[4] = {
      key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
      key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull};
  uint64_t last = (uint64_t)n << 56;
  size_t whole = n - n % 8;
  for (size_t i = 0; i <= whole; i += 8) {
    uint64_t m = 0;
    if (i == whole) {
      for (size_t j = 0; j < n % 8; j++) last |= (uint64_t)in[i + j] << (8 * j);
      m = last;
    } else {
      for (int j = 0; j < 8; j++) m |= (uint64_t)in[i + j] << (8 * j);
    }
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
  }
  v[2] ^= 0xff;
  for (int i = 0; i < 4; i++) sip_round(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* --- The table of mappings ------------------------------------------------ */

/* What a mapping maps: a whole text (kept so that a label met again costs
 * one lookup), or one argument of a class. */
typedef enum kind_e {
  KIND_TEXT,      /* a whole text */
  KIND_DIRECTORY, /* a path's directory name */
  KIND_FILE,      /* a path's last name, without its extension */
  KIND_FILE_WORD, /* the same, in a path that is one word without a digit */
  KIND_IPV4,
  KIND_IPV6,
  KIND_HOST,      /* a DNS name with a digit */
  KIND_HOST_WORD, /* a DNS name without */
  KIND_HASH,      /* 16 hex digits: a datagram's payload hash */
  KIND_HASH_WORD, /* the same, with no decimal digit among them */
  KIND_LABEL,     /* other text, with a digit, slash, colon or bracket */
  KIND_WORD,      /* other text without */
  KIND_TAKEN,     /* a pseudonym handed out: never handed out again */
  KIND_COUNT
} kind_t;

static const char *const kind_names[] = {
    [KIND_DIRECTORY] = "path", [KIND_FILE] = "path",
    [KIND_FILE_WORD] = "path", [KIND_IPV4] = "address",
    [KIND_IPV6] = "address",   [KIND_HOST] = "name",
    [KIND_HOST_WORD] = "name", [KIND_HASH] = "hash",
    [KIND_HASH_WORD] = "hash", [KIND_LABEL] = "label",
    [KIND_WORD] = "label"};

typedef struct entry_s {
  char *from, *to; /* one allocation: from, NUL, to, NUL */
  uint32_t from_length, to_length;
  uint64_t hash;
  uint8_t kind; /* kind_t; an empty slot has from NULL */
} entry_t;

struct mprof_redactor_s {
  uint64_t key[2];
  unsigned keep;
  entry_t *entries;
  size_t capacity, count;       /* capacity a power of two */
  uint64_t used[KIND_COUNT][3]; /* pseudonyms handed out, by kind and
                                   widening */
  /* the text being built by mprof_redact_text */
  char *out;
  size_t out_length, out_capacity;
  int failed; /* out of memory while building it */
};

static uint64_t key_hash(const mprof_redactor_t *r, kind_t kind,
                         const char *text, size_t length) {
  uint64_t key[2] = {r->key[0] ^ kind, r->key[1]};
  return siphash(key, (const uint8_t *)text, length);
}

static entry_t *slot_of(const mprof_redactor_t *r, kind_t kind, uint64_t hash,
                        const char *text, size_t length) {
  for (size_t i = hash & (r->capacity - 1);; i = (i + 1) & (r->capacity - 1)) {
    entry_t *e = &r->entries[i];
    if (!e->from ||
        (e->kind == kind && e->hash == hash && e->from_length == length &&
         !memcmp(e->from, text, length)))
      return e;
  }
}

static int grow(mprof_redactor_t *r) {
  size_t capacity = r->capacity * 2;
  entry_t *old = r->entries, *entries = calloc(capacity, sizeof *entries);
  if (!entries) return -1;
  size_t old_capacity = r->capacity;
  r->entries = entries;
  r->capacity = capacity;
  for (size_t i = 0; i < old_capacity; i++)
    if (old[i].from)
      *slot_of(r, (kind_t)old[i].kind, old[i].hash, old[i].from,
               old[i].from_length) = old[i];
  free(old);
  return 0;
}

/* Remember kind's text as mapped to `to`; returns the entry or NULL. */
static entry_t *insert(mprof_redactor_t *r, kind_t kind, const char *text,
                       size_t length, const char *to, size_t to_length) {
  if ((r->count + 1) * 2 > r->capacity && grow(r)) return NULL;
  uint64_t hash = key_hash(r, kind, text, length);
  entry_t *e = slot_of(r, kind, hash, text, length);
  char *block = malloc(length + to_length + 2);
  if (!block) return NULL;
  memcpy(block, text, length);
  block[length] = 0;
  memcpy(block + length + 1, to, to_length);
  block[length + 1 + to_length] = 0;
  *e = (entry_t){
      block, block + length + 1, (uint32_t)length, (uint32_t)to_length,
      hash,  (uint8_t)kind};
  r->count++;
  return e;
}

static const entry_t *lookup(const mprof_redactor_t *r, kind_t kind,
                             const char *text, size_t length) {
  entry_t *e = slot_of(r, kind, key_hash(r, kind, text, length), text, length);
  return e->from ? e : NULL;
}

/* --- Pseudonyms ----------------------------------------------------------- */

/* n in `width` letters, a-z (14 hold every 64-bit n). */
static void letters(uint64_t n, int width, char *out) {
  for (int i = width - 1; i >= 0; i--, n /= 26) out[i] = (char)('a' + n % 26);
  out[width] = 0;
}

/* How wide the space of candidate `attempt` is: 0 while the short
 * pseudonyms last (64 tries), 1 then (1024 more), 2 after, where every
 * 64-bit number is a pseudonym of its own, so the search always ends. */
static const uint64_t first_attempt[3] = {0, 64, 64 + 1024};
static int widening(uint64_t attempt) {
  return attempt < first_attempt[1] ? 0 : attempt < first_attempt[2] ? 1 : 2;
}

/* How many pseudonyms kind has at widening `wide` (UINT64_MAX: more than
 * a trace could ask for). */
static uint64_t room(kind_t kind, int wide) {
  static const uint64_t words[] = {456976, 8031810176, UINT64_MAX},
                        numbers[] = {1000000, 1000000000000, UINT64_MAX},
                        ipv4[] = {768, 131072, 1u << 28};
  switch (kind) {
  case KIND_WORD:
  case KIND_HOST_WORD:
  case KIND_FILE_WORD: return words[wide];
  case KIND_IPV4: return ipv4[wide];
  case KIND_IPV6:
  case KIND_HASH:
  case KIND_HASH_WORD: return UINT64_MAX;
  default: return numbers[wide];
  }
}

/* The first attempt worth making for kind: at the first widening that is
 * less than half taken, so that a search takes a few tries, not a
 * thousand, once the short pseudonyms are running out. */
static uint64_t start_attempt(const mprof_redactor_t *r, kind_t kind) {
  int wide = 0;
  while (wide < 2 && r->used[kind][wide] >= room(kind, wide) / 2) wide++;
  return first_attempt[wide];
}

/* n in decimal, cut to 6 or 12 digits while the space is narrow. */
static unsigned long long number(uint64_t n, int wide) {
  static const uint64_t modulus[] = {1000000, 1000000000000, 0};
  return (unsigned long long)(modulus[wide] ? n % modulus[wide] : n);
}

/* An IPv4 pseudonym: the three documentation ranges (RFC 5737) first, then
 * the benchmarking range 198.18.0.0/15 (RFC 2544), then the reserved
 * 240.0.0.0/4 (RFC 1112) as they fill up. */
static void ipv4_candidate(uint64_t n, int wide, char *out) {
  static const char *const nets[] = {"192.0.2", "198.51.100", "203.0.113"};
  unsigned i = (unsigned)(n % (wide == 0   ? 768
                               : wide == 1 ? 131072
                                           : 1u << 28));
  if (wide == 0)
    snprintf(out, 64, "%s.%u", nets[i / 256], i % 256);
  else if (wide == 1)
    snprintf(out, 64, "198.%u.%u.%u", 18 + i / 65536, i / 256 % 256, i % 256);
  else
    snprintf(out, 64, "%u.%u.%u.%u", 240 + (i >> 24), i >> 16 & 255,
             i >> 8 & 255, i & 255);
}

/* 16 hex digits of n, a decimal digit among them (words: none, a-f only). */
static void hash_candidate(uint64_t n, int word, char *out) {
  if (word) {
    for (int i = 0; i < 16; i++, n /= 6) out[i] = (char)('a' + n % 6);
    out[16] = 0;
    return;
  }
  snprintf(out, 64, "%016llx", (unsigned long long)n);
  if (!strpbrk(out, "0123456789")) out[15] = (char)('0' + n % 10);
}

/* Candidate `attempt` for a text of kind whose keyed hash is h, into
 * out[64].  A word without a digit, slash, colon or bracket gets a
 * pseudonym without one: the report groups requests by the words of their
 * labels that hold none (mprof__request_kind, src/model/requests.c), so
 * each word must stay on its side of that line. */
static void candidate(kind_t kind, uint64_t h, uint64_t attempt, char *out) {
  uint64_t n = h + attempt;
  int wide = widening(attempt);
  char word[15];
  letters(n, wide == 0 ? 4 : wide == 1 ? 7 : 14, word);
  switch (kind) {
  case KIND_WORD: snprintf(out, 64, "label-%s", word); return;
  case KIND_HOST_WORD: snprintf(out, 64, "h%s.example", word); return;
  case KIND_DIRECTORY: snprintf(out, 64, "p%llu", number(n, wide)); return;
  case KIND_FILE: snprintf(out, 64, "f%llu", number(n, wide)); return;
  case KIND_FILE_WORD: snprintf(out, 64, "f%s", word); return;
  case KIND_HOST: snprintf(out, 64, "h%llu.example", number(n, wide)); return;
  case KIND_HASH:
  case KIND_HASH_WORD: hash_candidate(n, kind == KIND_HASH_WORD, out); return;
  case KIND_IPV6:
    if (wide < 2)
      snprintf(out, 64, "2001:db8::%x:%x", (unsigned)(n >> 16) & 0xffff,
               (unsigned)n & 0xffff);
    else
      snprintf(out, 64, "2001:db8::%x:%x:%x:%x", (unsigned)(n >> 48),
               (unsigned)(n >> 32) & 0xffff, (unsigned)(n >> 16) & 0xffff,
               (unsigned)n & 0xffff);
    return;
  case KIND_IPV4: ipv4_candidate(n, wide, out); return;
  default: snprintf(out, 64, "label-%llu", number(n, wide)); return;
  }
}

/* The pseudonym of kind's text, made the first time: the keyed hash's
 * candidate, or the next one not yet handed out.  NULL: out of memory. */
static const entry_t *pseudonym(mprof_redactor_t *r, kind_t kind,
                                const char *text, size_t length) {
  const entry_t *known = lookup(r, kind, text, length);
  if (known) return known;
  uint64_t h = key_hash(r, kind, text, length);
  char name[64];
  uint64_t attempt = start_attempt(r, kind);
  for (;; attempt++) {
    candidate(kind, h, attempt, name);
    if (!lookup(r, KIND_TAKEN, name, strlen(name))) break;
  }
  r->used[kind][widening(attempt)]++;
  size_t n = strlen(name);
  if (!insert(r, KIND_TAKEN, name, n, "", 0)) return NULL;
  return insert(r, kind, text, length, name, n);
}

/* --- Building the redacted text ------------------------------------------- */

static void put(mprof_redactor_t *r, const char *text, size_t length) {
  if (!length) return; /* r->out may be NULL yet */
  if (r->out_length + length > r->out_capacity) {
    size_t capacity = (r->out_length + length) * 2 + 64;
    char *out = realloc(r->out, capacity);
    if (!out) {
      r->failed = 1;
      return;
    }
    r->out = out;
    r->out_capacity = capacity;
  }
  memcpy(r->out + r->out_length, text, length);
  r->out_length += length;
}

static void put_pseudonym(mprof_redactor_t *r, kind_t kind, const char *text,
                          size_t length) {
  const entry_t *e = pseudonym(r, kind, text, length);
  if (e)
    put(r, e->to, e->to_length);
  else
    r->failed = 1;
}

/* --- Classes of arguments ------------------------------------------------- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int all_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!is_digit(s[i])) return 0;
  return n > 0;
}

/* An address: IPv4, IPv4:PORT, IPv6 or [IPv6]:PORT.  Sets *ip and *ip_length
 * to the address without the port and brackets, *v6. */
static int address_part(const char *s, size_t n, size_t *ip_start,
                        size_t *ip_length, int *v6) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return 0;
  size_t start = 0, end = n;
  if (s[0] == '[') {
    const char *close = memchr(s, ']', n);
    if (!close) return 0;
    start = 1;
    end = (size_t)(close - s);
    size_t after = end + 1;
    if (after != n &&
        !(s[after] == ':' && all_digits(s + after + 1, n - after - 1)))
      return 0;
  } else {
    const char *colon = memchr(s, ':', n);
    if (colon && !memchr(colon + 1, ':', n - (size_t)(colon - s) - 1)) {
      end = (size_t)(colon - s); /* IPv4:PORT (one colon) */
      if (!all_digits(colon + 1, n - end - 1)) return 0;
    }
  }
  memcpy(buf, s + start, end - start);
  buf[end - start] = 0;
  unsigned char addr[16];
  *ip_start = start;
  *ip_length = end - start;
  if (inet_pton(AF_INET, buf, addr) == 1) return *v6 = 0, 1;
  if (inet_pton(AF_INET6, buf, addr) == 1) return *v6 = 1, 1;
  return 0;
}

/* A DNS name: letters, digits and hyphens in dot-separated labels, a
 * letter in the last; with `dotless`, one label is enough. */
static int is_host(const char *s, size_t n, int dotless) {
  size_t label = 0, dots = 0, letter = 0;
  if (n == 0 || n > 253) return 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '.') {
      if (!label) return 0;
      dots++;
      label = letter = 0;
    } else if (is_alnum(s[i]) || s[i] == '-') {
      label++;
      letter |= !is_digit(s[i]) && s[i] != '-';
    } else {
      return 0;
    }
  }
  return label && letter && (dots || dotless);
}

static int is_hex16(const char *s, size_t n) {
  if (n != 16) return 0;
  for (size_t i = 0; i < n; i++)
    if (!is_digit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f')) return 0;
  return 1;
}

static int looks_like_path(const char *s, size_t n) {
  return memchr(s, '/', n) && !memchr(s, ' ', n);
}

/* Does a word name one thing among many (see candidate())? */
static int is_particular(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (is_digit(s[i]) || s[i] == '/' || s[i] == ':' || s[i] == '[') return 1;
  return 0;
}

/* A libuv error name (uv_err_name(), the failure reasons the libuv shim
 * writes): what went wrong, never what it went wrong with.  Only these:
 * a word of the program's own in capitals ("EVE") is still a word. */
static int is_error_name(const char *s, size_t n) {
  static const char *const names[] = {"E2BIG",
                                      "EACCES",
                                      "EADDRINUSE",
                                      "EADDRNOTAVAIL",
                                      "EAFNOSUPPORT",
                                      "EAGAIN",
                                      "EAI_ADDRFAMILY",
                                      "EAI_AGAIN",
                                      "EAI_BADFLAGS",
                                      "EAI_BADHINTS",
                                      "EAI_CANCELED",
                                      "EAI_FAIL",
                                      "EAI_FAMILY",
                                      "EAI_MEMORY",
                                      "EAI_NODATA",
                                      "EAI_NONAME",
                                      "EAI_OVERFLOW",
                                      "EAI_PROTOCOL",
                                      "EAI_SERVICE",
                                      "EAI_SOCKTYPE",
                                      "EALREADY",
                                      "EBADF",
                                      "EBUSY",
                                      "ECANCELED",
                                      "ECHARSET",
                                      "ECONNABORTED",
                                      "ECONNREFUSED",
                                      "ECONNRESET",
                                      "EDESTADDRREQ",
                                      "EEXIST",
                                      "EFAULT",
                                      "EFBIG",
                                      "EFTYPE",
                                      "EHOSTDOWN",
                                      "EHOSTUNREACH",
                                      "EILSEQ",
                                      "EINTR",
                                      "EINVAL",
                                      "EIO",
                                      "EISCONN",
                                      "EISDIR",
                                      "ELOOP",
                                      "EMFILE",
                                      "EMLINK",
                                      "EMSGSIZE",
                                      "ENAMETOOLONG",
                                      "ENETDOWN",
                                      "ENETUNREACH",
                                      "ENFILE",
                                      "ENOBUFS",
                                      "ENODATA",
                                      "ENODEV",
                                      "ENOENT",
                                      "ENOEXEC",
                                      "ENOMEM",
                                      "ENONET",
                                      "ENOPROTOOPT",
                                      "ENOSPC",
                                      "ENOSYS",
                                      "ENOTCONN",
                                      "ENOTDIR",
                                      "ENOTEMPTY",
                                      "ENOTSOCK",
                                      "ENOTSUP",
                                      "ENOTTY",
                                      "ENXIO",
                                      "EOF",
                                      "EOVERFLOW",
                                      "EPERM",
                                      "EPIPE",
                                      "EPROTO",
                                      "EPROTONOSUPPORT",
                                      "EPROTOTYPE",
                                      "ERANGE",
                                      "EREMOTEIO",
                                      "EROFS",
                                      "ESHUTDOWN",
                                      "ESOCKTNOSUPPORT",
                                      "ESPIPE",
                                      "ESRCH",
                                      "ETIMEDOUT",
                                      "ETXTBSY",
                                      "EUNATCH",
                                      "EXDEV",
                                      "UNKNOWN"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i]) == n && !memcmp(s, names[i], n)) return 1;
  return 0;
}

static int kept(const mprof_redactor_t *r, unsigned class) {
  return (r->keep & class) != 0;
}

/* A path, name by name: "." and ".." and "~" as they are, a directory
 * pN, the last name fN with its extension (1 to 8 letters or digits); a
 * path that is one word without a digit (data.txt), fxxxx. */
static void put_path(mprof_redactor_t *r, const char *s, size_t n) {
  if (kept(r, MPROF_REDACT_PATHS)) return put(r, s, n);
  kind_t file = is_particular(s, n) ? KIND_FILE : KIND_FILE_WORD;
  size_t i = 0;
  while (i < n) {
    if (s[i] == '/') {
      put(r, "/", 1);
      i++;
      continue;
    }
    const char *slash = memchr(s + i, '/', n - i);
    size_t end = slash ? (size_t)(slash - s) : n, length = end - i;
    const char *name = s + i;
    if ((length == 1 && (name[0] == '.' || name[0] == '~')) ||
        (length == 2 && name[0] == '.' && name[1] == '.')) {
      put(r, name, length);
    } else if (slash) {
      put_pseudonym(r, KIND_DIRECTORY, name, length);
    } else {
      size_t stem = length;
      for (size_t j = length; j-- > 1;)
        if (name[j] == '.') {
          size_t ext = length - j - 1;
          int alnum = ext >= 1 && ext <= 8;
          for (size_t k = j + 1; alnum && k < length; k++)
            alnum = is_alnum(name[k]);
          if (alnum) stem = j;
          break;
        }
      put_pseudonym(r, file, name, stem);
      put(r, name + stem, length - stem);
    }
    i = end;
  }
}

static void put_address(mprof_redactor_t *r, const char *s, size_t n,
                        size_t ip_start, size_t ip_length, int v6) {
  if (kept(r, MPROF_REDACT_ADDRESSES)) return put(r, s, n);
  put(r, s, ip_start);
  put_pseudonym(r, v6 ? KIND_IPV6 : KIND_IPV4, s + ip_start, ip_length);
  put(r, s + ip_start + ip_length, n - ip_start - ip_length);
}

static void put_class(mprof_redactor_t *r, kind_t kind, unsigned class,
                      const char *s, size_t n) {
  if (kept(r, class))
    put(r, s, n);
  else
    put_pseudonym(r, kind, s, n);
}

/* How the arguments after a head are read. */
typedef enum args_e {
  ARGS_NONE,     /* none: the head is the whole text */
  ARGS_TOKENS,   /* words, each of any class (numbers are kept) */
  ARGS_PATH,     /* words of a path */
  ARGS_HOST,     /* words of a host: an address or a DNS name */
  ARGS_DATAGRAM, /* as ARGS_TOKENS, where 16 hex digits are a payload's
                    hash (even with no letter among them) */
  ARGS_WORDS     /* a text of the program's own: words, each by its class */
} args_t;

/* One argument: a number after a head as it is, else by its class. */
static void put_argument(mprof_redactor_t *r, const char *s, size_t n,
                         args_t args) {
  size_t ip_start, ip_length;
  int v6, particular = is_particular(s, n);
  if (n == 0) return;
  if (args == ARGS_DATAGRAM && is_hex16(s, n))
    put_class(r, particular ? KIND_HASH : KIND_HASH_WORD,
              MPROF_REDACT_ADDRESSES, s, n);
  else if (args != ARGS_WORDS && all_digits(s, n))
    put(r, s, n);
  else if (address_part(s, n, &ip_start, &ip_length, &v6))
    put_address(r, s, n, ip_start, ip_length, v6);
  else if (args == ARGS_PATH || (args != ARGS_HOST && looks_like_path(s, n)))
    put_path(r, s, n);
  else if (is_host(s, n, args == ARGS_HOST))
    put_class(r, particular ? KIND_HOST : KIND_HOST_WORD, MPROF_REDACT_NAMES, s,
              n);
  else
    put_class(r, particular ? KIND_LABEL : KIND_WORD, MPROF_REDACT_LABELS, s,
              n);
}

/* The labels, counter names and failure reasons that mprof itself writes
 * (src/uv, docs/libuv.md): their heads are structure, kept; only what
 * follows them is redacted. */
static const struct head {
  const char *text;
  uint8_t args; /* args_t */
} heads[] = {
    {"net send tcp", ARGS_TOKENS},
    {"net recv tcp", ARGS_TOKENS},
    {"net send udp", ARGS_DATAGRAM},
    {"net recv udp", ARGS_DATAGRAM},
    {"tcp from", ARGS_TOKENS},
    {"connect", ARGS_TOKENS},
    {"getaddrinfo", ARGS_HOST},
    {"getnameinfo", ARGS_TOKENS},
    {"process", ARGS_PATH},
    {"signal", ARGS_TOKENS},
    {"fs access", ARGS_PATH},
    {"fs chmod", ARGS_PATH},
    {"fs chown", ARGS_PATH},
    {"fs close", ARGS_TOKENS},
    {"fs closedir", ARGS_TOKENS},
    {"fs copyfile", ARGS_PATH},
    {"fs fchmod", ARGS_TOKENS},
    {"fs fchown", ARGS_TOKENS},
    {"fs fdatasync", ARGS_TOKENS},
    {"fs fstat", ARGS_TOKENS},
    {"fs fsync", ARGS_TOKENS},
    {"fs ftruncate", ARGS_TOKENS},
    {"fs futime", ARGS_TOKENS},
    {"fs lchown", ARGS_PATH},
    {"fs link", ARGS_PATH},
    {"fs lstat", ARGS_PATH},
    {"fs lutime", ARGS_PATH},
    {"fs mkdir", ARGS_PATH},
    {"fs mkdtemp", ARGS_PATH},
    {"fs mkstemp", ARGS_PATH},
    {"fs open", ARGS_PATH},
    {"fs opendir", ARGS_PATH},
    {"fs read", ARGS_TOKENS},
    {"fs readdir", ARGS_TOKENS},
    {"fs readlink", ARGS_PATH},
    {"fs realpath", ARGS_PATH},
    {"fs rename", ARGS_PATH},
    {"fs rmdir", ARGS_PATH},
    {"fs scandir", ARGS_PATH},
    {"fs sendfile", ARGS_TOKENS},
    {"fs stat", ARGS_PATH},
    {"fs statfs", ARGS_PATH},
    {"fs symlink", ARGS_PATH},
    {"fs unlink", ARGS_PATH},
    {"fs utime", ARGS_PATH},
    {"fs write", ARGS_TOKENS},
    {"fs poll", ARGS_PATH},
    {"fs event", ARGS_PATH},
    {"udp send", ARGS_NONE},
    {"udp", ARGS_NONE},
    {"tcp", ARGS_NONE},
    {"pipe", ARGS_NONE},
    {"tty", ARGS_NONE},
    {"poll", ARGS_NONE},
    {"timer", ARGS_NONE},
    {"idle", ARGS_NONE},
    {"check", ARGS_NONE},
    {"prepare", ARGS_NONE},
    {"async sender", ARGS_NONE},
    {"async", ARGS_NONE},
    {"default loop", ARGS_NONE},
    {"loop", ARGS_NONE},
    {"work", ARGS_NONE},
    {"write", ARGS_NONE},
    {"shutdown", ARGS_NONE},
    {"random", ARGS_NONE},
    {"mprof poll mark", ARGS_NONE},
    {"uv bytes read", ARGS_NONE},
    {"uv bytes written", ARGS_NONE},
    {"mprof: out of memory", ARGS_NONE},
};

static const struct head *find_head(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
    size_t h = strlen(heads[i].text);
    if (n < h || memcmp(s, heads[i].text, h)) continue;
    if (n == h || (s[h] == ' ' && heads[i].args != ARGS_NONE)) return &heads[i];
  }
  return NULL;
}

/* The arguments s[0 .. n) after a head, read as args says, word by word
 * (the words of the report's groups, mprof__request_kind). */
static void put_arguments(mprof_redactor_t *r, const char *s, size_t n,
                          args_t args) {
  for (size_t i = 0; i <= n;) {
    const char *space = memchr(s + i, ' ', n - i);
    size_t end = space ? (size_t)(space - s) : n;
    put_argument(r, s + i, end - i, args);
    if (!space) break;
    put(r, " ", 1);
    i = end + 1;
  }
}

/* The redacted form of a whole text, into r->out: a head of mprof's and
 * its arguments, or the program's own words one by one, so that the
 * words the report groups requests by group them still. */
static void redact_whole(mprof_redactor_t *r, const char *s, size_t n) {
  const struct head *head = find_head(s, n);
  if (is_error_name(s, n)) return put(r, s, n);
  if (!head) return put_arguments(r, s, n, ARGS_WORDS);
  size_t h = strlen(head->text);
  put(r, s, h);
  if (n > h) {
    put(r, " ", 1);
    put_arguments(r, s + h + 1, n - h - 1, (args_t)head->args);
  }
}

long mprof_redact_text(mprof_redactor_t *r, const char *text, size_t length,
                       const char **out) {
  const entry_t *known = lookup(r, KIND_TEXT, text, length);
  if (!known) {
    r->out_length = 0;
    r->failed = 0;
    redact_whole(r, text, length);
    if (r->failed || !(known = insert(r, KIND_TEXT, text, length,
                                      r->out ? r->out : "", r->out_length)))
      return -1;
  }
  *out = known->to;
  return (long)known->to_length;
}

int mprof_redact_hash(mprof_redactor_t *r, uint64_t hash, uint64_t *out) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash);
  if (kept(r, MPROF_REDACT_ADDRESSES)) return *out = hash, 0;
  kind_t kind = is_particular(hex, 16) ? KIND_HASH : KIND_HASH_WORD;
  const entry_t *e = pseudonym(r, kind, hex, 16);
  if (!e) return MPROF_ENOMEM;
  *out = strtoull(e->to, NULL, 16);
  return 0;
}

/* --- The redactor --------------------------------------------------------- */

int mprof_redactor_new(const void *salt, size_t salt_length, unsigned keep,
                       mprof_redactor_t **out) {
  uint8_t random_salt[16];
  if (!salt) {
    if (getrandom(random_salt, sizeof random_salt, 0) != sizeof random_salt)
      return MPROF_EIO;
    salt = random_salt;
    salt_length = sizeof random_salt;
  }
  mprof_redactor_t *r = calloc(1, sizeof *r);
  if (!r || !(r->entries = calloc(r->capacity = 256, sizeof *r->entries))) {
    free(r);
    return MPROF_ENOMEM;
  }
  /* The key: the salt hashed under two fixed keys. */
  static const uint64_t k0[2] = {0x6d70726f66726564ull, 0},
                        k1[2] = {0, 0x6163746b65790a00ull};
  r->key[0] = siphash(k0, salt, salt_length);
  r->key[1] = siphash(k1, salt, salt_length);
  r->keep = keep;
  *out = r;
  return 0;
}

void mprof_redactor_free(mprof_redactor_t *r) {
  if (!r) return;
  for (size_t i = 0; i < r->capacity; i++) free(r->entries[i].from);
  free(r->entries);
  free(r->out);
  free(r);
}

/* text with control characters, tabs, backslashes and bytes >= 0x7f as
 * \xHH: one field of a map line. */
static void put_map_field(FILE *f, const char *text, size_t length) {
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c < 0x20 || c >= 0x7f || c == '\\')
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
}

/* Map lines in the order of their class, then of their original. */
static int map_order(const void *a, const void *b) {
  const entry_t *x = *(const entry_t *const *)a,
                *y = *(const entry_t *const *)b;
  int by_class = strcmp(kind_names[x->kind], kind_names[y->kind]);
  if (by_class) return by_class;
  size_t n = x->from_length < y->from_length ? x->from_length : y->from_length;
  int by_text = memcmp(x->from, y->from, n);
  return by_text ? by_text
                 : (x->from_length > y->from_length) -
                       (x->from_length < y->from_length);
}

int mprof_redactor_write_map(const mprof_redactor_t *r, const char *path) {
  const entry_t **lines = malloc((r->count + 1) * sizeof *lines);
  size_t n = 0;
  if (!lines) return errno = ENOMEM, MPROF_EIO;
  for (size_t i = 0; i < r->capacity; i++) {
    const entry_t *e = &r->entries[i];
    if (e->from && e->kind != KIND_TEXT && e->kind != KIND_TAKEN)
      lines[n++] = e;
  }
  qsort(lines, n, sizeof *lines, map_order);
  /* whole or not at all, under a temporary name of mode 0600 until then
   * (mkstemp()'s): a map half written would pass for one */
  mprof_output_t out;
  if (mprof_output_open(&out, path)) {
    free(lines);
    return MPROF_EIO;
  }
  for (size_t i = 0; i < n && !ferror(out.f); i++) {
    fprintf(out.f, "%s\t", kind_names[lines[i]->kind]);
    put_map_field(out.f, lines[i]->from, lines[i]->from_length);
    fputc('\t', out.f);
    put_map_field(out.f, lines[i]->to, lines[i]->to_length);
    fputc('\n', out.f);
  }
  free(lines);
  return mprof_output_close(&out, 1);
}
