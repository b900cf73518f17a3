"""Bad input marks only that collector failed, logs one line naming the command, serves no stale values."""
import shutil

import pytest

from tests.conftest import FIXTURES
from tests.e2e.helpers import run_once

GOOD = FIXTURES / "replay" / "tsm-lpar"
CASES = {
    "empty": b"",
    "truncated": (GOOD / "svmon_G.txt").read_bytes()[:40],
    "binary": bytes(range(256)) * 4,
    "header-no-rows": b"               size       inuse        free         pin     virtual   mmode\n",
    "other-locale": "               taille     utilisée      libre     épinglé    virtuelle\n"
                    "mémoire     16777216    12400512    4376704    5226496    9871360\n".encode(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_svmon_g_fails_only_memory_collector(case, tmp_path):
    d = tmp_path / "replay"
    shutil.copytree(GOOD, d)
    (d / "svmon_G.txt").write_bytes(CASES[case])
    proc = run_once("--source", f"replay:{d}")
    out = proc.stdout
    assert 'aix_exporter_collector_success{collector="memory"} 0.0' in out
    for other in ("vmstat", "vmo", "vmstat_v", "vmstat_s"):
        assert f'aix_exporter_collector_success{{collector="{other}"}} 1.0' in out
    assert "aix_memory_" not in out  # nothing from the failed collector
    assert 'aix_vmstat_cpu_ratio{mode="user"} 0.04' in out
    errors = [l for l in proc.stderr.splitlines() if "level=ERROR" in l]
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
