#!/bin/sh
# test_uv_own_loop.sh BUILD_DIR -- test/uv/uv_own_loop.c, which never uses
# the default loop, plain and under `mprof record`: the same output (one
# epoll instance, its own loop's: the shim made no default loop), and its
# trace holds its loop, labelled "loop", and no "default loop".
set -u
build=$1
out=$build/test/uv/out-own-loop
rm -rf "$out" && mkdir -p "$out"
prog=$build/test/uv/uv_own_loop
"$prog" >"$out/plain.txt" ||
  { echo "FAIL: uv_own_loop failed: $(cat "$out/plain.txt")"; exit 1; }
"$build/mprof" record -o "$out/own.ctf" -- "$prog" >"$out/traced.txt" \
  2>"$out/record.txt" ||
  { echo "FAIL: uv_own_loop under mprof record: $(cat "$out/record.txt")"; exit 1; }
for run in plain traced; do
  grep -qx "epoll instances: 1" "$out/$run.txt" ||
    { echo "FAIL: uv_own_loop ($run) printed: $(cat "$out/$run.txt")"; exit 1; }
done
"$build/mprof" report --json --top 0 "$out/own.ctf" >"$out/report.json" ||
  { echo "FAIL: mprof report of $out/own.ctf"; exit 1; }
python3 - "$out/report.json" <<'PY'
import json, sys
times = json.load(open(sys.argv[1]))["thread_times"]
loops = sorted(t["thread"].get("label") for t in times if t["thread"]["type"] == "loop")
if loops != ["loop"]:
    sys.exit("FAIL: the trace's loops are %r, not one labelled 'loop'" % loops)
PY
