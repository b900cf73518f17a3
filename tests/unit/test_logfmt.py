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
    root_level = logging.getLogger().level
    logfmt.setup("DEBUG", fmt, stream)
    try:
        logging.getLogger("aix_exporter").log(level, message, *args)
    finally:
        logging.getLogger().handlers[:] = []
        logging.getLogger().setLevel(root_level)   # (a root left at DEBUG has asyncio log into later tests)
    return stream.getvalue().rstrip("\n")


def test_every_kind_of_line_we_write_parses():
    cases = [
        ("msg=listening address=%s tls=%s", (":10990", False),
         {"msg": "listening", "address": ":10990", "tls": "False"}),
        ("collector=tsm command='TSM activity log' msg=odd line skipped: %s", ("line 2: '11/19 x'",),
         {"collector": "tsm", "command": "'TSM activity log'", "msg": "odd line skipped: line 2: '11/19 x'"}),
        ("msg=collection failed collector=%s command=%r error=%s",
         ("memory", "svmon -G", "source error: /usr/bin/svmon: timed out after 3s"),
         {"msg": "collection failed", "collector": "memory", "command": "'svmon -G'",
          "error": "source error: /usr/bin/svmon: timed out after 3s"}),
        ("msg=collector disabled: it needs --source system collector=%s", ("cpu",),
         {"msg": "collector disabled: it needs --source system", "collector": "cpu"}),
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
    from tests.lib.processes import env
    import shutil
    from tests.lib import FIXTURES
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


ROTATE = """
import logging, os, sys
from aix_exporter import logfmt
if sys.argv[2] == "read-only":        # a directory the service user cannot rename in
    def refuse(a, b):
        raise PermissionError(13, "Permission denied", a)
    os.rename = refuse
logfmt.setup("INFO", "logfmt", None, sys.argv[1], 65536, 2)
log = logging.getLogger("aix_exporter")
for i in range(3000):
    log.info("msg=line collector=vmstat n=%05d pad=%s", i, "x" * 60)
os.write(2, b"Traceback (most recent call last): written to stderr, not logged\\n")
"""


def run_rotation(tmp_path, mode):
    import subprocess
    import sys
    from tests.lib.processes import env
    path = tmp_path / "aix_exporter.log"
    r = subprocess.run([sys.executable, "-c", ROTATE, str(path), mode], capture_output=True, text=True, env=env(),
                       timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr   # stderr went to the log file
    return path


def test_log_file_is_rotated_by_size_with_stderr_in_it(tmp_path):
    path = run_rotation(tmp_path, "writable")
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["aix_exporter.log", "aix_exporter.log.1", "aix_exporter.log.2"]   # 2 kept, the oldest dropped
    line = len(parse_first(path.with_name("aix_exporter.log.1")))
    for p in tmp_path.iterdir():
        assert p.stat().st_size <= 65536 + line
    current = path.read_text().splitlines()
    # the newest lines are in FILE, in order, and what reached stderr follows them
    assert parse(current[-2])["n"] == "02999"
    assert current[-1] == "Traceback (most recent call last): written to stderr, not logged"
    older = path.with_name("aix_exporter.log.1").read_text().splitlines()
    assert int(parse(older[-1])["n"]) + 1 == int(parse(current[0])["n"])   # nothing lost between files


def parse_first(p):
    return p.read_text().splitlines()[0] + "\n"


def test_a_log_that_cannot_be_rotated_says_so_once_and_keeps_logging(tmp_path):
    path = run_rotation(tmp_path, "read-only")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aix_exporter.log"]
    lines = path.read_text().splitlines()
    errors = [l for l in lines if "cannot rotate the log file" in l]
    assert len(errors) == 1 and parse(errors[0])["level"] == "error" and "Permission denied" in parse(errors[0])["error"]
    said = parse(errors[0])
    assert list(said) == ["ts", "level", "msg", "error"] and said["msg"] == "cannot rotate the log file, it is no longer rotated"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", said["ts"])
    assert all(line.startswith("ts=") for line in lines[:-1])       # the next line is a line of its own
    assert parse(lines[-2])["n"] == "02999" and len(lines) == 3000 + 2


def test_check_config_answers_on_stderr_even_with_a_log_file(tmp_path):
    """The installers run `aix-exporter @ARGS --check-config`, ARGS holding --log.file: the
    answer must reach the installer's terminal, and the log's directory may not exist yet."""
    import subprocess
    import sys
    from tests.lib.processes import env
    bad = tmp_path / "bad.yml"
    bad.write_text("tsm:\n  actlog_file: /nonexistent/dsmserv.log\n")
    log = tmp_path / "not-yet" / "aix_exporter.log"
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", f"--log.file={log}", "--config.file", str(bad),
                        "--check-config"], capture_output=True, text=True, env=env(), timeout=60)
    assert r.returncode == 1 and "/nonexistent/dsmserv.log: no such file" in r.stderr and not log.parent.exists()


