#!/usr/bin/env bash
# The README's run command: the simulated demo on any Linux machine.
#
#   bash deploy/demo/run.sh
#
# Two simulated LPARs, one story:
#   tsmsrv01 (job aix)        the IBM case study: 4 h with 4 KB pages and pin-lock contention,
#                             the tuning, then 16 MB pages. Its 8 h of history are backfilled,
#                             recording rules included, and the live exporter continues it at
#                             real speed from where the history ends.
#   tsmsrv02 (job demo-fast)  mandatory large pages (LARGE_PAGE_DATA=M) running out, on a clock
#                             60 times fast: AixMandatoryLargePagesAtRisk and AixRestartWouldFail
#                             fire within about a minute, the server logs ANR9999D and ANR0358E about three minutes
#                             in, and their alerts fire. Its rules are the shipped expressions with
#                             durations divided by 60 (alerts/demo-fast-rules.yml).
# History and live scrape carry the same target labels (one series per metric).
#
# 0. without Prometheus: as root with apt-get, installs Debian's prometheus and
#    prometheus-alertmanager (as the test command does); otherwise says in one line how, and
#    runs the exporters alone;
# 1. installs the exporter from this checkout into a virtual environment inside it, with the
#    report extra (deploy/lib/venv.sh: works with Debian's externally managed python3);
# 2. with the Debian package 'prometheus': starts Prometheus scraping both exporters, backfills
#    both histories (at once) and their recording rules beside it, fills tsmsrv01's gap between
#    the history and its first live scrape, and restarts Prometheus with all of it, our rules
#    and Alertmanager (when 'prometheus-alertmanager' is installed);
# 3. runs both exporters until Ctrl-C or SIGTERM, which stops everything.
# Environment: DEMO_PORT (tsmsrv01's exporter, default 10990; tsmsrv02 uses DEMO_PORT+1),
# DEMO_PROM_PORT (default 19090), DEMO_AM_PORT (default 19093), DEMO_DIR (default ./demo-data).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Prometheus and Alertmanager (Debian packages prometheus, prometheus-alertmanager) ..."
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            prometheus prometheus-alertmanager >/dev/null; } \
            || echo "could not install them: running the exporters alone"
    else
        echo "Prometheus is not installed: the exporters run alone (for the whole demo, as root: apt-get install prometheus prometheus-alertmanager)"
    fi
fi
PORT=${DEMO_PORT:-10990}
PORT2=$((PORT + 1))
PROM_PORT=${DEMO_PROM_PORT:-19090}
AM_PORT=${DEMO_AM_PORT:-19093}
DIR=${DEMO_DIR:-$ROOT/demo-data}
AT=28800            # the case study's 8 simulated hours: live data continues the history
FAST_SPEED=60       # tsmsrv02: one simulated hour per real minute
FAST_AT=20880       # 5.8 simulated hours in: 15 large pages free, the pool runs out 3 hours later
TARGET1="job=aix,instance=tsmsrv01:10990,lpar=tsmsrv01"
TARGET2="job=demo-fast,instance=tsmsrv02:10990,lpar=tsmsrv02"

. deploy/lib/venv.sh
ensure_venv '[report]'   # the report extra: the README's HTML report works after the demo
PY="$VENV/bin/python"
mkdir -p "$DIR"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# The exporters start first: their simulated clocks read AT (FAST_AT) at END, where the histories
# end, so live counters join the history's however long the exporters take to start.
END=$(date +%s)
"$PY" -m aix_exporter.cli --source "simulate:case-study?at=$AT&start=$END" \
    --web.listen-address "127.0.0.1:$PORT" >"$DIR/exporter-tsmsrv01.log" 2>&1 &
PIDS+=($!)
"$PY" -m aix_exporter.cli --source "simulate:exhaustion?at=$FAST_AT&speed=$FAST_SPEED&start=$END" \
    --web.listen-address "127.0.0.1:$PORT2" >"$DIR/exporter-tsmsrv02.log" 2>&1 &
PIDS+=($!)

