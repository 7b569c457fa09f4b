#!/bin/sh
# bench/run.sh BUILD_DIR -- run the recorder benchmarks built in BUILD_DIR
# (configured with -DMPROF_BUILD_BENCH=ON) and print their results.
#
# stdout: only JSON lines, one object per result:
#   {"bench":..,"metric":..,"value":..,"baseline":..,"baseline_value":..,
#    "ratio":..}
# ratio = value / baseline_value, both measured in the same process and run,
# by turns in short chunks; values are medians of rounds (15 by default).
# value is always mprof's figure (or the idle loop's), baseline the
# reference it is held against.
# Human notes (each round's figures) go to stderr.
#
#   bench          metric           baseline        target
#   idle           ns_per_iter      idle_best       ~1: above 1.1, noisy run
#   record         ns_per_event     rdtsc_store     ratio <= 1.1
#   record_off     ns_per_call      empty_call      (information)
#   threads        events_per_s_nN  Nx_one_thread   ratio >= 0.9 (N <= CPUs)
#   threads_floor  events_per_s_nN  Nx_one_thread   the machine's own scaling
#   barectf        ns_per_event     barectf         ratio <= 1
#   bytes          bytes_per_event  mirage_profile  ratio <= 0.4 (net.ctf's
#                                                   events recorded again)
#   lttng_off      ns_per_call      lttng_ust_off   ratio <= 1
#   decode_model   events_per_s     babeltrace2_dummy  ratio >= 10, value
#                                                   >= 5e7 (one core)
#   decode         events_per_s     babeltrace2_dummy  (the reader alone)
#   decode_model   events_per_s     decode_only     (the model's share)
#   analysis       cpu_seconds      load_cpu_seconds  ratio <= 1.5 (the
#                                                   report's analysis of the
#                                                   10 M-event trace against
#                                                   its load, CPU time)
#   model_memory   bytes_per_event  trace_bytes_per_event  (information: the
#                                                   model's heap against the
#                                                   trace file)
#   model_memory   bytes_per_event  written_out_records  (information: the
#                                                   compact records against
#                                                   the written-out structs)
#   lttng          ns_per_event     lttng_ust       ratio <= 0.167 (mprof at
#                                                   least 6x faster; the
#                                                   speedup is 1 / ratio)
#   web_net_load   ms_to_first_frame   empty_page_first_paint  (information)
#   web_net_load   ms_more_than_empty_page  budget_100ms  ratio <= 1: shown
#                                                   "instantly"
#   web_big_first_frame ms_to_first_frame budget_1500ms ratio <= 1 (10 M
#                                                   events; first frame: the
#                                                   preview of the file's start)
#   web_big_complete ms_to_complete_view single_pass_no_preview (information)
#   web_big_html_first_frame ms_to_first_frame budget_1500ms ratio <= 1 (the
#                                                   same trace in mprof html's
#                                                   slices, from file://)
#   web_big_html_complete ms_to_complete_view file_picker_complete_view
#                                                   (information)
#   web_pan, web_zoom, web_fit  frame_ms_median/p95  budget_16ms  ratio <= 1
#   web_memory     page_bytes_per_file_byte  budget_3x_file  ratio <= 1
#   web_index_first_frame ms_to_first_frame budget_2000ms ratio <= 1 (a
#                                                   100 M-event trace, ~2 GB,
#                                                   picked with its .mpidx:
#                                                   drawn from the index)
#   web_index_window ms_to_window_model budget_2000ms ratio <= 1 (a
#                                                   thousandth of it modelled)
#   web_index_memory page_gib_first_frame, _window, _index_built
#                                     budget_1.5GiB  ratio <= 1
#   web_index_built_first_frame ms_to_first_frame with_its_index
#                                                   (information: the index
#                                                   built in the page)
#                  (baselines are fixed budgets, but for the two
#                  measured in the same run: an empty page, a one-pass load)
#   view_fit, view_pan, view_zoom
#                  frame_ms,        frame_budget_16ms  ratio <= 1 (mprof view
#                  frame_cpu_ms                     drawing a frame of the
#                                                   10 M-event trace; wall
#                                                   and CPU time)
#   gtk_big_first_frame, _100M, _1B  first_frame_ms
#                  first_frame_budget_1000ms  ratio <= 1 (the window of a
#                                    trace too big to model: opened with
#                                    its index and pyramid built, the whole
#                                    drawn)
#   gtk_big_frame, _100M, _1B  frame_ms  frame_budget_16ms  ratio <= 1 (its
#                                    pan and zoom frames, from the pyramid)
#   stats_10M, stats_100M  peak_rss_bytes  budget_512MiB  ratio <= 1
#                  events_per_s     model_load      (mprof stats's one pass;
#                                                   100M: held against the
#                                                   10M trace's load)
#   report_10M, report_100M, report_1B  peak_rss_bytes  budget_512MiB
#                                    ratio <= 1
#                  events_per_s     model_report    value >= 3e7 (mprof
#                                                   report in one pass;
#                                                   100M, 1B: held against
#                                                   the 10M trace's load and
#                                                   analysis)
#   view_png_10M, view_png_100M, view_png_1B  peak_rss_bytes  budget_1GiB
#                                    ratio <= 1 (mprof view --png of the
#                                    whole trace)
#                  events_per_s     model_load      (information)
#   index_10M, index_100M  events_per_s_per_core  model_load  value >= 5e7
#                  events_per_s_nN  Nx_one_thread   (the build on every core)
#   cli_start      ms_to_exit       plain_c_read    value <= 3 (mprof stats
#                                                   of net.ctf, spawn to
#                                                   exit; the ratio is
#                                                   information)
#   watch          core_fraction    one_core        value <= 0.05 (mprof
#                                                   watch following a trace
#                                                   of 1e6 events/s)
#   uv_echo        bytes_per_s      uv_echo_plain   ratio >= 0.97 (a libuv
#                                                   echo over loopback under
#                                                   the recording shim, after
#                                                   a warm-up that wraps the
#                                                   ring)
#   uv_echo_first_touch bytes_per_s uv_echo_plain   (information: the same
#                                                   without the warm-up, every
#                                                   page of trace new)
#   dns_named      queries_per_s    named_plain     ratio >= 0.97 (bind9's
#                                                   named, one worker thread,
#                                                   answering a dnsperf flood
#                                                   over loopback, plain and
#                                                   under mprof record)
#   dns_named      cpu_ns_per_query named_plain     (information: the same
#                                                   floods' server CPU time
#                                                   per query; on 2 CPUs the
#                                                   flood is dnsperf-bound,
#                                                   named a third busy, and
#                                                   queries/s hides much of
#                                                   the server's cost)
#   record_start   ms_more_than_plain  budget_1ms   ratio <= 1 (a tiny libuv
#                                                   program's start under the
#                                                   shim minus plain, median
#                                                   of 100 runs each)
#   diagnosis      recall           zoo_faults      ratio 1: every fault of
#                                                   examples/zoo found
#                                                   (bench/diagnosis.sh)
#   diagnosis      false_findings   correct_programs  value 0: no error or
#                                                   warning the zoo does not
#                                                   expect
#
# The barectf and LTTng lines are skipped, with a note on stderr, when their
# benchmark was not built (barectf or lttng-ust not found at configure time)
# or LTTng's tools are missing at run time.  For LTTng, lttng-sessiond is
# started (--daemonize --no-kernel) if none is running, and stopped again at
# the end.
#
# The big traces' lines (stats_, report_, view_png_, index_, gtk_big_) are
# of trace_gen traces of 10 M, 100 M and 1 B events, written in the build
# directory (a disk, where TMPDIR may be a tmpfs: memory) and removed
# after: about 0.1, 1 and 9.3 GiB of disk (the 1 B one's file is 20 GB,
# the rest holes).  The 1 B-event lines (report_1B, view_png_1B,
# gtk_big_first_frame_1B, gtk_big_frame_1B) are of one round each but the
# window's, and add about 4 minutes on a 2-core machine to the big
# traces' 1.5: a minute to write the trace, half one for report, one for
# view --png, one or more for the window's pyramid.  They are skipped,
# with a note, when that file system has less than 14 GiB free, or
# with MPROF_BENCH_1B=0.
#
# Environment: MPROF_BENCH_ROUNDS (default 15), MPROF_BENCH_EVENTS (events
# per round, default 10000000), MPROF_BENCH_1B (default 1).
# Exit status: 0, or 1 if a benchmark failed (the others still run).
set -u

