"""A parser failure is one line an admin can act on: it names the command (as the admin would
type it) and, where there is one, the line number and the line. Written out in full here, so a
parser that names the wrong command or counts lines from 0 or 2 fails."""
import pytest

from aix_exporter.parsers import (ParseError, iostat_tape, ps_env, splat, svmon_g, svmon_p, tsm_mounts, tsm_processes,
                                  tsm_sessions, tsm_summary, vmo, vmstat, vmstat_s, vmstat_v)

GARBAGE = "garbage line here\n"

CASES = [
    (vmstat, GARBAGE, "vmstat: no column header line (r b avm fre ...) found", 0),
    (vmstat_v, GARBAGE, "vmstat -v: expected '<number> <label>' (line 1: 'garbage line here')", 1),
    (vmstat_s, "12 forks\n" + GARBAGE, "vmstat -s: expected '<number> <label>' (line 2: 'garbage line here')", 2),
    (svmon_g, GARBAGE, "svmon -G: no memory row found", 0),
    (svmon_p, GARBAGE, "svmon -P: no process rows found (no 'Pid Command' header with a row)", 0),
    (ps_env, GARBAGE, "ps eww: no 'PID TTY STAT TIME COMMAND' header", 0),
    (vmo, GARBAGE, "vmo: neither a 'vmo -L' table nor 'name = value' (line 1: 'garbage line here')", 1),
    (splat, GARBAGE, "splat: no splat section (execution summary, lock summary, function details) found", 0),
    (iostat_tape, GARBAGE, "iostat -p: no 'Tapes:' report and no 'No tapes found'", 0),
    (tsm_processes, "812,Backup Storage Pool,79259678720,1181\n" + GARBAGE,
     "dsmadmc select from processes: expected 4 comma-separated fields (line 2: 'garbage line here')", 2),
    (tsm_sessions, GARBAGE, "dsmadmc select from sessions: expected 4 comma-separated fields (line 1: 'garbage line here')", 1),
    (tsm_summary, GARBAGE, "dsmadmc select from summary: expected 3 comma-separated fields (line 1: 'garbage line here')", 1),
    (tsm_mounts, GARBAGE, "dsmadmc query mount: not a mount message (line 1: 'garbage line here')", 1),
]


@pytest.mark.parametrize("module,text,message,line", CASES, ids=[c[0].__name__.rsplit(".", 1)[1] for c in CASES])
def test_the_error_names_the_command_and_the_line(module, text, message, line):
    with pytest.raises(ParseError) as e:
        module.parse(text)
    assert str(e.value) == message
    assert e.value.line_no == line


@pytest.mark.parametrize("module,name", [(vmstat, "vmstat"), (vmstat_v, "vmstat -v"), (vmstat_s, "vmstat -s"),
                                         (svmon_g, "svmon -G"), (svmon_p, "svmon -P"), (ps_env, "ps eww"), (vmo, "vmo"),
                                         (splat, "splat"), (iostat_tape, "iostat -p"),
                                         (tsm_processes, "dsmadmc select from processes"),
                                         (tsm_sessions, "dsmadmc select from sessions"),
                                         (tsm_summary, "dsmadmc select from summary"), (tsm_mounts, "dsmadmc query mount")])
def test_empty_output_is_an_error_naming_the_command(module, name):
    with pytest.raises(ParseError) as e:
        module.parse("")
    assert str(e.value) == f"{name}: empty output"


def test_dsmadmc_answers_skip_blank_and_message_lines_and_read_on():
    """Blank lines and ANR/ANS messages between rows are not rows, and reading goes on after
    them; a field that is not a whole number is named with its row."""
    text = "\nANS8000I Server command: 'select ...'\n812,Backup Storage Pool,79259678720,1181\n\n" \
           "ANR0944E QUERY PROCESS: No active processes found.\n813,Migration,1288490188800,5120\n"
    procs = tsm_processes.parse(text)
    assert [(p.number, p.bytes) for p in procs] == [(812, 79259678720), (813, 1288490188800)]
    with pytest.raises(ParseError) as e:
        tsm_processes.parse("812,Backup Storage Pool,7x,1181\n")
    assert str(e.value) == "dsmadmc select from processes: '7x' is not a whole number (line 1: '812,Backup Storage Pool,7x,1181')"
    assert tsm_processes.parse("ANR2034E SELECT: No match found using this criteria.\n") == []


def test_labelled_lines_read_on_after_blank_lines():
    assert vmstat_s.parse("12 forks\n\n  34 execs\n") == [("forks", 12), ("execs", 34)]
