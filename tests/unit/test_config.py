import subprocess
import sys

import pytest

from aix_exporter.config import ConfigError, load
from tests.e2e.helpers import env


def write(tmp_path, text):
    p = tmp_path / "c.yml"
    p.write_text(text)
    return str(p)


def test_defaults_without_file():
    s = load(None)
    assert s.vmo.tunables == ["lgpg_regions", "lgpg_size"]
    assert s.process.commands == ["dsmserv", "dsmsta"] and s.process.max_processes == 20
    assert s.tsm.message_ids == ["ANR0358E", "ANR9999D"]


def test_typed_values(tmp_path):
    s = load(write(tmp_path, "command_timeout_seconds: 3\nvmstat:\n  interval_seconds: 10\n"
                             "process:\n  commands: [dsmserv]\n  max_processes: 5\n"))
    assert s.command_timeout_seconds == 3 and s.vmstat.interval_seconds == 10
    assert s.process.commands == ["dsmserv"] and s.process.max_processes == 5


@pytest.mark.parametrize("text,message", [
    ("vmstat: 5\n", "vmstat: expected a mapping"),
    ("vmstat:\n  interval: 5\n", "unknown key"),
    ("vmstat:\n  interval_seconds: fast\n", "expected a number"),
    ("vmstat:\n  interval_seconds: -1\n", "must be positive"),
    ("vmo:\n  tunables: ['lgpg_regions; rm -rf /']\n", "not a vmo tunable name"),
    ("process:\n  commands: ['dsm serv']\n", "not a command name"),
    ("tsm:\n  dsmadmc: [dsmadmc, -id=admin]\n", "absolute path"),
    ("tsm:\n  message_ids: [hello]\n", "not a message id"),
    ("a: [unclosed\n", "not valid YAML"),
])
def test_invalid_config_is_rejected_with_a_clear_message(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load(write(tmp_path, text))


def test_check_config_flag(tmp_path):
    good = write(tmp_path, "vmstat:\n  interval_seconds: 10\n")
    ok = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", good, "--check-config"],
                        capture_output=True, text=True, env=env())
    assert ok.returncode == 0 and "is valid" in ok.stdout
    (tmp_path / "bad.yml").write_text("vmstat:\n  interval_seconds: x\n")
    bad = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", str(tmp_path / "bad.yml"),
                          "--check-config"], capture_output=True, text=True, env=env())
    assert bad.returncode == 1 and "vmstat.interval_seconds: expected a number" in bad.stderr
