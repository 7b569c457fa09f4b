#!/usr/bin/env bash
# test_hostile_merged.sh -- merged traces from hostile hands: `merge` of
# traces whose clock metadata it cannot move says so in one line naming the
# trace and leaves nothing; a failed merge never leaves a partial directory;
# a manifest's member that is a FIFO, a directory, a symbolic link or
# missing is told in one line naming it and left out, the others still
# read (exit 1), and no reader blocks.
#   test_hostile_merged.sh BUILD
. "$(dirname "$0")/../command/common.sh"

"$gen" "$tmp/a.ctf" overwrite 262144 200 2 >/dev/null
"$gen" "$tmp/b.ctf" overwrite 262144 100 1 >/dev/null

# clock.py TRACE HOW: the trace's metadata made what `merge` cannot move:
# cut after "offset = N" (HOW=cut), or the ';' after offset_s's number
# made a space (HOW=moved-semicolon).
cat >"$tmp/clock.py" <<'PY'
import struct, sys
path, how = sys.argv[1], sys.argv[2]
data = bytearray(open(path, "rb").read())
size, offset = struct.unpack_from("<IQ", data, 36)
text = bytes(data[offset:offset + size])
if how == "cut":
    at = text.index(b"\toffset = ") + len(b"\toffset = ")
    while text[at:at + 1].isdigit():
        at += 1
    struct.pack_into("<I", data, 36, at)
    data[offset + at] = 0
else:
    at = text.index(b"\toffset_s = ")
    at = text.index(b";", at)
    data[offset + at] = ord(" ")
open(path, "wb").write(data)
PY

# Run "$@", its exit code in $code, its stderr in $tmp/err; fail if it
# takes more than 10 s (a reader blocked on a FIFO).
run() {
  code=0
  timeout 10 "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
  [ "$code" != 124 ] || fail "$*: still blocked after 10 s"
}
# Exactly one line of $tmp/err, matching $1.
one_line() {
  [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$1" "$tmp/err" \
    || fail "$2 says: $(cat "$tmp/err"), not one line matching $1"
}

for how in cut moved-semicolon; do
  cp "$tmp/a.ctf" "$tmp/$how.ctf"
  python3 "$tmp/clock.py" "$tmp/$how.ctf" "$how"
  run "$mprof" merge "$tmp/$how.ctf" "$tmp/b.ctf" -o "$tmp/m-$how"
  [ "$code" = 3 ] || fail "merge, clock metadata $how: exit $code: $(cat "$tmp/err")"
  one_line "^mprof: $tmp/$how.ctf: metadata: no clock block" "merge, clock metadata $how"
  [ ! -e "$tmp/m-$how" ] || fail "merge, clock metadata $how: left $(ls -A "$tmp/m-$how")"
done
[ -z "$(ls -A "$tmp" | grep tmp-)" ] || fail "a failed merge left $(ls -A "$tmp" | grep tmp-)"

# A merge that succeeds moves both clocks, and babeltrace2's reader takes
# the result; one into a directory that exists fails and leaves it as it
# was.
run "$mprof" merge "$tmp/a.ctf" "$tmp/b.ctf" -o "$tmp/m"
[ "$code" = 0 ] || fail "merge: exit $code: $(cat "$tmp/err")"
[ "$(stat -c %a "$tmp/m")" = 700 ] || fail "merge: $tmp/m is mode $(stat -c %a "$tmp/m")"
mkdir "$tmp/there"
run "$mprof" merge "$tmp/a.ctf" "$tmp/b.ctf" -o "$tmp/there"
[ "$code" = 3 ] || fail "merge into a directory that exists: exit $code"
one_line "^mprof: $tmp/there: File exists" "merge into a directory that exists"
[ -z "$(ls -A "$tmp/there")" ] || fail "merge into a directory that exists wrote into it"

# A manifest beside its members: two good traces, then a FIFO, a
# directory, a link to a good trace and a name that is missing.  Every
# reader takes the two good ones, tells each bad one in one line naming
# it, and exits 1; a manifest of bad members only is unusable (exit 3).
mkdir "$tmp/tree"
cp "$tmp/a.ctf" "$tmp/b.ctf" "$tmp/tree/"
mkfifo "$tmp/tree/fifo.ctf"
mkdir "$tmp/tree/dir.ctf"
ln -s "$tmp/a.ctf" "$tmp/tree/link.ctf"
printf 'mprof-merge 1\n0 a.ctf\n0 b.ctf\n' >"$tmp/tree/good.manifest"
for bad in fifo dir link missing; do
  printf 'mprof-merge 1\n0 a.ctf\n0 %s.ctf\n0 b.ctf\n' "$bad" >"$tmp/tree/$bad.manifest"
  printf 'mprof-merge 1\n0 %s.ctf\n' "$bad" >"$tmp/tree/only-$bad.manifest"
done
"$mprof" report "$tmp/tree/good.manifest" >"$tmp/good-report"
for bad in fifo dir link missing; do
  for command in check report stats dump "export -o /dev/null"; do
    # shellcheck disable=SC2086 # the command's words
    run "$mprof" $command "$tmp/tree/$bad.manifest"
    [ "$code" = 1 ] || fail "$command, a $bad member: exit $code: $(cat "$tmp/err")"
    one_line "^mprof: $tmp/tree/$bad.ctf: " "$command, a $bad member"
    # shellcheck disable=SC2086
    run "$mprof" $command "$tmp/tree/only-$bad.manifest"
    [ "$code" = 3 ] || fail "$command, only a $bad member: exit $code: $(cat "$tmp/err")"
    grep -q "^mprof: $tmp/tree/$bad.ctf: " "$tmp/err" \
      || fail "$command, only a $bad member says: $(cat "$tmp/err")"
  done
  "$mprof" report "$tmp/tree/$bad.manifest" 2>/dev/null | sed 1d >"$tmp/bad-report" || true
  sed 1d "$tmp/good-report" | cmp -s - "$tmp/bad-report" \
    || fail "report, a $bad member: not the report of the good members"
done
grep -q "not a regular file" <(timeout 10 "$mprof" check "$tmp/tree/fifo.manifest" 2>&1) \
  || fail "check, a FIFO member: not told as not a regular file"

echo "hostile_merged: ok"
