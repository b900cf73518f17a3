"""`aix-exporter import` at unit level, through the seam's stand-in format: every refusal of its
arguments, the summary it prints line by line, the sinks (--tsdb with promtool, the rules'
backfill or the command to run it, --store with its age check and count back), each with its
message and exit code. The nmon format's own reading is pinned by test_nmon*."""
import os
import subprocess

import pytest

from aix_exporter import cli
from aix_exporter.tools import importing
from aix_exporter.tools import store as stores
from tests.lib.checks import Terminal, promtool_only
from tests.unit.test_importer_seam import lines_format  # noqa: F401 (a fixture)

DAY = 86400


@pytest.fixture
def rec(tmp_path, lines_format):  # noqa: F811
    path = tmp_path / "a.txt"
    path.write_text("#DISK1\n#DISK2\n#FILE\n1800000000,lpar1,1\n1800000300,lpar1,2\n")
    return path


def imp(*args):
    return cli.main(["import", "lines", *args])


def test_help_lists_the_formats_and_without_one_says_how(capsys, lines_format):  # noqa: F811
    assert cli.main(["import", "-h"]) == 0
    assert capsys.readouterr().out == ("usage: aix-exporter import FORMAT [options] FILE...\n\nformats:\n"
                                       "  lines  a stand-in format for the seam's tests\n"
                                       "  nmon   " + importing.IMPORTERS["nmon"].summary + "\n")
    assert cli.main(["import"]) == 2
    assert capsys.readouterr().err == ("usage: aix-exporter import FORMAT [options] FILE...  (aix-exporter import "
                                       "--help)\nformats: lines, nmon\n")


@pytest.mark.parametrize("args,message", [
    (["FILE"], "give --out HISTORY.om, --tsdb DIR or --store URL"),
    (["--out", "h.om", "--force", "FILE"], "--force goes with --store URL"),
    (["--out", "h.om", "--rules", "RULES", "FILE"], "--rules goes with --tsdb DIR"),
    (["--tsdb", "db", "--rules", "missing.yml", "FILE"], "--rules missing.yml: no such file"),
    (["--out", "h.om", "--target", "job", "FILE"], "--target takes k=v,k=v"),
])
def test_wrong_combinations_are_refused_with_the_reason(rec, tmp_path, capsys, args, message):
    rules = tmp_path / "rules.yml"
    rules.write_text("groups: []\n")
    args = [str(rec) if a == "FILE" else str(rules) if a == "RULES" else a for a in args]
    with pytest.raises(SystemExit) as e:
        imp(*args)
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"aix-exporter import lines: error: {message}"


def test_a_missing_file_is_one_line(rec, tmp_path, capsys):
    assert imp("--out", str(tmp_path / "h.om"), str(rec), str(tmp_path / "none.txt")) == 1
    assert capsys.readouterr().err == f"aix-exporter import lines: {tmp_path / 'none.txt'}: no such file\n"
    assert not (tmp_path / "h.om").exists()


def test_the_summary_line_by_line(rec, tmp_path, capsys):
    again = tmp_path / "b.txt"
    again.write_text("1800000300,lpar1,5\n1800000600,lpar1,3\n")     # 1800000300 again, with another value
    out = tmp_path / "h.om"
    assert imp("--out", str(out), "--target", "site=b", str(rec), str(again)) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"imported 2 file(s), 4 snapshots, 6 samples to {out}",
        "  time range: 2027-01-15 08:00:00 UTC .. 2027-01-15 08:10:00 UTC",
        "  samples of repeated or overlapping snapshots written once: 2 dropped",
        f"  conflicting: {again} repeats 1 snapshot(s) read before with other values (the values read first are "
        "kept: two recordings of one LPAR at the same time?)",
        "  not mapped: DISK* (2 rows): disk rows: no live metric",
        "  not mapped: FILE (1 rows): no live metric"]
    assert 'site="b"' in out.read_text()


