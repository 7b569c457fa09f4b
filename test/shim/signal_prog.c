/* signal_prog.c -- a program for test_signals.sh that says which signals
 * it got: "got HUP", "got USR1", and at SIGTERM "got TERM" and exit 7.
 * Built with the tree's flags, so that a sanitizer-built shim loads into
 * it; "not stopped" if no TERM came within 30 s. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void say(const char *text) {
  if (write(STDOUT_FILENO, text, strlen(text)) < 0) _exit(1);
}

static void on_signal(int signum) {
  if (signum == SIGTERM) {
    say("got TERM\n");
    _exit(7);
  }
  say(signum == SIGHUP ? "got HUP\n" : "got USR1\n");
}

int main(void) {
  struct sigaction action = {.sa_handler = on_signal};
  sigemptyset(&action.sa_mask);
  sigaction(SIGHUP, &action, NULL);
  sigaction(SIGUSR1, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  say("ready\n");
  for (int i = 0; i < 300; i++) {
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  say("not stopped\n");
  return 0;
}
