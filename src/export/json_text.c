/* json_text.c -- trace strings as JSON strings.  Labels come from traced
 * programs and may hold any bytes; JSON wants UTF-8, so bytes that are not
 * valid UTF-8 become the text \xHH (a backslash, x and two hex digits).
 * As valid UTF-8 for a JSON library to escape (mprof_json_text: the
 * commands' jansson values) or written straight to a stream as a JSON
 * string (mprof_json_put_text, for exports that never hold the whole
 * JSON). */
#include <stdint.h>

#include "mprof/export.h"

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

size_t mprof_json_text(char *out, const char *text, size_t length) {
  const unsigned char *p = (const unsigned char *)text, *end = p + length;
  size_t o = 0;
  while (p < end) {
    size_t n = utf8_sequence(p, end);
    if (n == 0) {
      o += (size_t)snprintf(out + o, 5, "\\x%02x", *p++);
      continue;
    }
    for (size_t i = 0; i < n; i++) out[o++] = (char)*p++;
  }
  out[o] = 0;
  return o;
}

void mprof_json_put_text(FILE *f, const char *text, size_t length) {
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
