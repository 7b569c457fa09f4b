/* hello.c -- a tiny event loop with promises, traced by mprof.
 *
 * A "server" accepts three requests; each request is a task that waits on a
 * reply condition, and a timer callback resolves it.  Nothing here starts
 * tracing: run it as
 *
 *   MPROF_TRACE=hello.ctf ./hello
 *
 * and the library starts recording from the environment at program start.
 */
#include <stdio.h>

#include "mprof.h"

#define REQUESTS 3

typedef struct request_s {
  uint64_t task;   /* the request's own thread */
  uint64_t waiter; /* its wait on the reply condition */
  int done;
} request_t;

int main(void) {
  uint64_t loop = mprof_create(MPROF_LOOP);
  mprof_label(loop, "main loop");
  mprof_switch(loop);
  mprof_counter_t in_flight = mprof_counter_make("requests in flight");
  uint64_t reply = mprof_named_condition("reply");
  request_t requests[REQUESTS];

  for (int i = 0; i < REQUESTS; i++) {
    char label[32];
    snprintf(label, sizeof label, "request %d", i);
    requests[i].task = mprof_named_task(label);
    mprof_switch(requests[i].task);
    requests[i].waiter = mprof_condition_wait(reply, "wait for reply");
    requests[i].done = 0;
    mprof_counter_increase(in_flight, 1);
    mprof_switch(loop);
  }

  mprof_suspend(); /* the loop sleeps until the timer fires */
  uint64_t timer = mprof_create(MPROF_TIMER);
  mprof_label(timer, "reply timer");
  mprof_switch(timer);
  mprof_condition_notify(reply);
  for (int i = 0; i < REQUESTS; i++) {
    mprof_resolve(requests[i].waiter);
    mprof_switch(requests[i].task);
    mprof_read(requests[i].waiter);
    mprof_counter_increase(in_flight, -1);
    mprof_resolve(requests[i].task);
    requests[i].done = 1;
    mprof_switch(timer);
  }
  mprof_resolve(timer);
  mprof_switch(loop);
  printf("hello: %d requests answered\n", REQUESTS);
  return 0;
}