wait_ready() {  # URL PID [MIN]: poll until it answers (90 s at most), fail at once if PID died;
                # with MIN, URL is a Prometheus query whose first value must reach MIN
    "$PY" - "$1" "$2" "${3:-}" <<'PYEOF'
import json, os, sys, time, urllib.request
url, pid, least = sys.argv[1], int(sys.argv[2]), sys.argv[3]
deadline = time.monotonic() + 90
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            if not least:
                sys.exit(0)
            res = json.load(r)["data"]["result"]
            if res and float(res[0]["value"][1]) >= float(least):
                sys.exit(0)
        time.sleep(0.5)
    except Exception:
        try:
            os.kill(pid, 0)
        except OSError:
            sys.exit(f"not ready: {url} (the process ended; see its log in the demo directory)")
        time.sleep(0.2)
sys.exit(f"not ready after 90 s: {url}")
PYEOF
}

wait_ready "http://127.0.0.1:$PORT/" "${PIDS[0]}" || { cat "$DIR/exporter-tsmsrv01.log" >&2; exit 1; }
wait_ready "http://127.0.0.1:$PORT2/" "${PIDS[1]}" || { cat "$DIR/exporter-tsmsrv02.log" >&2; exit 1; }

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    RULES="$ROOT/alerts/aix-rules.yml $ROOT/alerts/demo-fast-rules.yml"
    rm -rf "$DIR/tsdb" "$DIR/history-tsdb" "$DIR/rule-blocks" "$DIR/gap-blocks" \
        "$DIR/prometheus.log" "$DIR/prometheus-backfill.log"   # (each Prometheus start appends to its log)
    mkdir -p "$DIR/tsdb" "$DIR/history-tsdb"
    AM_LINE=""
    if command -v prometheus-alertmanager >/dev/null 2>&1; then
        printf 'route:\n  receiver: demo\n  group_wait: 5s\n  group_interval: 10s\nreceivers:\n  - name: demo\n' \
            >"$DIR/alertmanager.yml"
        prometheus-alertmanager --config.file="$DIR/alertmanager.yml" --storage.path="$DIR/alertmanager" \
            --web.listen-address="127.0.0.1:$AM_PORT" --cluster.listen-address= >"$DIR/alertmanager.log" 2>&1 &
        PIDS+=($!)
        AM_LINE="alerting: {alertmanagers: [{static_configs: [{targets: ['127.0.0.1:$AM_PORT']}]}]}"
    fi
    write_config() {  # FILE [scrape|all]: nothing (for the rule backfill's Prometheus, which promtool
        # only queries), the scrape jobs, or the scrape jobs with the rules and Alertmanager
        {
            echo "global: {scrape_interval: 15s, evaluation_interval: 15s}"
            if [ "${2:-}" = all ]; then
                echo "$AM_LINE"
                echo "rule_files:"
                for r in $RULES; do echo "  - $r"; done
            fi
            if [ -n "${2:-}" ]; then
                echo "scrape_configs:"
                echo "  - job_name: aix"
                echo "    static_configs: [{targets: ['127.0.0.1:$PORT'], labels: {lpar: tsmsrv01}}]"
                echo "    relabel_configs: [{target_label: instance, replacement: 'tsmsrv01:10990'}]"
                echo "  - job_name: demo-fast"
                echo "    static_configs: [{targets: ['127.0.0.1:$PORT2'], labels: {lpar: tsmsrv02}}]"
                echo "    relabel_configs: [{target_label: instance, replacement: 'tsmsrv02:10990'}]"
            fi
        } >"$1"
    }
    start_prometheus() {  # CONFIG TSDB PORT LOG: its PID in PROM_PID, ready
        prometheus --config.file="$1" --storage.tsdb.path="$2" --web.listen-address="127.0.0.1:$3" \
            --storage.tsdb.retention.time=30d >>"$4" 2>&1 &
        PROM_PID=$!
        PIDS+=($!)
        wait_ready "http://127.0.0.1:$3/-/ready" "$PROM_PID"
    }
    # Prometheus scrapes from the start (its first scrape comes 5-20 s after it starts: service
    # discovery, then each target's offset in the interval), while the histories and their
    # recording rules are backfilled beside it; it restarts with all of it, rules and
    # Alertmanager added, before the banner (a block moved into a running Prometheus is read
    # only at its next reload, a minute later).
    write_config "$DIR/prometheus.yml" scrape
    start_prometheus "$DIR/prometheus.yml" "$DIR/tsdb" "$PROM_PORT" "$DIR/prometheus.log"
    SCRAPER_PID=$PROM_PID
    echo "backfilling 8 simulated hours of tsmsrv01 and 5.8 of tsmsrv02, ending now ..."
    # tsmsrv01 at the live scrape interval throughout: where the spacing changed (60 s to 15 s) a
    # [5m] rate() extrapolated less and read the tape up to 15 % low for five minutes. The two
    # histories are written at once (two cores), each turned into blocks as soon as it is whole;
    # day-sized blocks, rule blocks too: Prometheus merges the overlapping ones in its first
    # minute, and the fewer they are the fewer lines that takes in its log
    history() {  # SCENARIO OM SIMULATE-OPTIONS...
        local scenario=$1 om=$2
        shift 2
        "$PY" -m aix_exporter.cli simulate --scenario "$scenario" --openmetrics "$om" --end "$END" "$@" >/dev/null
        promtool tsdb create-blocks-from openmetrics --max-block-duration=24h "$om" "$DIR/history-tsdb" >/dev/null
    }
    history case-study "$DIR/tsmsrv01.om" --duration "$AT" --target "$TARGET1" --step 15 &
    HISTORY1=$!
    PIDS+=($!)
    history exhaustion "$DIR/tsmsrv02.om" --duration "$FAST_AT" --target "$TARGET2" --tail 600 &
    HISTORY2=$!
    PIDS+=($!)
    wait "$HISTORY1"
    wait "$HISTORY2"
    echo "backfilling the recording rules over the history ..."
    # from a Prometheus of its own over the history alone, on a free port
    BACKFILL_PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    write_config "$DIR/prometheus-backfill.yml"
    start_prometheus "$DIR/prometheus-backfill.yml" "$DIR/history-tsdb" "$BACKFILL_PORT" "$DIR/prometheus-backfill.log"
    BACKFILL_PID=$PROM_PID
    # one promtool a rule file, at once (two cores; no rule reads another's recorded series)
    BACKFILLS=()
    for r in $RULES; do
        promtool tsdb create-blocks-from rules --start "$((END - AT - 60))" --end "$END" \
            --url "http://127.0.0.1:$BACKFILL_PORT" --eval-interval 60s --max-block-duration=24h \
            --output-dir "$DIR/rule-blocks" "$r" >"$DIR/rule-backfill-$(basename "$r" .yml).log" 2>&1 &
        BACKFILLS+=($!)
        PIDS+=($!)
    done
    for pid in "${BACKFILLS[@]}"; do wait "$pid"; done
    kill "$BACKFILL_PID" && wait "$BACKFILL_PID" 2>/dev/null || true
    # Ready when Prometheus holds a live scrape of both exporters: until then a rate() window
    # that ends in the gap after the backfilled history reads up to a tenth low.
    wait_ready "http://127.0.0.1:$PROM_PORT/api/v1/query?query=count(up%3D%3D1)" "$SCRAPER_PID" 2
    # The history ends at END and the first live scrape comes 5-20 s after Prometheus starts: a
    # rate() window that starts in that gap reads low (up to a tenth) five minutes on.
    # tsmsrv01's gap (its clock runs at real speed) is filled from the same model, up to a
    # second before that first scrape.
    FIRST=$("$PY" - "http://127.0.0.1:$PROM_PORT" <<'PYEOF'
import json, sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": 'up{job="aix"}[10m]'})
with urllib.request.urlopen(f"{sys.argv[1]}/api/v1/query?{q}", timeout=10) as r:
    print(int(min(float(t) for s in json.load(r)["data"]["result"] for t, _ in s["values"])))
PYEOF
)
    GAP_END=$((FIRST - 1))
    if [ "$GAP_END" -gt "$((END + 1))" ]; then
        "$PY" -m aix_exporter.cli simulate --scenario case-study --openmetrics "$DIR/tsmsrv01-gap.om" \
            --end "$GAP_END" --duration "$((AT + GAP_END - END))" --tail "$((GAP_END - END))" --after "$END" \
            --target "$TARGET1" >/dev/null
        mkdir -p "$DIR/gap-blocks"
        promtool tsdb create-blocks-from openmetrics --max-block-duration=24h "$DIR/tsmsrv01-gap.om" \
            "$DIR/gap-blocks" >/dev/null
    fi
    # No restart: the blocks go into the running Prometheus's data directory, which it reads again
    # every minute, and SIGHUP loads the rules and Alertmanager. (A restart left 10-30 s without
    # a scrape: five minutes later every [5m] rate() whose window began in that hole read up to 7 %
    # low, the README's tape query included: issue 62.)
    for block in "$DIR"/history-tsdb/01* "$DIR"/rule-blocks/01* "$DIR"/gap-blocks/01*; do
        if [ -f "$block/meta.json" ]; then mv "$block" "$DIR/tsdb/"; fi
    done
    rm -rf "$DIR/history-tsdb" "$DIR/rule-blocks" "$DIR/gap-blocks"
    PROM_PID=$SCRAPER_PID
    # The rules only once it serves the blocks (four hours back): a rule evaluated before would
    # see the live minutes alone, and a [5m] rate() over them reads a third of the truth
    # (AixTapeThroughputDrop went pending at the banner).
    wait_ready "http://127.0.0.1:$PROM_PORT/api/v1/query?query=count(aix_vmstat_cpu_ratio)&time=$((END - 4 * 3600))" \
        "$PROM_PID" 1
    write_config "$DIR/prometheus.yml" all
    RELOADED=$(date +%s)
    kill -HUP "$SCRAPER_PID"
    wait_ready "http://127.0.0.1:$PROM_PORT/api/v1/query?query=count(timestamp(aix:regime_page_size:bytes)%3E$RELOADED)" \
        "$PROM_PID" 1
    # Debian's prometheus 2.42 serves its pages under /classic/ (no /alerts); upstream builds at /
    UI="http://127.0.0.1:$PROM_PORT"
    if "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "$UI/classic/alerts" \
        >/dev/null 2>&1; then
        UI="$UI/classic"
    fi
    cat <<EOF
