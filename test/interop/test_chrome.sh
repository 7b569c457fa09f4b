#!/usr/bin/env bash
# test_chrome.sh -- `mprof export --format=chrome` read by Chrome DevTools'
# own trace engine (npm @paulirish/trace_engine, installed here with npm
# ci): what it finds equals what the model holds (model_events), item by
# item: async slices and their labels, running and idle slices, flows and
# their ends, counter samples with their values (check_chrome.mjs).  On the
# legacy net.ctf, on a recorded story with a hostile counter name, on two
# processes with hostile labels, and on a zoo program that blocks its
# loop; the JSON is strict (python's parser) and keeps the hostile bytes
# as \xHH text.  The findings are those `mprof report --json` gives, each
# field (check_findings.py): net.ctf's cannot_tell, the story's lost
# wake-up and stalls, the zoo's blocked loop and leaked request (which
# names the root: what made the request).
set -euo pipefail
build=$1
net_ctf=$2
here=$(cd "$(dirname "$0")" && pwd)
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The engine, pinned by package-lock.json, beside the build (not in the
# source tree, so two builds never share one node_modules).
npm_dir=$build/test/interop/npm
mkdir -p "$npm_dir"
cp "$here/package.json" "$here/package-lock.json" "$here/check_chrome.mjs" "$npm_dir/"
"$here/../../scripts/npm_ci.sh" "$npm_dir" >/dev/null

"$build/test/story" "$tmp/story.ctf"
"$build/test/interop/netpair" client "$tmp/client.ctf" 0
"$build/test/interop/netpair" server "$tmp/server.ctf" 0
for zoo in blocked_after_work leaked_read; do # the zoo's programs
  [ -x "$build/examples/zoo/zoo_$zoo" ] || fail "zoo_$zoo not built: libuv missing? (scripts/deps.sh)"
  "$mprof" record -o "$tmp/$zoo.ctf" -- "$build/examples/zoo/zoo_$zoo" >/dev/null 2>&1 ||
    fail "mprof record zoo_$zoo"
done

check() { # NAME TRACE...
  local name=$1
  shift
  "$mprof" export --format=chrome -o "$tmp/$name.json" "$@" 2>"$tmp/err" ||
    fail "$name: export failed: $(cat "$tmp/err")"
  [ ! -s "$tmp/err" ] || fail "$name: export printed: $(cat "$tmp/err")"
  /usr/bin/python3 -m json.tool "$tmp/$name.json" >/dev/null ||
    fail "$name: not strict JSON"
  "$build/test/interop/model_events" "$@" >"$tmp/$name.model"
  node "$npm_dir/check_chrome.mjs" "$tmp/$name.json" "$tmp/$name.model" ||
    fail "$name: the trace engine disagrees with the model"
}
check net "$net_ctf"
check story "$tmp/story.ctf"
check pair "$tmp/client.ctf" "$tmp/server.ctf"
check blocked "$tmp/blocked_after_work.ctf"
check leaked "$tmp/leaked_read.ctf"

findings() { # NAME TRACE KINDS: the export's findings are the report's
  /usr/bin/python3 "$here/check_findings.py" chrome "$mprof" "$2" "$tmp/$1.json" "$3" \
    >/dev/null || fail "$1: the findings exported are not the report's"
}
findings net "$net_ctf" "cannot_tell"
findings story "$tmp/story.ctf" "lost_wakeup stalled stalled"
findings blocked "$tmp/blocked_after_work.ctf" "loop_blocked( [a-z_]+)*"
findings leaked "$tmp/leaked_read.ctf" "leaked( [a-z_]+)*"

/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def load(name): return json.load(open("%s/%s.json" % (tmp, name)))["traceEvents"]
def check(cond, what):
    if not cond: sys.exit("FAIL: " + what)
story = load("story")
counters = {e["name"] for e in story if e["ph"] == "C"}
check("queue\\xff\x1b[31m" in counters, "hostile counter name kept as text: %r" % counters)
pair = load("pair")
labels = [e["args"]["label"] for e in pair if e["ph"] == "n"]
check("GET /\\xff\x1b[31m\"</script>\\\n\x01" in labels, "hostile label: %r" % labels[:3])
procs = {e["pid"]: e["args"]["name"] for e in pair
         if e["ph"] == "M" and e["name"] == "process_name"}
check(sorted(p.split("/")[-1] for p in procs.values()) == ["client.ctf", "server.ctf"],
      "one process per trace: %r" % procs)
# the server's requests arrive after the client sent them (anchors agree)
def times(label_start, pid):
    return sorted(float(e["ts"]) for e in pair if e["ph"] == "n" and e["pid"] == pid
                  and e["args"]["label"].startswith(label_start))
sent, received = times("net send tcp 10.0.0.1", 1), times("net recv tcp 10.0.0.1", 2)
check(len(sent) == 5 and len(received) == 5, "five requests each way")
check(all(49.999 < r - s < 80.001 for s, r in zip(sent, received)),
      "one time axis: request delays %r" % [r - s for s, r in zip(sent, received)])
PY
echo "ok: DevTools' trace engine agrees with the model"
