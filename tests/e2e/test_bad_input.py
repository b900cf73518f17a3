"""Bad input marks only that collector failed, logs one line naming the command, serves no stale values."""
import shutil

import pytest

from tests.lib import FIXTURES
from tests.lib.processes import run_once

GOOD = FIXTURES / "replay" / "tsm-lpar"
CASES = {
    "empty": b"",
    "truncated": (GOOD / "svmon_g.txt").read_bytes()[:40],
    "binary": bytes(range(256)) * 4,
    "header-no-rows": b"               size       inuse        free         pin     virtual   mmode\n",
    "other-locale": "               taille     utilisée      libre     épinglé    virtuelle\n"
                    "mémoire     16777216    12400512    4376704    5226496    9871360\n".encode(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_svmon_g_fails_only_memory_collector(case, tmp_path):
    d = tmp_path / "replay"
    shutil.copytree(GOOD, d)
    (d / "svmon_g.txt").write_bytes(CASES[case])
    proc = run_once("--source", f"replay:{d}")
    out = proc.stdout
    assert 'aix_exporter_collector_success{collector="memory"} 0.0' in out
    for other in ("vmstat", "vmo", "vmstat_v", "vmstat_s"):
        assert f'aix_exporter_collector_success{{collector="{other}"}} 1.0' in out
    assert "aix_memory_" not in out  # nothing from the failed collector
    assert 'aix_vmstat_cpu_ratio{mode="user"} 0.04' in out
    errors = [l for l in proc.stderr.splitlines() if "level=error" in l]
    assert len(errors) == 1, proc.stderr
    assert "collector=memory" in errors[0] and "svmon -G" in errors[0]


def test_missing_file_means_no_data_for_that_collector(tmp_path):
    d = tmp_path / "replay"
    shutil.copytree(GOOD, d)
    (d / "vmo.txt").unlink()
    out = run_once("--source", f"replay:{d}").stdout
    assert 'aix_exporter_collector_success{collector="vmo"} 0.0' in out
    assert "aix_vmo_tunable" not in out
    assert 'aix_exporter_collector_last_success_timestamp_seconds{collector="vmo"}' not in out


def test_unusable_replay_directory_exits_1_with_a_message(tmp_path):
    proc = run_once("--source", f"replay:{tmp_path / 'missing'}", check=False)
    assert proc.returncode == 1
    assert "does not exist" in proc.stderr and proc.stdout == ""


KEYS = {  # replay file -> (collector, command named in the log line)
    "vmstat": ("vmstat", "vmstat"), "svmon_g": ("memory", "svmon -G"), "vmo": ("vmo", "vmo"),
    "vmstat_v": ("vmstat_v", "vmstat -v"), "vmstat_s": ("vmstat_s", "vmstat -s"),
    "svmon_p": ("process", "svmon -P"), "ps_env": ("ldr_cntrl", "ps eww"), "splat": ("splat", "splat"),
    "iostat_tape": ("tape", "iostat -p"), "tsm_actlog": ("tsm", "TSM activity log"),
}
ALL = sorted(c for c, _ in KEYS.values())


# Damage each format can detect: a cut that leaves a row short, a missing closing
# rule, a number without its label, a log line without its date.
CUTS = {
    "vmstat": lambda t: t[: t.rindex(b"1638622") + 30],
    "svmon_g": lambda t: t[: t.index(b"L   16 MB") + 25],
    "vmo": lambda t: t[: t.rstrip(b"\n").rindex(b"\n") + 1],   # without the closing rule
    "vmstat_v": lambda t: t[: t.rindex(b"58.8") + 2],
    "vmstat_s": lambda t: t[: t.rindex(b"1989400130") + 5],
    "svmon_p": lambda t: t[: t.rindex(b"14677") + 10],
    "splat": lambda t: t[: t.index(b".xlpin") + 25],
    "iostat_tape": lambda t: t[: t.rindex(b"rmt1") + 20],
    # (tsm_actlog: no cut fails it by design: an odd line is counted in aix_tsm_unparsed_lines_total)
}
CASES_EACH = [(k, "garbage") for k in sorted(KEYS)] + [(k, "cut") for k in sorted(CUTS)]


@pytest.mark.parametrize("key,damage", CASES_EACH)
def test_each_collector_fails_alone(key, damage, tmp_path):
    d = tmp_path / "replay"
    shutil.copytree(GOOD, d)
    text = (GOOD / f"{key}.txt").read_bytes()
    if damage == "garbage":
        bad = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(200))
    else:
        bad = CUTS[key](text)
    (d / f"{key}.txt").write_bytes(bad)
    proc = run_once("--source", f"replay:{d}")
    collector, command = KEYS[key]
    for c in ALL:
        want = "0.0" if c == collector else "1.0"
        assert f'aix_exporter_collector_success{{collector="{c}"}} {want}' in proc.stdout, (c, proc.stderr)
    errors = [l for l in proc.stderr.splitlines() if "level=error" in l]
    assert len(errors) == 1 and f"collector={collector}" in errors[0] and command in errors[0], proc.stderr
