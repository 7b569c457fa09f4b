/* test_web_api.c -- the browser viewer's C API (web/wasm/api.c), built
 * natively: the answers the page reads as JSON, for a trace recorded here.
 * (The Playwright test drives the same code compiled to WebAssembly, but
 * cannot choose when the page computes what.)
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mprof.h"
#include "mprof/unix.h"
#include "web.h"

/* A request that waits on a reply nobody sends: a stalled should_resolve
 * thread, the analysis' finding.  Returns the trace's bytes (malloc'd). */
static uint8_t *record_stall(size_t *size) {
  char path[] = "/tmp/mprof-web-api-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  mprof_unix_options_t options = {
      .path = path, .size = 1u << 20, .ring_mode = MPROF_RING_DISCARD};
  assert_int_equal(mprof_unix_start(&options), 0);
  uint64_t request = mprof_named_task("request");
  mprof_switch(request);
  uint64_t reply = mprof_create(MPROF_WAIT);
  mprof_label(reply, "reply");
  mprof_should_resolve(reply);
  mprof_try_read(reply);
  mprof_suspend();
  mprof_unix_stop();
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  rewind(f);
  uint8_t *bytes = malloc(*size);
  assert_non_null(bytes);
  assert_int_equal(fread(bytes, 1, *size, f), *size);
  fclose(f);
  unlink(path);
  return bytes;
}

/* A double-click can come before the findings panel is filled: the
 * thread's details still hold its findings and its times. */
static void test_thread_details_before_findings(void **state) {
  (void)state;
  size_t size;
  uint8_t *bytes = record_stall(&size);
  mprof_web_t *w = mprof_web_open(bytes, size); /* takes the bytes */
  assert_non_null(w);
  mprof_timeline_t *tl = mprof_timeline_new();
  assert_int_equal(mprof_timeline_show(tl, mprof_web_model(w), NULL), 0);
  assert_int_equal(mprof_timeline_search(tl, "reply"), 1);
  int reply = mprof_timeline_next_match(tl, 0, -1);
  assert_true(reply > 0);
  const char *details = mprof_web_thread(w, reply);
  assert_non_null(strstr(details, "\"name\":\"reply\""));
  assert_non_null(strstr(details, "\"findings\":[{"));
  assert_non_null(strstr(details, "\"time\":{\"life\":"));
  mprof_timeline_free(tl);
  mprof_web_close(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_details_before_findings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
