"""The TSM state file (statefile.py) at unit level: what counts as a state of ours, field by
field from both sides; which files are never written over; a write that keeps the state it
replaces only when that one is good; what load() falls back to and the one line it logs."""
import json
import logging
import os

import pytest

from aix_exporter import statefile as sf

GOOD = {"position": {"inode": 5, "offset": 10, "tail": "0a0b", "mark": "x", "seen": [], "t": 1.5},
        "counts": {"ANR0358E:E": 2}, "unparsed": 0}


@pytest.mark.parametrize("state,why", [
    (GOOD, None),
    ({**GOOD, "kind": sf.KIND}, None),
    ({}, None),
    ({"position": None}, None),
    ([], "not a JSON object"),
    ({"kind": "something else"}, "not a state of ours"),
    ({"position": {}, "other": 1}, "not a state of ours"),
    ({"position": []}, "position is not an object"),
    ({"position": {"inode": "5"}}, "position.inode has the wrong type"),
    ({"position": {"offset": True}}, "position.offset has the wrong type"),
    ({"position": {"tail": 7}}, "position.tail has the wrong type"),
    ({"position": {"mark": 7}}, "position.mark has the wrong type"),
    ({"position": {"seen": "a"}}, "position.seen has the wrong type"),
    ({"position": {"t": "now"}}, "position.t has the wrong type"),
    ({"position": {"t": 3}}, None),
    ({"position": {"offset": -1}}, "position.offset or position.tail is out of range"),
    ({"position": {"offset": 0}}, None),
    ({"position": {"tail": "0g"}}, "position.offset or position.tail is out of range"),
    ({"position": {"tail": "abc"}}, "position.offset or position.tail is out of range"),
    ({"position": {"tail": ""}}, None),
    ({"counts": []}, "counts are not message counts"),
    ({"counts": {"ANR0358E": 1}}, "counts are not message counts"),
    ({"counts": {"ANR0358E:E": -1}}, "counts are not message counts"),
    ({"counts": {"ANR0358E:E": 0}}, None),
    ({"counts": {"ANR0358E:E": True}}, "counts are not message counts"),
    ({"counts": {"ANR0358E:E": 1.0}}, "counts are not message counts"),
    ({"unparsed": -1}, "unparsed is not a count"),
    ({"unparsed": False}, "unparsed is not a count"),
    ({"unparsed": 1.5}, "unparsed is not a count"),
    ({"gaps": -1}, "gaps is not a count"),
    ({"gaps": "2"}, "gaps is not a count"),
    ({"gaps": 2}, None),
])
def test_what_a_state_of_ours_is(state, why):
    assert sf._valid(state) == why


def test_bytes_that_are_no_state():
    assert sf._state_of(None) == (None, "absent")
    assert sf._state_of(b'{"counts": {"A:E": 1}') == (None, "not valid JSON (cut short or emptied?)")
    assert sf._state_of(b"\xff\xfe") == (None, "not valid JSON (cut short or emptied?)")
    assert sf._state_of(b'{"counts": {"A:E": 1}}') == ({"counts": {"A:E": 1}}, None)
    assert sf._state_of(b'{"kind": "x"}') == (None, "not a state of ours")


