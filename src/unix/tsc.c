/* tsc.c -- the TSC's frequency, declared by the CPU or measured; see
 * tsc.h. */
#define _GNU_SOURCE
#include "tsc.h"

#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>

/* Usable as a clock only if it ticks at one rate and does not stop in deep
 * sleep states (Linux's constant_tsc and nonstop_tsc come from this bit). */
static int tsc_is_invariant(void) {
  unsigned a, b, c, d;
  if ((unsigned)__get_cpuid_max(0x80000000, 0) < 0x80000007u) return 0;
  __cpuid(0x80000007, a, b, c, d);
  return (d >> 8) & 1;
}

/* CPUID leaf 0x15: the crystal's Hz (ecx) times the TSC's ratio to it
 * (ebx / eax); 0 where the crystal's frequency is not given. */
static uint64_t tsc_hz_from_crystal(void) {
  unsigned a, b, c, d;
  if ((unsigned)__get_cpuid_max(0, 0) < 0x15u) return 0;
  __cpuid(0x15, a, b, c, d);
  return a && b && c ? (uint64_t)c * b / a : 0;
}

/* The hypervisor's leaf 0x40000010 (VMware's, also KVM's on request): the
 * TSC's kHz in eax, where the hypervisor's highest leaf reaches it. */
static uint64_t tsc_hz_from_hypervisor(void) {
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  if (!(c & (1u << 31))) return 0; /* no hypervisor */
  __cpuid(0x40000000, a, b, c, d);
  if (a < 0x40000010) return 0;
  __cpuid(0x40000010, a, b, c, d);
  return (uint64_t)a * 1000;
}

int mprof__tsc_hz_declared(uint64_t *hz) {
  *hz = 0;
  if (!tsc_is_invariant()) return 1;
  *hz = tsc_hz_from_crystal();
  if (!*hz) *hz = tsc_hz_from_hypervisor();
  return *hz != 0;
}

/* CLOCK_MONOTONIC_RAW and the TSC at one moment: the TSC is read on both
 * sides of the clock, and of a few tries the one whose two reads are
 * closest is kept (its TSC the middle), so that a preemption between the
 * two clocks' reads cannot skew the measurement. */
typedef struct clock_pair_s {
  int64_t ns;
  uint64_t tsc;
} clock_pair_t;

static clock_pair_t read_clock_pair(void) {
  clock_pair_t best = {0, 0};
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 8; i++) {
    struct timespec ts;
    uint64_t before = __builtin_ia32_rdtsc();
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    uint64_t after = __builtin_ia32_rdtsc();
    if (after - before < best_gap) {
      best_gap = after - before;
      best.ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
      best.tsc = before + (after - before) / 2;
    }
  }
  return best;
}

uint64_t mprof__tsc_hz_measure(void) {
  struct timespec pause = {0, 10 * 1000 * 1000};
  clock_pair_t a = read_clock_pair();
  nanosleep(&pause, NULL);
  clock_pair_t b = read_clock_pair();
  int64_t ns = b.ns - a.ns;
  if (ns <= 0) return 0;
  return (uint64_t)((__uint128_t)(b.tsc - a.tsc) * 1000000000u / (uint64_t)ns);
}

#else

int mprof__tsc_hz_declared(uint64_t *hz) {
  *hz = 0;
  return 1;
}

uint64_t mprof__tsc_hz_measure(void) { return 0; }

#endif

uint64_t mprof__tsc_hz(void) {
  uint64_t hz;
  return mprof__tsc_hz_declared(&hz) ? hz : mprof__tsc_hz_measure();
}
