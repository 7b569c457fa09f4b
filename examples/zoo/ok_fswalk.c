/* ok_fswalk.c -- a correct program for the zoo: an fs walker.  It makes a
 * small tree (3 folders of 4 files), then walks it with the loop (scandir,
 * stat, open, read, close, each a request on the thread pool, a few at a
 * time), adds up the bytes, and removes the tree.  Nothing must be
 * found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uv.h>

/* Room for a path in the tree (the root is a temporary folder). */
#define PATH_SIZE 600

typedef struct visit_s {
  uv_fs_t req;
  char path[PATH_SIZE];
  uv_file file;
  char buffer[256];
} visit_t;

static long total;
static void visit(const char *path);

static void finished(visit_t *v) {
  uv_fs_req_cleanup(&v->req);
  free(v);
}

static void closed(uv_fs_t *req) { finished(req->data); }

static void got(uv_fs_t *req) {
  visit_t *v = req->data;
  if (req->result > 0) total += req->result;
  uv_fs_req_cleanup(req);
  uv_fs_close(req->loop, req, v->file, closed);
}

static void opened(uv_fs_t *req) {
  visit_t *v = req->data;
  v->file = (uv_file)req->result;
  uv_fs_req_cleanup(req);
  uv_buf_t buf = uv_buf_init(v->buffer, sizeof v->buffer);
  uv_fs_read(req->loop, req, v->file, &buf, 1, 0, got);
}

static void listed(uv_fs_t *req) {
  visit_t *v = req->data;
  uv_dirent_t entry;
  char child[PATH_SIZE];
  while (uv_fs_scandir_next(req, &entry) != UV_EOF) {
    int n = snprintf(child, sizeof child, "%s/%s", v->path, entry.name);
    if (n > 0 && (size_t)n < sizeof child) visit(child);
  }
  finished(v);
}

static void stated(uv_fs_t *req) {
  visit_t *v = req->data;
  int folder = (req->statbuf.st_mode & 0170000) == 0040000;
  uv_fs_req_cleanup(req);
  if (folder)
    uv_fs_scandir(req->loop, req, v->path, 0, listed);
  else
    uv_fs_open(req->loop, req, v->path, UV_FS_O_RDONLY, 0, opened);
}

static void visit(const char *path) {
  visit_t *v = calloc(1, sizeof *v);
  snprintf(v->path, sizeof v->path, "%s", path);
  v->req.data = v;
  uv_fs_stat(uv_default_loop(), &v->req, v->path, stated);
}

/* The tree, made and removed with plain calls: only the walk is async. */
static void tree(const char *root, int make) {
  char path[PATH_SIZE];
  for (int d = 0; d < 3; d++) {
    snprintf(path, sizeof path, "%s/d%d", root, d);
    if (make) (void)!mkdir(path, 0700);
    for (int f = 0; f < 4; f++) {
      snprintf(path, sizeof path, "%s/d%d/f%d", root, d, f);
      if (make) {
        FILE *file = fopen(path, "w");
        if (file) fprintf(file, "file %d of folder %d\n", f, d), fclose(file);
      } else {
        remove(path);
      }
    }
    snprintf(path, sizeof path, "%s/d%d", root, d);
    if (!make) remove(path);
  }
}

int main(void) {
  char root[] = "/tmp/mprof-zoo-XXXXXX";
  if (!mkdtemp(root)) return 1;
  tree(root, 1);
  visit(root);
  uv_run(uv_default_loop(), UV_RUN_DEFAULT);
  tree(root, 0);
  remove(root);
  printf("ok_fswalk: %ld bytes\n", total);
  return uv_loop_close(uv_default_loop());
}