def test_target_labels_are_comma_separated_and_a_value_may_hold_an_equals_sign(rec, tmp_path):
    out = tmp_path / "h.om"
    assert imp("--out", str(out), "--target", "site=b,role=tsm=primary", str(rec)) == 0
    assert 'role="tsm=primary",site="b"' in out.read_text()


def test_the_formats_are_listed_comma_separated(lines_format):  # noqa: F811
    with pytest.raises(importing.RecordingError) as e:
        importing.importer("csv")
    assert str(e.value) == "no importer for 'csv' (formats: lines, nmon)"


def test_skipped_rows_are_listed_by_reason():
    s = {"files": 1, "snapshots": 0, "samples": 0, "duplicates_dropped": 0, "first": None, "last": None,
         "rows_skipped": {"short row": 5, "field count differs from its header": 2}, "not_mapped": {}}
    import io
    buf = io.StringIO()
    importing.print_summary(s, "h.om", buf)
    assert buf.getvalue().splitlines() == ["imported 1 file(s), 0 snapshots, 0 samples to h.om",
                                           "  time range: - .. -", "  skipped: 2 x field count differs from its header",
                                           "  skipped: 5 x short row"]


def test_a_file_without_a_snapshot_is_an_error(tmp_path, capsys, lines_format):  # noqa: F811
    empty = tmp_path / "e.txt"
    empty.write_text("#DISK1\n")
    assert imp("--out", str(tmp_path / "h.om"), str(empty)) == 1
    out, err = capsys.readouterr()
    # one line, no summary of nothing imported, and no file left behind (issue 46: it was written)
    assert out == "" and sorted(os.listdir(tmp_path)) == ["e.txt"]
    assert err == "aix-exporter import lines: no complete snapshot in any of the 1 file(s): are they lines recordings?\n"


@pytest.mark.parametrize("where, why", [("missing/h.om", "does not exist: make it first, or give another --out"),
                                        (".", "is a directory: give a file name")])
def test_an_out_that_cannot_be_written_is_one_line_before_any_work(tmp_path, capsys, lines_format, where, why):  # noqa: F811
    rec = tmp_path / "r.txt"
    rec.write_text("#DISK1\n")
    assert imp("--out", str(tmp_path / where), str(rec)) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("aix-exporter import lines: --out ") and why in err and err.count("\n") == 1


def test_the_rule_backfill_range_and_command():
    assert importing.rules_range({"first": 1_800_000_030.5, "last": 1_800_003_599.0}) == (
        1_800_000_000 - 60, 1_800_003_540 + 120)
    assert importing.rules_command("promtool", "http://x", 10, 20, "out", ["a.yml", "b.yml"]) == [
        "promtool", "tsdb", "create-blocks-from", "rules", "--start", "10", "--end", "20", "--url", "http://x",
        "--eval-interval", "60s", "--max-block-duration=24h", "--output-dir", "out", "a.yml", "b.yml"]


class Ran:
    """A stand-in for subprocess.run: records argv, answers with ``code``."""

    def __init__(self, code=0, stderr=""):
        self.code, self.stderr, self.argv = code, stderr, []

    def __call__(self, argv, **kw):
        self.argv.append(argv)
        if not kw.get("capture_output"):
            return subprocess.CompletedProcess(argv, self.code, None, None)   # its output went to the terminal
        if kw.get("text"):
            return subprocess.CompletedProcess(argv, self.code, "", self.stderr)
        return subprocess.CompletedProcess(argv, self.code, b"", self.stderr.encode())   # as subprocess answers


