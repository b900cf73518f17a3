"""Issue acceptance: Prometheus queries over the before and after windows of the
backfilled case-study history reproduce the case study's ratios."""
import pytest

# The scenario: 4 KB regime for the first 4 h, tuning and restart, then 16 MB pages.
# Windows are 1 h long, well inside each regime (history ends at `end`, 8 h long).
BEFORE = 5.5 * 3600   # seconds before `end`: 2.5 h into the 4 KB regime
AFTER = 0.5 * 3600    # 7.5 h into the scenario: 16 MB regime

TAPE = "sum(rate(aix_tape_written_bytes_total[1h])) + sum(rate(aix_tape_read_bytes_total[1h]))"
USER = 'avg_over_time(aix_vmstat_cpu_ratio{mode="user"}[1h])'
SYS = 'avg_over_time(aix_vmstat_cpu_ratio{mode="sys"}[1h])'
MISS = 'avg_over_time(aix_splat_function_miss_ratio{function=".pin_seg_range"}[1h])'


def test_case_study_ratios(case_study_prometheus):
    p = case_study_prometheus
    before, after = p.end - BEFORE, p.end - AFTER
    tape_b, tape_a = p.scalar(TAPE, before), p.scalar(TAPE, after)
    assert tape_b / 2**20 == pytest.approx(139, rel=0.05)
    assert tape_a / 2**20 == pytest.approx(378, rel=0.05)
    assert tape_a / tape_b == pytest.approx(2.7, abs=0.15)
    user_b, user_a = p.scalar(USER, before), p.scalar(USER, after)
    assert user_a / user_b >= 8
    assert p.scalar(SYS, before) >= 4 * user_b          # %sys several times %usr before tuning
    assert p.scalar(MISS, before) == pytest.approx(0.25, abs=0.02)
    assert p.scalar(MISS, after) < 0.01
    # the pin routine leads splat's ranking before and has left the top after
    top = lambda at: max(p.query("aix_splat_function_acquisitions * aix_splat_function_miss_ratio", at),
                         key=lambda r: float(r["value"][1]))["metric"]["function"]
    assert top(before) == ".pin_seg_range" and top(after) != ".pin_seg_range"
    assert p.scalar('aix_vmo_tunable{tunable="lgpg_regions",setting="current"}', before) == 0
    assert p.scalar('aix_vmo_tunable{tunable="lgpg_regions",setting="current"}', after) == 160
    assert p.scalar('count(aix_process_large_page_info{mode="Y"})', after) == 1


def test_recording_rules_over_the_backfilled_history(case_study_prometheus):
    p = case_study_prometheus
    before, after = p.end - BEFORE, p.end - AFTER
    assert p.scalar("aix:pin_lock_miss:ratio", before) == pytest.approx(0.25, abs=0.02)
    assert p.scalar("aix:cpu_sys_per_user:ratio", before) >= 4
    assert p.scalar("aix:large_pages_recommended:count", after) == 8 * 16 + 32
    assert p.scalar("aix:large_pages_configured:count", after) == 160
    assert p.scalar("aix:large_pages_free:count", after) == 42
    assert p.scalar("aix:tape_bytes_all:rate5m", after) / 2**20 == pytest.approx(378, rel=0.06)
