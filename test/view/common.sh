# common.sh -- the start of a viewer test, sourced by a script whose $1 is
# the build directory: $build, $mprof, $probe (view_probe), a $tmp
# directory removed at exit, fail() and the pixel checks (pixels.sh).
set -euo pipefail
build=$1
mprof=$build/mprof
probe=$build/test/view/view_probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "${BASH_SOURCE[0]}")/pixels.sh"
