#!/bin/sh
# test_scripts.sh SOURCE_DIR -- every shell script of the tree parses with
# the shell its first line names (sh -n / bash -n): a script that only
# `make bench` or CI runs breaks no other test when a merge mangles it.
set -u
src=$1
status=0
count=0
for f in "$src"/.ci/run $(find "$src/bench" "$src/scripts" "$src/test" \
    "$src/examples" -name '*.sh' -not -path '*/node_modules/*'); do
  case $(head -n 1 "$f") in
    *bash*) shell=bash ;;
    *sh*) shell=sh ;;
    *) echo "$f: no #! line naming sh or bash" >&2; status=1; continue ;;
  esac
  count=$((count + 1))
  if ! "$shell" -n "$f"; then
    echo "$f: does not parse with $shell" >&2
    status=1
  fi
done
if [ "$count" -lt 10 ]; then
  echo "only $count scripts found under $src" >&2
  status=1
fi
echo "$count scripts checked"
exit $status