note() { printf 'bench: %s\n' "$*" >&2; }

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$1
bin=$build/bench
rounds=${MPROF_BENCH_ROUNDS:-15}
events=${MPROF_BENCH_EVENTS:-10000000}

if [ ! -x "$bin/mprof_bench_record" ]; then
  note "no $bin/mprof_bench_record: configure $build with" \
    "-DMPROF_BUILD_BENCH=ON and build it first"
  exit 1
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" \
  2>/dev/null)
case $build_type in
  Debug | debug | DEBUG)
    note "warning: $build is a Debug build: the library is not optimized," \
      "the figures mean little" ;;
esac

# Trace files and buffers go in memory when we can (as mprof users would
# put a trace they want cheap), else in TMPDIR.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  dir=$(mktemp -d /dev/shm/mprof-bench.XXXXXX)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/mprof-bench.XXXXXX")
fi
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  note "cannot make a temporary directory"
  exit 1
fi

sessiond_pid=
big= # the big traces' directory, while there is one
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
  if [ -n "$sessiond_pid" ]; then
    note "stopping the lttng-sessiond this script started ($sessiond_pid)"
    kill "$sessiond_pid" 2>/dev/null
  fi
  rm -rf "$dir" ${big:+"$big"}
}
trap cleanup EXIT
trap 'exit 130' INT TERM

