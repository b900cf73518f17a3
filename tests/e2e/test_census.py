"""The fleet census (issue 31): aix-exporter report --census ranks LPARs by large-page state and
contention from the recording rules, on Prometheus and on VictoriaMetrics, and its columns are
the fleet-census dashboard's. Seven LPARs' recorded series, written here, in real stores."""
import csv
import io
import subprocess
import sys
import time

import pytest

from tests.lib.stores import store_of_openmetrics
from tests.lib.processes import env, stop

# instance: (state code, system/user CPU, pin miss ratio, pin lock misses/s, tape bytes/s)
FLEET = {
    "calm:10990": (2, 1.0, 0.005, 12, 378 << 20),
    "ibm64k:10990": (1, 1.1, 0.02, 250, 350 << 20),
    "contended:10990": (0, 5.0, 0.25, 3825, 139 << 20),
    "mild:10990": (0, 1.5, 0.02, 150, 300 << 20),
    "fallback:10990": (3, 3.0, 0.10, 1200, 200 << 20),
    "atrisk:10990": (4, 1.1, 0.01, 40, 350 << 20),
    "down:10990": (5, 0.5, 0.0, 0, 0),
}
# aix:tsm_health:code of the LPARs that run a TSM server with the checklist (the others: none)
TSM = {"down:10990": 2, "contended:10990": 1, "calm:10990": 0}
ORDER = ["down:10990", "atrisk:10990", "fallback:10990", "calm:10990", "ibm64k:10990", "contended:10990", "mild:10990"]


def history(start, minutes=180):
    out = []
    for record, k in (("aix:census_regime:code", 0), ("aix:cpu_sys_per_user:ratio", 1), ("aix:pin_lock_miss:ratio", 2),
                      ("aix:pin_lock_misses:rate", 3), ("aix:tape_bytes_all:rate5m", 4)):
        out.append(f"# TYPE {record.replace(':', '_')} gauge")   # (the family line is not read by either import)
        for instance, values in FLEET.items():
            for m in range(minutes):
                out.append(f'{record}{{instance="{instance}",job="aix"}} {values[k]} {start + 60 * m}')
    out.append("# TYPE aix_tsm_health_code gauge")
    for instance, code in TSM.items():
        out += [f'aix:tsm_health:code{{instance="{instance}",job="aix"}} {code} {start + 60 * m}' for m in range(minutes)]
    return "\n".join(out) + "\n# EOF\n"


@pytest.fixture(scope="module", params=["prometheus", "victoriametrics"])
def fleet_store(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"census-{request.param}")
    start = (int(time.time()) // 3600 - 4) * 3600
    om = tmp / "fleet.om"
    om.write_text(history(start))
    store = store_of_openmetrics(request.param, tmp, om)
    store.end = start + 179 * 60
    yield store
    stop(store.proc)


def run(store, tmp_path, out, *extra):
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "report", "--prometheus", store.url, "--census",
                        "--end", str(store.end), "--window", "2h", "--tz", "UTC", "--out", str(tmp_path / out), *extra],
                       capture_output=True, text=True, env=env(), timeout=120)
    return r


def test_census_ranks_the_fleet_worst_first(fleet_store, tmp_path):
    r = run(fleet_store, tmp_path, "census.csv")
    assert r.returncode == 0, r.stderr
    assert "wrote" in r.stdout and "7 LPARs; worst: down:10990 (down after ANR0358E)" in r.stdout
    rows = list(csv.DictReader(io.StringIO((tmp_path / "census.csv").read_text())))
    assert [row["instance"] for row in rows] == ORDER
    by = {row["instance"]: row for row in rows}
    assert by["fallback:10990"]["state"] == "falling back (pool full)" and by["contended:10990"]["state"] == "4 KB pages"
    assert by["ibm64k:10990"]["state"] == "64 KB pages" and by["calm:10990"]["state"] == "16 MB pages"
    assert float(by["contended:10990"]["sys_per_user"]) == pytest.approx(5.0)
    assert float(by["contended:10990"]["pin_miss"]) == pytest.approx(0.25)
    assert float(by["contended:10990"]["pin_misses_s"]) == pytest.approx(3825)
    assert float(by["calm:10990"]["pin_misses_s"]) == pytest.approx(12)
    assert float(by["calm:10990"]["tape_mib_s"]) == pytest.approx(378.0)
    assert {i: row["tsm_health"] for i, row in by.items() if row["tsm_health"]} == {
        "down:10990": "2.0", "contended:10990": "1.0", "calm:10990": "0.0"}
    r = run(fleet_store, tmp_path, "census.md")
    text = (tmp_path / "census.md").read_text()
    assert ("By state: down after ANR0358E 1, mandatory at risk 1, falling back (pool full) 1, 16 MB pages 1, "
            "64 KB pages 1, 4 KB pages 2") in text
    assert ("| LPAR | job | state | system / user CPU | pin_seg_range miss ratio | pin lock misses/s | tape MiB/s | ASO "
            "| TSM health |\n") in text
    assert "| contended:10990 | aix | 4 KB pages | 5.00 | 0.2500 | 3,825 | 139.0 | n/a | warning |\n" in text
    assert "| mild:10990 | aix | 4 KB pages | 1.50 | 0.0200 | 150 | 300.0 | n/a | n/a |\n" in text


def test_census_needs_the_rules_and_says_so(fleet_store, tmp_path):
    r = run(fleet_store, tmp_path, "c.md", "--selector", 'job="nope"')
    assert r.returncode == 1 and "are the recording rules loaded" in r.stderr



def test_the_census_dashboard_counts_each_state_and_shows_each_lpars_figures(fleet_store):
    """aix-fleet-census.json over the same seven LPARs, by value (issue 48, every panel): the
    stat panel counts each state once per LPAR (4 KB pages twice: contended and mild), and the
    table's columns are each LPAR's recorded figures, tape in MiB/s (bytes / 1048576); the ASO
    column is empty, as no LPAR here has asoo's series."""
    from tests.e2e.test_dashboard_queries import substitute
    from tests.unit.test_dashboards import dashboards
    board = dashboards()["aix-fleet-census.json"]["panels"]

    def values(expr, key="instance"):
        return {r["metric"].get(key): float(r["value"][1]) for r in fleet_store.query(substitute(expr), fleet_store.end)}
    stat = next(p for p in board if p["type"] == "stat")
    assert {t["legendFormat"]: values(t["expr"])[None] for t in stat["targets"]} == {
        "down after ANR0358E": 1, "mandatory at risk": 1, "falling back": 1, "16 MB pages": 1, "64 KB pages": 1,
        "4 KB pages": 2}
    table = next(p for p in board if p["title"].startswith("Fleet: state, contention and tape"))
    state, sys_per_user, miss, misses, tape, aso, tsm = (values(t["expr"]) for t in table["targets"])
    for instance, (code, spu, ratio, per_s, tape_bytes) in FLEET.items():
        assert state[instance] == code, instance
        assert sys_per_user[instance] == pytest.approx(spu), instance
        assert miss[instance] == pytest.approx(ratio), instance
        assert misses[instance] == pytest.approx(per_s), instance
        assert tape[instance] == pytest.approx(tape_bytes / 1048576), instance
    assert aso == {}
    assert tsm == TSM   # (the code; its name is the tsm label, as the State column's)
    named = {r["metric"]["instance"]: r["metric"]["tsm"]
             for r in fleet_store.query(substitute(table["targets"][6]["expr"]), fleet_store.end)}
    assert named == {"down:10990": "critical", "contended:10990": "warning", "calm:10990": "ok"}
