#!/usr/bin/env bash
# test_redact.sh BUILD_DIR -- `mprof redact`: a trace full of private
# strings (hostile_prog: paths, IPv4 and IPv6 peers, DNS names, control
# characters, a 64 KiB label, payload hashes as numbers), a libuv program
# under `mprof record` (uv_prog: files in a private directory, TCP and UDP
# over loopback) and mirage-profile traces are redacted; then no private
# string is left in any byte of the output; the metadata is the
# recorder's; the report has the same threads, times and findings, and the
# map turns its texts back into the original's; babeltrace2 reads it;
# --keep leaves one class and only that one; two processes redacted
# together still align by their network labels; a damaged packet or
# metadata is told and left out, never copied; the same salt gives the
# same bytes, another salt other pseudonyms; export --redact and html
# --redact leave no private string either; bad input is one line.
set -euo pipefail
build=$1
mprof=$build/mprof
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
check() { /usr/bin/python3 "$here/redact_check.py" "$@"; }
# same_analysis NAME ORIGINAL REDACTED [--findings] [MAP]: their reports
# agree (findings, threads, times; texts one to one); with MAP, the
# redacted one's texts put back through it are the original's.
same_analysis() {
  "$mprof" report --json "$2" >"$1-a.json"
  "$mprof" report --json "$3" >"$1-b.json"
  check same-report "$1-a.json" "$1-b.json" ${4:-} || fail "$1: reports differ"
  [ -z "${5:-}" ] || check unredact "$5" "$1-a.json" "$1-b.json" ||
    fail "$1: the map does not tell"
}
cd "$tmp"

# --- a trace of hostile labels -----------------------------------------------
MPROF_TRACE=h.ctf "$build/test/redact/hostile_prog" secrets.txt
check present secrets.txt h.ctf || fail "the search cannot see the secrets"
"$mprof" redact --salt one --map map.txt h.ctf -o h.red 2>err.txt ||
  fail "redact: $(cat err.txt)"
[ ! -s err.txt ] || fail "redact said: $(cat err.txt)"
check absent secrets.txt h.red || fail "a private string survived"
[ "$(stat -c %a h.red) $(stat -c %a map.txt)" = "600 600" ] ||
  fail "modes: $(stat -c %a h.red map.txt)"
"$mprof" check h.red >/dev/null || fail "check of the redacted trace"
# A map is written whole or not at all: one cut short (a file size limit
# of 1 KiB, the map 2 KiB) leaves the one that was there, and no part of
# itself.
printf 'the map before\n' >old_map.txt
status=0
(
  trap '' XFSZ
  ulimit -f 1
  "$mprof" redact --salt one --map old_map.txt h.ctf -o - >/dev/null 2>err.txt
) || status=$?
[ "$status" -ne 0 ] && [ "$(cat old_map.txt)" = "the map before" ] &&
  [ -z "$(find . -name '.old_map.txt.*')" ] && grep -q old_map.txt err.txt ||
  fail "a map cut short: exit $status, $(head -c 200 old_map.txt), $(cat err.txt)"

# The metadata is the recorder's, with the process name a pseudonym.
check metadata h.ctf h.red || fail "metadata"

# What it became: mprof's heads and numbers kept, the arguments replaced
# by their class, one text one pseudonym in both OS threads' streams.
"$mprof" dump h.red >dump.txt
for pattern in \
  '"fs open /p[0-9]*/p[0-9]*/p[0-9]*/f[0-9]*"' \
  '"fs stat /p[0-9]*/p[0-9]*/f[0-9]*\.xlsx"' \
  '"connect \(192\.0\.2\|198\.51\.100\|203\.0\.113\)\.[0-9]*:5432"' \
  '"tcp from \[2001:db8::[0-9a-f:]*\]:51234"' \
  '"getaddrinfo h[a-z]*\.example"' \
  '"net send tcp [0-9.]*:5432 [0-9.]*:80 0 100"' \
  '"net send udp \[2001:db8::[0-9a-f:]*\]:4000 \[2001:db8::[0-9a-f:]*\]:53 [0-9a-f]\{16\} 32"' \
  '"label-[a-z]\{4\} /p[0-9]*/f[0-9]*"' \
  '"fs event /p[0-9]*/p[0-9]*/f[0-9]*"' \
  'id=[0-9]* text="label-[a-z]\{4\}"' \
  'text="ECONNREFUSED"'; do
  grep -q "$pattern" dump.txt || fail "no $pattern in $(grep text= dump.txt)"
