"""Log lines parse as logfmt (issue 29): ISO 8601 timestamps, lower-case levels, msg= on every
line, values with blanks quoted; or one JSON object a line."""
import io
import json
import logging
import re

from aix_exporter import logfmt

# logfmt as the Go parser (github.com/go-logfmt/logfmt) reads it: key=value, value bare or quoted
PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_.]*)=("(?:[^"\\]|\\.)*"|[^\s"=]+|)(?:\s+|$)')


def parse(line):
    out, pos = {}, 0
    for m in PAIR.finditer(line):
        assert m.start() == pos, (line, pos)
        v = m.group(2)
        out[m.group(1)] = json.loads(v) if v.startswith('"') else v
        pos = m.end()
    assert pos == len(line), line
    return out


def emit(fmt, level, message, *args):
    stream = io.StringIO()
    logfmt.setup("DEBUG", fmt, stream)
    try:
        logging.getLogger("aix_exporter").log(level, message, *args)
    finally:
        logging.getLogger().handlers[:] = []
    return stream.getvalue().rstrip("\n")


def test_every_kind_of_line_we_write_parses():
    cases = [
        ("msg=listening address=%s tls=%s", (":10990", False),
         {"msg": "listening", "address": ":10990", "tls": "False"}),
        ("collector=tsm command='TSM activity log' msg=odd line skipped: %s", ("line 2: '11/19 x'",),
         {"collector": "tsm", "command": "'TSM activity log'", "msg": "odd line skipped: line 2: '11/19 x'"}),
        ("collector=memory command='svmon -G' source error: %s", ("/usr/bin/svmon: timed out after 3s",),
         {"collector": "memory", "command": "'svmon -G' source error: /usr/bin/svmon: timed out after 3s", "msg": ""}),
        ("msg=stopping on signal %d: draining scrapes in flight", (15,),
         {"msg": "stopping on signal 15: draining scrapes in flight"}),
        ('a "quoted" word and a back\\slash', (), {"msg": 'a "quoted" word and a back\\slash'}),
    ]
    for message, args, want in cases:
        line = emit("logfmt", logging.WARNING, message, *args)
        got = parse(line)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", got.pop("ts")), line
        assert got.pop("level") == "warning"
        assert got == want, line
        j = json.loads(emit("json", logging.ERROR, message, *args))
        assert j["level"] == "error" and {k: v for k, v in j.items() if k not in ("ts", "level")} == want


def test_the_exporter_logs_in_logfmt(tmp_path):
    import subprocess
    import sys
    from tests.e2e.helpers import env
    import shutil
    from tests.conftest import FIXTURES
    replay = tmp_path / "replay"
    shutil.copytree(FIXTURES / "replay" / "tsm-lpar", replay)
    (replay / "svmon_g.txt").write_text("not svmon output at all\n")   # one collector fails: a warning line
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--source", f"replay:{replay}", "--once"],
                       capture_output=True, text=True, env=env(), timeout=60)
    lines = r.stderr.splitlines()
    assert lines and all(l.startswith("ts=") for l in lines), r.stderr
    for line in lines:
        got = parse(line)
        assert got["level"] in ("debug", "info", "warning", "error") and "msg" in got, line
