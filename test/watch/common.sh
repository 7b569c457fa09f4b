# common.sh -- what the watch tests share, sourced by a script whose $1
# is the build directory, with $runs set: $mprof, $zoo and $here, $out
# (BUILD/test/watch/$runs, made afresh), $status with fail(), and
# captures().
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
mprof=$build/mprof
zoo=$build/examples/zoo
out=$build/test/watch/$runs
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }

# captures DIR: how many capture-N.json DIR holds.
captures() { ls "$1" 2>/dev/null | grep -c '^capture-[0-9]*\.json$'; }