status=0
run() {
  name=$1
  shift
  note "running $name"
  "$bin/$name" --rounds "$rounds" --events "$events" --dir "$dir" "$@"
  rc=$?
  if [ $rc -ne 0 ]; then
    note "$name failed (exit status $rc)"
    status=1
  fi
}

run mprof_bench_record
run mprof_bench_threads
run mprof_bench_decode
run mprof_bench_view

net_ctf="$(dirname "$0")/../test/data/net.ctf"
if [ -f "$net_ctf" ]; then
  note "running mprof_bench_bytes"
  "$bin/mprof_bench_bytes" "$net_ctf" || { note "mprof_bench_bytes failed"; status=1; }
else
  note "no $net_ctf: skipping the bytes-per-event benchmark"
fi

if [ -f "$net_ctf" ]; then
  note "running mprof_bench_cli_start"
  "$bin/mprof_bench_cli_start" --mprof "$build/mprof" --read "$bin/mprof_bench_cli_read" \
    --trace "$net_ctf" || { note "mprof_bench_cli_start failed"; status=1; }
fi

if [ -x "$bin/mprof_bench_watch" ]; then
  note "running mprof_bench_watch"
  "$bin/mprof_bench_watch" --mprof "$build/mprof" --dir "$dir" ||
    { note "mprof_bench_watch failed"; status=1; }
fi

# Whether directory $1's file system has $2 KiB free.
has_room() {
  free_kib=$(df -Pk "$1" 2>/dev/null | awk 'NR == 2 { print $4 }')
  [ -n "$free_kib" ] && [ "$free_kib" -ge "$2" ]
}

# The 1 B-event trace written into directory $1, as 1B.ctf, if there is
# room and it is wanted (else a note); true if it was.
write_1b() {
  if [ "${MPROF_BENCH_1B:-1}" = 0 ]; then
    note "MPROF_BENCH_1B=0: the 1 B-event lines skipped"
    return 1
  fi
  # Its ring's file of 20 GB has 9.3 GiB written; 4 GiB more stay free.
  if ! has_room "$1" $((14 << 20)); then
    note "$1: less than 14 GiB free (a 1 B-event trace writes 9.3 GiB):" \
      "the 1 B-event lines skipped"
    return 1
  fi
  note "writing a 1 B-event trace in $1"
  "$gen" "$1/1B.ctf" discard 20000000000 33333334 2 >/dev/null && return 0
  note "trace_gen could not write $1/1B.ctf: the 1 B-event lines skipped"
  rm -f "$1/1B.ctf" # its disk, for the smaller traces
  status=1
  return 1
}

# The window of a big trace, $1 (opened as too big to model).
bench_big_view() {
  note "running mprof_bench_view of $1"
  MPROF_VIEW_BUDGET_MIB=0 MPROF_BENCH_VIEW_TRACE="$1" \
    "$bin/mprof_bench_view" --rounds 5 ||
    { note "mprof_bench_view of $1 failed"; status=1; }
}

# mprof_bench_scale of the 10 M and 100 M-event traces it writes in
# directory $1, then of what follows $1 (--once TRACE, or nothing).
bench_scale() {
  scale_dir=$1 # not $dir: sh functions share the script's variables
  shift
  "$gen" "$scale_dir/10M.ctf" discard 200000000 333334 2 >/dev/null || return 1
  "$gen" "$scale_dir/100M.ctf" discard 2000000000 3333334 2 >/dev/null ||
    return 1
  "$bin/mprof_bench_scale" --mprof "$build/mprof" \
    --trace "$scale_dir/10M.ctf" --trace "$scale_dir/100M.ctf" "$@"
}