Prometheus:   $UI/graph   (log: $DIR/prometheus.log)
Alerts:       $UI/alerts   (tsmsrv02: AixMandatoryLargePagesAtRisk and AixRestartWouldFail in about a minute,
              AixTsmDiagnosticError and AixTsmDatabaseInitFailed about three minutes in;
              AixLargePagePoolNearlyExhausted and AixLargePagePoolFillingUp pending until the server stops)
$( [ -n "$AM_LINE" ] && echo "Alertmanager: amtool --alertmanager.url=http://127.0.0.1:$AM_PORT alert query   (Debian's has no web UI)" )
Try, on tsmsrv01 (the case study; compare 5 h ago with now):
  sum by (instance) (rate(aix_tape_read_bytes_total{job="aix"}[5m]) + rate(aix_tape_written_bytes_total{job="aix"}[5m])) / 2^20
      tape MiB/s, read + written: about 139 with 4 KB pages, 378 with 16 MB pages
  aix_splat_function_miss_ratio{job="aix",function=".pin_seg_range"}     pin-lock miss ratio: 0.25 -> 0
  aix_vmstat_cpu_ratio{job="aix",mode=~"user|sys"}                       sys several times user, then user up
EOF
else
    echo "(Debian package 'prometheus' not installed: running the exporters alone)"
fi
echo "Exporters:    http://127.0.0.1:$PORT/metrics (tsmsrv01)   http://127.0.0.1:$PORT2/metrics (tsmsrv02, 60x clock)"
echo "Ctrl-C stops everything."
wait "${PIDS[0]}"
