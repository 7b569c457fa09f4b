/* test_redact_text.c -- the pseudonyms of mprof/redact.h, text by text:
 * each class's form, mprof's own heads and error names kept and nothing
 * that merely looks like them, one text one pseudonym and never two texts
 * one, past the point where the short pseudonyms run out, the payload hash
 * as a number and as text, --keep, the salt, and the map file.
 */
#define _GNU_SOURCE /* asprintf */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mprof/redact.h"

static mprof_redactor_t *redactor(const char *salt, unsigned keep) {
  mprof_redactor_t *r;
  assert_int_equal(mprof_redactor_new(salt, strlen(salt), keep, &r), 0);
  return r;
}

/* The redacted form of text, NUL-terminated (malloc'd). */
static char *redacted(mprof_redactor_t *r, const char *text) {
  const char *out;
  long n = mprof_redact_text(r, text, strlen(text), &out);
  assert_true(n >= 0);
  return strndup(out, (size_t)n);
}

/* Does the redacted form of text match the extended regular expression
 * pattern (anchored)?  Says what it was when not. */
static void assert_redacts_to(mprof_redactor_t *r, const char *text,
                              const char *pattern) {
  char *out = redacted(r, text), *anchored;
  regex_t re;
  assert_true(asprintf(&anchored, "^(%s)$", pattern) > 0);
  assert_int_equal(regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB), 0);
  if (regexec(&re, out, 0, NULL, 0))
    fail_msg("\"%s\" became \"%s\", not /%s/", text, out, pattern);
  regfree(&re);
  free(anchored);
  free(out);
}

#define DOC_IPV4 "(192\\.0\\.2|198\\.51\\.100|203\\.0\\.113)\\.[0-9]+"
#define DOC_IPV6 "2001:db8::[0-9a-f]+:[0-9a-f]+"

static void each_class_has_its_form(void **state) {
  (void)state;
  mprof_redactor_t *r = redactor("s", 0);
  assert_redacts_to(r, "fs open /home/alice/.ssh/id_rsa",
                    "fs open /p[0-9]+/p[0-9]+/p[0-9]+/f[0-9]+");
  assert_redacts_to(r, "fs stat ../srv/q3.xlsx",
                    "fs stat \\.\\./p[0-9]+/f[0-9]+\\.xlsx");
  assert_redacts_to(r, "connect 10.1.2.3:5432", "connect " DOC_IPV4 ":5432");
  assert_redacts_to(r, "tcp from [fe80::dead:beef]:443",
                    "tcp from \\[" DOC_IPV6 "\\]:443");
  assert_redacts_to(r, "getaddrinfo db.alice-corp.net",
                    "getaddrinfo h[a-z]{4}\\.example");
  assert_redacts_to(r, "mail2.bob.org", "h[0-9]+\\.example");
  assert_redacts_to(r, "GET /users/alice", "label-[a-z]{4} /p[0-9]+/f[0-9]+");
  assert_redacts_to(
      r, "order 12345 of carol",
      "label-[a-z]{4} label-[0-9]+ label-[a-z]{4} label-[a-z]{4}");
  assert_redacts_to(r, "net send tcp 10.0.0.1:40000 10.0.0.2:80 0 100",
                    "net send tcp " DOC_IPV4 ":40000 " DOC_IPV4 ":80 0 100");
  mprof_redactor_free(r);
}

static void own_heads_and_error_names_are_kept(void **state) {
  (void)state;
  mprof_redactor_t *r = redactor("s", 0);
  static const char *const kept[] = {
      "timer",        "idle",     "check",         "prepare",
      "default loop", "udp send", "uv bytes read", "ECONNREFUSED",
      "EAI_NONAME",   "EOF",      "fs event"};
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
    char *out = redacted(r, kept[i]);
    assert_string_equal(out, kept[i]);
    free(out);
  }
  assert_redacts_to(r, "fs event /home/eve/inbox",
                    "fs event /p[0-9]+/p[0-9]+/f[0-9]+");
  assert_redacts_to(r, "fs poll /home/eve/inbox",
                    "fs poll /p[0-9]+/p[0-9]+/f[0-9]+");
  /* Words in capitals are words, not error names. */
  assert_redacts_to(r, "EVE", "label-[a-z]{4}");
  assert_redacts_to(r, "EMPLOYEE_42", "label-[0-9]+");
  assert_redacts_to(r, "timer alice", "label-[a-z]{4} label-[a-z]{4}");
  mprof_redactor_free(r);
}

/* The words of a label that the report groups requests by, those with no
 * digit, slash, colon or bracket (src/model/requests.c), into out. */
