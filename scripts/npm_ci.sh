#!/usr/bin/env bash
# npm_ci.sh DIR -- install the packages DIR/package-lock.json pins into
# DIR/node_modules (npm ci), for the tests and benchmarks that drive Node.js.
# Each DIR has its own npm cache: tests that install at the same time (ctest
# -j2) never share one, as npm's cache is not safe for concurrent installs.
# A failed install (the registry, the network) is tried once more.
set -euo pipefail
cd "$1"
for try in 1 2; do
  npm ci --no-audit --no-fund --loglevel=error --cache "$PWD/.npm-cache" && exit 0
  [ "$try" = 2 ] || echo "npm_ci: $PWD: npm ci failed; trying once more" >&2
done
exit 1
