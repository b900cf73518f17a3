"""Every subcommand walked through a newcomer's wrong inputs (issue 46): one line on stderr
naming the subcommand (argparse's usage and its error line for exit 2), the right exit code, no
Python traceback, and no output file left behind. The stores are real HTTP servers on loopback:
one refusing (HTTP 503), one a Prometheus API that has one LPAR and no data, and a closed port."""
import http.server
import os
import subprocess
import sys
import threading
import urllib.parse

import pytest

from tests.lib import FIXTURES, free_port
from tests.lib.processes import env
from tests.lib.checks import answer_json

NMON = str(FIXTURES / "nmon" / "tsmnm01-day1-4k.nmon")


class StubPrometheus(http.server.BaseHTTPRequestHandler):
    """A Prometheus API with one LPAR (tsmsrv01:10990) whose series hold nothing in any window;
    under /refuse every answer is HTTP 503 with Prometheus's error body."""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query)
        if url.path.startswith("/refuse"):
            return self.answer(503, {"status": "error", "error": "query processing would load too many samples"})
        if url.path == "/api/v1/label/instance/values":
            match = q.get("match[]", [""])[0]
            known = ["tsmsrv01:10990"]
            return self.answer(200, {"status": "success", "data": [i for i in known if "instance=" not in match
                                                                   or f'instance="{i}"' in match]})
        if url.path in ("/api/v1/query", "/api/v1/query_range"):
            return self.answer(200, {"status": "success", "data": {"resultType": "vector", "result": []}})
        return self.answer(404, {"status": "error", "error": "not found"})

    def answer(self, code, body):
        answer_json(self, code, body)

    def log_message(self, *a):
        pass


@pytest.fixture(scope="module")
def stub():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), StubPrometheus)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


CLOSED = "http://127.0.0.1:9"
WINDOWS = ["--before", "2026-11-20T08:00..2026-11-20T10:00", "--after", "2026-11-20T12:00..2026-11-20T14:00",
           "--tz", "UTC"]
