/* capture.c -- a capture's trigger: its sidecar JSON (written by `mprof
 * watch`, cli/cmd_watch.c) read with jansson, and the finding it names
 * looked up in the capture's analysis by kind and start. */
#define _DEFAULT_SOURCE /* strdup */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

/* PATH.json for PATH.ctf; NULL if path has no .ctf to replace or memory
 * ran out. */
static char *sidecar_path(const char *path) {
  size_t length = strlen(path);
  if (length < 4 || strcmp(path + length - 4, ".ctf")) return NULL;
  char *json = malloc(length + 2);
  if (!json) return NULL;
  memcpy(json, path, length - 4);
  memcpy(json + length - 4, ".json", 6);
  return json;
}

/* Fill *out from a capture's JSON: 1, 0 if it is no capture's, or
 * MPROF_ENOMEM. */
static int from_json(json_t *capture, mprof_capture_t *out) {
  json_t *finding = json_object_get(capture, "finding");
  const char *kind = json_string_value(json_object_get(finding, "kind"));
  const char *summary = json_string_value(json_object_get(finding, "summary"));
  json_t *trigger = json_object_get(capture, "trigger_ticks");
  if (!kind || !summary || !json_is_integer(trigger) ||
      json_integer_value(trigger) < 0)
    return 0;
  out->kind = strdup(kind);
  out->summary = strdup(summary);
  out->trigger_ticks = (uint64_t)json_integer_value(trigger);
  if (out->kind && out->summary) return 1;
  mprof_capture_free(out);
  return MPROF_ENOMEM;
}

int mprof_capture_read(const char *path, mprof_capture_t *out) {
  *out = (mprof_capture_t){NULL, NULL, 0};
  char *json_path = sidecar_path(path);
  json_t *capture = json_path ? json_load_file(json_path, 0, NULL) : NULL;
  free(json_path);
  int found = capture ? from_json(capture, out) : 0;
  json_decref(capture);
  return found;
}

void mprof_capture_free(mprof_capture_t *capture) {
  free(capture->kind);
  free(capture->summary);
  *capture = (mprof_capture_t){NULL, NULL, 0};
}

long mprof_capture_finding(const mprof_capture_t *c, const mprof_model_t *m,
                           const mprof_analysis_t *a) {
  const mprof_model_view_t *v = mprof_model_view(m);
  if (!v->clock_freq_hz) return -1;
  double trigger_ns = ((double)c->trigger_ticks - (double)v->start_ticks) *
                      1e9 / (double)v->clock_freq_hz;
  long best = -1;
  double best_gap = MPROF_CAPTURE_SLACK_NS;
  for (size_t i = 0; i < a->finding_count; i++) {
    const mprof_finding_t *f = &a->findings[i];
    double gap = fabs((double)f->start_ns - trigger_ns);
    if (gap <= best_gap &&
        !strcmp(mprof_finding_kind_name((mprof_finding_kind_t)f->kind),
                c->kind)) {
      best = (long)i;
      best_gap = gap;
    }
  }
  return best;
}
