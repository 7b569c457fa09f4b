/* machine.h -- the little of a PC the kernel uses: the serial port, the
 * TSC and the PIT that calibrates it, the CMOS clock, thread-local storage
 * for the recorder, and the multiboot command line. */
#ifndef BARE_METAL_MACHINE_H
#define BARE_METAL_MACHINE_H

#include <stdint.h>

/* What the multiboot loader hands over (the fields the kernel reads). */
typedef struct multiboot_info_s {
  uint32_t flags;
  uint32_t mem_lower, mem_upper;
  uint32_t boot_device;
  uint32_t cmdline; /* physical address of the command line, if flags bit 2 */
} multiboot_info_t;

static inline uint64_t tsc_now(void) { return __builtin_ia32_rdtsc(); }

/* Set the first serial port to 115200 baud, 8N1, no interrupts. */
void serial_init(void);

/* Write text (NUL-terminated) on the first serial port. */
void serial_write(const char *text);

/* Write v in decimal on the serial port. */
void serial_write_u64(uint64_t v);

/* TSC ticks per second, counted over 10 ms one-shots of PIT channel 2. */
uint64_t tsc_measure_hz(void);

/* Seconds since the Unix epoch, from the CMOS real-time clock (UTC). */
uint64_t rtc_unix_seconds(void);

/* Give the boot CPU its thread-local block (the recorder's per-OS-thread
 * state): 0, or -1 if the block does not fit or reads back wrong. */
int tls_setup(void);

/* Whether the kernel's command line holds word (between spaces). */
int cmdline_has(const multiboot_info_t *info, const char *word);

/* Say why on the serial port, then stop the CPU for good. */
__attribute__((noreturn)) void halt_with(const char *why);

#endif
