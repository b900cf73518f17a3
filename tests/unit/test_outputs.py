"""outputs.py: a file written whole under its name or not at all, and the checks before the work."""
import os

import pytest

from aix_exporter import outputs


def test_a_file_is_written_whole_and_no_temporary_file_stays(tmp_path):
    outputs.write_text(str(tmp_path / "r.md"), "hello\n")
    assert (tmp_path / "r.md").read_text() == "hello\n" and os.listdir(tmp_path) == ["r.md"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert os.stat(tmp_path / "r.md").st_mode & 0o777 == 0o666 & ~mask      # as a new file would be


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def boom(*a):
        raise OSError("disk full")
    monkeypatch.setattr(outputs.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        outputs.write_text(str(tmp_path / "r.md"), "x")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("where, why", [("none/r.md", "does not exist: make it first, or give another --out"),
                                        ("", "is a directory: give a file name")])
def test_what_cannot_take_a_file_is_said_before_the_work(tmp_path, where, why):
    with pytest.raises(outputs.OutputError) as e:
        outputs.check(str(tmp_path / where) if where else str(tmp_path))
    assert why in str(e.value)