def test_files_that_are_never_written_over(tmp_path):
    assert sf.foreign(str(tmp_path / "none.json")) is None
    for name, text in [("empty", ""), ("blank", " \n"), ("ours", '{"kind": "aix'), ("old", ' {"position": {'),
                       ("counts", '{"counts"'), ("unparsed", '{ "unparsed": 3}')]:
        (tmp_path / name).write_text(text)
        assert sf.foreign(str(tmp_path / name)) is None, name
    (tmp_path / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    assert sf.foreign(str(tmp_path / "passwd")) == (
        f"{tmp_path / 'passwd'} exists and is not an aix_exporter state file (a typo of the path?): it is never "
        "overwritten; point tsm.state_file at a new path")
    (tmp_path / "json").write_text('{"name": "x"}')
    assert sf.foreign(str(tmp_path / "json")).startswith(f"{tmp_path / 'json'} exists and is not an aix_exporter")
    assert sf.foreign(str(tmp_path)) == f"{tmp_path} exists and is not a regular file"
    os.symlink(tmp_path / "empty", tmp_path / "link")
    assert sf.foreign(str(tmp_path / "link")) == f"{tmp_path / 'link'} exists and is not a regular file"
    with pytest.raises(OSError) as e:
        sf.save(str(tmp_path / "passwd"), {"counts": {}})
    assert str(e.value).startswith(f"{tmp_path / 'passwd'} exists and is not an aix_exporter state file")
    assert (tmp_path / "passwd").read_text() == "root:x:0:0:root:/root:/bin/sh\n"


def test_a_write_keeps_the_state_it_replaces_when_that_one_is_good(tmp_path):
    path = tmp_path / "sub" / "state.json"
    sf.save(str(path), {"counts": {"A:E": 1}})
    assert json.loads(path.read_text()) == {"kind": "aix_exporter tsm state", "counts": {"A:E": 1}}
    assert not (tmp_path / "sub" / "state.json.1").exists()
    assert oct((tmp_path / "sub").stat().st_mode & 0o777) == "0o700"
    sf.save(str(path), {"counts": {"A:E": 2}})
    assert json.loads((tmp_path / "sub" / "state.json.1").read_text())["counts"] == {"A:E": 1}
    path.write_text('{"counts": {"A:E": 3')                         # damaged: not kept as the previous one
    sf.save(str(path), {"counts": {"A:E": 4}})
    assert json.loads((tmp_path / "sub" / "state.json.1").read_text())["counts"] == {"A:E": 1}
    assert json.loads(path.read_text())["counts"] == {"A:E": 4}
    assert sorted(os.listdir(tmp_path / "sub")) == ["state.json", "state.json.1"]


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def full(*a, **kw):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(sf.json, "dump", full)
    with pytest.raises(OSError):
        sf.save(str(tmp_path / "state.json"), {"counts": {}})
    assert os.listdir(tmp_path) == []


def test_temporary_files_of_ours_are_removed_and_others_kept(tmp_path):
    (tmp_path / ".tsm-state-abc").write_text("x")
    (tmp_path / ".tsm-state-def").write_text("x")
    (tmp_path / "tsm-state-keep").write_text("x")
    assert sf.clean_temp(str(tmp_path / "state.json")) == 2
    assert os.listdir(tmp_path) == ["tsm-state-keep"]
    assert sf.clean_temp(str(tmp_path / "state.json")) == 0


def test_load_falls_back_to_the_previous_state_and_says_why_once(tmp_path, caplog):
    path = str(tmp_path / "state.json")
    caplog.set_level(logging.WARNING, "aix_exporter")
    assert sf.load(path) is None and caplog.records == []           # nothing yet: nothing to say
    assert sf.log.name == "aix_exporter"
    sf.save(path, {"counts": {"A:E": 1}})
    sf.save(path, {"counts": {"A:E": 2}})
    assert sf.load(path)["counts"] == {"A:E": 2}
    (tmp_path / "state.json").write_text("")
    assert sf.load(path)["counts"] == {"A:E": 1}
    assert [r.getMessage() for r in caplog.records] == [
        f"collector=tsm msg=state file damaged, resumed from the previous state file={path} "
        "error=not valid JSON (cut short or emptied?)"]
    caplog.clear()
    os.unlink(path)
    assert sf.load(path)["counts"] == {"A:E": 1}
    assert [r.getMessage() for r in caplog.records] == [
        f"collector=tsm msg=state file missing, resumed from the previous state file={path} error=absent"]
    caplog.clear()
    (tmp_path / "state.json").write_text('{"kind": "x"}')
    os.unlink(path + ".1")
    # no previous state: the log is read from its start (position {}), counted into counters from 0
    assert sf.load(path) == {"position": {}, "counts": {}, "unparsed": 0}
    assert [r.getMessage() for r in caplog.records] == [
        "collector=tsm msg=state file damaged and no previous state: counting from 0, the log read from its "
        f"start file={path} error=not a state of ours"]


def test_a_state_file_is_read_up_to_its_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(sf, "MAX_STATE_BYTES", 32)
    path = tmp_path / "state.json"
    text = '{"counts": {"A:E": 1}}'
    path.write_text(text + " " * (32 - len(text)))                   # exactly the limit: read whole
    assert sf.load(str(path)) == {"counts": {"A:E": 1}}
    path.write_text(text + " " * (33 - len(text)))                   # a byte more, if only a blank
    assert sf._parse(str(path)) == (None, "larger than 32 bytes: not a state file")
    assert sf._read(str(tmp_path / "none")) is None


def test_the_state_size_limit_is_16_mib():
    assert sf.MAX_STATE_BYTES == 16 << 20


@pytest.mark.parametrize("garbage", [b"\0" * 4096, b"\x8b\x1f\xff\xfe random bytes \x00\x01", b"[1, 2, 3]",
                                     b'"a string"', b"\xff" * 10])
def test_a_state_damaged_beyond_reading_is_moved_aside_and_the_previous_state_resumed(tmp_path, caplog, garbage):
    path = str(tmp_path / "state.json")
    sf.save(path, {"counts": {"A:E": 1}})
    sf.save(path, {"counts": {"A:E": 2}})
    (tmp_path / "state.json").write_bytes(garbage)
    assert sf.foreign(path) is None                          # ours, damaged: never refused
    caplog.set_level(logging.WARNING, "aix_exporter")
    assert sf.load(path)["counts"] == {"A:E": 1}            # FILE.1, one read older
    assert (tmp_path / "state.json.damaged").read_bytes() == garbage and not (tmp_path / "state.json").exists()
    assert caplog.records[0].getMessage().startswith(
        f"collector=tsm msg=state file damaged, moved aside file={path} moved_to={path}.damaged error=")
    os.unlink(path + ".1")                                  # and with no previous state: from the log's start
    (tmp_path / "state.json").write_bytes(garbage)
    assert sf.load(path) == {"position": {}, "counts": {}, "unparsed": 0}


@pytest.mark.parametrize("text", ["root:x:0:0:root:/root:/bin/sh\n", "tsm:\n  actlog_file: /x\n", '{"other": 1}\n'])
def test_readable_text_that_is_not_ours_is_refused_not_moved(tmp_path, text):
    path = tmp_path / "state.json"
    path.write_text(text)
    assert "is not an aix_exporter state file" in (sf.foreign(str(path)) or "")
    with pytest.raises(OSError, match="is not an aix_exporter state file"):
        sf.load(str(path))
    assert path.read_text() == text and not (tmp_path / "state.json.damaged").exists()


def test_only_the_tsm_collector_fails_on_a_state_file_not_ours(tmp_path):
    from aix_exporter.collectors.tsm import TsmCollector
    from aix_exporter.config import Settings
    from aix_exporter.sources import SourceError
    path = tmp_path / "state.json"
    path.write_text("root:x:0:0:root:/root:/bin/sh\n")
    s = Settings()
    s.tsm.state_file, s.tsm.actlog_file = str(path), str(tmp_path / "log")
    c = TsmCollector(s)                                       # built: the exporter starts
    with pytest.raises(SourceError) as e:
        c.collect(object())
    assert str(e.value) == (f"tsm.state_file: {path} exists and is not an aix_exporter state file (a typo of the "
                            "path?): it is never overwritten; point tsm.state_file at a new path")


@pytest.mark.parametrize("content, tsm_ok", [(b"root:x:0:0:root:/root:/bin/sh\n", 0), (b"\0" * 512, 1)])
def test_the_exporter_runs_whatever_lies_at_the_state_path(tmp_path, content, tsm_ok):
    """A foreign file fails the tsm collector alone; a NUL-filled one of ours is moved aside with
    a warning and the collector reads on: every other collector succeeds either way."""
    import subprocess
    import sys

    from tests.lib import FIXTURES
    from tests.lib.processes import env
    state = tmp_path / "state.json"
    state.write_bytes(content)
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"tsm:\n  state_file: {state}\n")
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", str(cfg), "--source",
                        f"replay:{FIXTURES / 'replay' / 'tsm-lpar'}", "--once"], capture_output=True, text=True,
                       env=env(), timeout=60)
    assert r.returncode == 0, r.stderr
    ok = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines() if line.startswith("aix_exporter_collector_success"))
    assert ok.pop('aix_exporter_collector_success{collector="tsm"}') == f"{float(tsm_ok)}"
    assert ok and set(ok.values()) == {"1.0"}
    if tsm_ok:
        assert 'msg="state file damaged, moved aside"' in r.stderr and (tmp_path / "state.json.damaged").exists()
    else:
        assert "tsm.state_file:" in r.stderr and state.read_bytes() == content


def test_a_damaged_state_that_cannot_be_moved_aside_is_said_and_the_previous_state_resumed(tmp_path, caplog):
    """A directory where the damaged file would go (FILE.damaged, not empty) makes the move
    fail: one warning names the file and the reason, and the previous state is resumed."""
    path = str(tmp_path / "state.json")
    sf.save(path, {"counts": {"A:E": 1}})
    sf.save(path, {"counts": {"A:E": 2}})
    (tmp_path / "state.json").write_bytes(b"\0" * 64)
    (tmp_path / "state.json.damaged").mkdir()
    (tmp_path / "state.json.damaged" / "x").write_text("x")
    caplog.set_level(logging.WARNING, "aix_exporter")
    assert sf.load(path)["counts"] == {"A:E": 1}
    assert caplog.records[0].getMessage().startswith(
        f"collector=tsm msg=state file damaged and cannot be moved aside file={path} error=")
    assert (tmp_path / "state.json").read_bytes() == b"\0" * 64     # left where it was