done
[ "$(grep -o '"fs open [^"]*"' dump.txt | sort -u | wc -l)" -eq 1 ] ||
  fail "one path, two pseudonyms"
sent=$(sed -n 's/.*"net send tcp \([^ ]*\) \([^ ]*\) .*/\1 \2/p' dump.txt | head -1)
received=$(sed -n 's/.*"net recv tcp \([^ ]*\) \([^ ]*\) .*/\2 \1/p' dump.txt | head -1)
[ "$sent" = "$received" ] || fail "send $sent, receive $received"
# The payload hash, a number in a net_hash_label event and text in a
# label, is one pseudonym; the heads' addresses line up as before.
udp=$(sed -n 's/.*text="net send udp \([^ ]* [^ ]*\) \([0-9a-f]*\) 9".*/\2 \1/p' dump.txt | head -1)
udp_read=$(sed -n 's/.*text="net recv udp \([^ ]* [^ ]*\) \([0-9a-f]*\) 9".*/\2 \1/p' dump.txt | head -1)
[ -n "$udp" ] && [ "$udp" = "$udp_read" ] || fail "datagram: sent $udp, received $udp_read"

# The same analysis; the map says what became what.
same_analysis hostile h.ctf h.red --findings map.txt
grep -q "^address	10.1.2.3	" map.txt || fail "map: $(cat map.txt)"

# babeltrace2 reads every event.
"$mprof" ctf h.red -o h.dir >/dev/null
babeltrace2 h.dir >bt.txt 2>bt.err || fail "babeltrace2: $(cat bt.err)"
events=$("$mprof" stats --json h.red |
         /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
[ "$(wc -l <bt.txt)" -eq "$events" ] ||
  fail "babeltrace2 read $(wc -l <bt.txt) events of $events"

# --- salts -------------------------------------------------------------------
"$mprof" redact --salt one h.ctf -o again.red
cmp -s h.red again.red || fail "the same salt, other bytes"
"$mprof" redact --salt one - -o - <h.ctf >piped.red
cmp -s h.red piped.red || fail "standard input to standard output"
"$mprof" redact --salt two h.ctf -o two.red
grep -q "$(sed -n 's/.*text="\(fs open [^"]*\)".*/\1/p' dump.txt | head -1)" \
  <("$mprof" dump two.red) && fail "another salt, the same pseudonym"
"$mprof" redact h.ctf -o random1.red
"$mprof" redact h.ctf -o random2.red
cmp -s random1.red random2.red && fail "no salt: the same pseudonyms twice"

# --keep leaves one class as it was, and only that one.
keep() { # CLASS GONE KEPT...: the dump with --keep CLASS holds no GONE,
         # and each KEPT
  local class=$1 gone=$2
  shift 2
  "$mprof" redact --keep "$class" h.ctf -o "keep-$class.red"
  "$mprof" dump "keep-$class.red" >"keep-$class.txt"
  ! grep -q "$gone" "keep-$class.txt" || fail "--keep $class: $gone"
  for kept in "$@"; do
    grep -q "$kept" "keep-$class.txt" || fail "--keep $class: no $kept"
  done
}
keep paths '10\.1\.2\.3\|db\.alice\|session\|5eed0f' \
  '"fs open /home/alice/.ssh/id_rsa"' '"fs event /home/alice/inbox"'
keep addresses 'id_rsa\|db\.alice\|session' '"connect 10.1.2.3:5432"' \
  '"tcp from \[fe80::dead:beef\]:51234"' \
  '"net recv udp \[2001:470::98\]:4000 \[2001:470::99\]:53 5eed0fdeadc0ffee 9"'
keep names 'id_rsa\|10\.1\.2\.3\|session\|5eed0f' \
  '"getaddrinfo db.alice-corp.net"' '"mail.bob-private.org"'
keep labels 'id_rsa\|10\.1\.2\.3\|db\.alice\|5eed0f' \
  'text="GET /p[0-9]*/f[0-9]*"' 'text="EVANGELINE"' 'procname\|text="dave.s open tickets"'

# --- damage: told, left out, never copied -------------------------------------
# The 64 KiB label's string event (a names packet) and the failure
# naming erinsdottir (a ring packet) get an unknown event id; the other thread's
# names packet, with its label of a path, a bad magic.
/usr/bin/python3 - <<'PY'
import struct
data = bytearray(open("h.ctf", "rb").read())
at = data.index(b"carol-")
data[at - 6] = (data[at - 6] & ~31) | 30      # string: id 15 -> 30
at = data.index(b"password for erinsdottir")
data[at - 8] = (data[at - 8] & ~31) | 30      # fail: id 6 -> 30
size, = struct.unpack_from("<I", data, 24)
packets, = struct.unpack_from("<Q", data, 56)
other = data.index(b"fs open /home/alice", data.index(b"fs open /home/alice") + 1)
data[packets + (other - packets) // size * size] ^= 0xff   # bad magic
open("damaged.ctf", "wb").write(data)
PY
set +e
"$mprof" redact --salt one damaged.ctf -o damaged.red 2>err.txt
code=$?
set -e
[ "$code" -eq 1 ] || fail "damaged: exit $code"
grep -q "^mprof: damaged.ctf: packet [0-9]* at offset [0-9]*: bad packet magic; packet skipped$" err.txt ||
  fail "damaged: $(cat err.txt)"
[ "$(grep -c "^mprof: damaged.ctf: packet [0-9]* at offset [0-9]*: event at offset [0-9]*: unknown event id" err.txt)" -eq 2 ] &&
  [ "$(wc -l <err.txt)" -eq 3 ] || fail "damaged: $(cat err.txt)"
check absent secrets.txt damaged.red || fail "damage copied through"
"$mprof" check damaged.red >/dev/null 2>&1 || [ $? -eq 1 ] ||
  fail "check of the damaged trace's redaction"

# A metadata whose process name cannot be found is not copied either.
/usr/bin/python3 -c '
data = open("h.ctf", "rb").read().replace(b"\tprocname = ", b"\tprocnam_ = ", 1)
open("meta.ctf", "wb").write(data)'
"$mprof" redact meta.ctf -o meta.red
check absent secrets.txt meta.red || fail "a damaged metadata copied through"

# --- two processes, redacted together, still align ---------------------------
"$build/test/interop/netpair" client client.ctf 0
"$build/test/interop/netpair" server late.ctf 1000000
"$mprof" redact client.ctf late.ctf -o pair 2>err.txt || fail "pair: $(cat err.txt)"
[ "$(cat pair/mprof-merge)" = "$(printf 'mprof-merge 1\n0 trace-1.ctf\n0 trace-2.ctf')" ] ||
  fail "manifest: $(cat pair/mprof-merge)"
"$mprof" export --align pair/trace-1.ctf pair/trace-2.ctf -o /dev/null 2>align.txt
grep -qx "mprof: align: pair/trace-2.ctf: offset -1000000 ns, messages both ways (16 messages allow \[-1050000, -950000\])" align.txt ||
  fail "aligned: $(cat align.txt)"
# Redacted on the fly, the lines name the copies as the output does, never
# by their temporary paths.
"$mprof" export --redact --align client.ctf late.ctf -o /dev/null 2>align.txt
[ "$(cat align.txt)" = "mprof: align: trace-1.ctf: offset +0 ns, the reference
mprof: align: trace-2.ctf: offset -1000000 ns, messages both ways (16 messages allow [-1050000, -950000])" ] ||
  fail "export --redact --align: $(cat align.txt)"
for f in pair/trace-1.ctf pair/trace-2.ctf; do
  grep -q '10\.0\.0\.\|2001:db8::1\]\|0123456789abcdef' "$f" && fail "$f: an address or hash"
done
printf 'mprof-merge 1\n0 client.ctf\n0 late.ctf\n' >pair.manifest
same_analysis pair pair.manifest pair

# --- a mirage-profile trace: redacted in its own format ----------------------
check legacy legacy.ctf legacy_secrets.txt
check present legacy_secrets.txt legacy.ctf || fail "legacy: the search cannot see the secrets"
"$mprof" redact --map legacy_map.txt legacy.ctf -o legacy.red
check absent legacy_secrets.txt legacy.red || fail "legacy: a private string survived"
"$mprof" dump legacy.red >legacy.txt
grep -q 'should_resolve thread=0 target=2' legacy.txt || fail "legacy: $(cat legacy.txt)"
same_analysis legacy legacy.ctf legacy.red --findings legacy_map.txt
"$mprof" ctf legacy.red -o legacy.dir >/dev/null
[ "$(babeltrace2 legacy.dir | wc -l)" -eq 9 ] || fail "legacy: babeltrace2"
"$mprof" redact --map net_map.txt "$here/../data/net.ctf" -o net.red
same_analysis net.ctf "$here/../data/net.ctf" net.red --findings net_map.txt
# The second packet's header damaged: told, and left out.
/usr/bin/python3 -c '
import struct
data = bytearray(open("legacy.ctf", "rb").read())
first, = struct.unpack_from("<I", data, 20)
data[first // 8] ^= 0xff
open("legacy-damaged.ctf", "wb").write(data)'
set +e
"$mprof" redact legacy-damaged.ctf -o legacy-damaged.red 2>err.txt
code=$?
set -e
[ "$code" -eq 1 ] &&
  grep -qx "mprof: legacy-damaged.ctf: packet 1 at offset [0-9]*: bad packet magic; no good packet after it" err.txt ||
  fail "legacy damaged: exit $code, $(cat err.txt)"
check absent legacy_secrets.txt legacy-damaged.red || fail "legacy: damage copied through"
[ "$("$mprof" dump legacy-damaged.red | wc -l)" -eq 6 ] || fail "legacy: the good packet"

# --- a libuv program under mprof record --------------------------------------
if [ -x "$build/test/uv/uv_prog_plain" ]; then
  mkdir private-frank-dir
  "$mprof" record -o u.ctf -- "$build/test/uv/uv_prog_plain" \
    "$tmp/private-frank-dir" all >/dev/null 2>record.txt ||
    fail "record: $(cat record.txt)"
  # the datagrams' payload hashes too, as text and as the numbers of the
  # shim's net_hash_label events
  hashes=$("$mprof" dump u.ctf.manifest | sed -n 's/.*"net [a-z]* udp [^ ]* [^ ]* \([0-9a-f]\{16\}\) [0-9]*".*/\1/p' | sort -u)
  [ -n "$hashes" ] || fail "uv: no datagram"
  { printf '%s\n' private-frank-dir 127.0.0.1 uv_prog_plain |
      /usr/bin/python3 -c 'import sys; [print(l.strip().encode().hex()) for l in sys.stdin]'
    for h in $hashes; do
      /usr/bin/python3 -c 'import struct, sys; print(struct.pack("<Q", int(sys.argv[1], 16)).hex())' "$h"
    done; } >uv_secrets.txt
  check present uv_secrets.txt u.ctf || fail "uv: the search cannot see the secrets"
  "$mprof" redact --map u_map.txt u.ctf.manifest -o u.red 2>err.txt || fail "uv: $(cat err.txt)"
  check absent uv_secrets.txt u.red/* || fail "uv: a private string survived"
  "$mprof" dump u.red >udump.txt
  for h in $hashes; do
    ! grep -q "$h" udump.txt || fail "uv: the payload hash $h survived"
  done
  grep -q '"net send tcp [0-9.]*:[0-9]* [0-9.]*:[0-9]* 0 [0-9]*"' udump.txt ||
    fail "uv: no net send label: $(grep 'net ' udump.txt | head -3)"
  same_analysis uv u.ctf.manifest u.red "" u_map.txt
fi

# --- export --redact and html --redact ---------------------------------------
# They read redacted copies, made in a private directory under TMPDIR and
# removed after.
mkdir scratch
"$mprof" export h.ctf -o plain.json
grep -q alice plain.json || fail "the plain export has no private string to lose"
TMPDIR=$tmp/scratch "$mprof" export --redact h.ctf -o redacted.json 2>err.txt ||
  fail "export --redact: $(cat err.txt)"
check absent secrets.txt redacted.json || fail "export --redact"
grep -q '"label-[a-z]\{4\} /p[0-9]*/f[0-9]*"' redacted.json || fail "export --redact: no label"
# The copies are named by their place, not by TMPDIR, which may say whose.
grep -q '"process_name","args":{"name":"trace-1.ctf"}' redacted.json &&
  ! grep -q "$tmp" redacted.json || fail "export --redact: names $(grep -o "$tmp[^\"]*" redacted.json)"
# --offset names an input as given, though the traces are read from
# their copies: the second trace's events start 1 ms after the first's.
cp h.ctf h2.ctf
TMPDIR=$tmp/scratch "$mprof" export --redact --offset h2.ctf=+1000000 \
  h.ctf h2.ctf -o offset.json 2>err.txt || fail "export --redact --offset: $(cat err.txt)"
/usr/bin/python3 - offset.json <<'PY' || fail "export --redact --offset: not 1 ms later"
import json, sys
first = {}
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e["ph"] != "M":
        first[e["pid"]] = min(first.get(e["pid"], e["ts"]), e["ts"])
sys.exit(first != {1: 0.0, 2: 1000.0})
PY
TMPDIR=$tmp/scratch "$mprof" export --format=otlp --redact h.ctf -o redacted-otlp.json
check absent secrets.txt redacted-otlp.json || fail "export --format=otlp --redact"
! grep -q "$tmp" redacted-otlp.json || fail "export --format=otlp --redact: TMPDIR"
TMPDIR=$tmp/scratch "$mprof" html --redact h.ctf -o page 2>err.txt ||
  fail "html --redact: $(cat err.txt)"
check absent secrets.txt $(find page -type f) || fail "html --redact"
[ -z "$(ls scratch)" ] || fail "copies left behind: $(ls scratch)"

# --- bad input ---------------------------------------------------------------
set +e
"$mprof" redact missing.ctf -o x.red 2>err.txt; code=$?
[ "$code" -eq 3 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q missing.ctf err.txt ||
  fail "missing input: exit $code, $(cat err.txt)"
"$mprof" redact h.ctf -o h.ctf 2>err.txt; code=$?
[ "$code" -eq 2 ] || fail "over its input: exit $code"
"$mprof" redact --map h.ctf h.ctf -o x.red 2>err.txt; code=$?
[ "$code" -eq 2 ] && grep -qx "mprof redact: h.ctf: would overwrite a trace; name another --map" err.txt ||
  fail "the map over its input: exit $code, $(cat err.txt)"
# The output named again in other words: the map is refused, the
# redacted trace left as it is.
"$mprof" redact --map ./x.red h.ctf -o x.red 2>err.txt; code=$?
[ "$code" -eq 2 ] && grep -qx "mprof redact: ./x.red: is the output; name another --map" err.txt &&
  "$mprof" check x.red >/dev/null ||
  fail "the map over the output: exit $code, $(cat err.txt)"
# A write that fails part way (the file size limit: EFBIG) leaves the
# earlier output as it was and no temporary file.
cp x.red before.red
(trap '' XFSZ; ulimit -f 8; "$mprof" redact h.ctf -o x.red) 2>err.txt; code=$?
[ "$code" -eq 3 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q 'x.red: File too large' err.txt ||
  fail "a failed write: exit $code, $(cat err.txt)"
cmp -s x.red before.red || fail "a failed write changed the earlier output"
[ -z "$(ls -a | grep '^\.x\.red\.')" ] || fail "a temporary file left: $(ls -a)"
"$mprof" redact --keep secrets h.ctf -o x.red 2>err.txt; code=$?
[ "$code" -eq 2 ] || fail "--keep secrets: exit $code"
"$mprof" export --redact missing.ctf -o x.json 2>err.txt; code=$?
[ "$code" -eq 3 ] && grep -q missing.ctf err.txt || fail "export --redact missing: exit $code"
"$mprof" merge --redact h.ctf -o merged 2>/dev/null; code=$?
[ "$code" -eq 2 ] || fail "merge --redact: exit $code"
set -e
check present secrets.txt h.ctf || fail "the input was changed"
echo "redact: ok"
