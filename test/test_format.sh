#!/bin/sh
# test_format.sh SOURCE_DIR -- every C file of the tree is as clang-format
# writes it under the project's .clang-format.  The formatter is pinned to
# Debian 12's (clang-format-14): another version formats some lines
# differently.  A failure names each file; `clang-format-14 -i FILE` fixes it.
# And no source file (.c, .h, .js under cli/ src/ include/ web/ test/
# bench/ examples/) is over 900 lines: a file that long holds more than
# one thing a reader must keep in mind; split it along its sections.
set -u
src=$1
format=$(command -v clang-format-14 || command -v clang-format) || {
  echo "FAIL: clang-format missing: apt-get install clang-format (scripts/deps.sh)"
  exit 1
}
cd "$src" || exit 1
files=$(git ls-files -co --exclude-standard '*.c' '*.h' 2>/dev/null ||
        find . -name node_modules -prune -o -name 'build*' -prune -o \
             \( -name '*.c' -o -name '*.h' \) -print)
[ -n "$files" ] || { echo "FAIL: no C file found under $src"; exit 1; }
status=0
for f in $files; do
  [ -f "$f" ] || continue
  "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || {
    echo "FAIL: $f is not formatted: $format -i $f"
    status=1
  }
done

max_lines=900
sources=$(git ls-files -co --exclude-standard -- cli src include web test bench examples \
            2>/dev/null ||
          find cli src include web test bench examples -name node_modules -prune -o \
               -type f -print)
sources=$(echo "$sources" | grep -E '\.(c|h|js)$')
[ -n "$sources" ] || { echo "FAIL: no source file found under $src"; exit 1; }
for f in $sources; do
  [ -f "$f" ] || continue
  lines=$(wc -l <"$f")
  [ "$lines" -le $max_lines ] || {
    echo "FAIL: $f has $lines lines, over $max_lines: split it along its sections"
    status=1
  }
done
[ $status -eq 0 ] &&
  echo "format: $(echo "$files" | wc -l) files formatted, $(echo "$sources" | wc -l) sources within $max_lines lines"
exit $status
