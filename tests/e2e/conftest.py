"""The end-to-end tests' shared fixtures: the case study's history, a real Prometheus and
VictoriaMetrics over it (the stores themselves: tests/lib/stores.py)."""
import os
import subprocess
import time

import pytest

from tests.lib import ROOT, need
from tests.lib.processes import stop
from tests.lib.stores import (DEMO_PROM_PORT, Prom, blocks_from, import_openmetrics, port_free, simulated_history,
                              start_prometheus, start_victoria, vmalert_replay)

@pytest.fixture(scope="session")
def case_study_history(tmp_path_factory):
    """The case-study scenario backfilled into a TSDB: 8 simulated hours ending now."""
    need("promtool")
    tmp = tmp_path_factory.mktemp("case-study")
    om = tmp / "history.om"
    end = float(int(time.time()) // 60 * 60)
    simulated_history("case-study", om, end)
    tsdb = tmp / "tsdb"
    blocks_from(om, tsdb)
    return tsdb, end


@pytest.fixture(scope="session")
def case_study_prometheus(request, tmp_path_factory):
    """Prometheus over the backfilled history, with our recording rules backfilled too
    (promtool tsdb create-blocks-from rules), as a user would load a before/after window.
    AIX_EXPORTER_CASE_STUDY_PROMETHEUS="URL END" names one already serving it (ending at END,
    Unix seconds): bench/mutation/dashboards.py starts it once for all its runs."""
    given = os.environ.get("AIX_EXPORTER_CASE_STUDY_PROMETHEUS")
    if given:
        url, end = given.split()
        p = Prom(url, None)
        p.end = float(end)
        yield p
        return
    tsdb, end = request.getfixturevalue("case_study_history")
    tmp = tmp_path_factory.mktemp("prom-cs")
    rules = str(ROOT / "alerts" / "aix-rules.yml")
    cfg = f"global:\n  scrape_interval: 60s\n  evaluation_interval: 60s\nrule_files:\n  - {rules}\n"
    first = start_prometheus(tmp, cfg, tsdb=tsdb)
    out = tmp / "rule-blocks"
    subprocess.run([need("promtool"), "tsdb", "create-blocks-from", "rules", "--start", str(int(end - 8 * 3600 - 60)),
                    "--end", str(int(end)), "--url", first.url, "--eval-interval", "60s", "--output-dir", str(out), rules],
                   check=True, capture_output=True, timeout=600)
    stop(first.proc)
    for block in out.iterdir():
        block.rename(tsdb / block.name)
    # on the demo's port when it is free, so that the README's commands run here exactly as typed
    p = start_prometheus(tmp, cfg, tsdb=tsdb, port=DEMO_PROM_PORT if port_free(DEMO_PROM_PORT) else None)
    p.end = end
    yield p
    stop(p.proc)


@pytest.fixture(scope="session")
def case_study_victoria(case_study_history, tmp_path_factory):
    """VictoriaMetrics holding the same case-study history as case_study_prometheus, with our
    recording rules backfilled by vmalert -replay."""
    tsdb, end = case_study_history
    tmp = tmp_path_factory.mktemp("vm-cs")
    v = start_victoria(tmp)
    import_openmetrics(v.url, tsdb.parent / "history.om")
    vmalert_replay(tmp, v.url, ROOT / "alerts" / "aix-rules.yml", end - 8 * 3600 - 60, end, groups={"aix.rules"})
    v.end = end
    yield v
    stop(v.proc)


@pytest.fixture(params=["prometheus", "victoriametrics"])
def case_study_store(request):
    """The case-study history in each store in turn: Prometheus (promtool backfill) and
    VictoriaMetrics (import API, vmalert -replay)."""
    return request.getfixturevalue("case_study_prometheus" if request.param == "prometheus" else "case_study_victoria")
