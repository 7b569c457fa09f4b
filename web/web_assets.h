/* web_assets.h -- the browser viewer's files (index.html, viewer.css,
 * viewer.js, mprof.wasm), embedded in the mprof command by the build
 * (web/embed.cmake) for `mprof html`. */
#ifndef MPROF_WEB_ASSETS_H
#define MPROF_WEB_ASSETS_H

#include <stddef.h>

typedef struct mprof_web_asset_s {
  const char *name;
  const unsigned char *data;
  size_t size;
} mprof_web_asset_t;

/* The assets, ended by one whose name is NULL. */
extern const mprof_web_asset_t mprof_web_assets[];

#endif /* MPROF_WEB_ASSETS_H */
