"""Alerts delivered end to end with real parts: the exporter on simulate:exhaustion running
accelerated, Prometheus with our rules, Alertmanager, and a webhook receiver in this test.
The critical large-page alert must arrive before the simulated ANR0358E line is written."""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aix_exporter.simulate.model import Model
from aix_exporter.simulate.scenarios import get
from tests.lib import ROOT, free_port, need
from tests.lib.stores import start_prometheus
from tests.lib.processes import start, stop, wait_http

sys.path.insert(0, str(ROOT / "alerts"))
import build_rules as build  # noqa: E402

SPEED = 360.0          # one real second = six simulated minutes
AT = 5 * 3600.0        # start 5 simulated hours in: 19 large pages free, 5 more used per hour
# Durations scaled to the accelerated clock; the expressions are the shipped ones.
OVERRIDES = "{ _config+:: { mandatoryFor: '5s', mandatoryGrowthWindow: '30s', mandatoryGrowthHorizonSeconds: 20 } }"


def test_mandatory_large_page_alert_reaches_webhook_before_anr0358e(tmp_path):
    am_bin = need("prometheus-alertmanager")
    received = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append((time.time(), body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *a):
            pass

    hook = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{hook.server_address[1]}/"

    am_port = free_port()
    (tmp_path / "am.yml").write_text(
        "route:\n  receiver: hook\n  group_by: [alertname]\n  group_wait: 1s\n  group_interval: 1s\n  repeat_interval: 1h\n"
        f"receivers:\n  - name: hook\n    webhook_configs:\n      - url: {hook_url}\n        send_resolved: false\n")
    am = start([am_bin, f"--config.file={tmp_path / 'am.yml'}", f"--storage.path={tmp_path / 'am'}",
                f"--web.listen-address=127.0.0.1:{am_port}", "--cluster.listen-address="])
    exp_port = free_port()
    rules = tmp_path / "rules.yml"
    rules.write_text(build.render(build.compile_rules(OVERRIDES)))
    model = Model(get("exhaustion"))
    anr0358e_sim = model.exhausted_at + 60
    t0 = time.time()
    exporter = start([sys.executable, "-m", "aix_exporter.cli", "--source", f"simulate:exhaustion?speed={SPEED:g}&at={AT:g}",
                      "--web.listen-address", f"127.0.0.1:{exp_port}"])
    # the simulator's clock starts when the exporter builds its source, after t0
    anr0358e_wall_earliest = t0 + (anr0358e_sim - AT) / SPEED
    prom = None
    try:
        wait_http(f"http://127.0.0.1:{am_port}/-/ready", proc=am)
        wait_http(f"http://127.0.0.1:{exp_port}/metrics", proc=exporter)
        cfg = ("global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
               f"rule_files: ['{rules}']\n"
               f"alerting: {{alertmanagers: [{{static_configs: [{{targets: ['127.0.0.1:{am_port}']}}]}}]}}\n"
               f"scrape_configs: [{{job_name: aix, static_configs: [{{targets: ['127.0.0.1:{exp_port}']}}]}}]\n")
        prom = start_prometheus(tmp_path, cfg)
        deadline = anr0358e_wall_earliest + 30
        alert = None
        while time.time() < deadline and alert is None:
            for when, body in received:
                for a in body["alerts"]:
                    if a["labels"]["alertname"] == "AixMandatoryLargePagesAtRisk":
                        alert = (when, a)
            time.sleep(0.2)
        assert alert is not None, f"no alert received; webhook got {[b['alerts'][0]['labels'] for _, b in received]}"
        when, a = alert
        assert when < anr0358e_wall_earliest, (when - t0, anr0358e_wall_earliest - t0)
        assert a["labels"]["severity"] == "critical" and a["labels"]["job"] == "aix"
        assert a["annotations"]["runbook_url"].endswith("AixMandatoryLargePagesAtRisk.md")
        assert "LARGE_PAGE_DATA=M" in a["annotations"]["description"]
        # ...and the ANR0358E does get logged afterwards (the simulation really ran out)
        while time.time() < anr0358e_wall_earliest + 20:
            if prom.query('aix_tsm_messages_total{msgid="ANR0358E"} > 0'):
                break
            time.sleep(0.5)
        assert prom.query('aix_tsm_messages_total{msgid="ANR0358E"} > 0'), "ANR0358E never logged"
    finally:
        if prom:
            stop(prom.proc)
        stop(exporter)
        stop(am)
        hook.shutdown()
