# pair.sh -- sourced by the interop tests with BUILD_DIR as $1: strict
# mode, a scratch directory to work in, fail(), and the two sides of the
# netpair conversation: client.ctf (a true clock) and late.ctf (the server,
# its wall-clock anchor 1 ms late).
set -euo pipefail
build=$1
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
"$build/test/interop/netpair" client client.ctf 0
"$build/test/interop/netpair" server late.ctf 1000000
