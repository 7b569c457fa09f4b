/* view_main.c -- mprof-view, `mprof view` (cmd_view.c) as a program of its
 * own: the only one that loads GTK and the libraries it brings, so that
 * every other command starts without them.  mprof view starts it with
 * the same arguments. */
#include <unistd.h>

#include "cli.h"

int main(int argc, char **argv) {
  cli_heap_settle();
  opterr = 0; /* cli_option_error() says what is wrong, in one line */
  cli_command = "view";
  return cmd_view(argc, argv);
}
