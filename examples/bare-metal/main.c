/* main.c -- a freestanding x86-64 kernel that records an async story with
 * mprof into a static buffer, clocked by the TSC, for the host to take out
 * of guest memory (`mprof snapshot --core` of QEMU's dump-guest-memory).
 *
 * The story: a ticker sleeps 50 ms at a time and counts its ticks; a
 * connection to 10.0.0.2 asks for the MAC address (ARP), does 5 ms of
 * other work, then waits for the answer on the condition "ARP cache
 * 10.0.0.2"; a responder answers after 20 ms and notifies it.  The
 * connection does not look in the cache before it waits (the bug of the
 * arp-race demo): with `hang` on the command line the answer comes after
 * 1 ms, before the wait starts, the notify wakes nobody and the connection
 * waits forever while the ticker runs on.  Otherwise a new connection
 * starts every 200 ms and each sends a byte.
 *
 * At tick 4 it writes "bare-metal: ready" on the serial port.  Command-line
 * words: `hang` (the lost wake-up), `panic` (stop the CPU at tick 8, in the
 * middle of recording), `restart` (record a first trace, stop, and record
 * the story into a second buffer: two traces in memory). */
#include "lwt.h"
#include "machine.h"
#include "mprof.h"

#define TICK_MS 50
#define READY_TICK 4
#define PANIC_TICK 8
#define CONNECT_EVERY_TICKS 4
#define WORK_MS 5
#define ANSWER_MS 20
#define HASTY_ANSWER_MS 1

static uint8_t trace_buffer[1 << 20] __attribute__((aligned(4096)));
static uint8_t first_buffer[MPROF_MIN_SIZE] __attribute__((aligned(4096)));

static uint64_t tsc_hz;
static int stop_in_panic;
static uint32_t answer_ms = ANSWER_MS;
static mprof_counter_t ticks_counter, bytes_counter;

/* --- The connection and the ARP responder ------------------------------ */

static condition_t arp_cache;
static task_t connection, responder;
static promise_t work, answer_delay, arp_response;
static int connection_step_number, responder_step_number;
static int connection_done = 1;
static uint64_t bytes_sent;

static void responder_step(task_t *task) {
  if (responder_step_number++ == 0) {
    lwt_sleep(&answer_delay, answer_ms, "ARP answer delay");
    promise_wait(task, &answer_delay);
    return;
  }
  condition_notify(&arp_cache); /* 10.0.0.2 is-at fe:ff:ff:ff:ff:ff */
  task_finish(task);
}

static void connection_step(task_t *task) {
  switch (connection_step_number++) {
  case 0: /* who-has 10.0.0.2: the responder will answer */
    responder_step_number = 0;
    task_start(&responder, "ARP responder", responder_step);
    lwt_sleep(&work, WORK_MS, "other work");
    promise_wait(task, &work);
    break;
  case 1: /* the bug: no look in the cache before waiting */
    condition_wait(task, &arp_cache, &arp_response, "ARP response");
    break;
  default: /* the answer came: send the byte */
    mprof_counter_value(bytes_counter, (int64_t)++bytes_sent);
    task_finish(task);
    connection_done = 1;
  }
}

static void connect(void) {
  connection_done = 0;
  connection_step_number = 0;
  task_start(&connection, "connect to 10.0.0.2:7001", connection_step);
}

/* --- The ticker -------------------------------------------------------------
 */

static task_t ticker;
static promise_t tick_sleep, ready_line;
static uint64_t ticks;

static void ticker_step(task_t *task) {
  mprof_counter_value(ticks_counter, (int64_t)ticks);
  if (ticks == READY_TICK) {
    serial_write("bare-metal: ready\n");
    promise_resolve(&ready_line);
  }
  if (stop_in_panic && ticks == PANIC_TICK)
    halt_with("bare-metal: panic: stopped on purpose at tick 8\n");
  if (ticks % CONNECT_EVERY_TICKS == 0 && connection_done) connect();
  ticks++;
  lwt_sleep(&tick_sleep, TICK_MS, "sleep 50 ms");
  promise_wait(task, &tick_sleep);
}

/* --- Recording ------------------------------------------------------------ */

/* Wall-clock nanoseconds at TSC tick 0, from the CMOS clock (1 s grain). */
static int64_t clock_offset_ns(void) {
  uint64_t seconds = rtc_unix_seconds();
  uint64_t tsc = tsc_now();
  uint64_t since_tick0 =
      tsc / tsc_hz * 1000000000u + tsc % tsc_hz * 1000000000u / tsc_hz;
  return (int64_t)(seconds * 1000000000u - since_tick0);
}

static void start_recording(void *buffer, size_t size) {
  mprof_config_t config = {0};
  config.buffer = buffer;
  config.size = size;
  config.clock_freq_hz = tsc_hz; /* clock NULL: the raw TSC */
  config.clock_offset_ns = clock_offset_ns();
  config.name = "bare-metal";
  int err = mprof_start(&config);
  if (err) {
    serial_write("bare-metal: mprof_start: ");
    halt_with(mprof_strerror(err));
  }
}

/* A first trace, of the boot alone, left stopped in its own buffer. */
static void record_boot_trace(void) {
  start_recording(first_buffer, sizeof first_buffer);
  uint64_t boot = mprof_named_task("boot");
  mprof_resolve(boot);
  mprof_stop();
}

void kmain(const multiboot_info_t *info);

void kmain(const multiboot_info_t *info) {
  serial_init();
  if (tls_setup()) halt_with("bare-metal: no room for thread-local storage\n");
  tsc_hz = tsc_measure_hz();
  lwt_init(tsc_hz);
  if (cmdline_has(info, "hang")) answer_ms = HASTY_ANSWER_MS;
  stop_in_panic = cmdline_has(info, "panic");
  ticks_counter = mprof_counter_make("ticks");
  bytes_counter = mprof_counter_make("bytes sent");
  if (cmdline_has(info, "restart")) record_boot_trace();
  start_recording(trace_buffer, sizeof trace_buffer);
  serial_write("bare-metal: recording, TSC at ");
  serial_write_u64(tsc_hz);
  serial_write(" Hz\n");
  condition_create(&arp_cache, "ARP cache 10.0.0.2");
  promise_create(&ready_line, MPROF_WAIT, "ready line");
  task_start(&ticker, "ticker", ticker_step);
  lwt_run();
}
