#!/bin/sh
# named_conf.sh DIR NAME PORT -- print a named.conf (bind9) for test_real.sh
# and bench/dns: named serves example.test.zone (beside this script) on
# 127.0.0.1:PORT only, no recursion, no control channel; its working
# directory is DIR and its pid file DIR/NAME.pid.
set -eu
dir=$1 name=$2 port=$3
cat <<CONF
options {
  directory "$dir";
  pid-file "$dir/$name.pid";
  listen-on port $port { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
};
controls { };
zone "example.test" { type primary; file "$(cd "$(dirname "$0")" && pwd)/example.test.zone"; };
CONF
