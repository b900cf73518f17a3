"""files.open_regular: a regular file opens; a FIFO (which a plain open would wait on for ever), a
directory and a missing path are refused at once, each with its own exception."""
import os

import pytest

from aix_exporter import files


def test_a_regular_file_opens_with_its_stat(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"abc")
    fh, st = files.open_regular(str(p))
    with fh:
        assert fh.read() == b"abc" and st.st_size == 3


def test_a_fifo_a_directory_and_a_missing_path_are_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        with pytest.raises(files.NotRegular) as e:
            files.open_regular(str(path))
        assert str(e.value) == f"{path} is not a regular file"
    with pytest.raises(FileNotFoundError):
        files.open_regular(str(tmp_path / "none"))
