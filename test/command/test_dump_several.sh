#!/usr/bin/env bash
# test_dump_several.sh -- `mprof dump A B`: a line "==> PATH <==" (escaped)
# before each trace's events, as head(1) does; one trace's dump has none.
#
#   test_dump_several.sh BUILD NET_CTF
. "$(dirname "$0")/common.sh"
net_ctf=$2
cd "$tmp"
"$gen" ours.ctf overwrite 1048576 2000 1 >/dev/null

# One trace: events only, the first line an event.
"$mprof" dump ours.ctf >one.txt
[ "$(wc -l <one.txt)" = 30003 ] || fail "one trace: $(wc -l <one.txt) lines"
grep -q '^==>' one.txt && fail "one trace has a header"
head -1 one.txt | grep -q '^0 [0-9]* [a-z_]* thread=[0-9]*' || fail "one trace: $(head -1 one.txt)"

# Two: a header before each, an empty line between them, the events as
# they are alone.
"$mprof" dump ours.ctf "$net_ctf" >two.txt
[ "$(sed -n 1p two.txt)" = "==> ours.ctf <==" ] || fail "first header: $(head -1 two.txt)"
[ "$(sed -n 30005p two.txt)" = "" ] || fail "no empty line between traces"
[ "$(sed -n 30006p two.txt)" = "==> $net_ctf <==" ] \
  || fail "second header: $(sed -n 30006p two.txt)"
[ "$(wc -l <two.txt)" = $((1 + 30003 + 2 + 10078)) ] || fail "two: $(wc -l <two.txt) lines"
sed -n 2,30004p two.txt | cmp -s - one.txt || fail "first trace's events changed"

# Standard input is "-"; a name from the file system is escaped.
name=$'odd\n\x1b[31m.ctf'
cp ours.ctf "$name"
"$mprof" dump - "$name" <"$net_ctf" >odd.txt
[ "$(grep -c '^==> ' odd.txt)" = 2 ] || fail "headers: $(grep '^==> ' odd.txt)"
grep -qx '==> - <==' odd.txt || fail "stdin header: $(head -1 odd.txt)"
grep -qxF '==> odd\n\x1b[31m.ctf <==' odd.txt || fail "escaped header: $(grep '^==> o' odd.txt)"
grep -q $'\x1b' odd.txt && fail "raw escape in a header"

# A merged trace is several: a header per member.
cp ours.ctf again.ctf
"$mprof" merge ours.ctf again.ctf -o all.ctf
"$mprof" dump all.ctf >merged.txt
[ "$(grep '^==> ' merged.txt | tr '\n' ' ')" = "==> all.ctf/ours.ctf <== ==> all.ctf/again.ctf <== " ] \
  || fail "merged headers: $(grep '^==> ' merged.txt)"

# A trace that cannot be read gets no header; the others do.
set +e
"$mprof" dump missing.ctf ours.ctf >some.txt 2>err.txt
code=$?
set -e
[ $code = 3 ] || fail "missing trace: exit $code"
[ "$(grep -c '^==> ' some.txt)" = 1 ] && [ "$(head -1 some.txt)" = "==> ours.ctf <==" ] \
  || fail "header of the trace read: $(head -1 some.txt)"
echo "dump several: ok"
