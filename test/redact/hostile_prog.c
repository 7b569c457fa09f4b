/* hostile_prog.c -- a trace full of what must not leave the machine, for
 * test_redact.sh: paths, IPv4 and IPv6 peers (in mprof's own label heads
 * and in the network convention's send/receive labels), DNS names, control
 * characters, a 64 KiB label, a private counter name and failure reason,
 * on two OS threads, with a thread that never resolves (a finding).
 *
 *   MPROF_TRACE=OUT hostile_prog SECRETS
 *
 * writes to SECRETS each private string it recorded, one per line in hex,
 * for the test to search the redacted trace's bytes for.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mprof.h"

static FILE *secrets;

/* Note s as a string that the redacted trace must not hold. */
static void secret(const char *s) {
  for (const unsigned char *c = (const unsigned char *)s; *c; c++)
    fprintf(secrets, "%02x", *c);
  fputc('\n', secrets);
}

static const char *const labels[] = {
    "fs open /home/alice/.ssh/id_rsa",
    "fs stat /srv/payroll-2026/q3.xlsx",
    "process /opt/acme-internal/bin/deployer",
    "connect 10.1.2.3:5432",
    "tcp from [fe80::dead:beef]:51234",
    "getaddrinfo db.alice-corp.net",
    "net send tcp 10.1.2.3:5432 172.16.99.7:80 0 100",
    "net recv tcp 172.16.99.7:80 10.1.2.3:5432 0 200",
    "net send udp [2001:470::77]:4000 [2001:470::88]:53 feedfacecafebeef 32",
    "GET /users/alice?token=hunter2",
    "bob's\x1b[31m\x07 session\r\n\x01",
    "mail.bob-private.org",
    "192.168.77.66",
};

static void *other_thread(void *arg) {
  (void)arg;
  uint64_t t = mprof_create(MPROF_REQUEST);
  mprof_label(t, "fs open /home/alice/.ssh/id_rsa"); /* same as thread 1's */
  mprof_switch(t);
  mprof_resolve(t);
  mprof_switch(MPROF_NONE);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2 || !(secrets = fopen(argv[1], "w"))) return 2;
  for (size_t i = 0; i < sizeof labels / sizeof *labels; i++) {
    uint64_t t = mprof_create(MPROF_REQUEST);
    mprof_label(t, labels[i]);
    mprof_switch(t);
    mprof_resolve(t);
    mprof_switch(MPROF_NONE);
  }
  /* the parts of the labels above that could leak on their own */
  static const char *const parts[] = {
      "alice",      "id_rsa",       "payroll",      "acme-internal",
      "deployer",   "10.1.2.3",     "172.16.99.7",  "fe80::dead:beef",
      "alice-corp", "2001:470::77", "2001:470::88", "feedfacecafebeef",
      "hunter2",    "bob's",        "bob-private",  "192.168.77.66",
      "session"};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) secret(parts[i]);

  static char big[64 * 1024 + 1];
  memset(big, 'Z', sizeof big - 1);
  memcpy(big, "carol-", 6);
  uint64_t t = mprof_create(MPROF_TASK);
  mprof_label(t, big);
  secret("carol-ZZZZ");
  secret("ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ");

  mprof_counter_t c = mprof_counter_make("dave's open tickets");
  mprof_counter_value(c, 7);
  secret("dave");
  uint64_t failed = mprof_create(MPROF_REQUEST);
  mprof_label(failed, "connect 10.1.2.3:5432");
  mprof_fail(failed, "password for erin rejected");
  secret("erin");
  mprof_fail(mprof_create(MPROF_CONNECT), "ECONNREFUSED");

  uint64_t stuck = mprof_create(MPROF_REQUEST);
  mprof_label(stuck, "GET /users/alice?token=hunter2");
  mprof_should_resolve(stuck);

  pthread_t other;
  if (pthread_create(&other, NULL, other_thread, NULL) ||
      pthread_join(other, NULL))
    return 1;
  secret("hostile_prog");
  return fclose(secrets) != 0;
}
