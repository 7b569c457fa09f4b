#!/usr/bin/env bash
# test_man.sh -- docs/mprof.1 renders without a single groff warning, and
# documents every command that `mprof --help` lists, every exit code and
# every environment variable the library reads.
set -euo pipefail
mprof=$1/mprof
page=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v groff >/dev/null ||
  fail "no groff to render $page: apt-get install groff-base (scripts/deps.sh)"
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
[ -z "$warnings" ] || fail "groff warns about $page: $warnings"
# Examples stay examples: each .EX ends (.EE) before the next one or a
# heading, every .RS has its .RE within its section, and no quote of
# the source shows (an argument quoted in its middle).
unclosed=$(awk '/^\.EX/ { if (ex) bad = bad " " NR; ex = 1 } /^\.EE/ { ex = 0 }
  /^\.S[HS] / { if (ex || rs) bad = bad " " NR; rs = 0 } /^\.RS/ { rs++ } /^\.RE/ { rs-- }
  END { print bad }' "$page")
[ -z "$unclosed" ] || fail "$page: a block left open before line(s)$unclosed"
if groff -man -Tutf8 "$page" 2>/dev/null | grep -n '“"\|"”'; then
  fail "$page: a quote of the source shows in the page"
fi
commands=$("$mprof" --help | awk '/^commands:/ { on = 1; next } on && NF { print $1 } on && !NF { exit }')
[ "$(wc -w <<<"$commands")" -ge 5 ] || fail "commands in mprof --help: $commands"
for cmd in $commands; do
  grep -q "^\.SS \"mprof $cmd[ \"]" "$page" || fail "mprof $cmd has no section in $page"
done
exit_codes=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$page" | sed -n 's/^\.B \([0-9]\)$/\1/p' | tr -d '\n')
[ "$exit_codes" = 0123 ] || fail "exit codes documented: $exit_codes"
for variable in MPROF_TRACE MPROF_SIZE MPROF_MODE MPROF_CLOCK MPROF_TSC_HZ MPROF_FORK; do
  sed -n '/^\.SH ENVIRONMENT/,/^\.SH/p' "$page" | grep -q "^\.B $variable$" \
    || fail "$variable is not in ENVIRONMENT"
done
echo "ok: $page: $(wc -w <<<"$commands") commands, exit codes, environment"
