#!/usr/bin/env bash
# test_hostile_outputs.sh -- what the commands write goes where it is
# told, whole, and nowhere else: a symbolic link planted at an output's
# name is replaced, never written through; a directory of traces the
# commands make is 0700; no temporary file is left; html refuses a trace
# whose copy would overwrite the viewer's own files, and exits as check
# does on every damaged trace of the corpus, naming the file.
#   test_hostile_outputs.sh BUILD DAMAGED_DIR
. "$(dirname "$0")/../command/common.sh"
damaged=$2

"$gen" "$tmp/t.ctf" discard 262144 50 1 >/dev/null
echo "not to be touched" >"$tmp/victim"
mkdir "$tmp/victim-dir"
echo "not to be touched" >"$tmp/victim-dir/ring_0"

untouched() {
  [ "$(cat "$tmp/victim")" = "not to be touched" ] || fail "$1: wrote through a link into the victim"
  [ "$(cat "$tmp/victim-dir/ring_0")" = "not to be touched" ] || fail "$1: wrote into a linked directory"
}
# $1 holds only the names $2..., regular files or directories, none a link
# or a temporary file.
holds() {
  local dir=$1
  shift
  [ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ] \
    || fail "$dir holds: $(ls -A "$dir" | tr '\n' ' '), not: $*"
  for name in "$@"; do [ ! -L "$dir/$name" ] || fail "$dir/$name is still a link"; done
}
mode() { [ "$(stat -c %a "$1")" = "$2" ] || fail "$1: mode $(stat -c %a "$1"), not $2"; }

# snapshot -w OUT and -o DIR, OUT and DIR/NAME links to the victim.
ln -s "$tmp/victim" "$tmp/out.ctf"
"$mprof" snapshot -w "$tmp/out.ctf" "$tmp/t.ctf"
untouched "snapshot -w"
cmp -s "$tmp/out.ctf" "$tmp/t.ctf" || fail "snapshot -w: the copy differs"
mkdir "$tmp/snap"
ln -s "$tmp/victim" "$tmp/snap/t.ctf"
"$mprof" snapshot -o "$tmp/snap" "$tmp/t.ctf"
untouched "snapshot -o"
holds "$tmp/snap" t.ctf
"$mprof" snapshot -o "$tmp/snap-new" "$tmp/t.ctf" "$tmp/out.ctf"
mode "$tmp/snap-new" 700

# export -o OUT, a link.
ln -s "$tmp/victim" "$tmp/export.json"
"$mprof" export "$tmp/t.ctf" -o "$tmp/export.json"
untouched "export"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/export.json" \
  || fail "export: not JSON"

# A FIFO (or a device) is written in place, never replaced.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
"$mprof" export "$tmp/t.ctf" -o "$tmp/fifo"
wait
[ -p "$tmp/fifo" ] || fail "export replaced a FIFO"
cmp -s "$tmp/from-fifo" "$tmp/export.json" || fail "export into a FIFO: not the export"

# ctf -o DIR with DIR/metadata a link; with several traces, DIR/NAME a
# link to a directory holding a stream file's name.
mkdir "$tmp/ctf"
ln -s "$tmp/victim" "$tmp/ctf/metadata"
"$mprof" ctf "$tmp/t.ctf" -o "$tmp/ctf"
untouched "ctf"
[ ! -L "$tmp/ctf/metadata" ] && grep -q "CTF\|trace" "$tmp/ctf/metadata" || fail "ctf: no metadata written"
cp "$tmp/t.ctf" "$tmp/u.ctf"
mkdir "$tmp/ctfs"
ln -s "$tmp/victim-dir" "$tmp/ctfs/t.ctf"
code=0
"$mprof" ctf "$tmp/t.ctf" "$tmp/u.ctf" -o "$tmp/ctfs" 2>"$tmp/err" || code=$?
untouched "ctf of two traces"
[ "$code" = 3 ] || fail "ctf into a linked directory: exit $code"
grep -qx "mprof ctf: $tmp/ctfs/t.ctf: Too many levels of symbolic links" "$tmp/err" \
  || fail "ctf into a linked directory says: $(cat "$tmp/err")"
"$mprof" ctf "$tmp/t.ctf" "$tmp/u.ctf" -o "$tmp/ctfs-new"
mode "$tmp/ctfs-new" 700
mode "$tmp/ctfs-new/t.ctf" 700

# html -o DIR with DIR/index.html a link; traces named as the viewer's
# own files are refused, before anything is written.
mkdir "$tmp/html"
ln -s "$tmp/victim" "$tmp/html/index.html"
"$mprof" html "$tmp/t.ctf" -o "$tmp/html"
untouched "html"
holds "$tmp/html" index.html data.js t.ctf
for name in data.js index.html data; do
  mkdir -p "$tmp/named"
  cp "$tmp/t.ctf" "$tmp/named/$name"
  code=0
  "$mprof" html "$tmp/named/$name" -o "$tmp/html-$name" 2>"$tmp/err" || code=$?
  [ "$code" = 3 ] || fail "html of a trace named $name: exit $code"
  grep -qx "mprof html: $tmp/named/$name: a trace named $name would overwrite the viewer's own $name; copy it under another name" "$tmp/err" \
    || fail "html of a trace named $name says: $(cat "$tmp/err")"
  [ ! -e "$tmp/html-$name" ] || fail "html of a trace named $name wrote $tmp/html-$name"
done
"$mprof" html "$tmp/t.ctf" -o "$tmp/html-new"
mode "$tmp/html-new" 700

# html on the damaged corpus: the exit code check gives, and every line
# names the file.
for trace in "$damaged"/*.ctf; do
  expected=0
  "$mprof" check "$trace" >/dev/null 2>&1 || expected=$?
  code=0
  "$mprof" html "$trace" -o "$tmp/damaged-html" 2>"$tmp/err" || code=$?
  [ "$code" = "$expected" ] || fail "html $(basename "$trace"): exit $code, check exits $expected"
  if grep -v "^mprof: \(html: \)\?$trace[: ]" "$tmp/err" >"$tmp/other"; then
    fail "html $(basename "$trace"): lines that do not name it: $(head -2 "$tmp/other")"
  fi
done
echo "hostile_outputs: ok"
