#!/usr/bin/env bash
# readme.sh BUILD SRC -- README's quickstart as a newcomer runs it: mprof
# installed (cmake --install into a temporary prefix), the C program of
# the quickstart compiled with each `cc` line of it (pkg-config, shared
# and static) and run with MPROF_TRACE: each trace holds the program's
# labels.  Linked statically without -Wl,-u,mprof_unix_autostart, as the
# README warns, it records nothing.
source "$(dirname "$0")/common.sh"
readme=$2/README.md
cd "$tmp"
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
PKG_CONFIG_PATH=$(dirname "$(find "$tmp/prefix" -name mprof.pc)")
export PKG_CONFIG_PATH
libdir=$(dirname "$PKG_CONFIG_PATH")

# The quickstart's C block (indented in its list item) and its cc lines.
awk '/^   ```c$/ { on = 1; next } on && /^   ```$/ { exit } on { sub(/^   /, ""); print }' \
  "$readme" >prog.c
grep -q 'int main' prog.c || fail "no C program in the quickstart: $(cat prog.c)"
sed -n '/^## Quickstart/,/^## /s/^ *\(cc .*\)$/\1/p' "$readme" >cc_lines
[ "$(wc -l <cc_lines)" = 2 ] || fail "the quickstart's cc lines: $(cat cc_lines)"

n=0
while read -r line; do
  n=$((n + 1))
  eval "$line -Wall -Wextra -Werror" 2>err || fail "$line: $(cat err)"
  LD_LIBRARY_PATH=$libdir MPROF_TRACE=$tmp/t$n.ctf ./prog || fail "$line: the program failed"
  "$mprof" dump --raw "t$n.ctf" >dump.txt || fail "$line: no trace"
  for label in "reply ready" "GET /index.html" reply; do
    grep -q " label .*text=\"$label\"" dump.txt || fail "$line: no label $label: $(cat dump.txt)"
  done
  rm prog
done <cc_lines

# Static, libmprof.a named by hand without the flag: no trace at all.
cc -static prog.c -I"$tmp/prefix/include" -DMPROF_TRACING "$libdir/libmprof.a" \
  -lpthread -o prog
MPROF_TRACE=$tmp/none.ctf ./prog
[ ! -e none.ctf ] || fail "a static link without -Wl,-u,mprof_unix_autostart recorded"
echo "readme: ok"
