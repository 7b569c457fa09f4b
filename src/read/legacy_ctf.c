/* legacy_ctf.c -- a legacy mirage-profile trace as CTF 1.8 for babeltrace2.
 *
 * The events are copied byte for byte; what is new is a metadata that
 * describes those bytes correctly.  The one mirage-profile shipped does not
 * parse (CTF version 0.1), lacks ops 12 and 13, most thread types and a
 * clock, and names some fields misleadingly (see
 * ../shared/reference/mirage-system.md, section 2.8).  Thread ids stay the
 * legacy signed values (-1 is "no thread"), and each event class keeps the
 * legacy op as its id.  ctf_dir.c writes the packets in order; each packet
 * keeps its 30-byte header, three fields patched (mprof__legacy_ctf_header).
 */
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "trace_internal.h"

/* Event classes by legacy op: name and payload fields, in byte order. */
static const struct legacy_event_class {
  const char *name;
  const char *fields;
} legacy_classes[] = {
    {"creates", "int64_t parent; int64_t child; thread_type_t thread_type;"},
    {"read", "int64_t reader; int64_t source;"},
    {"fulfills", "int64_t resolver; int64_t thread;"},
    {"fails", "int64_t resolver; int64_t thread; string reason;"},
    {"becomes", "int64_t old_thread; int64_t new_thread;"},
    {"label", "int64_t thread; string label;"},
    {"increase", "int64_t thread; int64_t amount; string counter;"},
    {"switch", "int64_t thread;"},
    {"gc", "uint64_t duration_ns;"},
    {"signal", "int64_t receiver; int64_t sender;"},
    {"try_read", "int64_t reader; int64_t source;"},
    {"counter", "int64_t thread; int64_t value; string counter;"},
    {"read_later", "int64_t reader; int64_t source;"},
    {"signal_only", "int64_t receiver; int64_t sender;"},
};

static const char legacy_types[] =
    "/* CTF 1.8 */\n"
    "/* A mirage-profile trace, converted by mprof ctf: see docs/FORMAT.md */\n"
    "\n" MPROF__TSDL_INTEGERS "\n";

/* The clock is the legacy timestamper's: ns of a monotonic clock whose
 * origin no trace records, hence not absolute. */
static const char legacy_trace_format[] =
    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n"
    "\tbyte_order = le;\n"
    "\tpacket.header := struct {\n\t\tuint32_t magic;\n"
    "\t\tuint8_t uuid[16];\n\t};\n};\n\n"
    "env {\n\tdomain = \"mirage-profile\";\n"
    "\ttracer_name = \"mirage-profile\";\n};\n\n"
    "clock {\n\tname = \"mirage_profile\";\n\tuuid = \"%s\";\n"
    "\tdescription = \"mirage-profile timestamps: ns of a monotonic "
    "clock\";\n"
    "\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = 0;\n"
    "\toffset = 0;\n\tabsolute = false;\n};\n\n"
    "typealias integer { size = 64; align = 8; signed = false; "
    "map = clock.mirage_profile.value; } := uint64_clock_t;\n\n";

static const char legacy_stream[] = "stream {\n"
                                    "\tpacket.context := struct {\n"
                                    "\t\tuint32_t packet_size;\n"
                                    "\t\tuint16_t packet_seq_num;\n"
                                    "\t\tuint32_t content_size;\n"
                                    "\t};\n"
                                    "\tevent.header := struct {\n"
                                    "\t\tuint64_clock_t timestamp;\n"
                                    "\t\tuint8_t id;\n"
                                    "\t};\n};\n\n";

int mprof__legacy_ctf_metadata(const mprof_trace_t *t, FILE *f) {
  char uuid[37];
  int n = 0;
  for (int i = 0; i < 16; i++)
    n += snprintf(uuid + n, sizeof uuid - (size_t)n, "%s%02x",
                  i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
                  t->info.uuid[i]);
  fputs(legacy_types, f);
  fprintf(f, legacy_trace_format, uuid, uuid);
  fputs("typealias enum : uint8_t {\n", f);
#define MPROF__TYPE_TSDL(name, value, text)                                    \
  fprintf(f, "\t\"%s\" = %d,\n", text, value);
  MPROF_THREAD_TYPES(MPROF__TYPE_TSDL)
#undef MPROF__TYPE_TSDL
  fputs("} := thread_type_t;\n\n", f);
  fputs(legacy_stream, f);
  for (size_t op = 0; op < sizeof legacy_classes / sizeof *legacy_classes; op++)
    fprintf(f,
            "event {\n\tname = \"%s\";\n\tid = %zu;\n"
            "\tfields := struct { %s };\n};\n\n",
            legacy_classes[op].name, op, legacy_classes[op].fields);
  return ferror(f) ? -1 : 0;
}

/* The packet as written is dense and ends at its last good event, so
 * packet_size = content_size = its good bytes.  The 16-bit counter becomes
 * the packet's place counted from the oldest (the reader's seq_num):
 * babeltrace2 then reports a gap as lost packets and never sees the
 * counter wrap, which it would take for 2^64 - 65536 lost packets. */
uint64_t mprof__legacy_ctf_header(const mprof_trace_t *t, size_t index,
                                  uint8_t *header) {
  const mprof_packet_info_t *pk = &t->packets[index];
  uint64_t good_bytes;
  mprof__sink_t sink = {NULL, NULL, NULL, 0, 0, 0, 0, NULL};
  mprof__legacy_decode(t, index, &sink, &good_bytes);
  memcpy(header, t->data + pk->offset, MPROF__LEGACY_HEADER_SIZE);
  mprof__put_u32(header + MPROF__LEGACY_PH_SIZE, (uint32_t)(good_bytes * 8));
  mprof__put_u16(header + MPROF__LEGACY_PH_COUNT,
                 (uint16_t)(pk->seq_num - t->packets[0].seq_num));
  mprof__put_u32(header + MPROF__LEGACY_PH_CONTENT, (uint32_t)(good_bytes * 8));
  return good_bytes;
}