# (subcommand as it names itself, argv with {stub} for the stub's URL, exit code, what the line says)
CASES = [
    # the stores: no scheme, closed port, refusing, unknown instance, no data in a window, no rules
    ("report", ["report", "--prometheus", "127.0.0.1:9090", "--instance", "a:1", "--auto", "--out", "r.md"], 1,
     "not an http:// or https:// URL"),
    ("report", ["report", "--prometheus", CLOSED, "--instance", "a:1", "--auto", "--out", "r.md"], 1,
     "Connection refused"),
    ("report", ["report", "--prometheus", "{stub}/refuse", "--instance", "a:1", "--auto", "--out", "r.md"], 1,
     "HTTP 503: query processing would load too many samples"),
    ("report", ["report", "--prometheus", "{stub}", "--instance", "tsm01:10990", "--auto", "--out", "r.md"], 1,
     "no instance 'tsm01:10990' among the AIX series"),
    ("report", ["report", "--prometheus", "{stub}", "--instance", "tsmsrv01:10990", "--auto", "--out", "r.md"], 1,
     "are the recording rules loaded and backfilled?"),
    ("report", ["report", "--prometheus", "{stub}", "--instance", "tsmsrv01:10990", *WINDOWS, "--out", "r.md"], 1,
     "no data"),
    ("report", ["report", "--prometheus", "http://[::1", "--instance", "a", "--auto", "--out", "r.md"], 1,
     "not a URL"),
    ("report", ["report", "--tsdb", "no-such-dir", "--instance", "a", "--auto", "--out", "r.md"], 1,
     "no-such-dir: no Prometheus blocks in it"),
    ("report", ["report", "--prometheus", "{stub}", "--census", "--out", "c.md"], 1,
     "no LPAR has aix:census_regime:code"),
    ("report", ["report", "--prometheus", CLOSED, "--census", "--out", "c.csv"], 1, "Connection refused"),
    ("report", ["report", "--prometheus", CLOSED, "--instance", "a", "--auto", "--out", "missing/r.md"], 1,
     "does not exist"),
    ("report", ["report", "--prometheus", CLOSED, "--instance", "a", "--auto", "--out", "."], 1, "is a directory"),
    ("report", ["report", "--prometheus", CLOSED, "--auto", "--out", "r.md"], 2, "give --instance INST"),
    ("report", ["report", "--prometheus", CLOSED, "--census", "--out", "c.html"], 2, "writes Markdown or CSV"),
    ("report", ["report", "--prometheus", CLOSED, "--instance", "a", "--auto", "--tz", "Mars/Base", "--out",
                "r.md"], 2, "not a time zone name"),
    ("report", ["report", "--prometheus", CLOSED, "--instance", "a", "--before", "yesterday..today",
                "--after", "1..2", "--out", "r.md"], 1, "not a date-time"),
    ("plan", ["plan", "--prometheus", "localhost:9", "--instance", "a:1", "--out", "p.md"], 1,
     "not an http:// or https:// URL"),
    ("plan", ["plan", "--prometheus", CLOSED, "--instance", "a:1", "--out", "p.md"], 1, "Connection refused"),
    ("plan", ["plan", "--prometheus", "{stub}/refuse", "--instance", "a:1", "--out", "p.md"], 1, "HTTP 503"),
    ("plan", ["plan", "--prometheus", "{stub}", "--instance", "tsm01:10990", "--out", "p.md"], 1,
     "no series of instance 'tsm01:10990'"),
    ("plan", ["plan", "--prometheus", "{stub}", "--instance", "tsmsrv01:10990", "--at", "tomorrow"], 1,
     "not a date-time"),
    ("plan", ["plan", "--tsdb", "no-such-dir", "--instance", "a", "--out", "p.md"], 1, "no Prometheus blocks"),
    ("plan", ["plan", "--prometheus", CLOSED, "--instance", "a", "--out", "missing/p.md"], 1, "does not exist"),
    ("plan", ["plan", "--prometheus", CLOSED, "--out", "p.md"], 2, "required: --instance"),
    # the import: not a recording, no such file, a directory, an unreachable store, wrong options
    ("import nmon", ["import", "nmon", "--tz", "UTC", "not-nmon.txt", "--out", "h.om"], 1,
     "no complete snapshot in any of the 1 file(s)"),
    ("import nmon", ["import", "nmon", "--tz", "UTC", "none.nmon", "--out", "h.om"], 1, "none.nmon: no such file"),
    ("import nmon", ["import", "nmon", "--tz", "UTC", NMON, "--out", "missing/h.om"], 1, "does not exist"),
    ("import nmon", ["import", "nmon", "--tz", "UTC", NMON, "--store", CLOSED], 1, "cannot reach the store"),
    ("import nmon", ["import", "nmon", "--tz", "UTC", NMON, "--store", "127.0.0.1:8428"], 1,
     "not an http:// or https:// URL"),
    ("import nmon", ["import", "nmon", "--tz", "UTC", NMON], 2, "give --out HISTORY.om, --tsdb DIR or --store URL"),
    ("import", ["import", "csv", NMON], 2, "formats: nmon"),
    # the simulator
    ("simulate", ["simulate", "--scenario", "steady", "--duration", "60", "--openmetrics", "missing/s.om"], 1,
     "does not exist"),
    ("simulate", ["simulate", "--scenario", "steady", "--out", "/proc/self/no-such-dir"], 1,
     "/proc/self/no-such-dir"),
    ("simulate", ["simulate", "--scenario", "nosuch", "--out", "d"], 2, "invalid choice"),
    ("simulate", ["simulate", "--scenario", "steady"], 2, "give --out DIR, --openmetrics FILE and/or --tsdb DIR"),
    # the exporter itself
    ("", ["--source", "replay:no-such-dir", "--once"], 1, "replay directory 'no-such-dir' does not exist"),
    ("", ["--source", "elsewhere:x", "--once"], 1, "elsewhere"),
    ("", ["--config.file", "none.yml", "--check-config"], 1, "none.yml"),
    ("", ["--source", "simulate:steady", "--web.listen-address", "nohost:notaport"], 1, "cannot listen on"),
    ("", ["--path.commands", "relative", "--source", "simulate:steady", "--once"], 1, "not an absolute path"),
    ("", ["--log.file.max-bytes", "10", "--source", "simulate:steady", "--once"], 2, "--log.file.max-bytes"),
]


@pytest.mark.parametrize("name,argv,code,says", CASES, ids=[" ".join(c[1])[:70] for c in CASES])
def test_a_wrong_input_is_one_line_and_leaves_nothing(tmp_path, stub, name, argv, code, says):
    (tmp_path / "not-nmon.txt").write_text("hello\nworld\n")
    before = sorted(os.listdir(tmp_path))
    argv = [a.replace("{stub}", stub) for a in argv]
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", *argv], capture_output=True, text=True,
                       env=env(), cwd=tmp_path, timeout=120)
    # (the report's progress lines, one per figure on a stderr that is not a terminal, come first)
    lines = [line for line in r.stderr.strip().splitlines() if not line.startswith("querying ")]
    assert "Traceback" not in r.stderr and r.returncode == code, r.stderr
    prog = f"aix-exporter {name}".strip()
    if name == "import":   # no format, or one there is not: the usage and the formats
        assert lines[0].startswith("usage: aix-exporter import FORMAT") and lines[1] == "formats: nmon", lines
    elif code == 2:        # argparse's usage, then its error line
        assert lines[0].startswith("usage: ") and lines[-1].startswith(f"{prog}: error: "), lines
    else:
        assert len(lines) == 1 and lines[0].startswith(f"{prog}: "), lines
    assert says in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == before        # no output file, no temporary file, no directory
