#!/usr/bin/env bash
# wait_trace.sh FILE PID -- wait until FILE, a trace that process PID is
# writing, starts with the mprof header (its writer has begun); exit 1 at
# once if PID is gone, or after 30 s.  For tests that read a live trace.
set -u
file=$1 pid=$2
for _ in $(seq 3000); do
  [ "$(head -c 8 "$file" 2>/dev/null | tr -d '\0')" = MPROFCTF ] && exit 0
  kill -0 "$pid" 2>/dev/null || { echo "wait_trace: the writer of $file died" >&2; exit 1; }
  sleep 0.01
done
echo "wait_trace: $file has no trace header after 30 s" >&2
exit 1