def test_tsdb_runs_promtool_in_day_blocks_and_prints_the_backfill_and_the_retention(rec, tmp_path, capsys,
                                                                                     monkeypatch):
    ran = Ran()
    monkeypatch.setattr(importing.subprocess, "run", ran)
    monkeypatch.setattr(importing.shutil, "which", promtool_only)
    monkeypatch.setattr(importing.time, "time", lambda: 1_800_000_000.0 + 9.5 * DAY)
    db = tmp_path / "db"
    assert imp("--tsdb", str(db), str(rec)) == 0
    assert ran.argv[0][:5] == ["/usr/bin/promtool", "tsdb", "create-blocks-from", "openmetrics",
                               "--max-block-duration=24h"]
    assert ran.argv[0][6] == str(db) and db.is_dir()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(" to (temporary file)")
    assert lines[-5:] == [
        f"blocks written to {db}",
        "backfill the recording rules over the imported range (or import again with --rules FILE), with a "
        "Prometheus serving these blocks at URL:",
        "  promtool tsdb create-blocks-from rules --start 1799999940 --end 1800000420 --url URL --eval-interval 60s "
        "--max-block-duration=24h --output-dir rule-blocks alerts/aix-rules.yml",
        "  then move rule-blocks/* beside them.",
        f"Point Prometheus at them: start one with --storage.tsdb.path={db}, or copy the block directories into its "
        "--storage.tsdb.path and restart it. The oldest sample is 10 days old: keep "
        "--storage.tsdb.retention.time above 10d, or Prometheus deletes it."]
    assert not ran.argv[0][5].startswith(str(tmp_path))           # the temporary history ...
    assert not __import__("os").path.exists(ran.argv[0][5])       # ... is removed


