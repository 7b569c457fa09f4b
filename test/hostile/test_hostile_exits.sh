#!/usr/bin/env bash
# test_hostile_exits.sh -- every command that reads a trace exits with the
# same code on the same input: check, report, stats, dump, export, html,
# view --png and merge, over the damaged corpus (its MANIFEST gives
# check's exit code: "0|1" is whichever check says, 0 or 1) and over
# merged traces with bad members and lines.  Each problem is one line on
# stderr, told once, naming the file.
#   test_hostile_exits.sh BUILD DAMAGED_DIR
. "$(dirname "$0")/../command/common.sh"
damaged=$2
commands="check report stats dump export html view merge"

# Run command $1 on input $2 in $tmp/run; its exit code in $code.
run() {
  rm -rf "$tmp/run" && mkdir "$tmp/run"
  local args
  case $1 in
    export) args=(export "$2" -o "$tmp/run/out.json") ;;
    html) args=(html "$2" -o "$tmp/run/html") ;;
    view) args=(view --png "$tmp/run/out.png" "$2") ;;
    merge) args=(merge "$2" -o "$tmp/run/merged") ;;
    *) args=("$1" "$2") ;;
  esac
  code=0
  timeout 20 "$mprof" "${args[@]}" >/dev/null 2>"$tmp/err" || code=$?
}

# Each command on input $1 exits $2 (html: $3, default $2); what it says
# on stderr names $4 (default $1) on every line, never twice the same.
expect() {
  local input=$1 want=$2 html=${3:-$2} named=${4:-$1} command
  for command in $commands; do
    run "$command" "$input"
    local wanted=$want
    [ "$command" != html ] || wanted=$html
    [ "$code" = "$wanted" ] || fail "$command $input: exit $code, not $wanted: $(cat "$tmp/err")"
    ! grep -v -q -F -- "$named" "$tmp/err" \
      || fail "$command $input: a line that names no file: $(grep -v -F -- "$named" "$tmp/err")"
    [ -z "$(sort "$tmp/err" | uniq -d)" ] \
      || fail "$command $input: told twice: $(sort "$tmp/err" | uniq -d)"
    [ "$code" = 0 ] || [ -s "$tmp/err" ] || fail "$command $input: exit $code, and nothing said"
  done
}

while read -r name want _; do
  case $name in '#'*) continue ;; esac
  trace=$damaged/$name.ctf
  if [ "$want" = "0|1" ]; then
    run check "$trace"
    [ "$code" = 0 ] || [ "$code" = 1 ] || fail "check $trace: exit $code, not 0 or 1"
    want=$code
  fi
  expect "$trace" "$want"
done <"$damaged/MANIFEST"

# Merged traces: a manifest beside its members, of a good trace (a.ctf)
# and one bad member or line; of a bad member only; a directory `merge`
# wrote, whole, with a member gone, and without its manifest.  html reads
# a merged trace of one member only: 3 for two.
tree=$tmp/tree
mkdir "$tree"
cp "$damaged/original.ctf" "$tree/a.ctf"
cp "$damaged/cut-at-packet-4.ctf" "$tree/cut.ctf"
head -c 4096 /dev/zero >"$tree/garbage.ctf"
mkfifo "$tree/fifo.ctf"
mkdir "$tree/dir.ctf"
ln -s a.ctf "$tree/link.ctf"
printf 'mprof-merge 1\n0 a.ctf\n' >"$tree/one.manifest"
printf 'mprof-merge 1\n0 a.ctf\nnot a line\n' >"$tree/line.manifest"
printf 'mprof-merge 1\n0 a.ctf\n0 cut.ctf\n' >"$tree/cut.manifest"
for bad in garbage fifo dir link missing; do
  printf 'mprof-merge 1\n0 a.ctf\n0 %s.ctf\n' "$bad" >"$tree/$bad.manifest"
  printf 'mprof-merge 1\n0 %s.ctf\n' "$bad" >"$tree/only-$bad.manifest"
done
"$mprof" merge "$tree/a.ctf" "$damaged/killed-during-packet-setup.ctf" -o "$tree/merged"
cp -r "$tree/merged" "$tree/member-gone"
rm -r "$tree/member-gone/killed-during-packet-setup.ctf"
cp -r "$tree/merged" "$tree/no-manifest"
rm "$tree/no-manifest/mprof-merge"

expect "$tree/one.manifest" 0
expect "$tree/line.manifest" 1
expect "$tree/cut.manifest" 1 3 "$tree/"
for bad in fifo dir link missing; do
  expect "$tree/$bad.manifest" 1 1 "$tree/"
  expect "$tree/only-$bad.manifest" 3 3 "$tree/"
done
expect "$tree/garbage.manifest" 1 3 "$tree/"
expect "$tree/only-garbage.manifest" 3 3 "$tree/"
expect "$tree/merged" 0 3
expect "$tree/member-gone" 1
expect "$tree/no-manifest" 3

echo "hostile_exits: ok"
