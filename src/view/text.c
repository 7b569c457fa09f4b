/* text.c -- strings from a traced program made safe to show: GTK and Pango
 * need valid UTF-8, and a control character must not act or vanish. */
#include <glib.h>

#include "view.h"

char *mprof__view_escape(const char *text) {
  GString *out = g_string_new(NULL);
  const char *p = text;
  while (*p) {
    gunichar c = g_utf8_get_char_validated(p, -1);
    if (c == (gunichar)-1 || c == (gunichar)-2) {
      g_string_append_printf(out, "\\x%02x", (unsigned char)*p++);
      continue;
    }
    if (c == '\n')
      g_string_append(out, "\\n");
    else if (c == '\t')
      g_string_append(out, "\\t");
    else if (c == '\\')
      g_string_append(out, "\\\\");
    else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
      g_string_append_printf(out, "\\x%02x", c);
    else
      g_string_append_unichar(out, c);
    p = g_utf8_next_char(p);
  }
  return g_string_free(out, FALSE);
}