def test_an_imported_history_of_today_is_one_day_old(rec, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(importing.subprocess, "run", Ran())
    monkeypatch.setattr(importing.shutil, "which", promtool_only)
    monkeypatch.setattr(importing.time, "time", lambda: 1_800_000_000.0 + 60)
    assert imp("--tsdb", str(tmp_path / "db"), "--out", str(tmp_path / "h.om"), str(rec)) == 0
    out = capsys.readouterr().out
    assert "The oldest sample is 1 days old: keep --storage.tsdb.retention.time above 1d" in out
    monkeypatch.setattr(importing.time, "time", lambda: 1_800_000_000.0 + DAY)    # exactly a day old
    assert imp("--tsdb", str(tmp_path / "db"), "--out", str(tmp_path / "h.om"), str(rec)) == 0
    assert "The oldest sample is 2 days old: keep --storage.tsdb.retention.time above 2d" in capsys.readouterr().out
    assert out.splitlines()[0].endswith(f" to {tmp_path / 'h.om'}") and (tmp_path / "h.om").exists()


def test_tsdb_without_promtool_or_with_promtool_failing(rec, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(importing.shutil, "which", lambda name: None)
    assert imp("--tsdb", str(tmp_path / "db"), "--out", str(tmp_path / "h.om"), str(rec)) == 1
    assert capsys.readouterr().err == ("aix-exporter import lines: promtool not found (Debian package prometheus); "
                                       f"the history is in {tmp_path / 'h.om'}\n")
    # without --out the history would be a temporary file, removed: refused before the import
    assert imp("--tsdb", str(tmp_path / "db2"), str(rec)) == 1
    assert capsys.readouterr() == ("", "aix-exporter import lines: promtool not found (Debian package prometheus): "
                                       "--tsdb needs it; --out HISTORY.om keeps the history without it\n")
    assert not (tmp_path / "db2").exists()
    monkeypatch.setattr(importing.shutil, "which", promtool_only)
    monkeypatch.setattr(importing.subprocess, "run", Ran(1, "  block out of order " + "x" * 600))
    assert imp("--tsdb", str(tmp_path / "db"), str(rec)) == 1
    err = capsys.readouterr().err
    assert err == "aix-exporter import lines: promtool failed: " + ("block out of order " + "x" * 600)[:500] + "\n"


def test_tsdb_with_rules_backfills_them(rec, tmp_path, capsys, monkeypatch):
    rules = tmp_path / "rules.yml"
    rules.write_text("groups: []\n")
    monkeypatch.setattr(importing.subprocess, "run", Ran())
    monkeypatch.setattr(importing.shutil, "which", promtool_only)
    asked = []

    def backfill(tsdb, files, start, end):
        asked.append((tsdb, files, start, end))
        return 3
    monkeypatch.setattr(importing, "backfill_rules", backfill)
    db = str(tmp_path / "db")
    more = tmp_path / "more.yml"
    more.write_text("groups: []\n")
    assert imp("--tsdb", db, "--rules", str(rules), "--rules", str(more), str(rec)) == 0
    assert asked == [(db, [str(rules), str(more)], 1_799_999_940, 1_800_000_420)]
    assert (f"recording rules of {rules}, {more} backfilled over the imported range (3 blocks, every 60 s) into {db}"
            in capsys.readouterr().out.splitlines())

    def fails(*a):
        raise importing.tempprom.TempPrometheusError("a temporary Prometheus on db did not start: port in use")
    monkeypatch.setattr(importing, "backfill_rules", fails)
    assert imp("--tsdb", db, "--rules", str(rules), str(rec)) == 1
    assert capsys.readouterr().err == ("aix-exporter import lines: recording rules not backfilled: a temporary "
                                       "Prometheus on db did not start: port in use\n")


class Store:
    kind = "victoriametrics"
    url = "http://vm:8428"

    def __init__(self, why=None):
        self.why = why

    def keeps(self, first):
        return self.why


def storing(monkeypatch, store, written=6, back=6, error=None):
    monkeypatch.setattr(stores, "connect", lambda url: store)
    calls = []

    def write(s, path):
        if error:
            raise stores.StoreError(error)
        calls.append(("write", s.url))
        return written

    def count_back(s, targets, first, last):
        calls.append(("count", targets, first, last))
        return back
    monkeypatch.setattr(stores, "write", write)
    monkeypatch.setattr(stores, "count_back", count_back)
    return calls


def test_store_writes_and_counts_back(rec, capsys, monkeypatch):
    calls = storing(monkeypatch, Store())
    assert imp("--store", "http://vm:8428", str(rec)) == 0
    assert calls == [("write", "http://vm:8428"),
                     ("count", [{"instance": "lpar1:10990", "job": "aix"}], 1_800_000_000.0, 1_800_000_300.0)]
    assert capsys.readouterr().out.splitlines()[-1] == "written to VictoriaMetrics at http://vm:8428: 6 samples, 6 read back"


def test_store_refuses_what_it_would_drop_unless_forced(rec, capsys, monkeypatch):
    calls = storing(monkeypatch, Store("older than its retention (-retentionPeriod=1d)"))
    assert imp("--store", "http://vm:8428", str(rec)) == 1
    assert capsys.readouterr().err == ("aix-exporter import lines: not written to VictoriaMetrics: older than its "
                                       "retention (-retentionPeriod=1d)\n")
    assert calls == []
    calls = storing(monkeypatch, Store("older than its retention (-retentionPeriod=1d)"), back=2)
    assert imp("--store", "http://vm:8428", "--force", str(rec)) == 1
    assert capsys.readouterr().err == ("aix-exporter import lines: VictoriaMetrics kept 2 of 6 samples (older than "
                                       "its retention (-retentionPeriod=1d))\n")
    store = Store()
    store.kind = "prometheus"
    storing(monkeypatch, store, back=5)
    assert imp("--store", "http://vm:8428", str(rec)) == 1
    assert capsys.readouterr().err == "aix-exporter import lines: Prometheus kept 5 of 6 samples\n"


def test_store_errors_are_one_line(rec, capsys, monkeypatch):
    storing(monkeypatch, Store(), error="http://vm:8428: connection refused")
    assert imp("--store", "http://vm:8428", str(rec)) == 1
    assert capsys.readouterr().err == "aix-exporter import lines: http://vm:8428: connection refused\n"

    def refuse(url):
        raise stores.StoreError(f"{url}: neither VictoriaMetrics nor Prometheus")
    monkeypatch.setattr(stores, "connect", refuse)
    assert imp("--store", "http://x", str(rec)) == 1
    assert capsys.readouterr().err == "aix-exporter import lines: http://x: neither VictoriaMetrics nor Prometheus\n"


def test_progress_on_a_terminal_every_50_snapshots(tmp_path, monkeypatch, lines_format):  # noqa: F811
    path = tmp_path / "many.txt"
    path.write_text("".join(f"{1_800_000_000 + 60 * k},h,1\n" for k in range(120)))

    term = Terminal()
    monkeypatch.setattr(importing.sys, "stderr", term)
    assert imp("--out", str(tmp_path / "h.om"), str(path)) == 0
    assert term.text == "\r  file 1/1, 50 snapshots\r  file 1/1, 100 snapshots\r"
    assert term.flushed == "\r  file 1/1, 50 snapshots\r  file 1/1, 100 snapshots"   # each shown as written


def test_an_unreadable_file_is_one_line(tmp_path, capsys, lines_format):  # noqa: F811
    bad = tmp_path / "bad.txt.gz"
    bad.write_bytes(b"\x1f\x8b" + b"not gzip after its magic")
    assert imp("--out", str(tmp_path / "h.om"), str(bad)) == 1
    assert capsys.readouterr().err.startswith(f"aix-exporter import lines: {bad}: cannot read: ")


def test_undecodable_bytes_are_replaced_plain_or_gzipped(tmp_path, lines_format):  # noqa: F811
    import gzip
    data = b"#DISK\xff\xfe1\n1800000000,lpar1,1\n"
    plain, packed = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data.replace(b"1800000000", b"1800000060")))
    s = importing.run_import("lines", [str(plain), str(packed)], str(tmp_path / "h.om"))
    assert (s["snapshots"], s["not_mapped"]) == (2, {"DISK*": (2, "disk rows: no live metric")})


