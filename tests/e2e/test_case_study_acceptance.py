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
    # pin lock misses per second: the model's 4 KB splat window is about 357,000 pin_seg_range
    # acquisitions in 5 s, a quarter missed (about 17,900/s); with 16 MB pages about 15,000 at 0.5 %
    assert p.scalar("aix:pin_lock_misses:rate", before) == pytest.approx(17_900, rel=0.1)
    assert p.scalar("aix:pin_lock_misses:rate", after) < 50
    assert p.scalar("aix:large_pages_recommended:count", after) == 8 * 16 + 32
    assert p.scalar("aix:large_pages_configured:count", after) == 160
    assert p.scalar("aix:large_pages_free:count", after) == 42
    assert p.scalar("aix:tape_bytes_all:rate5m", after) / 2**20 == pytest.approx(378, rel=0.06)


def test_tape_busy_and_transfers_are_the_interval_figures(case_study_prometheus):
    """Issue acceptance (tape figures): each drive's busy ratio over the last 2 h has a median
    inside the model's 0.86-0.99; transfers per second stay near the model's steady value
    instead of swinging with since-boot rounding; no derived counter is served."""
    p = case_study_prometheus
    medians = p.query("quantile_over_time(0.5, aix_tape_busy_ratio[2h])", p.end)
    assert len(medians) == 8                 # the case study's eight drives
    for r in medians:
        assert 0.86 <= float(r["value"][1]) <= 0.99, r
    # 16 MB regime: about 378 MiB/s in 256 KiB transfers, 378 x 4 transfers per second in all
    xfers = p.scalar("sum(avg_over_time(aix_tape_transfers_per_second[1h]))", p.end - AFTER)
    assert xfers == pytest.approx(378 * 4, rel=0.06)
    spread = p.query("max_over_time(aix_tape_transfers_per_second[1h]) / min_over_time(aix_tape_transfers_per_second[1h])",
                     p.end - AFTER)
    assert all(float(r["value"][1]) < 1.3 for r in spread), spread
    assert p.query("aix_tape_transfers_total or aix_tape_busy_seconds_total", p.end) == []


def test_per_regime_rules_backfill_and_carry_the_case_study(case_study_prometheus):
    """The per-regime recording rules, backfilled with promtool, over the whole 8 h: every
    minute labelled 4K or 16M, so the regimes' averages are the case study's before and after."""
    p = case_study_prometheus
    avg = lambda rule, regime: p.scalar(f'avg(avg_over_time({rule}{{regime="{regime}"}}[8h]))', p.end)
    assert avg("aix:regime_tape_bytes:rate5m", "4K") / 2**20 == pytest.approx(139, rel=0.06)
    assert avg("aix:regime_tape_bytes:rate5m", "16M") / 2**20 == pytest.approx(378, rel=0.06)
    assert avg("aix:regime_pin_lock_miss:ratio", "4K") == pytest.approx(0.25, abs=0.02)
    assert avg("aix:regime_pin_lock_miss:ratio", "16M") < 0.02
    assert avg("aix:regime_cpu_sys_per_user:ratio", "4K") >= 4
    assert p.scalar('max_over_time(aix:regime_lgpg_regions:count{regime="16M"}[8h])', p.end) == 160
