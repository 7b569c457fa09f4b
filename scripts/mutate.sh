#!/usr/bin/env bash
# mutate.sh -- how many wrong products the tests catch.  Builds the
# mutants of scripts/mutants.txt one at a time (flipped comparisons,
# off-by-one and scaled values, dropped stores, swapped arguments in the
# recorder, decoder, snapshot reader, model, analysis and exporters), in a
# copy of the tree, runs the tests that cover each module, and prints, per
# module, the share of mutants some test killed, and each survivor (a
# mutant that does not compile is said so and not counted).  Exit 1 when a
# module has less than 90 % killed.
#   scripts/mutate.sh WORK_DIR [MODULE...]
#     WORK_DIR: the copy (WORK_DIR/src) and its build (WORK_DIR/build),
#     reused between runs.  MODULEs (record, decode, snapshot, model,
#     analysis, exporters): only their mutants, and only their targets
#     built; none: every module, and the whole tree built.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: mutate.sh WORK_DIR [MODULE...]}
shift
src=$work/src
build=$work/build
mkdir -p "$src" "$build"

# What each module's mutants rebuild, and the tests that must catch them.
declare -A targets=(
  [record]="mprof mprof_static mprof_cli trace_gen env_events clock_sleep clock_back seq_writer seq_check"
  [decode]="mprof_cli test_names_walk"
  [snapshot]="mprof_cli live_reads seq_writer seq_check"
  [model]="mprof_cli test_model test_model_analysis test_model_trace story same_instant"
  [analysis]="mprof_cli test_model test_model_analysis test_model_trace test_analysis_edges story same_instant"
  [exporters]="mprof_cli model_events"
)
declare -A tests=(
  [record]='^(babeltrace2|env_mode|clock|clock_back|seq_check_cases|crash)$'
  [decode]='^(babeltrace2|legacy_net_ctf|read_names_walk|clock)$'
  [snapshot]='^(live_reads|snapshot_memory)$'
  [model]='^(model|model_analysis|model_trace|report|legacy_net_ctf)$'
  [analysis]='^(model|model_analysis|model_trace|analysis_edges|report|report_top)$'
  [exporters]='^(interop_chrome|interop_otlp)$'
)

modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(record decode snapshot model analysis exporters)
chosen_tests=() chosen_targets=()
for module in "${modules[@]}"; do
  [ -n "${tests[$module]:-}" ] || { echo "mutate: no module $module" >&2; exit 2; }
  chosen_tests+=("${tests[$module]}")
  read -ra module_targets <<<"${targets[$module]}"
  chosen_targets+=("${module_targets[@]}")
done

# The tree as it is (tracked and new files), into the copy; built (whole,
# or the chosen modules' targets), and every test the mutants are held to
# must pass before any mutant.
(cd "$here" && git ls-files -z --cached --others --exclude-standard |
   rsync -a --from0 --files-from=- . "$src/") || exit 1
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
if [ $# -gt 0 ]; then
  cmake --build "$build" -j"$(nproc)" --target "${chosen_targets[@]}" >/dev/null || exit 1
else
  cmake --build "$build" -j"$(nproc)" >/dev/null || exit 1
fi
all_tests=$(IFS='|'; echo "${chosen_tests[*]}" | sed 's/\^(//g; s/)\$//g')
(cd "$build" && ctest -R "^($all_tests)\$" --output-on-failure >"$work/baseline.log" 2>&1) ||
  { echo "mutate: the tests fail without a mutant: $work/baseline.log" >&2; exit 1; }

# The mutants, as "MODULE<TAB>FILE<TAB>INDEX" lines; their texts in
# $work/mutants/INDEX.{old,new}.
rm -rf "$work/mutants" && mkdir "$work/mutants"
python3 - "$here/scripts/mutants.txt" "$work/mutants" >"$work/mutants/list" <<'PY' || exit 1
import sys
blocks, block = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("@ "):
        module, path = line[2:].split()
        block = {"module": module, "path": path, "old": [], "new": []}
        blocks.append(block)
    elif line.startswith("- ") or line == "-":
        block["old"].append(line[2:])
    elif line.startswith("+ ") or line == "+":
        block["new"].append(line[2:])
for i, b in enumerate(blocks):
    for part in ("old", "new"):
        open("%s/%d.%s" % (sys.argv[2], i, part), "w").write("\n".join(b[part]) + "\n")
    print("%s\t%s\t%d" % (b["module"], b["path"], i))
PY

# apply FILE INDEX: replace the mutant's original text; fails unless it
# occurs exactly once.
apply() {
  python3 - "$src/$1" "$work/mutants/$2.old" "$work/mutants/$2.new" <<'PY'
import sys
path, old, new = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
text = open(path).read()
if text.count(old) != 1:
    sys.exit("mutate: %s: the original of a mutant occurs %d times" % (path, text.count(old)))
open(path, "w").write(text.replace(old, new))
PY
}

declare -A total killed
survivors=
while IFS=$'\t' read -r module file index; do
  [[ " ${modules[*]} " == *" $module "* ]] || continue
  cp "$src/$file" "$work/original"
  if ! apply "$file" "$index"; then
    echo "mutate: mutant $index of $file no longer applies: fix scripts/mutants.txt" >&2
    exit 1
  fi
  what="$module: $file: $(head -1 "$work/mutants/$index.new" | sed 's/^ *//')"
  # shellcheck disable=SC2048,SC2086
  if ! cmake --build "$build" -j"$(nproc)" --target ${targets[$module]} >/dev/null 2>&1; then
    echo "mutate: does not compile, not counted: $what" >&2
    cp "$work/original" "$src/$file"
    continue
  fi
  total[$module]=$(( ${total[$module]:-0} + 1 ))
  if ! (cd "$build" && timeout 900 ctest -R "${tests[$module]}" >/dev/null 2>&1); then
    killed[$module]=$(( ${killed[$module]:-0} + 1 ))
    echo "killed   $what"
  else
    survivors="$survivors"$'\n'"  $what"
    echo "SURVIVED $what"
  fi
  cp "$work/original" "$src/$file"
done <"$work/mutants/list"
cmake --build "$build" -j"$(nproc)" --target "${chosen_targets[@]}" >/dev/null 2>&1

low=0
for module in "${modules[@]}"; do
  k=${killed[$module]:-0} n=${total[$module]:-0}
  [ "$n" -gt 0 ] || continue
  echo "mutate: $module: $k of $n killed ($(( 100 * k / n )) %)"
  [ $(( 100 * k )) -ge $(( 90 * n )) ] || low=1
done
[ -z "$survivors" ] || echo "mutate: survivors:$survivors"
exit $low
