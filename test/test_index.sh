#!/usr/bin/env bash
# test_index.sh -- `mprof index`'s files: an index is built beside its
# trace, kept while valid, and never believed when stale (the trace
# changed), cut short or damaged: each is told and built again; one of a
# trace that grew is extended; two
# builders at once leave a good index; a directory that cannot be written
# sends it to the cache; and `mprof stats` says the same with it as without.
#
#   test_index.sh BUILD
. "$(dirname "$0")/command/common.sh"

trace=$tmp/t.ctf
"$gen" "$trace" discard 4000000 3000 3 >/dev/null

# index TRACE: runs `mprof index`, its line in $tmp/out, stderr in $tmp/err.
index() {
  "$mprof" index "$@" >"$tmp/out" 2>"$tmp/err" ||
    fail "mprof index $*: $(cat "$tmp/out" "$tmp/err")"
}

# expect WORDS [REASON]: the last run built (or kept) the index, and told
# REASON for the one it did not believe (none: it told nothing).
expect() {
  grep -q "^$trace: index $1: " "$tmp/out" ||
    fail "not \"$1\": $(cat "$tmp/out" "$tmp/err")"
  if [ -n "${2:-}" ]; then
    grep -q "the index there was not used: .*$2" "$tmp/err" ||
      fail "not told \"$2\": $(cat "$tmp/err")"
  else
    [ ! -s "$tmp/err" ] || fail "told: $(cat "$tmp/err")"
  fi
}

"$mprof" stats --json "$trace" >"$tmp/stats-without"
index "$trace"
expect built
[ -s "$trace.mpidx" ] || fail "no index beside the trace"
# field KEY of stats' JSON in file FILE
field() { /usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
summary="$(field "$tmp/stats-without" packets) packets, $(field \
  "$tmp/stats-without" events) events, $(field "$tmp/stats-without" streams) streams"
grep -q ": index built: $summary, " "$tmp/out" ||
  fail "summary not \"$summary\": $(cat "$tmp/out")"
index "$trace"
expect "up to date"
"$mprof" stats --json "$trace" >"$tmp/stats-with"
cmp -s "$tmp/stats-without" "$tmp/stats-with" ||
  fail "stats differ with the index: $(diff "$tmp/stats-without" "$tmp/stats-with")"

# forge CODE: runs python CODE on the index's bytes (`data`), then makes
# its checksum good again.
forge() {
  /usr/bin/python3 - "$trace.mpidx" "$1" <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
exec(sys.argv[2])
struct.pack_into("<Q", data, 112, 0)
h = 0xcbf29ce484222325
for (word,) in struct.iter_unpack("<Q", data):
    h = ((h ^ word) * 0x100000001b3) & 0xffffffffffffffff
struct.pack_into("<Q", data, 112, h)
open(path, "wb").write(data)
PY
}

# The time span stats prints comes from a valid index: one made to say
# its first packet ends a second later (its checksum made good again)
# shows in it.
forge '
streams, packets = struct.unpack_from("<QQ", data, 48)
freq = struct.unpack_from("<Q", data, 88)[0]
at = 128 + 16 * streams
last = max(struct.unpack_from("<Q", data, at + 64 * i + 16)[0]
           for i in range(packets))
struct.pack_into("<Q", data, at + 16, last + freq)'
"$mprof" stats --json "$trace" >"$tmp/stats-forged"
forged=$(field "$tmp/stats-forged" time_span_ns)
[ $((forged - $(field "$tmp/stats-with" time_span_ns))) -ge 999999000 ] ||
  fail "stats did not read the index: $(cat "$tmp/stats-forged")"

touch -d '2001-01-01' "$trace"
index "$trace"
expect built stale
size=$(stat -c %s "$trace.mpidx")
truncate -s $((size - 24)) "$trace.mpidx"
index "$trace"
expect built truncated
printf '\x55' | dd of="$trace.mpidx" bs=1 seek=200 conv=notrunc status=none
index "$trace"
expect built checksum
# Levels whose widest bins would be 2^64 ns or more (a reader shifts 1 by
# their log2): not believed, built again.
forge '
levels = struct.unpack_from("<Q", data, 64)[0]
assert levels > 1
struct.pack_into("<I", data, 96, 65 - levels)'
index "$trace"
expect built "bin width"
cp "$trace.mpidx" "$tmp/good.mpidx"

# Two builders at once: each writes a temporary file and renames it; the
# index left is whole and good.
for round in 1 2 3; do
  rm -f "$trace.mpidx"
  "$mprof" index "$trace" >"$tmp/a" 2>&1 &
  "$mprof" index "$trace" >"$tmp/b" 2>&1 &
  wait
  index "$trace"
  expect "up to date"
  cmp -s "$trace.mpidx" "$tmp/good.mpidx" || fail "round $round: another index"
done
[ -z "$(find "$tmp" -name '*.mpidx?*' -o -name '.*tmp*')" ] ||
  fail "temporary files left: $(ls -a "$tmp")"

# A directory its user cannot write: the index goes to the cache.
if [ "$(id -u)" = 0 ] && setpriv --help >/dev/null 2>&1; then
  ro=$tmp/ro
  mkdir -p "$ro" "$tmp/cache"
  cp "$trace" "$ro/t.ctf"
  chmod 0755 "$tmp" "$ro"
  chmod 0644 "$ro/t.ctf"
  chown nobody "$tmp/cache"
  as_nobody() {
    XDG_CACHE_HOME=$tmp/cache setpriv --reuid=nobody --regid=nogroup \
      --clear-groups "$mprof" index "$ro/t.ctf"
  }
  as_nobody >"$tmp/out" 2>"$tmp/err" || fail "read-only: $(cat "$tmp/err")"
  grep -q ": index built: " "$tmp/out" || fail "read-only: $(cat "$tmp/out")"
  [ ! -e "$ro/t.ctf.mpidx" ] || fail "read-only: written beside the trace"
  ls "$tmp/cache/mprof/"*-t.ctf.mpidx >/dev/null 2>&1 ||
    fail "read-only: nothing in the cache: $(ls -R "$tmp/cache")"
  as_nobody >"$tmp/out" 2>"$tmp/err"
  grep -q ": index up to date: " "$tmp/out" ||
    fail "read-only: the cache's index not used: $(cat "$tmp/out" "$tmp/err")"
fi

# A FIFO where the index would go is never opened to write (that would
# wait for a reader): the index goes to the cache; with a FIFO there too,
# it is not saved, and the one line says so.  mprof html, which indexes a
# big trace, goes on without it.  (timeout: a regression fails, not hangs.)
cp "$trace" "$tmp/f.ctf"
mkfifo "$tmp/f.ctf.mpidx"
XDG_CACHE_HOME=$tmp/fcache timeout 10 "$mprof" index "$tmp/f.ctf" >"$tmp/out" 2>"$tmp/err" ||
  fail "a FIFO beside the trace: $(cat "$tmp/err")"
[ -p "$tmp/f.ctf.mpidx" ] && ls "$tmp/fcache/mprof/"*-f.ctf.mpidx >/dev/null 2>&1 ||
  fail "a FIFO beside the trace: $(ls -l "$tmp/f.ctf.mpidx"; ls -R "$tmp/fcache")"
cached=$(ls "$tmp/fcache/mprof/"*-f.ctf.mpidx)
rm "$cached"
mkfifo "$cached"
XDG_CACHE_HOME=$tmp/fcache timeout 10 "$mprof" index "$tmp/f.ctf" >"$tmp/out" 2>"$tmp/err" ||
  fail "FIFOs beside the trace and in the cache: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out")" = 1 ] && [ ! -s "$tmp/err" ] &&
  grep -q "^$tmp/f.ctf: index built, not saved (no place to write): " "$tmp/out" ||
  fail "FIFOs beside the trace and in the cache: $(cat "$tmp/out" "$tmp/err")"
