#!/usr/bin/env bash
# deps.sh -- install, with apt-get, the Debian 12 packages mprof needs that
# this machine lacks.  Quiet and quick when everything is there already.
#   scripts/deps.sh          what `make`, `make check` and `make demo` need
#   scripts/deps.sh bench    plus the baselines of `make bench`
set -euo pipefail

packages=(
  cmake make gcc clang lld pkg-config   # build
  clang-format                          # the format test
  libclang-rt-14-dev                    # clang sanitizer runtimes
  libcmocka-dev                         # unit tests
  libjansson-dev                        # JSON output of the mprof command
  babeltrace2 python3-bt2               # CTF checks with the real babeltrace2
  binutils                              # nm, objdump for the compiled-out test
  groff-base                            # the manual page's test renders it
  wasi-libc libclang-rt-14-dev-wasm32 chromium  # browser viewer: WebAssembly, Playwright
  libgtk-3-dev xvfb xauth               # mprof view (GTK 3, cairo); its tests under Xvfb
  libuv1-dev                            # libuv tracing, mprof record, arp-race demo
  gdb                                   # gcore: mprof snapshot --core's test
  qemu-system-x86                       # the bare-metal kernel's test (TCG, no KVM)
  strace                                # export_closed counts the writes that fail
  time                                  # /usr/bin/time: index_window's peak RSS
  bind9 bind9-dnsutils knot-resolver    # test/real: Debian programs that link
  neovim lua5.1 lua-luv python3-uvloop  #   libuv, run under mprof record
)
if [ "${1:-}" = bench ]; then
  packages+=(liblttng-ust-dev lttng-tools python3-barectf)
  packages+=(dnsperf)                   # bench/dns: a flood of queries to named
fi

# Node.js and npm (the browser viewer's Playwright tests, the Chrome export
# test): Debian's, unless the machine has a Node.js that brings its own npm
# (NodeSource's nodejs conflicts with Debian's npm package).
command -v npm >/dev/null && command -v node >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: run as root, or install: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