static void group_of(const char *label, char *out) {
  size_t n = 0;
  for (const char *p = label + strspn(label, " "); *p; p += strspn(p, " ")) {
    size_t length = strcspn(p, " ");
    if (strcspn(p, "0123456789/:[") >= length) {
      if (n) out[n++] = ' ';
      memcpy(out + n, p, length);
      n += length;
    }
    p += length;
  }
  out[n] = 0;
}

/* Labels in one group before are in one group after, and only those:
 * each word stays on its side of the report's line. */
static void groups_stay_the_same(void **state) {
  (void)state;
  static const char *const labels[] = {
      "fs open data.txt",
      "fs open notes.txt",
      "fs open data.txt",
      "fs open My Documents",
      "fs open My 2Documents",
      "fs open Your 3Music",
      "fs open /home/a b/c",
      "connect alice 2bob",
      "connect carol 3dave",
      "net recv udp [::1]:1 [::1]:2 feedfacecafebeef 4",
      "net recv udp [::1]:1 [::1]:2 deadbeefdeadbeef 4",
      "net recv udp [::1]:1 [::1]:2 1234567890123456 4",
      "GET /a/b",
      "GET index",
      "POST index",
      "getaddrinfo localhost",
      "getaddrinfo host1",
      "signal SIGTERM",
      "work for eve",
      "work for 2eve"};
  enum { N = sizeof labels / sizeof *labels };
  mprof_redactor_t *r = redactor("s", 0);
  char before[N][128], after[N][128];
  for (size_t i = 0; i < N; i++) {
    char *out = redacted(r, labels[i]);
    group_of(labels[i], before[i]);
    group_of(out, after[i]);
    free(out);
  }
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++)
      if (!strcmp(before[i], before[j]) != !strcmp(after[i], after[j]))
        fail_msg("\"%s\" and \"%s\": groups \"%s\", \"%s\" became \"%s\", "
                 "\"%s\"",
                 labels[i], labels[j], before[i], before[j], after[i],
                 after[j]);
  mprof_redactor_free(r);
}

