/* uv_probe.c -- read a program's ELF headers and symbol tables to tell
 * whether the LD_PRELOAD shim can see its libuv calls (uv_probe.h).  The
 * file is untrusted: every offset and size is checked against the file
 * before it is read, and anything odd makes the answer "unknown". */
#define _GNU_SOURCE
#include "uv_probe.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest symbol or string table read whole. */
#define MAX_TABLE_BYTES (256u << 20)

typedef struct elf_file_s {
  int fd;
  uint64_t size;
  Elf64_Ehdr header;
} elf_file_t;

/* count items of size bytes at offset, all inside the file. */
static int within(const elf_file_t *elf, uint64_t offset, uint64_t count,
                  uint64_t size) {
  return size && count <= elf->size / size && offset <= elf->size &&
         count * size <= elf->size - offset;
}

static int read_at(const elf_file_t *elf, void *buf, size_t bytes,
                   uint64_t offset) {
  return pread(elf->fd, buf, bytes, (off_t)offset) == (ssize_t)bytes;
}

/* A whole section, malloc()ed; NULL if it does not fit the file or limit. */
static void *section_read(const elf_file_t *elf, const Elf64_Shdr *section) {
  if (section->sh_size > MAX_TABLE_BYTES ||
      !within(elf, section->sh_offset, section->sh_size, 1))
    return NULL;
  void *data = malloc(section->sh_size ? section->sh_size : 1);
  if (data && !read_at(elf, data, section->sh_size, section->sh_offset)) {
    free(data);
    data = NULL;
  }
  return data;
}

static int section_header(const elf_file_t *elf, uint32_t index,
                          Elf64_Shdr *section) {
  return index < elf->header.e_shnum &&
         read_at(elf, section, sizeof *section,
                 elf->header.e_shoff + (uint64_t)index * sizeof *section);
}

/* Whether the symbol table section defines a symbol called name. */
static int table_defines(const elf_file_t *elf, const Elf64_Shdr *table,
                         const char *name) {
  Elf64_Shdr strings;
  if (table->sh_entsize != sizeof(Elf64_Sym) ||
      !section_header(elf, table->sh_link, &strings))
    return 0;
  Elf64_Sym *symbols = section_read(elf, table);
  char *text = section_read(elf, &strings);
  size_t length = strlen(name), found = 0;
  size_t count = symbols ? table->sh_size / sizeof *symbols : 0;
  for (size_t i = 0; text && i < count && !found; i++) {
    uint64_t at = symbols[i].st_name;
    found = symbols[i].st_shndx != SHN_UNDEF && at < strings.sh_size &&
            strings.sh_size - at > length &&
            !memcmp(text + at, name, length + 1);
  }
  free(symbols);
  free(text);
  return found != 0;
}

/* Whether any symbol table of the file (.symtab, .dynsym) defines name. */
static int elf_defines(const elf_file_t *elf, const char *name) {
  const Elf64_Ehdr *h = &elf->header;
  if (h->e_shentsize != sizeof(Elf64_Shdr) ||
      !within(elf, h->e_shoff, h->e_shnum, sizeof(Elf64_Shdr)))
    return 0;
  for (uint32_t i = 0; i < h->e_shnum; i++) {
    Elf64_Shdr section;
    if (!section_header(elf, i, &section)) return 0;
    if ((section.sh_type == SHT_SYMTAB || section.sh_type == SHT_DYNSYM) &&
        table_defines(elf, &section, name))
      return 1;
  }
  return 0;
}

/* Whether the program headers name an interpreter (the dynamic loader);
 * -1 if they cannot be read. */
static int elf_has_interpreter(const elf_file_t *elf) {
  const Elf64_Ehdr *h = &elf->header;
  if (h->e_phentsize != sizeof(Elf64_Phdr) ||
      !within(elf, h->e_phoff, h->e_phnum, sizeof(Elf64_Phdr)))
    return -1;
  for (uint32_t i = 0; i < h->e_phnum; i++) {
    Elf64_Phdr ph;
    if (!read_at(elf, &ph, sizeof ph, h->e_phoff + (uint64_t)i * sizeof ph))
      return -1;
    if (ph.p_type == PT_INTERP) return 1;
  }
  return 0;
}

static int elf_header_ok(const Elf64_Ehdr *h) {
  return !memcmp(h->e_ident, ELFMAG, SELFMAG) &&
         h->e_ident[EI_CLASS] == ELFCLASS64 &&
         h->e_ident[EI_DATA] == ELFDATA2LSB &&
         (h->e_type == ET_EXEC || h->e_type == ET_DYN);
}

mprof_uv_probe_t mprof_uv_probe_file(const char *path) {
  elf_file_t elf = {.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  struct stat st;
  mprof_uv_probe_t result = MPROF_UV_PROBE_UNKNOWN;
  if (elf.fd < 0) return result;
  if (fstat(elf.fd, &st) == 0 && S_ISREG(st.st_mode)) {
    elf.size = (uint64_t)st.st_size;
    if (read_at(&elf, &elf.header, sizeof elf.header, 0) &&
        elf_header_ok(&elf.header)) {
      int interpreter = elf_has_interpreter(&elf);
      if (interpreter == 0)
        result = MPROF_UV_PROBE_STATIC;
      else if (interpreter == 1)
        result = elf_defines(&elf, "uv_run") ? MPROF_UV_PROBE_LIBUV_INSIDE
                                             : MPROF_UV_PROBE_DYNAMIC;
    }
  }
  close(elf.fd);
  return result;
}

mprof_uv_probe_t mprof_uv_probe_program(const char *name) {
  if (strchr(name, '/')) return mprof_uv_probe_file(name);
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    size_t length = strcspn(path, ":");
    char candidate[PATH_MAX];
    int n = length ? snprintf(candidate, sizeof candidate, "%.*s/%s",
                              (int)length, path, name)
                   : snprintf(candidate, sizeof candidate, "./%s", name);
    if (n > 0 && (size_t)n < sizeof candidate && access(candidate, X_OK) == 0)
      return mprof_uv_probe_file(candidate);
    path += length + (path[length] == ':');
  }
  return MPROF_UV_PROBE_UNKNOWN;
}
