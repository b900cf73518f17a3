#!/usr/bin/env bash
# The test command of the README: installs what the tests need, then runs them all.
# Real parts: promtool/prometheus come from the Debian package 'prometheus'.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v promtool >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null
fi
python3 -m pip install -q -e '.[test]'
export AIX_EXPORTER_REQUIRE_TOOLS=1   # a missing promtool/prometheus fails the run instead of skipping
exec python3 -m pytest -q "$@"
