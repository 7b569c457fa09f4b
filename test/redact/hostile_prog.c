/* hostile_prog.c -- a trace full of what must not leave the machine, for
 * test_redact.sh: paths, IPv4 and IPv6 peers (in mprof's own label heads
 * and in the network convention's send/receive labels, as text and as the
 * recorder's net_label and net_hash_label events, whose payload hash is a
 * number), DNS names, control characters, a 64 KiB label, a private counter
 * name and failure reason, a word in capitals that is no error name, on two
 * OS threads, with a thread that never resolves (a finding).
 *
 *   MPROF_TRACE=OUT hostile_prog SECRETS
 *
 * writes to SECRETS each private string it recorded, one per line in hex,
 * for the test to search the redacted trace's bytes for.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../../src/record/record.h"
#include "mprof.h"

static FILE *secrets;

/* Note bytes[0 .. n) as bytes that the redacted trace must not hold. */
static void secret_bytes(const void *bytes, size_t n) {
  for (size_t i = 0; i < n; i++)
    fprintf(secrets, "%02x", ((const unsigned char *)bytes)[i]);
  fputc('\n', secrets);
}

/* Note s as a string that the redacted trace must not hold. */
static void secret(const char *s) { secret_bytes(s, strlen(s)); }

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
    "EVANGELINE",
    "fs event /home/alice/inbox",
    "net send udp [2001:470::98]:4000 [2001:470::99]:53 5eed0fdeadc0ffee 9",
};

/* A TCP read and a datagram's receipt as the libuv shim records them: one
 * net_label and one net_hash_label event, their heads interned, the
 * offset, length and payload hash numbers. */
static void net_events(void) {
  static const char tcp[] = "net recv tcp 10.9.8.6:80 10.9.8.7:1234",
                    udp[] = "net recv udp [2001:470::98]:4000 "
                            "[2001:470::99]:53";
  static const uint64_t hash = 0x5eed0fdeadc0ffeeull;
  uint64_t t = mprof_create(MPROF_REQUEST);
  mprof_switch(t);
  mprof__label_net(MPROF__NET_NOW, t, tcp, sizeof tcp - 1,
                   mprof__label_hash(tcp, sizeof tcp - 1), 0, 0, 10);
  mprof_resolve(t);
  t = mprof_create(MPROF_REQUEST);
  mprof_switch(t);
  mprof__label_net_hash(MPROF__NET_NOW, t, udp, sizeof udp - 1,
                        mprof__label_hash(udp, sizeof udp - 1), 0, hash, 9);
  mprof_resolve(t);
  mprof_switch(MPROF_NONE);
  uint8_t le[8];
  for (int i = 0; i < 8; i++) le[i] = (uint8_t)(hash >> (8 * i));
  secret_bytes(le, sizeof le);
}

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
      "session",    "EVANGELINE",   "inbox",        "10.9.8.6",
      "10.9.8.7",   "2001:470::98", "2001:470::99", "5eed0fdeadc0ffee"};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) secret(parts[i]);
  net_events();

  static char big[64 * 1024 + 1];
  memset(big, 'Z', sizeof big - 1);
  memcpy(big, "carol-", 6);
  uint64_t t = mprof_create(MPROF_TASK);
  mprof_label(t, big);
  secret("carol-ZZZZ");
  secret("ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ");

  mprof_counter_t c = mprof_counter_make("dave's open tickets");
  mprof_counter_value(c, 7);
  secret("dave's");
  uint64_t failed = mprof_create(MPROF_REQUEST);
  mprof_label(failed, "connect 10.1.2.3:5432");
  mprof_fail(failed, "password for erinsdottir rejected");
  secret("erinsdottir");
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
