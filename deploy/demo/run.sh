#!/usr/bin/env bash
# The README's run command: the simulated demo on any Linux machine.
#
#   bash deploy/demo/run.sh
#
# 1. installs the exporter from this checkout into a virtual environment inside it
#    (deploy/lib/venv.sh: works with Debian's externally managed python3);
# 2. when the Debian package 'prometheus' is installed: backfills 8 simulated
#    hours of the case study (4 KB regime, tuning, 16 MB regime) and starts a
#    local Prometheus with our rules that scrapes the exporter;
# 3. runs the exporter on simulate:case-study, continuing after the tuning.
# Ctrl-C stops everything. Environment: DEMO_PORT (exporter, default 10990),
# DEMO_PROM_PORT (default 19090), DEMO_SPEED (default 1), DEMO_DIR (default ./demo-data).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PORT=${DEMO_PORT:-10990}
PROM_PORT=${DEMO_PROM_PORT:-19090}
SPEED=${DEMO_SPEED:-1}
DIR=${DEMO_DIR:-$ROOT/demo-data}
AT=28800   # end of the case study's 8 simulated hours: live data continues the history

. deploy/lib/venv.sh
ensure_venv ''
mkdir -p "$DIR"
PROM_PID=""
cleanup() { [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    END=$(date +%s)
    rm -rf "$DIR/tsdb" && mkdir -p "$DIR/tsdb"
    echo "backfilling the case-study history (8 simulated hours ending now) ..."
    "$VENV/bin/python" -m aix_exporter.cli simulate --scenario case-study --openmetrics "$DIR/history.om" --end "$END" >/dev/null
    promtool tsdb create-blocks-from openmetrics "$DIR/history.om" "$DIR/tsdb" >/dev/null
    rules=$(ls "$ROOT"/alerts/*rules*.yml 2>/dev/null || true)
    {
        echo "global: {scrape_interval: 15s, evaluation_interval: 15s}"
        if [ -n "$rules" ]; then echo "rule_files:"; for r in $rules; do echo "  - $r"; done; fi
        echo "scrape_configs:"
        echo "  - job_name: aix"
        echo "    static_configs: [{targets: ['127.0.0.1:$PORT'], labels: {lpar: demo-tsm01}}]"
    } > "$DIR/prometheus.yml"
    prometheus --config.file="$DIR/prometheus.yml" --storage.tsdb.path="$DIR/tsdb" \
        --web.listen-address="127.0.0.1:$PROM_PORT" --storage.tsdb.retention.time=30d \
        >"$DIR/prometheus.log" 2>&1 &
    PROM_PID=$!
    echo "Prometheus:  http://127.0.0.1:$PROM_PORT  (log: $DIR/prometheus.log)"
    echo "  try:  sum(rate(aix_tape_written_bytes_total[5m]))/2^20   tape MiB/s, 4 KB regime 5.5h ago vs now"
    echo "        aix_splat_function_miss_ratio{function=\".pin_seg_range\"}   pin-lock miss ratio"
else
    echo "(Debian package 'prometheus' not installed: running the exporter alone)"
fi
echo "Exporter:    http://127.0.0.1:$PORT/metrics  (source simulate:case-study, 16 MB regime after tuning)"
"$VENV/bin/python" -m aix_exporter.cli --source "simulate:case-study?at=$AT&speed=$SPEED" \
    --web.listen-address "127.0.0.1:$PORT" &
EXPORTER_PID=$!
cleanup() {
    kill "$EXPORTER_PID" 2>/dev/null || true
    [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null || true
}
wait "$EXPORTER_PID"
