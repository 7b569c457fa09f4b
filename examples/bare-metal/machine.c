/* machine.c -- port I/O on a PC: the serial port, the PIT that measures
 * the TSC's frequency, the CMOS clock that gives the wall-clock time of
 * boot, and the thread-local block of the boot CPU. */
#include <stddef.h>

#include "format.h"
#include "machine.h"

#define COM1 0x3F8
#define PIT_HZ 1193182u
#define PIT_CHANNEL2 0x42
#define PIT_COMMAND 0x43
#define PORT_B 0x61 /* bit 0: PIT channel 2 gate, bit 5: its output */
#define CALIBRATION_MS 10u
#define CALIBRATION_RUNS 8
#define CMOS_INDEX 0x70
#define CMOS_DATA 0x71
#define MSR_FS_BASE 0xC0000100u
#define TLS_PROBE 0x6d70726f66746c73ull

static inline void outb(uint16_t port, uint8_t value) {
  __asm__ volatile("outb %0, %1" : : "a"(value), "Nd"(port));
}

static inline uint8_t inb(uint16_t port) {
  uint8_t value;
  __asm__ volatile("inb %1, %0" : "=a"(value) : "Nd"(port));
  return value;
}

void serial_init(void) {
  outb(COM1 + 1, 0x00); /* no interrupts */
  outb(COM1 + 3, 0x80); /* divisor follows */
  outb(COM1 + 0, 0x01); /* 115200 baud */
  outb(COM1 + 1, 0x00);
  outb(COM1 + 3, 0x03); /* 8 bits, no parity, one stop bit */
  outb(COM1 + 2, 0xC7); /* FIFO on, cleared */
}

static void serial_put(char c) {
  while (!(inb(COM1 + 5) & 0x20)) /* until the transmitter is free */
    ;
  outb(COM1, (uint8_t)c);
}

void serial_write(const char *text) {
  for (; *text; text++) serial_put(*text);
}

void serial_write_u64(uint64_t v) {
  char digits[20];
  size_t n = mprof__put_decimal(digits, v); /* the core's own, in format.h */
  for (size_t i = 0; i < n; i++) serial_put(digits[i]);
}

/* TSC ticks over one one-shot of PIT channel 2. */
static uint64_t tsc_ticks_over_pit(uint32_t count) {
  outb(PORT_B,
       (uint8_t)((inb(PORT_B) & ~0x02) | 0x01)); /* gate on, speaker off */
  outb(PIT_COMMAND, 0xB0); /* channel 2, low then high byte, one-shot */
  outb(PIT_CHANNEL2, (uint8_t)count);
  outb(PIT_CHANNEL2, (uint8_t)(count >> 8));
  uint64_t start = tsc_now();
  while (!(inb(PORT_B) & 0x20)) /* the one-shot's output goes high */
    ;
  return tsc_now() - start;
}

/* The fewest of several: a CPU held up during a one-shot (an emulator's
 * thread descheduled on a busy host) only makes it look longer. */
uint64_t tsc_measure_hz(void) {
  uint64_t fewest = UINT64_MAX;
  for (int i = 0; i < CALIBRATION_RUNS; i++) {
    uint64_t ticks = tsc_ticks_over_pit(PIT_HZ * CALIBRATION_MS / 1000);
    if (ticks < fewest) fewest = ticks;
  }
  return fewest * 1000 / CALIBRATION_MS;
}

static uint8_t cmos_read(uint8_t index) {
  outb(CMOS_INDEX, index);
  return inb(CMOS_DATA);
}

/* Days from 1970-01-01 to year-month-day (proleptic Gregorian). */
static int64_t days_from_civil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  int64_t era = (year >= 0 ? year : year - 399) / 400;
  unsigned year_of_era = (unsigned)(year - era * 400);
  unsigned day_of_year =
      (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  unsigned day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + (int64_t)day_of_era - 719468;
}

uint64_t rtc_unix_seconds(void) {
  while (cmos_read(0x0A) & 0x80) /* an update is in progress */
    ;
  uint8_t raw[7] = {cmos_read(0x00), cmos_read(0x02), cmos_read(0x04),
                    cmos_read(0x07), cmos_read(0x08), cmos_read(0x09),
                    cmos_read(0x32)};
  unsigned v[7];
  int binary = cmos_read(0x0B) & 0x04;
  for (int i = 0; i < 7; i++)
    v[i] = binary ? raw[i] : (unsigned)(raw[i] >> 4) * 10 + (raw[i] & 0x0F);
  int64_t year = (int64_t)v[6] * 100 + v[5];
  int64_t days = days_from_civil(year, v[4], v[3]);
  return (uint64_t)(days * 86400 + v[2] * 3600 + v[1] * 60 + v[0]);
}

/* The x86-64 layout (the ELF TLS ABI's variant II): the block ends where
 * the thread pointer (%fs) points, and the word there points to itself. */
extern const uint8_t __tls_start[], __tdata_end[], __tls_end[];
static uint8_t tls_block[16384] __attribute__((aligned(64)));
static _Thread_local volatile uint64_t tls_probe = TLS_PROBE;

int tls_setup(void) {
  size_t size = (size_t)(__tls_end - __tls_start);
  size_t image = (size_t)(__tdata_end - __tls_start);
  if (size + 8 > sizeof tls_block) return -1;
  for (size_t i = 0; i < image; i++) tls_block[i] = __tls_start[i];
  uint64_t pointer = (uint64_t)(uintptr_t)(tls_block + size);
  *(uint64_t *)(tls_block + size) = pointer;
  __asm__ volatile("wrmsr"
                   :
                   : "c"(MSR_FS_BASE), "a"((uint32_t)pointer),
                     "d"((uint32_t)(pointer >> 32))
                   : "memory");
  return tls_probe == TLS_PROBE ? 0 : -1;
}

int cmdline_has(const multiboot_info_t *info, const char *word) {
  if (!(info->flags & (1u << 2))) return 0;
  const char *line = (const char *)(uintptr_t)info->cmdline;
  while (*line) {
    while (*line == ' ') line++;
    size_t i = 0;
    while (word[i] && line[i] == word[i]) i++;
    if (!word[i] && (line[i] == ' ' || !line[i])) return 1;
    while (*line && *line != ' ') line++;
  }
  return 0;
}

void halt_with(const char *why) {
  serial_write(why);
  for (;;) __asm__ volatile("cli; hlt");
}
