"""Conformance of the nmon importer on the real AIX 7.1 recording in ../shared/corpus/nmon
(topas_nmon -f, 300 s interval, 187 snapshots from 10-FEB-2016 17:28:10 to 11-FEB-2016
08:59:32, local time imported as UTC): values at given snapshots, read off the file."""
import datetime as dt

import pytest

from aix_exporter.tools.importing import run_import
from tests.lib import CORPUS, corpus_or_skip
from tests.unit.test_nmon import om_samples

RECORDING = CORPUS / "nmon" / "adejoux-nmon2influxdb-aixlpar-aix713.nmon.gz"
pytestmark = corpus_or_skip(RECORDING, "../shared/corpus/nmon")
I = 'instance="aixlpar:10990",job="aix"'


def utc(*args):
    return dt.datetime(*args, tzinfo=dt.timezone.utc).timestamp()


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("nmon") / "h.om"
    summary = run_import("nmon", [str(RECORDING)], str(out), tz="UTC")
    return summary, om_samples(out)


def at(m, key, when):
    return dict(m[key])[when]


def test_summary(imported):
    s, _ = imported
    assert s["files"] == 1 and s["snapshots"] == 187 and s["rows_skipped"] == {}
    assert s["first"] == utc(2016, 2, 10, 17, 28, 10) and s["last"] == utc(2016, 2, 11, 8, 59, 32)
    assert s["not_mapped"]["TOP"][0] == 416 and s["not_mapped"]["DISK*"][0] == 2618



def test_every_unmapped_section_of_the_real_recording_has_a_reason_in_the_readme(imported):
    """The summary names each section it did not map; each has a reason of its own (not the
    catch-all), and so is in the generated "Not mapped" list of docs/nmon-import.md."""
    from tests.lib import ROOT
    s, _ = imported
    readme = (ROOT / "docs" / "nmon-import.md").read_text()
    assert s["not_mapped"]["FILE"] == (187, "kernel file I/O rates (iget, namei, readch, writech): no live metric")
    assert s["not_mapped"]["PAGING"][0] == 187
    for sec, (_, reason) in s["not_mapped"].items():
        assert reason != "no live metric of that meaning", sec
        assert f"`{sec}` ({reason})" in readme, sec


def test_first_snapshot_values(imported):
    _, m = imported
    t1 = utc(2016, 2, 10, 17, 28, 10)
    assert at(m, f'aix_vmstat_cpu_ratio{{{I},mode="user"}}', t1) == 0.322
    assert at(m, f'aix_vmstat_cpu_ratio{{{I},mode="sys"}}', t1) == 0.292
    assert at(m, f'aix_vmstat_cpu_ratio{{{I},mode="wait"}}', t1) == 0.001
    assert at(m, f'aix_vmstat_cpu_ratio{{{I},mode="idle"}}', t1) == 0.385
    assert at(m, f'aix_vmstat_physical_cpus_consumed{{{I}}}', t1) == 1.257
    assert at(m, f'aix_lpar_entitled_capacity_cpus{{{I}}}', t1) == 1.3
    assert at(m, f'aix_lpar_logical_cpus{{{I}}}', t1) == 28
    assert at(m, f'aix_memory_size_bytes{{{I}}}', t1) == 43008 * 2**20
    assert at(m, f'aix_memory_free_bytes{{{I}}}', t1) == 2070.4 * 2**20
    assert at(m, f'aix_memory_page_inuse_bytes{{{I},psize="4K"}}', t1) == (9364896 - 476034) * 4096
    assert at(m, f'aix_memory_page_inuse_bytes{{{I},psize="64K"}}', t1) == (102822 - 3375) * 65536
    assert at(m, f'aix_memory_page_pool_size_bytes{{{I},psize="16M"}}', t1) == 0     # no 16 MB pool here
    assert at(m, f'aix_vmo_tunable{{{I},setting="current",tunable="lgpg_regions"}}', t1) == 0
    assert at(m, f'aix_vmo_tunable{{{I},setting="boot",tunable="lgpg_size"}}', t1) == 0
    assert at(m, f'aix_vmstat_runqueue_threads{{{I}}}', t1) == 3.52
    assert at(m, f'aix_vmstat_syscalls_per_second{{{I}}}', t1) == 189042


def test_events_become_a_running_counter(imported):
    _, m = imported
    faults = m[f'aix_memory_page_faults_total{{{I},psize="4K"}}']
    assert faults[0] == (utc(2016, 2, 10, 17, 28, 10), 0) and faults[1] == (utc(2016, 2, 10, 17, 33, 10), 1714894)
    assert all(b[1] >= a[1] for a, b in zip(faults, faults[1:]))


def test_last_snapshot_after_midnight(imported):
    _, m = imported
    t = utc(2016, 2, 11, 8, 59, 32)
    assert at(m, f'aix_vmstat_cpu_ratio{{{I},mode="sys"}}', t) == 0.318
    assert at(m, f'aix_vmstat_physical_cpus_consumed{{{I}}}', t) == 0.984
    assert at(m, f'aix_memory_free_bytes{{{I}}}', t) == 64.7 * 2**20
    assert at(m, f'aix_vmstat_paging_pages_per_second{{column="sr",{I}}}', t) == 491.3
    assert at(m, f'aix_vmstat_context_switches_per_second{{{I}}}', t) == 2620
    assert len(m[f'aix_vmstat_cpu_ratio{{{I},mode="user"}}']) == 187
