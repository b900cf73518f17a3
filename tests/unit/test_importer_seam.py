"""The importer seam: the import tool (tools/importing.py) does ordering, decompression, target
labels, the summary and the sinks for any importer registered in importers/__init__.py. A
second format needs only its own module: here a stand-in for one, a test double of the
Importer interface (lines 'EPOCH,HOST,VALUE'), run through the same tool."""
import gzip
import io

import pytest

from aix_exporter import importers
from aix_exporter.importers import base
from aix_exporter import cli
from aix_exporter.tools import importing

POOL = base.series("aix_memory_page_pool_size_bytes", "gauge", "Pool size (stand-in format).", {"psize": "16M"})
COUNT = base.series("aix_memory_page_faults", "counter", "Faults (stand-in format).", {"psize": "4K"})


class LinesImporter:
    """Each line: 'EPOCH,HOST,VALUE' (or '#section' lines, counted as not mapped)."""
    name = "lines"
    summary = "a stand-in format for the seam's tests"
    usage = "[--scale N]"
    option_defaults = {"scale": 1.0}

    def add_arguments(self, parser):
        parser.add_argument("--scale", type=float, default=1.0)

    def _rows(self, text, stats=None):
        for line in text:
            line = line.strip()
            if line.startswith("#"):
                if stats is not None:
                    stats.sections_unmapped[line[1:]] = stats.sections_unmapped.get(line[1:], 0) + 1
                continue
            epoch, host, value = line.split(",")
            if value == "bad":
                raise base.RecordingError("a value that is not a number")
            yield float(epoch), host, float(value)

    def first(self, text, options):
        for epoch, host, _ in self._rows(text):
            return epoch, host
        return None, None

    def snapshots(self, text, options, stats, state):
        for epoch, _, value in self._rows(text, stats):
            state["n"] = state.get("n", 0) + 1
            stats.snapshots += 1
            yield base.Snapshot(epoch, [base.Sample(POOL, value * options["scale"]),
                                        base.Sample(base.series(COUNT.family, "counter", COUNT.help, {"psize": "4K"}),
                                                    float(state["n"]))])

    def unmapped(self, section):
        return ("DISK*", "disk rows: no live metric") if section.startswith("DISK") else (section, "no live metric")

    def mapping_table(self):
        return "| line | metric |\n"


@pytest.fixture
def lines_format(monkeypatch):
    monkeypatch.setitem(importers.IMPORTERS, "lines", LinesImporter())


def test_a_second_format_goes_through_the_same_tool(lines_format, tmp_path):
    late = tmp_path / "late.txt"
    late.write_text("#DISK1\n#DISK2\n#FILE\n200,lpar1,3\n260,lpar1,4\n")
    early = tmp_path / "early.txt.gz"          # gzipped, given second, read first
    with gzip.open(early, "wt") as fh:
        fh.write("100,lpar1,1\n160,lpar1,2\n")
    out = tmp_path / "h.om"
    s = importing.run_import("lines", [str(late), str(early)], str(out), target={"job": "aix", "site": "b"}, scale=2)
    assert s["files"] == 2 and s["snapshots"] == 4 and s["samples"] == 8
    assert (s["first"], s["last"]) == (100.0, 260.0)
    assert s["not_mapped"] == {"DISK*": (2, "disk rows: no live metric"), "FILE": (1, "no live metric")}
    text = out.read_text()
    lbl = 'instance="lpar1:10990",job="aix",psize="16M",site="b"'
    assert (f"aix_memory_page_pool_size_bytes{{{lbl}}} 2 100.000\n"
            f"aix_memory_page_pool_size_bytes{{{lbl}}} 4 160.000\n"
            f"aix_memory_page_pool_size_bytes{{{lbl}}} 6 200.000\n") in text
    # one series per distinct Series, whatever object the importer builds it in; state carries
    # across the files of one instance in time order
    assert text.count("# TYPE aix_memory_page_faults counter") == 1
    assert 'aix_memory_page_faults_total{instance="lpar1:10990",job="aix",psize="4K",site="b"} 4 260.000\n' in text


def test_the_command_line_is_the_formats(lines_format, tmp_path, capsys):
    src = tmp_path / "a.txt"
    src.write_text("100,h,1\n")
    assert cli.main(["import", "--help"]) == 0
    assert "  lines  a stand-in format for the seam's tests\n" in capsys.readouterr().out
    assert cli.main(["import", "lines", "--scale", "3", "--out", str(tmp_path / "o.om"), str(src)]) == 0
    assert 'aix_memory_page_pool_size_bytes{instance="h:10990",job="aix",psize="16M"} 3 100.000' in (tmp_path / "o.om").read_text()
    bad = tmp_path / "bad.txt"
    bad.write_text("100,h,1\n160,h,bad\n")
    assert cli.main(["import", "lines", "--out", str(tmp_path / "o2.om"), str(bad)]) == 1
    assert capsys.readouterr().err == f"aix-exporter import lines: {bad}: a value that is not a number\n"
    assert cli.main(["import", "nosuch", str(src)]) == 2
    assert "formats: lines, nmon" in capsys.readouterr().err


def test_unknown_options_and_formats_are_refused():
    with pytest.raises(TypeError, match="nmon import has no option zone"):
        importing.run_import("nmon", [], "/dev/null", zone="UTC")
    with pytest.raises(base.RecordingError, match="no importer for 'csv' \\(formats: nmon\\)"):
        importing.run_import("csv", [], "/dev/null")


def test_registered_importers_provide_the_interface():
    assert list(importers.IMPORTERS) == ["nmon"]
    for name, imp in importers.IMPORTERS.items():
        assert imp.name == name and imp.summary and isinstance(imp.option_defaults, dict)
        assert imp.mapping_table().startswith("\n| ")
        first = imp.first(io.StringIO(""), imp.option_defaults)
        assert first == (None, None)


def test_the_seams_small_parts_hold_their_values():
    s = base.Stats()
    assert (s.files, s.snapshots, s.rows_skipped, s.sections_unmapped) == (0, 0, {}, {})
    s.skip("odd row")
    s.skip("odd row")
    s.skip("short row", 5)
    assert s.rows_skipped == {"odd row": 2, "short row": 5}
    assert base.Stats().rows_skipped is not s.rows_skipped            # each import its own counts
    c = base.series("aix_x", "counter", "X.", {"b": "2", "a": "1"})
    assert c == base.Series("aix_x", "counter", "X.", "aix_x_total", (("a", "1"), ("b", "2")))
    assert base.series("aix_y", "gauge", "Y.").name == "aix_y" and base.series("aix_y", "gauge", "Y.").labels == ()
    assert base.series("aix_z", "counter", "Z.", name="aix_z_seconds_total").name == "aix_z_seconds_total"
    # compared and hashed by value: the tool keeps one output series per distinct Series
    assert len({c, base.series("aix_x", "counter", "X.", {"a": "1", "b": "2"})}) == 1
    assert issubclass(base.RecordingError, ValueError)
