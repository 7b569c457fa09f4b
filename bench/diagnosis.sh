#!/bin/sh
# bench/diagnosis.sh BUILD_DIR -- how well `mprof report` diagnoses the zoo
# (examples/zoo): its programs recorded and reported by test_zoo.sh (its
# notes to stderr), then each report scored against its NAME.expect
# (check_zoo.py --score).  Two JSON lines, as bench/run.sh prints:
#   diagnosis recall          faults found / the expect files' faults
#   diagnosis false_findings  errors and warnings the expect files do not
#                             name, against the number of correct programs
#                             (ratio: false findings per correct program)
set -u
build=$1
zoo=$(cd "$(dirname "$0")/../examples/zoo" && pwd)
runs=$build/examples/zoo/runs
"$zoo/test_zoo.sh" "$build" >&2 ||
  echo "bench: diagnosis: the zoo's test failed (scored as it is)" >&2
faults=0 found=0 false=0 correct=0
for expect in "$zoo"/*.expect; do
  name=$(basename "$expect" .expect)
  [ -f "$runs/$name.json" ] || continue
  score=$(/usr/bin/python3 "$zoo/check_zoo.py" --score "$expect" "$runs/$name.json") &&
    read -r n_faults n_found n_false <<EOF_SCORE
$score
EOF_SCORE
  [ -n "${n_false:-}" ] || { echo "bench: diagnosis: cannot score $name" >&2; exit 1; }
  faults=$((faults + n_faults)) found=$((found + n_found)) false=$((false + n_false))
  [ "$n_faults" -eq 0 ] && correct=$((correct + 1))
  n_false=
done
if [ "$faults" -eq 0 ] || [ "$correct" -eq 0 ]; then
  echo "bench: diagnosis: no zoo reports in $runs" >&2
  exit 1
fi
awk -v found="$found" -v faults="$faults" -v false="$false" -v correct="$correct" 'BEGIN {
  printf "{\"bench\":\"diagnosis\",\"metric\":\"recall\",\"value\":%.4f,\"baseline\":\"zoo_faults\",\"baseline_value\":1,\"ratio\":%.4f}\n", found / faults, found / faults
  printf "{\"bench\":\"diagnosis\",\"metric\":\"false_findings\",\"value\":%d,\"baseline\":\"correct_programs\",\"baseline_value\":%d,\"ratio\":%.4f}\n", false, correct, false / correct
}'