# Big traces: 10 M, 100 M and 1 B events (the header says what disk they
# take), made by trace_gen, removed after.  The 1 B one goes in the same
# mprof_bench_scale run as the 10 M one, whose load it is held against.
gen=$bin/mprof_bench_trace_gen
if [ -x "$bin/mprof_bench_scale" ] && [ -x "$gen" ]; then
  big=$(mktemp -d "$build/mprof-bench-scale.XXXXXX") ||
    { note "cannot make a directory in $build"; exit 1; }
  started=$(date +%s)
  once=
  if write_1b "$big"; then
    once=$big/1B.ctf
    note "the 1 B-event trace written in $(($(date +%s) - started)) s"
  fi
  note "running mprof_bench_scale"
  if [ -n "$once" ]; then bench_scale "$big" --once "$once"; else bench_scale "$big"; fi ||
    { note "mprof_bench_scale failed"; status=1; }
  bench_big_view "$big/100M.ctf"
  if [ -n "$once" ]; then
    bench_big_view "$once"
  fi
  rm -rf "$big"
  big=
  note "the big traces' lines took $(($(date +%s) - started)) s"
else
  note "no mprof_bench_scale or mprof_bench_trace_gen: the big-trace lines skipped"
fi

if [ -x "$bin/mprof_bench_barectf" ]; then
  run mprof_bench_barectf
else
  note "barectf benchmark not built (no barectf at configure time): skipped"
fi

# The pid file of the session daemon this user talks to.
sessiond_pidfile() {
  if [ "$(id -u)" -eq 0 ]; then
    echo /var/run/lttng/lttng-sessiond.pid
  else
    echo "${LTTNG_HOME:-$HOME}/.lttng/lttng-sessiond.pid"
  fi
}

if [ ! -x "$bin/mprof_bench_lttng" ]; then
  note "LTTng benchmark not built (no lttng-ust at configure time): skipped"
elif ! command -v lttng >/dev/null 2>&1 ||
  ! command -v lttng-sessiond >/dev/null 2>&1; then
  note "lttng or lttng-sessiond not found (lttng-tools): LTTng lines skipped"
else
  ready=1
  if ! lttng list >/dev/null 2>&1; then
    note "starting lttng-sessiond --daemonize --no-kernel"
    if lttng-sessiond --daemonize --no-kernel >&2 2>&1; then
      sessiond_pid=$(cat "$(sessiond_pidfile)" 2>/dev/null)
    else
      note "lttng-sessiond did not start: LTTng lines skipped"
      ready=0
    fi
  fi
  if [ $ready -eq 1 ]; then
    run mprof_bench_lttng
  fi
fi

# The browser viewer in Chromium: net.ctf's load, a big trace's first
# frame, pan/zoom frame times, page memory (bench/web/bench_web.sh).
if command -v node >/dev/null 2>&1 && [ -x /usr/bin/chromium ]; then
  note "running bench/web"
  "$(dirname "$0")/web/bench_web.sh" "$build" "$dir" || { note "bench/web failed"; status=1; }
else
  note "no node or /usr/bin/chromium: browser viewer benchmark skipped"
fi

# The libuv shim: a plain libuv echo with and without it (bench/uv).
if [ -x "$bin/mprof_bench_uv" ]; then
  note "running mprof_bench_uv"
  "$bin/mprof_bench_uv" --rounds "$rounds" --dir "$dir" \
    --echo "$bin/mprof_bench_uv_echo" \
    --shim "$build/src/uv/libmprof_uv_preload.so" ||
    { note "mprof_bench_uv failed"; status=1; }
else
  note "libuv benchmark not built (no libuv at configure time): skipped"
fi

# What recording adds to a process's start (bench/uv/bench_start.c).
if [ -x "$bin/mprof_bench_start" ]; then
  note "running mprof_bench_start"
  "$bin/mprof_bench_start" --runs 100 --dir "$dir" \
    --prog "$bin/mprof_bench_uv_tiny" \
    --shim "$build/src/uv/libmprof_uv_preload.so" ||
    { note "mprof_bench_start failed"; status=1; }
else
  note "start benchmark not built (no libuv at configure time): skipped"
fi

# The report's diagnosis of the zoo, against its ground truth.
if [ -x "$build/examples/zoo/zoo_ok_http" ]; then
  note "running bench/diagnosis.sh"
  "$(dirname "$0")/diagnosis.sh" "$build" || { note "bench/diagnosis failed"; status=1; }
else
  note "no zoo programs in $build (no libuv): diagnosis benchmark skipped"
fi

# A real server under load: named answering dnsperf (bench/dns).
if command -v named >/dev/null 2>&1 && command -v dnsperf >/dev/null 2>&1; then
  note "running bench/dns"
  "$(dirname "$0")/dns/bench_dns.sh" "$build" "$dir" "$rounds" ||
    { note "bench/dns failed"; status=1; }
else
  note "no named or dnsperf (scripts/deps.sh bench): DNS benchmark skipped"
fi

exit $status