static int by_text(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every pseudonym of many texts is distinct, the same text always the same
 * one: n texts made by make(i, buffer). */
static void assert_one_to_one(mprof_redactor_t *r, size_t n,
                              void (*make)(size_t, char *)) {
  char **outs = calloc(n, sizeof *outs), text[64];
  for (size_t i = 0; i < n; i++) {
    make(i, text);
    outs[i] = redacted(r, text);
  }
  make(n / 2, text);
  char *again = redacted(r, text);
  assert_string_equal(again, outs[n / 2]);
  free(again);
  qsort(outs, n, sizeof *outs, by_text);
  for (size_t i = 1; i < n; i++)
    if (!strcmp(outs[i - 1], outs[i])) fail_msg("two texts became %s", outs[i]);
  for (size_t i = 0; i < n; i++) free(outs[i]);
  free(outs);
}

static void word(size_t i, char *out) {
  int n = 0;
  do out[n++] = (char)('a' + i % 26);
  while ((i /= 26));
  out[n] = 0;
}

static void ipv4(size_t i, char *out) {
  sprintf(out, "10.%zu.%zu.%zu", i >> 16 & 255, i >> 8 & 255, i & 255);
}

/* More words without digits than four letters can name (26^4): the
 * pseudonyms grow, and still hold no digit. */
static void pseudonyms_never_run_out(void **state) {
  (void)state;
  mprof_redactor_t *r = redactor("s", 0);
  assert_one_to_one(r, 26 * 26 * 26 * 26 + 5000, word);
  assert_redacts_to(r, "zzzzzzzzzzzz", "label-[a-z]+");
  mprof_redactor_free(r);
  r = redactor("s", 0);
  assert_one_to_one(r, 4000, ipv4);
  assert_redacts_to(r, "10.200.0.1", DOC_IPV4 "|198\\.1[89]\\.[0-9]+\\.[0-9]+");
  /* Once half the 768 documentation addresses are taken, the next go to
   * 198.18.0.0/15 at once, rather than after 64 tries each. */
  regex_t doc;
  assert_int_equal(regcomp(&doc, "^" DOC_IPV4 "$", REG_EXTENDED | REG_NOSUB),
                   0);
  size_t documented = 0;
  for (size_t i = 0; i < 4000; i++) {
    char text[64], *out;
    ipv4(i, text);
    out = redacted(r, text);
    documented += !regexec(&doc, out, 0, NULL, 0);
    free(out);
  }
  regfree(&doc);
  assert_int_equal(documented, 768 / 2);
  mprof_redactor_free(r);
}

/* A payload hash written as a number (net_hash_label) and as text (a whole
 * label) becomes the same hash, even one of decimal digits only. */
static void a_hash_is_one_as_number_and_text(void **state) {
  (void)state;
  mprof_redactor_t *r = redactor("s", 0);
  static const uint64_t hashes[] = {0xfeedfacecafebeefull,
                                    0x1234567890123456ull};
  for (int i = 0; i < 2; i++) {
    uint64_t as_number;
    char text[128], expected[32];
    assert_int_equal(mprof_redact_hash(r, hashes[i], &as_number), 0);
    assert_true(as_number != hashes[i]);
    snprintf(text, sizeof text, "net recv udp [::1]:53 [::1]:4000 %016llx 32",
             (unsigned long long)hashes[i]);
    snprintf(expected, sizeof expected, " %016llx 32",
             (unsigned long long)as_number);
    char *out = redacted(r, text);
    assert_non_null(strstr(out, expected));
    free(out);
  }
  mprof_redactor_free(r);
}

static void keep_leaves_one_class(void **state) {
  (void)state;
  static const char label[] =
      "fetch /srv/alice.txt from 10.1.2.3:80 at db.example.org";
  static const struct {
    unsigned keep;
    const char *pattern;
  } cases[] = {
      {MPROF_REDACT_PATHS,
       "label-[a-z]{4} /srv/alice\\.txt label-[a-z]{4} " DOC_IPV4
       ":80 label-[a-z]{4} h[a-z]{4}\\.example"},
      {MPROF_REDACT_ADDRESSES,
       "label-[a-z]{4} /p[0-9]+/f[0-9]+\\.txt label-[a-z]{4} "
       "10\\.1\\.2\\.3:80 label-[a-z]{4} h[a-z]{4}\\.example"},
      {MPROF_REDACT_NAMES,
       "label-[a-z]{4} /p[0-9]+/f[0-9]+\\.txt label-[a-z]{4} " DOC_IPV4
       ":80 label-[a-z]{4} db\\.example\\.org"},
      {MPROF_REDACT_LABELS, "fetch /p[0-9]+/f[0-9]+\\.txt from " DOC_IPV4
                            ":80 at h[a-z]{4}\\.example"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    mprof_redactor_t *r = redactor("s", cases[i].keep);
    assert_redacts_to(r, label, cases[i].pattern);
    uint64_t hash;
    assert_int_equal(mprof_redact_hash(r, 42, &hash), 0);
    assert_true((hash == 42) == (cases[i].keep == MPROF_REDACT_ADDRESSES));
    mprof_redactor_free(r);
  }
}

static void the_salt_decides(void **state) {
  (void)state;
  mprof_redactor_t *a = redactor("one", 0), *b = redactor("one", 0),
                   *c = redactor("two", 0);
  char *x = redacted(a, "GET /users/alice"),
       *y = redacted(b, "GET /users/alice"),
       *z = redacted(c, "GET /users/alice");
  assert_string_equal(x, y);
  assert_string_not_equal(x, z);
  free(x), free(y), free(z);
  mprof_redactor_free(a), mprof_redactor_free(b), mprof_redactor_free(c);
}

/* The map: mode 0600 whatever the umask, one line per mapping made,
 * class, original and pseudonym, control characters escaped. */
static void the_map_tells_what_became_what(void **state) {
  (void)state;
  char path[] = "/tmp/test_redact_map_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  chmod(path, 0644);
  mprof_redactor_t *r = redactor("s", 0);
  char *a = redacted(r, "connect 10.1.2.3:5432"),
       *b = redacted(r, "bob\x1b[31m");
  mode_t mask = umask(0);
  assert_int_equal(mprof_redactor_write_map(r, path), 0);
  umask(mask);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  char text[512], expected[256];
  FILE *f = fopen(path, "r");
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  unlink(path);
  snprintf(expected, sizeof expected,
           "address\t10.1.2.3\t%.*s\nlabel\tbob\\x1b[31m\t%s\n",
           (int)(strchr(a + 8, ':') - (a + 8)), a + 8, b);
  assert_string_equal(text, expected);
  free(a), free(b);
  mprof_redactor_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_class_has_its_form),
      cmocka_unit_test(own_heads_and_error_names_are_kept),
      cmocka_unit_test(groups_stay_the_same),
      cmocka_unit_test(pseudonyms_never_run_out),
      cmocka_unit_test(a_hash_is_one_as_number_and_text),
      cmocka_unit_test(keep_leaves_one_class),
      cmocka_unit_test(the_salt_decides),
      cmocka_unit_test(the_map_tells_what_became_what),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
