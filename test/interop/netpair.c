/* netpair.c -- record one side of a known client/server conversation, with
 * a known clock error, for the tests of combining traces (test_merge.sh)
 * and of the Chrome export (hostile labels).
 *
 *   netpair client|server OUT SKEW_NS
 *
 * The two sides exchange five requests and replies over TCP and one UDP
 * datagram, labelled with the send/receive convention of docs/interop.md.
 * Times are exact: the clock is this program's own (1 GHz), set before
 * each event.  The client's wall-clock anchor is true; the server's is
 * SKEW_NS too late, so the offset that aligns the server is -SKEW_NS, and
 * the shortest one-way delay (50 us each way) bounds what the messages can
 * tell about it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof.h"

#define ANCHOR_NS INT64_C(1700000000000000000) /* true wall clock at 0 */
#define SERVER_START_NS 500000                 /* server's tick 0 */
#define EXCHANGES 5

static uint64_t now_ticks;
static uint64_t fake_clock(void) { return now_ticks; }

static const char client_addr[] = "10.0.0.1:40000";
static const char server_addr[] = "10.0.0.2:80";

/* True times of exchange k: request sent, received, reply sent, reply
 * received in two halves. */
static int64_t request_sent(int k) { return 1000000 + 1000000 * (int64_t)k; }
static int64_t request_received(int k) {
  return request_sent(k) + 50000 + 7000 * k;
}
static int64_t reply_sent(int k) { return request_received(k) + 30000; }
static int64_t reply_received(int k, int half) {
  return reply_sent(k) + 50000 + 5000 * k + 10000 * half;
}

/* A thread labelled with a send or receive, run and resolved at true time
 * t (ns) on a clock whose tick 0 is at true time start. */
static void net_event(int64_t t, int64_t start, const char *label) {
  now_ticks = (uint64_t)(t - start);
  uint64_t io = mprof_create(MPROF_REQUEST);
  mprof_switch(io);
  mprof_label(io, label);
  mprof_resolve(io);
  mprof_switch(MPROF_NONE);
}

static void client(void) {
  mprof_counter_t sent = mprof_counter_make("bytes sent");
  char label[160];
  for (int k = 0; k < EXCHANGES; k++) {
    now_ticks = (uint64_t)request_sent(k) - 100;
    uint64_t request = mprof_create(MPROF_REQUEST);
    /* a label no viewer may trust: bad UTF-8, a terminal escape, quotes,
     * a closing script tag, a backslash, a newline */
    mprof_label(request, k ? "GET /" : "GET /\xff\x1b[31m\"</script>\\\n\x01");
    snprintf(label, sizeof label, "net send tcp %s %s %d 100", client_addr,
             server_addr, 100 * k);
    net_event(request_sent(k), 0, label);
    mprof_counter_increase(sent, 100);
    for (int half = 0; half < 2; half++) {
      snprintf(label, sizeof label, "net recv tcp %s %s %d 500", server_addr,
               client_addr, 1000 * k + 500 * half);
      net_event(reply_received(k, half), 0, label);
    }
    mprof_resolve(request);
  }
  net_event(request_sent(EXCHANGES), 0,
            "net send udp [2001:db8::1]:4000 [2001:db8::2]:53 "
            "0123456789abcdef 32");
}

static void server(void) {
  char label[160];
  for (int k = 0; k < EXCHANGES; k++) {
    snprintf(label, sizeof label, "net recv tcp %s %s %d 100", client_addr,
             server_addr, 100 * k);
    net_event(request_received(k), SERVER_START_NS, label);
    snprintf(label, sizeof label, "net send tcp %s %s %d 1000", server_addr,
             client_addr, 1000 * k);
    net_event(reply_sent(k), SERVER_START_NS, label);
  }
  net_event(request_received(EXCHANGES), SERVER_START_NS,
            "net recv udp [2001:db8::1]:4000 [2001:db8::2]:53 "
            "0123456789abcdef 32");
}

int main(int argc, char **argv) {
  if (argc != 4 || (strcmp(argv[1], "client") && strcmp(argv[1], "server"))) {
    fprintf(stderr, "usage: netpair client|server OUT SKEW_NS\n");
    return 2;
  }
  int is_client = !strcmp(argv[1], "client");
  static char buffer[256 * 1024];
  mprof_config_t config;
  memset(&config, 0, sizeof config);
  config.buffer = buffer;
  config.size = sizeof buffer;
  config.clock = fake_clock;
  config.clock_freq_hz = 1000000000u;
  config.clock_offset_ns =
      is_client ? ANCHOR_NS
                : ANCHOR_NS + SERVER_START_NS + strtoll(argv[3], NULL, 10);
  config.name = argv[1];
  int err = mprof_start(&config);
  if (err) {
    fprintf(stderr, "netpair: %s\n", mprof_strerror(err));
    return 1;
  }
  if (is_client)
    client();
  else
    server();
  mprof_stop();
  FILE *f = fopen(argv[2], "wb");
  if (!f || fwrite(buffer, sizeof buffer, 1, f) != 1 || fclose(f)) {
    perror(argv[2]);
    return 1;
  }
  return 0;
}
