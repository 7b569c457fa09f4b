/* metadata.c -- the event classes of the mprof format and the CTF 1.8
 * metadata (TSDL) that describes them to babeltrace2 and other CTF tools.
 * The recorder writes this text into every trace, so a trace describes
 * itself.  Freestanding: formats numbers by hand, no libc.
 */
#include "format.h"

#include "mprof.h"

#define THREAD(name)                                                           \
  { MPROF__F_THREAD, name }
#define STRING(name)                                                           \
  { MPROF__F_STRING, name }
#define COUNTER(name)                                                          \
  { MPROF__F_COUNTER, name }
#define VALUE(name)                                                            \
  { MPROF__F_VALUE, name }
#define NAME(name)                                                             \
  { MPROF__F_NAME, name }
#define HASH(name)                                                             \
  { MPROF__F_HASH, name }

const mprof__event_class_t mprof__event_classes[MPROF__EV_COUNT] = {
    [MPROF__EV_SWITCH] = {"switch", 1, {THREAD("thread")}},
    [MPROF__EV_CREATE] = {"create",
                          2,
                          {THREAD("child"), {MPROF__F_TYPE, "thread_type"}}},
    [MPROF__EV_CREATE_BY] = {"create_by",
                             3,
                             {THREAD("parent"),
                              THREAD("child"),
                              {MPROF__F_TYPE, "thread_type"}}},
    [MPROF__EV_READ] = {"read", 1, {THREAD("source")}},
    [MPROF__EV_TRY_READ] = {"try_read", 1, {THREAD("source")}},
    [MPROF__EV_RESOLVE] = {"resolve", 1, {THREAD("thread")}},
    [MPROF__EV_FAIL] = {"fail", 2, {THREAD("thread"), STRING("reason")}},
    [MPROF__EV_BECOMES] = {"becomes",
                           2,
                           {THREAD("old_thread"), THREAD("new_thread")}},
    [MPROF__EV_LABEL] = {"label", 2, {THREAD("thread"), STRING("label")}},
    [MPROF__EV_SIGNAL] = {"signal", 1, {THREAD("target")}},
    [MPROF__EV_SUSPEND] = {"suspend", 0, {{0, 0}}},
    [MPROF__EV_SHOULD_RESOLVE] = {"should_resolve", 1, {THREAD("thread")}},
    [MPROF__EV_COUNTER_NAME] = {"counter_name",
                                2,
                                {COUNTER("counter"), STRING("name")}},
    [MPROF__EV_COUNTER_INCREASE] = {"counter_increase",
                                    2,
                                    {COUNTER("counter"), VALUE("amount")}},
    [MPROF__EV_COUNTER_VALUE] = {"counter_value",
                                 2,
                                 {COUNTER("counter"), VALUE("value")}},
    [MPROF__EV_STRING] = {"string", 2, {NAME("string_id"), STRING("text")}},
    [MPROF__EV_LABEL_REF] = {"label_ref",
                             2,
                             {THREAD("thread"), NAME("string_id")}},
    [MPROF__EV_NET_LABEL] = {"net_label",
                             5,
                             {THREAD("thread"), NAME("string_id"),
                              COUNTER("counter"), VALUE("offset"),
                              VALUE("length")}},
    [MPROF__EV_NET_HASH_LABEL] = {"net_hash_label",
                                  5,
                                  {THREAD("thread"), NAME("string_id"),
                                   COUNTER("counter"), HASH("hash"),
                                   VALUE("length")}},
};

/* A bounded text writer: once full it stays full, and the caller sees it. */
typedef struct text_s {
  char *out;
  size_t capacity;
  size_t length;
  int overflow;
} text_t;

/* With out == NULL the writer only measures. */
static void put(text_t *t, const char *s) {
  for (; *s; s++) {
    if (t->length + 1 >= t->capacity) {
      t->overflow = 1;
      return;
    }
    if (t->out) t->out[t->length] = *s;
    t->length++;
  }
}

static void put_u64(text_t *t, uint64_t v) {
  char s[21];
  s[mprof__put_decimal(s, v)] = 0;
  put(t, s);
}

static void put_i64(text_t *t, int64_t v) {
  if (v < 0) {
    put(t, "-");
    put_u64(t, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(t, (uint64_t)v);
  }
}

static void put_uuid(text_t *t, const uint8_t *uuid) {
  static const char hex[] = "0123456789abcdef";
  char s[37];
  int n = 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s[n++] = '-';
    s[n++] = hex[uuid[i] >> 4];
    s[n++] = hex[uuid[i] & 15];
  }
  s[n] = 0;
  put(t, s);
}

/* A TSDL string literal: only printable ASCII, other bytes become '_'. */
static void put_quoted(text_t *t, const char *s) {
  put(t, "\"");
  for (int i = 0; s[i] && i < 64; i++) {
    char c[2] = {s[i], 0};
    if (c[0] < 0x20 || c[0] > 0x7e || c[0] == '"' || c[0] == '\\') c[0] = '_';
    put(t, c);
  }
  put(t, "\"");
}

