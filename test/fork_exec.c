/* fork_exec.c -- forked children under MPROF_TRACE (MPROF_FORK=follow),
 * for test_env_fork.sh.  The program has no tracing code but events; it
 * forks, one after the other:
 *   exec      a child that only execs /bin/true (MPROF_TRACE still set:
 *             true does not load libmprof)
 *   exec_env  a child that unsets MPROF_TRACE and execs /bin/true
 *   records   a child that records one labelled task
 *   forks     a child that records nothing but forks a grandchild that
 *             records one labelled task
 *   threads   a child whose first events come from 4 OS threads at once,
 *             each making 1000 tasks (the first labelled)
 * and prints "WHAT PID" for each (and "grandchild PID").  The parent
 * records a task before and after. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mprof.h"

#define THREADS 4
#define TASKS_PER_THREAD 1000

static void record_task(const char *label) {
  uint64_t task = mprof_create(MPROF_TASK);
  mprof_label(task, label);
  mprof_resolve(task);
}

static void wait_for(pid_t pid) {
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status)) {
    fprintf(stderr, "fork_exec: child %ld failed\n", (long)pid);
    exit(1);
  }
}

static void exec_true(int keep_trace) {
  if (!keep_trace) unsetenv("MPROF_TRACE");
  execl("/bin/true", "true", (char *)NULL);
  _exit(127);
}

/* The threads spin until all have arrived, so that on two or more CPUs
 * their events meet the start of the child's trace, which none may lose. */
static int arrived;

static void *record_in_thread(void *unused) {
  (void)unused;
  __atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
  while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < THREADS) {
  }
  record_task("child thread");
  for (int i = 1; i < TASKS_PER_THREAD; i++)
    mprof_resolve(mprof_create(MPROF_TASK));
  return NULL;
}

static void record_from_threads(void) {
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&threads[i], NULL, record_in_thread, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
}

static void fork_grandchild(void) {
  pid_t pid = fork();
  if (pid == 0) {
    record_task("grandchild");
    _exit(0);
  }
  printf("grandchild %ld\n", (long)pid);
  fflush(stdout);
  wait_for(pid);
}

/* Fork a child that runs body, print "what PID", wait for it. */
static void in_child(const char *what, void (*body)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    body();
    fflush(stdout);
    _exit(0);
  }
  printf("%s %ld\n", what, (long)pid);
  wait_for(pid);
}

static void exec_keeping_trace(void) { exec_true(1); }
static void exec_untraced(void) { exec_true(0); }
static void record_child(void) { record_task("child"); }

int main(void) {
  record_task("parent before");
  in_child("exec", exec_keeping_trace);
  in_child("exec_env", exec_untraced);
  in_child("records", record_child);
  in_child("forks", fork_grandchild);
  in_child("threads", record_from_threads);
  record_task("parent after");
  return 0;
}