MPROF_HTML_INDEXED=0 XDG_CACHE_HOME=$tmp/fcache timeout 10 "$mprof" html "$tmp/f.ctf" \
  -o "$tmp/f-html" >"$tmp/out" 2>"$tmp/err" ||
  fail "html, FIFOs at the index's places: $(cat "$tmp/out" "$tmp/err")"
[ -p "$tmp/f.ctf.mpidx" ] && [ -p "$cached" ] && [ -s "$tmp/f-html/data/0.mpidx" ] ||
  fail "html, FIFOs at the index's places: $(ls -lR "$tmp/f.ctf.mpidx" "$cached" "$tmp/f-html")"

# A trace still being written is indexed as far as it goes (from a
# consistent copy of it, its writer stopped meanwhile) and extended as it
# grows: only the new and changed packets decoded, to what a fresh build
# gives, byte for byte.  Cut short or replaced, it is built again.
live=$tmp/live.ctf
"$gen" "$live" discard 268435456 100000000 2 >/dev/null &
writer=$!
trap 'kill -KILL $writer 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$(dirname "$0")/wait_trace.sh" "$live" $writer || fail "live.ctf never began"
# index_live WORDS [EXIT]: index the live trace, its writer stopped, and
# expect WORDS and exit status EXIT (0); its line's packets and decoded
# packets in $packets and $decoded.
index_live() {
  sleep 0.05
  kill -STOP $writer 2>/dev/null || true
  status=0
  "$mprof" index "$live" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ $status = "${2:-0}" ] || fail "live: exit $status: $(cat "$tmp/out" "$tmp/err")"
  grep -q ": index $1: [1-9][0-9]* packets, [1-9][0-9]* events" "$tmp/out" ||
    fail "live: not \"$1\": $(cat "$tmp/out" "$tmp/err")"
  packets=$(sed -n 's/.*: index [a-z]*: \([0-9]*\) packets, .*/\1/p' "$tmp/out")
  decoded=$(sed -n 's/.*, \([0-9]*\) packets decoded.*/\1/p' "$tmp/out")
}
index_live built
[ "$decoded" = "$packets" ] || fail "live: built decoding $decoded of $packets"
first=$packets
kill -CONT $writer
index_live extended
[ "$packets" -gt "$first" ] || fail "live: did not grow: $(cat "$tmp/out")"
[ "$decoded" -ge $((packets - first)) ] && [ "$decoded" -lt "$packets" ] ||
  fail "live: extended decoding $decoded of $packets: $(cat "$tmp/out")"
cp "$live.mpidx" "$tmp/extended.mpidx"
rm "$live.mpidx"
index_live built
cmp -s "$live.mpidx" "$tmp/extended.mpidx" ||
  fail "live: the extended index is not the one built afresh"
kill -KILL $writer
wait $writer 2>/dev/null || true
truncate -s $(($(stat -c %s "$live") / 2)) "$live"
index_live built 1
grep -q "not used: stale" "$tmp/err" || fail "live: cut: $(cat "$tmp/err")"
"$gen" "$live" discard 1048576 1000 1 >/dev/null
index_live built
grep -q "not used: stale" "$tmp/err" || fail "live: replaced: $(cat "$tmp/err")"

# Not a trace: one line, a failure.
echo "not a trace" >"$tmp/junk.ctf"
if "$mprof" index "$tmp/junk.ctf" >"$tmp/out" 2>"$tmp/err"; then
  fail "junk indexed"
fi
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "junk: $(cat "$tmp/err")"
echo "ok: built, kept, rebuilt when stale, cut or damaged, two at once, cached"
