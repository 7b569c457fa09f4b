/* json_text.c -- trace strings as JSON strings.  Labels come from traced
 * programs and may hold any bytes; JSON wants UTF-8, so bytes that are not
 * valid UTF-8 become the text \xHH (a backslash, x and two hex digits).
 * As a jansson value (cli_json_text) or written straight to a stream
 * (cli_put_json_text, for exports that never hold the whole JSON). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* Length of the valid UTF-8 sequence at p (before end), or 0. */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end) {
  size_t n = p[0] < 0x80             ? 1
             : (p[0] & 0xe0) == 0xc0 ? 2
             : (p[0] & 0xf0) == 0xe0 ? 3
             : (p[0] & 0xf8) == 0xf0 ? 4
                                     : 0;
  if (n == 0 || (size_t)(end - p) < n) return 0;
  for (size_t i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80) return 0;
  uint32_t cp = n == 1 ? p[0] : (uint32_t)(p[0] & (0x7f >> n));
  for (size_t i = 1; i < n; i++) cp = cp << 6 | (p[i] & 0x3f);
  static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;            /* overlong, out of range, or a surrogate */
  if (cp == 0) return 0; /* NUL would cut the C string jansson gets */
  return n;
}

json_t *cli_json_text(const char *text, size_t length) {
  const unsigned char *p = (const unsigned char *)text, *end = p + length;
  char *out = malloc(4 * length + 1);
  if (!out) return NULL;
  size_t o = 0;
  while (p < end) {
    size_t n = utf8_sequence(p, end);
    if (n == 0) {
      o += (size_t)snprintf(out + o, 5, "\\x%02x", *p++);
      continue;
    }
    for (size_t i = 0; i < n; i++) out[o++] = (char)*p++;
  }
  json_t *s = json_stringn(out, o);
  free(out);
  return s;
}

void cli_put_json_text(FILE *f, const char *text, size_t length) {
  const unsigned char *p = (const unsigned char *)text, *end = p + length;
  putc('"', f);
  while (p < end) {
    size_t n = utf8_sequence(p, end);
    if (n == 0)
      fprintf(f, "\\\\x%02x", *p++);
    else if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p++);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p++);
    else
      for (size_t i = 0; i < n; i++) putc(*p++, f);
  }
  putc('"', f);
}
