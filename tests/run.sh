#!/usr/bin/env bash
# The test command of the README: installs what the tests need, then runs them all.
# Real parts come from Debian packages (installed here when running as root).
set -euo pipefail
cd "$(dirname "$0")/.."
# Real parts from Debian: prometheus + promtool, alertmanager + amtool, docker-compose, chromium,
# rpm (rpmbuild and rpmsign, for the AIX packages), gpg (signing them), victoria-metrics
# (victoria-metrics + vmalert: the second store).
missing=""
for tool in promtool:prometheus amtool:prometheus-alertmanager docker-compose:docker-compose chromium:chromium \
            rpmbuild:rpm gpg:gpg victoria-metrics:victoria-metrics vmalert:victoria-metrics; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing="$missing ${tool#*:}"
done
if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
# Python packages go into a virtual environment inside the checkout (deploy/lib/venv.sh).
. deploy/lib/venv.sh
ensure_venv '[test]'
export AIX_EXPORTER_REQUIRE_TOOLS=1   # a missing promtool/prometheus fails the run instead of skipping
# Perses, the dashboards' renderer, is built once into a cache outside the checkout, from the Go
# module proxy and npm (about 6 minutes the first time), in the background while lint, types and
# the tests run: only tests/e2e/test_dashboard_render.py needs it, and it waits for this build
# (one build at a time: a lock beside the cache). A failed build fails that test alone, with the
# build's reason; the build's own output is in the log named here.
PERSES_LOG=$(mktemp "${TMPDIR:-/tmp}/aix-exporter-perses-build.XXXXXX")
echo "building Perses in the background (log: $PERSES_LOG)"
"$VENV/bin/python" dashboards/render.py --build >"$PERSES_LOG" 2>&1 &
# the gate before the tests: lint (ruff) and types (mypy), both configured in pyproject.toml
"$VENV/bin/ruff" check --quiet exporter tests bench alerts dashboards deploy
"$VENV/bin/mypy" --no-error-summary
# The tests in parallel (pytest-xdist): four workers on two cores, since most e2e tests wait on a
# server or a deadline (three kept the CPU 147 % busy, four 168 %: bench/perf/RESULTS.md); a
# file's tests stay on one worker (tests/conftest.py: pytest_xdist_make_scheduler).
# AIX_EXPORTER_TEST_WORKERS=0 runs them in this process, one after another.
exec "$VENV/bin/python" -m pytest -q -n "${AIX_EXPORTER_TEST_WORKERS:-4}" "$@"
