#!/bin/sh
# test_zoo.sh BUILD_DIR -- the zoo's ground truth: each program of
# examples/zoo recorded unmodified with `mprof record`, then `mprof report
# --json` checked against its NAME.expect (check_zoo.py): every fault is
# the first finding of its kind, on the right thread, and the correct
# programs get no error or warning.  So do the demo's runs
# (examples/arp-race: a hung one must name the lost "ARP response" wait
# first, a good one nothing) and test/data/net.ctf.
set -u
build=$1
zoo=$(cd "$(dirname "$0")" && pwd)
out=$build/examples/zoo/runs
rm -rf "$out" && mkdir -p "$out"
status=0

# checked NAME TRACE: whether TRACE's report agrees with NAME.expect.
checked() {
  "$build/mprof" report --json "$2" > "$out/$1.json" 2> "$out/$1.err" ||
    { echo "FAIL: $1: mprof report: $(cat "$out/$1.err")"; return 1; }
  /usr/bin/python3 "$zoo/check_zoo.py" "$zoo/$1.expect" "$out/$1.json"
}

# report NAME TRACE: check TRACE's report against NAME.expect.
report() { checked "$1" "$2" || status=1; }

# recorded NAME PROGRAM: PROGRAM recorded as NAME, its report checked.
recorded() {
  size=$(awk '$1 == "size" { print $2 }' "$zoo/$1.expect")
  timeout 20 "$build/mprof" record -o "$out/$1.ctf" --size "${size:-8M}" \
    -- "$2" > "$out/$1.out" 2>&1 ||
    { echo "FAIL: $1: the program failed: $(tail -3 "$out/$1.out")"; return 1; }
  checked "$1" "$out/$1.ctf"
}

# A program's timing is the machine's: on a busy one (a sanitizer build
# while others run) a correct callback can hold its loop past the 20 ms
# of loop_blocked.  So a program whose check fails runs once more, the
# first failure told; a finding that is wrong fails both runs.
for expect in "$zoo"/*.expect; do
  name=$(basename "$expect" .expect)
  program=$build/examples/zoo/zoo_$name
  [ -x "$program" ] || continue
  if ! recorded "$name" "$program"; then
    echo "zoo: $name: once more"
    recorded "$name" "$program" || status=1
  fi
  echo "zoo: $name checked"
done

# The demo, run until one run works and one hangs (as scripts/demo.sh).
good= hung=
if [ -x "$build/examples/arp_race" ]; then
  for attempt in $(seq 1 40); do
    MPROF_TRACE="$out/arp.ctf" timeout 1 "$build/examples/arp_race" > /dev/null
    case $? in
      0) [ -n "$good" ] || { good=$attempt; mv "$out/arp.ctf" "$out/arp-good.ctf"; } ;;
      124) [ -n "$hung" ] || { hung=$attempt; mv "$out/arp.ctf" "$out/arp-hung.ctf"; } ;;
    esac
    [ -n "$good" ] && [ -n "$hung" ] && break
  done
  [ -n "$good" ] && report arp_race_good "$out/arp-good.ctf"
  [ -n "$hung" ] && report arp_race_hung "$out/arp-hung.ctf"
  [ -n "$good" ] && [ -n "$hung" ] || { echo "FAIL: no good and hung demo runs in 40"; status=1; }
fi

report net_ctf "$zoo/../../test/data/net.ctf"
[ $status = 0 ] && echo "zoo: all found"
exit $status
