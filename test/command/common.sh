# common.sh -- what the test scripts share (test/command/*,
# test/test_big_trace.sh), sourced with their arguments (BUILD first): the
# mprof command and trace_gen of BUILD, a temporary directory $tmp removed
# at exit, and fail.
set -euo pipefail
build=$1
mprof=$build/mprof
gen=$build/test/trace_gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
