/* lwt.c -- the scheduler: a queue of ready tasks and a list of sleeps
 * sorted by deadline, polled against the TSC.  The loop itself is mprof's
 * "no thread": it switches to each task it runs, and records a hiatus
 * while nothing is ready and no sleep is due. */
#include "lwt.h"

#include "machine.h"

static uint64_t ticks_per_ms;
static task_t *ready_head, *ready_tail;
static promise_t *sleeps; /* earliest deadline first */

void lwt_init(uint64_t tsc_hz) { ticks_per_ms = tsc_hz / 1000; }

static void make_ready(task_t *task) {
  task->next_ready = 0;
  if (ready_tail)
    ready_tail->next_ready = task;
  else
    ready_head = task;
  ready_tail = task;
}

void promise_create(promise_t *p, mprof_type_t type, const char *label) {
  p->thread = mprof_create(type);
  mprof_label(p->thread, label);
  p->resolved = 0;
  p->waiter = 0;
  p->deadline = 0;
  p->next_sleep = 0;
}

void promise_resolve(promise_t *p) {
  p->resolved = 1;
  mprof_resolve(p->thread);
  if (p->waiter) make_ready(p->waiter);
  p->waiter = 0;
}

void promise_wait(task_t *task, promise_t *p) {
  task->awaited = p;
  if (p->resolved) {
    make_ready(task);
    return;
  }
  mprof_try_read(p->thread);
  p->waiter = task;
}

void lwt_sleep(promise_t *p, uint32_t milliseconds, const char *label) {
  promise_create(p, MPROF_WAIT, label);
  p->deadline = tsc_now() + milliseconds * ticks_per_ms;
  promise_t **at = &sleeps;
  while (*at && (*at)->deadline <= p->deadline) at = &(*at)->next_sleep;
  p->next_sleep = *at;
  *at = p;
}

void task_start(task_t *task, const char *label, void (*step)(task_t *)) {
  task->thread = mprof_create(MPROF_TASK);
  mprof_label(task->thread, label);
  task->step = step;
  task->awaited = 0;
  make_ready(task);
}

void task_finish(task_t *task) { mprof_resolve(task->thread); }

void condition_create(condition_t *c, const char *label) {
  c->thread = mprof_named_condition(label);
  c->waiter = 0;
}

void condition_wait(task_t *task, condition_t *c, promise_t *p,
                    const char *label) {
  p->thread = mprof_condition_wait(c->thread, label);
  p->resolved = 0;
  p->waiter = task;
  p->deadline = 0;
  p->next_sleep = 0;
  task->awaited = p;
  c->waiter = p;
}

void condition_notify(condition_t *c) {
  mprof_condition_notify(c->thread);
  if (c->waiter) promise_resolve(c->waiter);
  c->waiter = 0;
}

static void run_ready_tasks(void) {
  while (ready_head) {
    task_t *task = ready_head;
    ready_head = task->next_ready;
    if (!ready_head) ready_tail = 0;
    mprof_switch(task->thread);
    if (task->awaited) mprof_read(task->awaited->thread);
    task->awaited = 0;
    task->step(task);
    mprof_switch(MPROF_NONE);
  }
}

/* Resolve the sleeps that are due; whether there were any. */
static int resolve_due_sleeps(void) {
  uint64_t now = tsc_now();
  int any = 0;
  while (sleeps && sleeps->deadline <= now) {
    promise_t *due = sleeps;
    sleeps = due->next_sleep;
    if (!any) mprof_switch(MPROF_NONE); /* the loop wakes from its hiatus */
    promise_resolve(due);
    any = 1;
  }
  return any;
}

void lwt_run(void) {
  for (;;) {
    run_ready_tasks();
    mprof_suspend();
    while (!resolve_due_sleeps()) __builtin_ia32_pause();
  }
}
