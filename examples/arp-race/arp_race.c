/* arp_race.c -- the lost wake-up of MirageOS's TCP stack (see the seed in
 * README.md's walk-through), in C with libuv: to send one byte to a host,
 * the stack asks for its MAC address (ARP), then waits for the answer on a
 * condition.  But it starts waiting only after some other work, and it does
 * not look in the ARP cache first: when the answer comes before the wait
 * starts, the notify wakes nobody and the program hangs, now and then.
 *
 * Both ARP ends are UDP sockets over loopback; the answer and the start of
 * the wait come after random delays, so about one run in two hangs.
 * Built with mprof/uv.h and MPROF_TRACING: run it with MPROF_TRACE=t.ctf
 * and `mprof report t.ctf` names the wait and the notify it missed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include <mprof/uv.h>

#define TARGET "10.0.0.2"

static uv_loop_t *loop;
static uv_udp_t stack, responder;
static uv_timer_t start_timer, wait_timer, reply_timer;
static struct sockaddr_in responder_addr, stack_addr;
static uv_udp_send_t probe_req, reply_req;

/* The stack's state, and its mprof threads. */
static int arp_cached;        /* the answer is in the ARP cache */
static int waiting;           /* the connection waits for it */
static uint64_t connection;   /* the task that sends the byte */
static uint64_t arp_response; /* the condition "an answer came" */
static uint64_t waiter;       /* the connection's wait on it */

static void alloc_buffer(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  static char slab[2][64];
  (void)suggested;
  buf->base = slab[handle == (uv_handle_t *)&stack];
  buf->len = sizeof slab[0];
}

static void send_text(uv_udp_send_t *req, uv_udp_t *from,
                      const struct sockaddr_in *to, const char *text) {
  uv_buf_t buf = uv_buf_init((char *)text, (unsigned)strlen(text));
  uv_udp_send(req, from, &buf, 1, (const struct sockaddr *)to, NULL);
}

static void close_all(void) {
  uv_close((uv_handle_t *)&stack, NULL);
  uv_close((uv_handle_t *)&responder, NULL);
}

/* The connection goes on once it has the MAC address. */
static void send_the_byte(void) {
  uint64_t outer = mprof_current();
  mprof_switch(connection);
  mprof_read(waiter);
  printf("TCP: sending '!' to " TARGET ":7001\n");
  mprof_resolve(connection);
  mprof_switch(outer);
  printf("main returned 0\n");
  close_all();
}

/* The stack receives the ARP answer: cache it, notify the condition. */
static void stack_received(uv_udp_t *handle, ssize_t nread, const uv_buf_t *buf,
                           const struct sockaddr *addr, unsigned flags) {
  (void)handle;
  (void)buf;
  (void)flags;
  if (nread <= 0 || !addr) return;
  printf("ARP: updating " TARGET " -> fe:ff:ff:ff:ff:ff\n");
  arp_cached = 1;
  mprof_condition_notify(arp_response);
  if (waiting) {
    mprof_resolve(waiter);
    send_the_byte();
  }
  /* else: the BUG -- nobody waits yet, and whoever waits later will not
   * look at arp_cached. */
}

/* The connection, after other work, waits for the answer. */
static void start_waiting(uv_timer_t *timer) {
  (void)timer;
  uint64_t outer = mprof_current();
  mprof_switch(connection);
  waiter = mprof_condition_wait(arp_response, "ARP response");
  waiting = 1; /* the fix: if (arp_cached) go on at once */
  mprof_switch(outer);
}

/* The connection starts: ask for the MAC address. */
static void start_connection(uv_timer_t *timer) {
  (void)timer;
  connection = mprof_named_task("connect to " TARGET ":7001");
  uint64_t outer = mprof_current();
  mprof_switch(connection);
  printf("ARP: transmitting probe -> " TARGET "\n");
  send_text(&probe_req, &stack, &responder_addr, "who-has " TARGET);
  uv_timer_start(&wait_timer, start_waiting, (uint64_t)(rand() % 3), 0);
  mprof_switch(outer);
}

/* The other host answers after a while. */
static void answer(uv_timer_t *timer) {
  (void)timer;
  send_text(&reply_req, &responder, &stack_addr,
            TARGET " is-at fe:ff:ff:ff:ff:ff");
}

static void responder_received(uv_udp_t *handle, ssize_t nread,
                               const uv_buf_t *buf, const struct sockaddr *addr,
                               unsigned flags) {
  (void)handle;
  (void)buf;
  (void)flags;
  if (nread > 0 && addr)
    uv_timer_start(&reply_timer, answer, (uint64_t)(rand() % 3), 0);
}

static int bind_udp(uv_udp_t *udp, struct sockaddr_in *addr,
                    uv_udp_recv_cb cb) {
  int length = sizeof *addr;
  uv_ip4_addr("127.0.0.1", 0, addr);
  int err = uv_udp_init(loop, udp);
  if (!err) err = uv_udp_bind(udp, (const struct sockaddr *)addr, 0);
  if (!err) err = uv_udp_getsockname(udp, (struct sockaddr *)addr, &length);
  if (!err) err = uv_udp_recv_start(udp, alloc_buffer, cb);
  return err;
}

int main(void) {
  srand((unsigned)(time(NULL) ^ getpid()));
  setvbuf(stdout, NULL, _IOLBF, 0);
  loop = uv_default_loop();
  arp_response = mprof_named_condition("ARP cache " TARGET);
  printf("ARP: sending gratuitous from 10.0.0.1\n");
  int err = bind_udp(&responder, &responder_addr, responder_received);
  if (!err) err = bind_udp(&stack, &stack_addr, stack_received);
  if (err) {
    fprintf(stderr, "arp_race: %s\n", uv_strerror(err));
    return 1;
  }
  printf("Manager: configuration done\n");
  uv_timer_init(loop, &start_timer);
  uv_timer_init(loop, &wait_timer);
  uv_timer_init(loop, &reply_timer);
  uv_timer_start(&start_timer, start_connection, 0, 0);
  uv_run(loop, UV_RUN_DEFAULT);
  return 0;
}
