"""sources/system.run() with real small commands: the environment they get, each refusal and
failure in its own words, the output cap and the kept stderr from both sides, a command that
closed its pipes but did not exit, output that came in pieces, and the costs counted per run."""
import os

import pytest

from aix_exporter.sources import CommandFailed, SourceError, system

SH = "/bin/sh"


def test_a_command_gets_the_c_locale_and_a_fixed_path():
    assert system.run([SH, "-c", 'printf "%s|%s|%s" "$LC_ALL" "$LANG" "$PATH"'], 10) == \
        "C|C|/usr/bin:/usr/sbin:/bin:/sbin"


def test_a_command_that_cannot_run_is_one_line():
    with pytest.raises(SourceError) as e:
        system.run(["vmstat", "-v"], 10)
    assert str(e.value) == "command must have an absolute path: ['vmstat', '-v']"
    with pytest.raises(SourceError) as e:
        system.run([], 10)
    assert str(e.value) == "command must have an absolute path: []"
    with pytest.raises(SourceError) as e:
        system.run(["/nonexistent/vmstat", "-v"], 10)
    assert str(e.value) == "/nonexistent/vmstat: No such file or directory"


def test_output_up_to_the_cap_is_read_and_a_byte_more_is_an_error():
    assert system.run([SH, "-c", "printf 0123456789"], 10, max_output=10) == "0123456789"
    with pytest.raises(SourceError) as e:
        system.run([SH, "-c", "printf 0123456789x"], 10, max_output=10)
    assert str(e.value) == f"{SH} -c printf 0123456789x: printed more than 10 bytes, process group killed"


def test_a_timeout_is_its_own_words():
    with pytest.raises(SourceError) as e:
        system.run([SH, "-c", "sleep 30"], 0.5)
    assert str(e.value) == f"{SH} -c sleep 30: timed out after 0.5s, process group killed"


def test_a_command_that_closed_its_output_but_did_not_exit_times_out():
    with pytest.raises(SourceError) as e:
        system.run([SH, "-c", "exec >&- 2>&-; sleep 3"], 0.5)
    assert str(e.value) == f"{SH} -c exec >&- 2>&-; sleep 3: timed out after 0.5s, process group killed"


def test_a_failure_keeps_its_output_in_pieces_and_the_first_4096_bytes_of_stderr():
    with pytest.raises(CommandFailed) as e:
        system.run([SH, "-c", "printf a; sleep 0.2; printf b; printf '%4096s' '' >&2; sleep 0.2; printf x >&2; exit 3"],
                   10)
    assert e.value.output == "ab"
    assert e.value.stderr == " " * 4096                  # what came after the first 4,096 bytes is dropped
    assert str(e.value) == f"{SH} -c printf a; sleep 0.2; printf b; printf '%4096s' '' >&2; sleep 0.2; printf x >&2; " \
                           "exit 3: exit status 3"


def test_each_run_is_counted_with_its_cpu(tmp_path):
    sh = tmp_path / "costsh"                                     # a name of its own: its own line of costs
    os.symlink(SH, sh)
    before = system.command_costs().get("costsh", (0.0, 0.0, 0))
    system.run([str(sh), "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"], 30)
    busy = system.command_costs()["costsh"]
    system.run([str(sh), "-c", "true"], 30)
    after = system.command_costs()["costsh"]
    assert after[2] - before[2] == 2
    assert busy[0] > before[0] and after[0] >= busy[0]           # a counter: a cheap run adds, never replaces
    assert after[1] >= busy[1] > before[1]
