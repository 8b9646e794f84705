#!/bin/sh
# What the tests need besides npm's packages: Debian's nats-server (the state and cluster tests
# start their own JetStream servers) and chromium (the explorer's browser tests). `npm test` runs
# this first (the `pretest` script) and `.ci/run` through it; it installs what is missing when it
# can (root, apt-get), and otherwise says in one line what to run.
missing=""
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing="$missing nats-server"
[ -n "${DWELL_TEST_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing="$missing chromium"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "dwell tests: installing Debian's$missing (apt-get)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || {
    echo "dwell tests: apt-get install$missing failed; install them and run npm test again" >&2; exit 1; }
  exit 0
fi
echo "dwell tests need Debian's$missing: run  sudo apt-get install -y$missing  then npm test again" >&2
exit 1