def test_a_file_without_a_snapshot_is_counted_and_the_others_read(tmp_path, lines_format):  # noqa: F811
    empty, full = tmp_path / "a.txt", tmp_path / "b.txt"
    empty.write_text("#FILE\n")
    full.write_text("1800000000,,1\n1800000060,,2\n")            # no host: the instance says so
    s = importing.run_import("lines", [str(empty), str(full)], str(tmp_path / "h.om"))
    assert (s["files"], s["snapshots"]) == (1, 2)
    assert s["rows_skipped"] == {"file without a complete snapshot": 1}
    assert s["targets"] == [{"instance": "unknown:10990", "job": "aix"}]


def test_each_conflicting_snapshot_is_counted(tmp_path, lines_format):  # noqa: F811
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("1800000000,h,1\n1800000060,h,2\n1800000120,h,3\n")
    b.write_text("1800000000,h,1\n1800000060,h,2\n1800000120,h,3\n")
    # the same pool values, but the stand-in's counter carries on across the files (4, 5, 6):
    # each of the three snapshots is read again with another value
    s = importing.run_import("lines", [str(a), str(b)], str(tmp_path / "h.om"))
    assert s["conflicting"] == [(str(b), 3)]


def test_a_cut_short_file_ends_the_file_not_the_import(tmp_path, lines_format):  # noqa: F811
    import gzip
    whole = gzip.compress(("".join(f"{1_800_000_000 + 60 * k},h,1\n" for k in range(4000))).encode())
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(whole[:len(whole) // 2])
    s = importing.run_import("lines", [str(cut)], str(tmp_path / "h.om"))
    assert s["rows_skipped"] == {"file cut short (EOFError)": 1}
    assert 0 < s["snapshots"] < 4000


def test_unknown_formats_and_options_are_named():
    with pytest.raises(importing.RecordingError) as e:
        importing.importer("csv")
    assert str(e.value) == "no importer for 'csv' (formats: nmon)"
    with pytest.raises(TypeError) as e:
        importing.run_import("nmon", [], "/dev/null", zone="UTC", colour="red")
    assert str(e.value) == "nmon import has no option colour, zone"


@pytest.mark.skipif(not __import__("shutil").which("promtool"), reason="needs Debian's prometheus (promtool)")
def test_backfill_rules_with_the_real_promtool_and_prometheus(tmp_path, monkeypatch):
    """Blocks of a two-hour history, a recording rule over them: promtool evaluates it against
    the temporary Prometheus, its blocks are moved in beside the history's, nothing is left in
    the working directory."""
    import json
    import shutil
    om = tmp_path / "h.om"
    om.write_text("# TYPE x gauge\n" + "".join(f'x{{job="aix"}} {k} {1_800_000_000 + 60 * k}\n' for k in range(120))
                  + "# EOF\n")
    db = tmp_path / "db"
    subprocess.run([shutil.which("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(om), str(db)],
                   check=True, capture_output=True, timeout=120)
    history = set(os.listdir(db))
    rules = tmp_path / "rules.yml"
    rules.write_text("groups:\n- name: t\n  rules:\n  - record: job:x:double\n    expr: x * 2\n")
    made = []
    real = importing.tempfile.mkdtemp
    monkeypatch.setattr(importing.tempfile, "mkdtemp", lambda **kw: made.append(real(**kw)) or made[-1])
    n = importing.backfill_rules(str(db), [str(rules)], 1_800_000_000, 1_800_007_200)
    added = set(os.listdir(db)) - history
    assert n == len(added) >= 1
    metas = [json.loads((db / b / "meta.json").read_text()) for b in added]
    assert all(m["minTime"] >= 1_800_000_000_000 and m["maxTime"] <= 1_800_007_200_000 for m in metas)
    assert os.path.basename(made[0]).startswith("aix-exporter-rules-") and not os.path.exists(made[0])


def test_backfill_rules_failures_are_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(importing.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError) as e:
        importing.backfill_rules(str(tmp_path), ["r.yml"], 0, 60)
    assert str(e.value) == "--rules needs promtool (Debian package prometheus)"
    # promtool's words, from stdout when it wrote none to stderr

    class Served:
        def __init__(self, tsdb):
            pass

        def __enter__(self):
            return "http://127.0.0.1:1"

        def __exit__(self, *a):
            return False
    monkeypatch.setattr(importing.shutil, "which", promtool_only)
    monkeypatch.setattr(importing.tempprom, "serve", Served)
    monkeypatch.setattr(importing.subprocess, "run", lambda argv, **kw: subprocess.CompletedProcess(
        argv, 1, "  group \"aix\": bad expression\n", ""))
    with pytest.raises(RuntimeError) as e:
        importing.backfill_rules(str(tmp_path), ["r.yml"], 0, 60)
    assert str(e.value) == 'promtool failed: group "aix": bad expression'
    monkeypatch.setattr(importing.subprocess, "run", lambda argv, **kw: subprocess.CompletedProcess(
        argv, 1, "", "e" * 499 + "XY"))
    with pytest.raises(RuntimeError) as e:
        importing.backfill_rules(str(tmp_path), ["r.yml"], 0, 60)
    assert str(e.value) == "promtool failed: " + "e" * 499 + "X"             # its first 500 characters


@pytest.mark.skipif(not __import__("shutil").which("promtool"), reason="needs Debian's prometheus (promtool)")
def test_a_rules_file_promtool_refuses_is_its_own_words(tmp_path):
    rules = tmp_path / "rules.yml"
    rules.write_text("groups:\n- name: t\n  rules:\n  - record: r\n    expr: x *\n")
    (tmp_path / "db").mkdir()
    with pytest.raises(RuntimeError) as e:
        importing.backfill_rules(str(tmp_path / "db"), [str(rules)], 1_800_000_000, 1_800_000_600)
    assert str(e.value).startswith("promtool failed: ") and "\n" not in str(e.value)[:80]
    assert not str(e.value).startswith("promtool failed: b'")          # its words, not bytes
    assert len(str(e.value)) <= len("promtool failed: ") + 500
    assert os.listdir(tmp_path / "db") == []
