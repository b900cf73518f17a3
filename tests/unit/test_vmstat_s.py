"""vmstat -s: counters since boot."""
from aix_exporter.collectors.vmstat_s import s_families
from aix_exporter.parsers import vmstat_s
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_vmstat_s_counters():
    pairs = vmstat_s.parse(fixture_text("vmstat_s", "aix53-with-lock-misses.txt"))
    m = samples(s_families(pairs))
    assert m[("aix_vmstat_address_translation_faults_total", ())] == 410356781
    assert m[("aix_vmstat_paging_space_page_outs_total", ())] == 420
    assert m[("aix_vmstat_lock_misses_total", ())] == 5123
    assert m[("aix_vmstat_context_switches_total", ())] == 984311870
    assert m[("aix_vmstat_syscalls_total", ())] == 1989400130

