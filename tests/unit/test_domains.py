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
