/* lwt.h -- a cooperative scheduler of promises in Lwt's shape: a task is a
 * step function that runs when the promise it waits on resolves; a sleep
 * is a promise the loop resolves when the TSC passes its deadline.  No
 * allocation: the caller owns every task and promise.  Each promise and
 * task is an mprof thread, so the trace tells who waited on whom. */
#ifndef BARE_METAL_LWT_H
#define BARE_METAL_LWT_H

#include <stdint.h>

#include "mprof.h"

typedef struct task_s task_t;
typedef struct promise_s promise_t;

struct promise_s {
  uint64_t thread; /* its mprof thread */
  int resolved;
  task_t *waiter;    /* the task waiting on it, or NULL */
  uint64_t deadline; /* a sleep: the TSC tick it resolves at */
  promise_t *next_sleep;
};

struct task_s {
  uint64_t thread;        /* its mprof thread */
  void (*step)(task_t *); /* runs when it is scheduled */
  promise_t *awaited;     /* what it waits on, read when it resumes */
  task_t *next_ready;
};

/* Make the clock's rate known: ticks per second of tsc_now(). */
void lwt_init(uint64_t tsc_hz);

/* p is a new pending promise of the given type and label. */
void promise_create(promise_t *p, mprof_type_t type, const char *label);

/* The current task resolves p; its waiter runs next. */
void promise_resolve(promise_t *p);

/* task waits on p: its step runs once p resolves (at once if it is). */
void promise_wait(task_t *task, promise_t *p);

/* p, a new promise labelled label, resolves milliseconds from now. */
void lwt_sleep(promise_t *p, uint32_t milliseconds, const char *label);

/* task is a new task thread, labelled label, whose step runs next. */
void task_start(task_t *task, const char *label, void (*step)(task_t *));

/* The current task, task, is done: its thread resolves. */
void task_finish(task_t *task);

/* A condition: what tasks wait on and others notify.  A notify wakes the
 * task waiting at that moment, if any, and is otherwise lost. */
typedef struct condition_s {
  uint64_t thread;   /* its mprof thread */
  promise_t *waiter; /* the wait in progress, or NULL */
} condition_t;

void condition_create(condition_t *c, const char *label);

/* task waits for c's next notify: p, labelled label, resolves then. */
void condition_wait(task_t *task, condition_t *c, promise_t *p,
                    const char *label);

void condition_notify(condition_t *c);

/* Run ready tasks and resolve sleeps, forever. */
__attribute__((noreturn)) void lwt_run(void);

#endif