static void put_header(text_t *t, const mprof__metadata_params_t *p) {
  put(t, "/* CTF 1.8 */\n"
         "/* mprof trace: see docs/FORMAT.md */\n\n" MPROF__TSDL_INTEGERS "\n"
         "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
  put_uuid(t, p->uuid);
  put(t, "\";\n\tbyte_order = le;\n"
         "\tpacket.header := struct {\n"
         "\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
         "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n"
         "\t};\n};\n\n"
         "env {\n\tdomain = \"mprof\";\n\ttracer_name = \"mprof\";\n"
         "\ttracer_major = 0;\n\ttracer_minor = 1;\n\tprocname = ");
  put_quoted(t, p->name ? p->name : "");
  put(t, ";\n};\n\nclock {\n\tname = \"mprof\";\n\tuuid = \"");
  put_uuid(t, p->uuid);
  put(t, "\";\n\tdescription = \"mprof monotonic clock\";\n\tfreq = ");
  put_u64(t, p->clock_freq_hz);
  /* offset_s + offset/freq = wall-clock time of tick 0, split so that
   * offset stays in [0, freq) as CTF tools expect. */
  int64_t seconds = p->clock_offset_ns / 1000000000;
  int64_t rest_ns = p->clock_offset_ns % 1000000000;
  if (rest_ns < 0) {
    rest_ns += 1000000000;
    seconds -= 1;
  }
  uint64_t freq = p->clock_freq_hz;
  uint64_t rest_ticks = (uint64_t)rest_ns * (freq / 1000000000u) +
                        (uint64_t)rest_ns * (freq % 1000000000u) / 1000000000u;
  put(t, ";\n\tprecision = 1;\n\toffset_s = ");
  put_i64(t, seconds);
  put(t, ";\n\toffset = ");
  put_u64(t, rest_ticks);
  put(t, ";\n\tabsolute = true;\n};\n\n"
         "typealias integer { size = 27; align = 1; signed = false; "
         "map = clock.mprof.value; } := uint27_clock_t;\n"
         "typealias integer { size = 64; align = 8; signed = false; "
         "map = clock.mprof.value; } := uint64_clock_t;\n\n");
}

static void put_types(text_t *t) {
  put(t, "struct packet_context {\n"
         "\tuint64_clock_t timestamp_begin;\n\tuint64_clock_t timestamp_end;\n"
         "\tuint64_t content_size;\n\tuint64_t packet_size;\n"
         "\tuint64_t packet_seq_num;\n\tuint64_t events_discarded;\n"
         "\tuint64_t current_thread;\n\tuint32_t os_thread_id;\n};\n\n"
         "struct event_header {\n"
         "\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
         "\tvariant <id> {\n"
         "\t\tstruct { uint27_clock_t timestamp; } compact;\n"
         "\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
         "\t} v;\n} align(8);\n\n"
         "typealias enum : uint8_t {\n");
#define MPROF__TYPE_TSDL(name, value, text)                                    \
  put(t, "\t\"" text "\" = ");                                                 \
  put_u64(t, value);                                                           \
  put(t, ",\n");
  MPROF_THREAD_TYPES(MPROF__TYPE_TSDL)
#undef MPROF__TYPE_TSDL
  put(t, "} := thread_type_t;\n\n");
  for (int stream = 0; stream < 2; stream++) {
    put(t, "stream {\n\tid = ");
    put_u64(t, (uint64_t)stream);
    put(t, ";\n\tevent.header := struct event_header;\n"
           "\tpacket.context := struct packet_context;\n};\n\n");
  }
}

static void put_field(text_t *t, const mprof__field_t *f, int wide) {
  static const char *const types[2][7] = {
      {"uint32_t", "thread_type_t", "string", "uint16_t", "int32_t", "uint16_t",
       "uint64_t"},
      {"uint64_t", "thread_type_t", "string", "uint16_t", "int64_t", "uint16_t",
       "uint64_t"}};
  put(t, "\t\t");
  put(t, types[wide][f->kind]);
  put(t, " ");
  put(t, f->name);
  put(t, ";\n");
}

static void put_event(text_t *t, int stream, int id, int wide) {
  const mprof__event_class_t *ec = &mprof__event_classes[id];
  put(t, "event {\n\tname = \"");
  put(t, ec->name);
  put(t, "\";\n\tid = ");
  put_u64(t, (uint64_t)(id + (wide ? MPROF__WIDE : 0)));
  put(t, ";\n\tstream_id = ");
  put_u64(t, (uint64_t)stream);
  put(t, ";\n\tfields := struct {\n");
  for (int i = 0; i < ec->field_count; i++) put_field(t, &ec->fields[i], wide);
  put(t, "\t};\n};\n\n");
}

/* Events whose fields have a 64-bit form get a second, "wide" class. */
static int has_wide_form(const mprof__event_class_t *ec) {
  for (int i = 0; i < ec->field_count; i++)
    if (ec->fields[i].kind == MPROF__F_THREAD ||
        ec->fields[i].kind == MPROF__F_VALUE)
      return 1;
  return 0;
}

size_t mprof__metadata_write(char *out, size_t capacity,
                             const mprof__metadata_params_t *params) {
  text_t t = {out, capacity, 0, 0};
  if (capacity == 0) return 0;
  put_header(&t, params);
  put_types(&t);
  for (int stream = 0; stream < 2; stream++) {
    for (int id = 0; id < MPROF__EV_COUNT; id++) {
      put_event(&t, stream, id, 0);
      if (has_wide_form(&mprof__event_classes[id]))
        put_event(&t, stream, id, 1);
    }
  }
  if (out) out[t.length] = 0;
  return t.overflow ? 0 : t.length;
}
