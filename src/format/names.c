/* names.c -- text for the public enums: error codes and thread types.
 * Shared by the recorder and the reader.  Freestanding. */
#include "mprof.h"

const char *mprof_strerror(int error) {
  switch (error) {
  case 0: return "success";
#define MPROF__ERROR_CASE(name, value, text)                                   \
  case value: return text;
    MPROF_ERRORS(MPROF__ERROR_CASE)
#undef MPROF__ERROR_CASE
  }
  return "unknown error";
}

const char *mprof_type_name(mprof_type_t type) {
  switch (type) {
#define MPROF__TYPE_CASE(name, value, text)                                    \
  case MPROF_##name: return text;
    MPROF_THREAD_TYPES(MPROF__TYPE_CASE)
#undef MPROF__TYPE_CASE
  }
  return "unknown";
}
