#!/usr/bin/env bash
# test_hostile_shrink.sh -- check, report and snapshot -w read a trace
# file that its program keeps re-creating (truncated, then written again):
# none crashes (SIGBUS, where a page of the mapping is past the file's new
# end); each exits 0, 1 or 3, and says what went wrong in lines that name
# the file, among them that it shrank while being read.
#   test_hostile_shrink.sh BUILD [RUNS]
. "$(dirname "$0")/../command/common.sh"
here=$(dirname "$0")
runs=${2:-15}

"$gen" "$tmp/source.ctf" overwrite 8388608 20000 2 >/dev/null
cp "$tmp/source.ctf" "$tmp/t.ctf"
"$here/recreate.py" "$tmp/source.ctf" "$tmp/t.ctf" 600 &
writer=$!
trap 'kill $writer 2>/dev/null || true; wait; rm -rf "$tmp"' EXIT
for run in $(seq "$runs"); do
  for command in check report "snapshot -w $tmp/copy.ctf"; do
    code=0
    # shellcheck disable=SC2086 # the command's words
    "$mprof" $command "$tmp/t.ctf" >/dev/null 2>>"$tmp/err" || code=$?
    case $code in 0|1|3) ;; *) fail "$command, run $run: exit $code" ;; esac
  done
done
if grep "^mprof: " "$tmp/err" | grep -v "^mprof: \(snapshot: \)\?$tmp/t.ctf: " >"$tmp/other"; then
  fail "lines that do not name the file: $(head -3 "$tmp/other")"
fi
grep -q "t.ctf: the file shrank while being read" "$tmp/err" \
  || fail "never told that the file shrank: $(sort "$tmp/err" | uniq -c | head -5)"
echo "hostile_shrink: ok"