def test_pairs_of_a_message():
    assert logfmt.pairs("collector=vmstat n=3") == [("msg", ""), ("collector", "vmstat"), ("n", "3")]
    assert logfmt.pairs("msg=odd line skipped: a b collector=tsm") == [("msg", "odd line skipped: a b"),
                                                                      ("collector", "tsm")]
    assert logfmt.pairs("free text first a=1") == [("msg", "free text first"), ("a", "1")]
    assert logfmt.pairs("just text") == [("msg", "just text")]
    assert logfmt.pairs("x=1 msg=last") == [("x", "1"), ("msg", "last")]


def test_an_exception_is_the_error_field_in_both_formats():
    for fmt in ("logfmt", "json"):
        stream = io.StringIO()
        logfmt.setup("DEBUG", fmt, stream)
        try:
            try:
                raise ValueError("boom")
            except ValueError:
                logging.getLogger("aix_exporter").exception("msg=failed")
        finally:
            logging.getLogger().handlers[:] = []
        line = stream.getvalue().rstrip("\n")
        got = json.loads(line) if fmt == "json" else parse(line)
        assert list(got) == ["ts", "level", "msg", "error"], line
        assert got["msg"] == "failed" and got["error"].endswith("ValueError: boom")


def test_the_log_file_is_rotated_at_10_mib_keeping_3_by_default(tmp_path):
    import os
    saved = os.dup(2)                    # the log file takes the process's stderr: given back after
    try:
        logfmt.setup("INFO", "logfmt", None, str(tmp_path / "x.log"))
        handler = logging.getLogger().handlers[0]
        assert (handler.maxBytes, handler.backupCount) == (10 << 20, 3)
    finally:
        for h in logging.getLogger().handlers:
            h.close()
        logging.getLogger().handlers[:] = []
        os.dup2(saved, 2)
        os.close(saved)


def test_a_value_with_a_line_break_stays_on_one_line():
    assert logfmt._value("a\nb") == '"a\\nb"'
    assert logfmt._value('say "x"\\') == '"say \\"x\\"\\\\"'
    assert logfmt._value("plain") == "plain" and logfmt._value("") == '""'



def test_what_an_lpar_sends_stays_in_its_value_in_both_formats():
    """Issue 57, item 6: a remote stderr or log line that looks like logfmt pairs, carries an
    escape sequence or a newline, or an error text with ' pid=' in it, is data in its value:
    no forged key, no raw control character, the line still one line."""
    forged = 'no such file level=info msg=all-good collector=none ts=1970-01-01T00:00:00Z pid=1 \x1b[2J\nANR9999D x'
    line = emit("logfmt", logging.ERROR, "msg=collection failed collector=%s command=%r error=%s", "tsm",
                "dsmadmc query mount", forged)
    assert "\n" not in line and "\x1b" not in line
    got = parse(line)
    assert set(got) == {"ts", "level", "msg", "collector", "command", "error"}
    assert (got["level"], got["msg"], got["collector"], got["error"]) == ("error", "collection failed", "tsm", forged)
    obj = json.loads(emit("json", logging.ERROR, "msg=collection failed collector=%s error=%s", "tsm", forged))
    assert obj["error"] == forged and obj["level"] == "error" and set(obj) == {"ts", "level", "msg", "collector", "error"}
    # an argument in the free text of msg, and a message without arguments, as before
    assert parse(emit("logfmt", logging.INFO, "stopping on signal %d: draining scrapes in flight", 15))["msg"] == \
        "stopping on signal 15: draining scrapes in flight"
    assert parse(emit("logfmt", logging.INFO, "msg=50%% done key=value"))["key"] == "value"
