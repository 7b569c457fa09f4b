#!/usr/bin/env bash
# test_stream.sh -- the streaming analysis (mprof_analysis_stream) says
# what the model's analysis says, field by field (test/stream_oracle.c),
# on every trace at hand: the test data (damaged ones too), the recorded
# story, libuv programs (requests, failures, the pool) and the zoo's
# (requests leaked), trace_gen at sizes where threads are retired while
# the trace goes by, and merged pairs.
#
#   test_stream.sh BUILD DATA_DIR
. "$(dirname "$0")/command/common.sh"
data=$2
oracle=$build/test/stream_oracle
uv=$build/test/uv

same() {
  "$oracle" "$@" >"$tmp/out" 2>&1 || fail "$*: $(cat "$tmp/out")"
  grep -q '^same: ' "$tmp/out" || fail "$*: $(cat "$tmp/out")"
}

# A damaged trace that cannot be opened at all (exit 3) has nothing to
# compare.
for t in "$data"/damaged/*.ctf; do
  status=0
  "$oracle" "$t" >"$tmp/out" 2>&1 || status=$?
  [ $status = 0 ] || [ $status = 3 ] || fail "$t: $(cat "$tmp/out")"
  [ $status = 3 ] || grep -q '^same: ' "$tmp/out" || fail "$t: $(cat "$tmp/out")"
done

traces=("$data/net.ctf")
[ -f "$data/../../../shared/data/net.ctf" ] &&
  traces+=("$data/../../../shared/data/net.ctf")

"$build/test/story" "$tmp/story.ctf" && traces+=("$tmp/story.ctf")
"$build/test/cycle_story" "$tmp/cycles.ctf" && traces+=("$tmp/cycles.ctf")
for mode in fs handles sockets; do
  [ -x "$uv/uv_more_traced" ] || break
  MPROF_TRACE="$tmp/$mode.ctf" "$uv/uv_more_traced" "$tmp" "$mode" \
    >/dev/null 2>&1 && traces+=("$tmp/$mode.ctf")
done
for mode in all threads; do
  [ -x "$uv/uv_prog_traced" ] || break
  MPROF_TRACE="$tmp/prog-$mode.ctf" "$uv/uv_prog_traced" "$tmp" "$mode" \
    >/dev/null 2>&1 && traces+=("$tmp/prog-$mode.ctf")
done
uv_all=
[ ! -f "$tmp/prog-all.ctf" ] || uv_all=$tmp/prog-all.ctf
# the zoo's programs (examples/zoo): requests leaked, failed and retried,
# a saturated pool, a write backlog, blocked loops, a busy loop, loops
# one after the other on one OS thread
for name in leaked_read pool_saturated retry_storm write_backlog \
  blocked_after_work blocked_often busy_idle ok_multiloop ok_fswalk \
  ok_slow_work; do
  program=$build/examples/zoo/zoo_$name
  [ -x "$program" ] || continue
  size=$(awk '$1 == "size" { print $2 }' \
    "$(dirname "$0")/../examples/zoo/$name.expect")
  timeout 20 "$mprof" record -o "$tmp/zoo-$name.ctf" --size "${size:-8M}" \
    -- "$program" >/dev/null 2>&1 && traces+=("$tmp/zoo-$name.ctf")
done
# 1 k, 60 k and 900 k events: the last ends more threads than the stream
# holds back before retiring them
"$gen" "$tmp/gen-1k.ctf" discard 400000 30 2 >/dev/null
"$gen" "$tmp/gen-60k.ctf" discard 4000000 2000 2 >/dev/null
"$gen" "$tmp/gen-900k.ctf" discard 40000000 30000 2 >/dev/null
"$gen" "$tmp/gen-ring.ctf" overwrite 200000 5000 3 >/dev/null
traces+=("$tmp/gen-1k.ctf" "$tmp/gen-60k.ctf" "$tmp/gen-900k.ctf"
  "$tmp/gen-ring.ctf")

for t in "${traces[@]}"; do same "$t"; done
# the loop findings were there to compare: the model's (the stream's
# agreed), as many as the zoo's programs make
loops() {
  [ -x "$build/examples/zoo/zoo_$1" ] || return 0
  [ -f "$tmp/zoo-$1.ctf" ] || fail "zoo $1 was not recorded"
  "$oracle" "$tmp/zoo-$1.ctf" | grep -q ", $2 loop_blocked, $3 busy_loop\$" ||
    fail "zoo $1: not $2 loop_blocked and $3 busy_loop: $("$oracle" "$tmp/zoo-$1.ctf")"
}
loops blocked_often 5 0
loops blocked_after_work 1 0
loops busy_idle 0 1
same "$tmp/story.ctf" "$tmp/gen-60k.ctf"
same "$data/net.ctf" "$data/net.ctf"
[ ! -f "$tmp/fs.ctf" ] || same "$tmp/fs.ctf" "$tmp/prog-all.ctf"

# mprof report in one pass: said so; the parts it computes print as the
# model's report prints them, what it leaves out is said to be left out.
# a merged trace too: its members at the manifest's offsets
"$mprof" merge "$tmp/story.ctf" "$tmp/gen-60k.ctf" -o "$tmp/merged" >/dev/null ||
  fail "mprof merge"
blocked=
[ ! -f "$tmp/zoo-blocked_often.ctf" ] || blocked=$tmp/zoo-blocked_often.ctf
for t in "$tmp/story.ctf" "$tmp/gen-900k.ctf" "$tmp/merged" ${uv_all:+"$uv_all"} \
  ${blocked:+"$blocked"}; do
  "$mprof" report "$t" >"$tmp/model.txt"
  "$mprof" report --stream "$t" >"$tmp/stream.txt"
  grep -q '^  analysed in one pass: ' "$tmp/stream.txt" ||
    fail "report --stream $t does not say it is streamed"
  for part in 2p '/^Findings:/,/^Time per thread/p' \
    '/^Time per thread/,/^$/p'; do
    cmp -s <(sed -n "$part" "$tmp/model.txt") \
      <(sed -n "$part" "$tmp/stream.txt") ||
      fail "report --stream $t: $part differs: $(diff "$tmp/model.txt" "$tmp/stream.txt")"
  done
  grep -q '^Longest wait chains: not computed in one pass$' "$tmp/stream.txt" ||
    fail "report --stream $t: wait chains not said to be left out"
done
"$mprof" report --stream --json "$tmp/story.ctf" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["streamed"] is True, "not streamed"
assert r["wait_chains"] is None, "left out"
assert [f["kind"] for f in r["findings"]] == ["lost_wakeup", "stalled",
                                              "stalled"], r["findings"]
assert [l["waiter"]["name"] for l in r["lost_wakeups"]] == ["wait for ready"]
assert r["threads"] == 9 and r["events"] == 52, (r["threads"], r["events"])
' || fail "report --stream --json of the story"
echo "the stream agrees with the model: the damaged traces, ${#traces[@]} more, 3 pairs, the report"
