/* cli_read.c -- the baseline of bench_cli_start.c: a plain C program that
 * opens a file, reads it whole and exits, as fast as a command that reads
 * a trace can be. */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  static char buffer[1 << 16];
  int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
  if (fd < 0) return 1;
  while (read(fd, buffer, sizeof buffer) > 0) {
  }
  return close(fd) ? 1 : 0;
}
