"""Impossible values are errors, not data (issue 45): the one domain rule (domains.py), applied
where every collector's samples are made (Families.set: the collector fails) and to every
sample the nmon importer makes (counted and skipped)."""
import math

import pytest

from aix_exporter import domains
from aix_exporter.collectors.base import Families
from aix_exporter.parsers import ParseError


@pytest.mark.parametrize("name, value, why", [
    ("aix_memory_size_bytes", -4096, "-4096 is negative, which it cannot be"),
    ("aix_tsm_messages_total", -1, "-1 is negative, which it cannot be"),
    ("aix_vmstat_cpu_ratio", 1e306, "1e+306 is above 1 (100 %), which it cannot be"),
    ("aix_vmstat_cpu_ratio", 1.0101, "1.0101 is above 1 (100 %), which it cannot be"),
    ("aix_vmstat_cpu_ratio", -0.425, "-0.425 is negative, which it cannot be"),
    ("aix_memory_free_bytes", math.inf, "inf is not a finite number"),
    ("aix_splat_window_seconds", math.nan, "nan is not a finite number"),
    ("aix_memory_free_bytes", "x", "'x' is not a number"),
])
def test_impossible_values_and_why(name, value, why):
    assert domains.why(name, value) == why
    assert domains.problem(name, value) == f"{name}: {why}"


@pytest.mark.parametrize("name, value", [
    ("aix_vmstat_cpu_ratio", 1.01), ("aix_vmstat_cpu_ratio", 0.0), ("aix_tape_busy_ratio", 1.0),
    ("aix_vmstat_entitlement_consumed_ratio", 3.9),      # an uncapped LPAR above its entitlement
    ("aix_vmo_tunable", -1),                             # a tunable can be -1
    ("aix_memory_size_bytes", 0), ("aix_memory_size_bytes", 1e15)])
def test_possible_values_from_the_other_side(name, value):
    assert domains.why(name, value) is None


_EDGES = [-math.inf, -1e308, -1.0, -1e-300, -0.0, 0.0, 1e-300, 0.5, 1.0, 1.01, 1.0100000000000002, 1.02, 3.9, 1e15,
          1.7976931348623157e308, math.inf, math.nan]


@pytest.mark.parametrize("name", ["aix_vmstat_cpu_ratio", "aix_vmstat_entitlement_consumed_ratio", "aix_vmo_tunable",
                                  "aix_memory_size_bytes", "aix_memory_page_faults_total"])
def test_bounds_are_why_as_one_comparison(name):
    """The nmon importer checks each sample with bounds(): a float passes them exactly when why() has
    nothing against it, at every edge (the ratio's rounding, zero's sign, the largest float, NaN)."""
    low, high = domains.bounds(name)
    for v in _EDGES:
        assert (low <= v <= high) == (domains.why(name, v) is None), (name, v)


def test_a_collector_serving_an_impossible_value_fails_with_the_reason():
    f = Families()
    f.set("aix_memory_size_bytes", "h", 68719476736)
    with pytest.raises(ParseError) as e:
        f.set("aix_memory_free_bytes", "h", -1)
    assert str(e.value) == "impossible value: aix_memory_free_bytes: -1 is negative, which it cannot be"


def test_the_nmon_importer_counts_and_skips_an_impossible_sample(tmp_path):
    """A negative CPU % (the audit's -42.5 imported as ratio -0.425 with exit 0): that sample is
    skipped and counted in the summary; the snapshot's other samples are imported."""
    import io

    from aix_exporter.importers.base import Stats
    from aix_exporter.importers.nmon import NmonImporter
    text = ("AAA,progname,topas_nmon\nAAA,host,tsmnm01\nAAA,date,02-NOV-2026\nAAA,time,00:00:00\n"
            "AAA,interval,300\nAAA,snapshots,1\n"
            "CPU_ALL,CPU Total tsmnm01,User%,Sys%,Wait%,Idle%,Busy,PhysicalCPUs\n"
            "ZZZZ,T0001,00:00:00,02-NOV-2026\n"
            "CPU_ALL,T0001,-42.5,15.0,20.0,60.0,,16\n")
    stats = Stats()
    snaps = list(NmonImporter().snapshots(io.StringIO(text), {"tz": "UTC", "date_order": None}, stats, {}))
    got = {(s.series.name, dict(s.series.labels).get("mode")): s.value for s in snaps[0].samples}
    assert ("aix_vmstat_cpu_ratio", "user") not in got and got[("aix_vmstat_cpu_ratio", "sys")] == 0.15
    assert stats.rows_skipped == {"impossible value in aix_vmstat_cpu_ratio (negative, which it cannot be)": 1}


