"""Every configuration default and every bound, written out by hand and pinned from both
sides (config.py): a default or a bound changed by accident is an admin's LPAR behaving
differently with the same file."""
import dataclasses

import pytest

from aix_exporter.config import ConfigError, Settings, load

DEFAULTS = {
    "command_timeout_seconds": 10,
    "command_root": None,
    "vmstat": {"interval_seconds": 5, "max_age_seconds": 60},
    "vmo": {"tunables": ["lgpg_regions", "lgpg_size"]},
    "tape": {"interval_seconds": 5, "max_age_seconds": 60},
    "process": {"commands": ["dsmserv", "dsmsta"], "max_processes": 20},
    "splat": {"enabled_trace": False, "trace_seconds": 5, "every_minutes": 15, "report_dir": None,
              "report_glob": "*.out", "top_n": 10, "max_age_seconds": 3600, "work_dir": "/var/tmp/aix_exporter/splat"},
    "tsm": {"actlog_file": None, "state_file": None, "dsmadmc": None, "message_ids": ["ANR0358E", "ANR9999D"],
            "admin_id": None, "password_file": None, "dsmadmc_binary": "/usr/bin/dsmadmc", "summary_hours": 24,
            "checklist_interval_seconds": 300},
    "errpt": {"interval_seconds": 300, "state_file": None},
    "ssh": {"key_file": None, "known_hosts": None, "connect_timeout_seconds": 10, "max_sessions": 8,
            "output_budget_bytes": 33554432},
    "probe": {"max_concurrent": 64},
    "targets": [],
}

# key -> (lowest, highest) accepted, and a value just outside each end
BOUNDS = {
    "command_timeout_seconds": (0.1, 600, 0.09, 600.5),
    "vmstat.interval_seconds": (1, 300, 0.5, 301),
    "vmstat.max_age_seconds": (1, 86400, 0.5, 86401),
    "process.max_processes": (1, 1000, 0.5, 1001),
    "tape.interval_seconds": (1, 300, 0.5, 301),
    "tape.max_age_seconds": (1, 86400, 0.5, 86401),
    "splat.trace_seconds": (1, 60, 0.5, 61),
    "splat.every_minutes": (1, 1440, 0.5, 1441),
    "splat.top_n": (1, 1000, 0.5, 1001),
    "splat.max_age_seconds": (1, 604800, 0.5, 604801),
    "tsm.summary_hours": (1, 744, 0.5, 745),
    "tsm.checklist_interval_seconds": (60, 86400, 59, 86401),
    "errpt.interval_seconds": (60, 86400, 59, 86401),
    "ssh.connect_timeout_seconds": (0.1, 120, 0.09, 120.5),
    "ssh.max_sessions": (1, 64, 0.5, 65),
    "probe.max_concurrent": (1, 1000, 0.5, 1001),
    "ssh.output_budget_bytes": (1048576, 1073741824, 1048575, 1073741825),
}


def write(tmp_path, key, value):
    section, _, name = key.rpartition(".")
    text = f"{section}:\n  {name}: {value}\n" if section else f"{name}: {value}\n"
    p = tmp_path / "c.yml"
    p.write_text(text)
    return str(p)


def get(settings, key):
    for part in key.split("."):
        settings = getattr(settings, part)
    return settings


def test_every_default_is_the_documented_one():
    assert dataclasses.asdict(Settings()) == DEFAULTS
    assert dataclasses.asdict(load(None)) == DEFAULTS


def test_the_bounds_table_covers_every_number_setting():
    numbers = set()

    def walk(obj, prefix=""):
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if dataclasses.is_dataclass(v):
                walk(v, f"{prefix}{f.name}.")
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                numbers.add(prefix + f.name)
    walk(Settings())
    assert numbers == set(BOUNDS)


@pytest.mark.parametrize("key", sorted(BOUNDS))
def test_each_bound_is_accepted_and_one_step_past_it_refused(tmp_path, key):
    low, high, below, above = BOUNDS[key]
    assert get(load(write(tmp_path, key, low)), key) == low
    assert get(load(write(tmp_path, key, high)), key) == high
    for bad in (below, above):
        with pytest.raises(ConfigError) as e:
            load(write(tmp_path, key, bad))
        assert f"{key}: must be between {low:g} and {high:g}, got {bad!r}" in str(e.value)


@pytest.mark.parametrize("value, message", [
    ("0", "must be positive, got 0"), ("-5", "must be positive, got -5"), (".inf", "must be a finite number, got inf"),
    (".nan", "must be a finite number, got nan"), ("true", "expected a number, got True"),
    ("'5'", "expected a number, got '5'"),
])
def test_a_number_that_is_not_a_usable_one_is_refused_by_name(tmp_path, value, message):
    with pytest.raises(ConfigError) as e:
        load(write(tmp_path, "vmstat.interval_seconds", value))
    assert f"vmstat.interval_seconds: {message}" in str(e.value)


def test_a_whole_float_for_an_integer_setting_becomes_an_integer(tmp_path):
    s = load(write(tmp_path, "tape.interval_seconds", "10.0"))
    assert s.tape.interval_seconds == 10 and type(s.tape.interval_seconds) is int
    s = load(write(tmp_path, "command_timeout_seconds", "2.5"))
    assert s.command_timeout_seconds == 2.5


def test_a_section_that_is_not_a_mapping_and_an_unknown_key_are_named(tmp_path):
    p = tmp_path / "c.yml"
    p.write_text("vmstat: [1, 2]\ntape:\n  intervall_seconds: 5\n")
    with pytest.raises(ConfigError) as e:
        load(str(p))
    assert str(e.value).split("\n") == [
        f"{p}:1:9: vmstat: expected a mapping, got list",
        f"{p}:3:22: tape.intervall_seconds: unknown key; known in tape: interval_seconds, max_age_seconds"]
    p.write_text("[1, 2]\n")
    with pytest.raises(ConfigError) as e:
        load(str(p))
    assert str(e.value) == f"{p}: config: expected a mapping, got list"
    p.write_text("colour: blue\n")
    with pytest.raises(ConfigError) as e:
        load(str(p))
    assert str(e.value).startswith(f"{p}:1:9: colour: unknown key; known in the top level: command_timeout_seconds, ")


def test_the_trace_switch_takes_only_true_or_false(tmp_path):
    assert load(write(tmp_path, "splat.enabled_trace", "true")).splat.enabled_trace is True
    with pytest.raises(ConfigError) as e:
        load(write(tmp_path, "splat.enabled_trace", "1"))
    assert "splat.enabled_trace: expected true or false, got 1" in str(e.value)
