/* uv_stress.c -- many loops on many OS threads, for the tracing's map of
 * entries (src/uv/uv_map.c), whose lookups of a handle take no lock.
 * LOOPS loops, each set up on the main thread (so that each loop's own
 * thread looks up entries that another made) and run on its own thread,
 * each echo MESSAGES messages over CONNECTIONS TCP connections, one after
 * another, whose handles live at the same addresses each time (the entry
 * of each new handle replaces the closed one's), while SENDERS plain
 * pthreads per loop call uv_async_send() on the loop's async handle.
 * Prints what it did.  Built as uv_prog is, plain and with mprof/uv.h;
 * test_uv.sh runs it three ways and check_uv's stress mode checks the
 * traces.
 *
 *   uv_stress DIR MODE   (test_uv.sh's arguments for every program, unused)
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include <mprof/uv.h>

#include "uv_check.h"

#define LOOPS 4
#define CONNECTIONS 3
#define MESSAGES 50
#define SIZE 100
#define SENDERS 2
#define SENDS 200

typedef struct stress_s {
  uv_loop_t loop;
  uv_tcp_t listener, client, server;
  uv_connect_t connect;
  uv_async_t async;
  struct sockaddr_storage address;
  char message[SIZE];
  int connections; /* begun */
  int messages;    /* echoed over the current connection */
  int echoes;      /* echoed in all */
  size_t received; /* of the current message, by the client */
  int async_closed;
  atomic_int senders_done;
} stress_t;

static void alloc_buffer(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  (void)handle;
  buf->base = malloc(suggested);
  buf->len = buf->base ? suggested : 0;
}

static void written(uv_write_t *req, int status) {
  CHECK(status);
  free(req->data);
  free(req);
}

/* Writes a copy of length bytes of data. */
static void write_copy(uv_stream_t *stream, const char *data, size_t length) {
  uv_write_t *req = malloc(sizeof *req);
  req->data = malloc(length);
  memcpy(req->data, data, length);
  uv_buf_t buf = uv_buf_init(req->data, (unsigned)length);
  CHECK(uv_write(req, stream, &buf, 1, written));
}

/* The last of the loop's work: its async handle closes once the senders
 * are done too, and then the loop ends. */
static void close_async_when_done(stress_t *s) {
  if (s->async_closed || s->connections < CONNECTIONS ||
      s->messages < MESSAGES || atomic_load(&s->senders_done) < SENDERS)
    return;
  s->async_closed = 1;
  uv_close((uv_handle_t *)&s->async, NULL);
}

static void woken(uv_async_t *async) { close_async_when_done(async->data); }

static void client_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  stress_t *s = stream->data;
  free(buf->base);
  if (nread <= 0) {
    CHECK(nread == UV_EOF ? 0 : (int)nread);
    return;
  }
  s->received += (size_t)nread;
  if (s->received < SIZE) return;
  s->received = 0;
  s->echoes++;
  if (++s->messages < MESSAGES)
    write_copy(stream, s->message, SIZE);
  else
    uv_close((uv_handle_t *)stream, NULL);
}

static void connected(uv_connect_t *req, int status) {
  stress_t *s = req->data;
  CHECK(status);
  CHECK(uv_read_start((uv_stream_t *)&s->client, alloc_buffer, client_read));
  write_copy((uv_stream_t *)&s->client, s->message, SIZE);
}

/* The next connection, its client handle where the last one's was. */
static void connection_begin(stress_t *s) {
  s->connections++;
  s->messages = 0;
  CHECK(uv_tcp_init(&s->loop, &s->client));
  s->client.data = s;
  s->connect.data = s;
  CHECK(uv_tcp_connect(&s->connect, &s->client,
                       (const struct sockaddr *)&s->address, connected));
}

static void server_closed(uv_handle_t *handle) {
  stress_t *s = handle->data;
  if (s->connections < CONNECTIONS) {
    connection_begin(s);
    return;
  }
  uv_close((uv_handle_t *)&s->listener, NULL);
  close_async_when_done(s);
}

static void server_read(uv_stream_t *stream, ssize_t nread,
                        const uv_buf_t *buf) {
  if (nread > 0) write_copy(stream, buf->base, (size_t)nread);
  free(buf->base);
  if (nread < 0) uv_close((uv_handle_t *)stream, server_closed);
}

static void accepted(uv_stream_t *listener, int status) {
  stress_t *s = listener->data;
  CHECK(status);
  CHECK(uv_tcp_init(&s->loop, &s->server));
  s->server.data = s;
  CHECK(uv_accept(listener, (uv_stream_t *)&s->server));
  CHECK(uv_read_start((uv_stream_t *)&s->server, alloc_buffer, server_read));
}

static void send_wakeups(void *arg) {
  stress_t *s = arg;
  for (int i = 0; i < SENDS; i++) CHECK(uv_async_send(&s->async));
  atomic_fetch_add(&s->senders_done, 1);
  CHECK(uv_async_send(&s->async));
}

/* On the main thread: the loop, its listener and its async handle. */
static void stress_setup(stress_t *s) {
  struct sockaddr_in any;
  int length = sizeof s->address;
  CHECK(uv_loop_init(&s->loop));
  CHECK(uv_tcp_init(&s->loop, &s->listener));
  s->listener.data = s;
  CHECK(uv_ip4_addr("127.0.0.1", 0, &any));
  CHECK(uv_tcp_bind(&s->listener, (const struct sockaddr *)&any, 0));
  CHECK(uv_listen((uv_stream_t *)&s->listener, 8, accepted));
  CHECK(uv_tcp_getsockname(&s->listener, (struct sockaddr *)&s->address,
                           &length));
  CHECK(uv_async_init(&s->loop, &s->async, woken));
  s->async.data = s;
  memset(s->message, 'm', SIZE);
}

static void stress_run(void *arg) {
  stress_t *s = arg;
  uv_thread_t senders[SENDERS];
  connection_begin(s);
  for (int i = 0; i < SENDERS; i++)
    CHECK(uv_thread_create(&senders[i], send_wakeups, s));
  CHECK(uv_run(&s->loop, UV_RUN_DEFAULT));
  for (int i = 0; i < SENDERS; i++) CHECK(uv_thread_join(&senders[i]));
  CHECK(uv_loop_close(&s->loop));
}

int main(void) {
  static stress_t loops[LOOPS];
  uv_thread_t threads[LOOPS];
  for (int i = 0; i < LOOPS; i++) stress_setup(&loops[i]);
  for (int i = 0; i < LOOPS; i++)
    CHECK(uv_thread_create(&threads[i], stress_run, &loops[i]));
  int echoes = 0;
  for (int i = 0; i < LOOPS; i++) {
    CHECK(uv_thread_join(&threads[i]));
    echoes += loops[i].echoes;
  }
  printf("stress: %d loops, %d connections each, %d echoes\n", LOOPS,
         CONNECTIONS, echoes);
  return 0;
}