def test_a_label_value_longer_than_any_name_fails_the_collector_at_its_bound():
    """A label value is a name the LPAR printed; AIX's longest is a path (PATH_MAX 1,024 with its
    NUL). 1,023 characters are served, 1,024 fail the collector with the label named."""
    f = Families()
    f.set("aix_tsm_drive_online", "h", 1, {"library": "L", "drive": "D" * domains.MAX_LABEL_VALUE})
    with pytest.raises(ParseError) as e:
        f.set("aix_tsm_drive_online", "h", 1, {"library": "L", "drive": "D" * (domains.MAX_LABEL_VALUE + 1)})
    assert str(e.value) == ("impossible label value in aix_tsm_drive_online: label drive is 1,024 characters long ('"
                            + "D" * 40 + "'...), longer than any name AIX or the server prints (at most 1,023)")
    assert domains.MAX_LABEL_VALUE == 1023
    # the value as served: a number label is its text, counted the same way
    assert domains.label_why({"pid": 10 ** 1023}).startswith("label pid is 1,024 characters long ('1000")
    assert domains.label_why({"pid": 10 ** 1022}) is None


@pytest.mark.parametrize("length, error", [
    (5000, "parse error: impossible label value in aix_tsm_drive_online: label drive is 5,000 characters long ('" + "X" * 40
     + "'...), longer than any name AIX or the server prints (at most 1,023)"),
    # beyond the csv module's field limit the row is not read at all: the same failure, said by the parser
    (2 ** 20, "parse error: dsmadmc select from drives: not a row of comma-separated fields (field larger than "
              "field limit (131072)) (line 2: 'TS4500," + "X" * 110 + "...')"),
])
def test_a_drive_name_longer_than_any_name_fails_its_collector_only_with_one_line(caplog, length, error):
    """dsmadmc's answer with one drive named by thousands of characters, or a megabyte (garbled or
    hostile output, within the output cap): the storage collector fails with one line naming its
    commands and why; nothing of it is served, and the other collectors go on."""
    import logging

    from aix_exporter.collectors.tsm_checklist import TsmStorageCollector
    from aix_exporter.collectors.vmstat_s import VmstatSCollector
    from aix_exporter.config import Settings
    from aix_exporter.exporter import Exporter
    from tests.lib import FIXTURES, fixture_text
    from tests.lib.checks import Lpar

    drives = fixture_text("tsm_drives", "online-and-offline.txt").replace("DRIVE1,", "X" * length + ",")
    GOOD = {"tsm_stgpools": "device-container-and-cloud.txt", "tsm_libvolumes": "two-libraries-two-media.txt",
            "tsm_paths": "server-and-storage-agent.txt"}

    def answer(key):
        if key == "tsm_drives":
            return drives
        if key in GOOD:
            return fixture_text(key, GOOD[key])
        return fixture_text("vmstat_s", sorted(p.name for p in (FIXTURES / "vmstat_s").glob("*.txt"))[0])

    s = Settings()
    ex = Exporter(Lpar(answer), [TsmStorageCollector(s), VmstatSCollector(s)])
    with caplog.at_level(logging.ERROR, logger="aix_exporter"):
        ex.collect_all()
    assert {n: r.success for n, r in ex.results.items()} == {"tsm_storage": False, "vmstat_s": True}
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith("msg=collection failed collector=tsm_storage command='dsmadmc ")
    assert line.endswith(f"error={error}"), line[-300:]
    served = [s.labels for fam in ex.results["tsm_storage"].families for s in fam.samples]
    assert served == []
