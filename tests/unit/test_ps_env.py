"""ps eww: LDR_CNTRL of the monitored processes; bad input."""
import pytest

from aix_exporter.collectors.ldr_cntrl import ldr_families
from aix_exporter.parsers import ParseError, ps_env
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_ps_env_ldr_cntrl():
    envs = ps_env.parse(fixture_text("ps_env", "dsmserv-large-page-y.txt"))
    assert [(e.pid, e.command) for e in envs] == [(2753002, "dsmserv"), (2978016, "dsmsta")]
    assert envs[0].ldr_cntrl == {"TEXTPSIZE": "64K", "STACKPSIZE": "64K", "SHMPSIZE": "64K", "LARGE_PAGE_DATA": "Y"}
    assert envs[1].ldr_cntrl == {}
    m = samples(ldr_families(envs))
    assert m[("aix_process_ldr_cntrl_info", (("command", "dsmserv"), ("datapsize", ""), ("large_page_data", "Y"),
                                             ("pid", "2753002"), ("shmpsize", "64K"), ("stackpsize", "64K"),
                                             ("textpsize", "64K")))] == 1
    assert m[("aix_process_ldr_cntrl_info", (("command", "dsmsta"), ("datapsize", ""), ("large_page_data", ""),
                                             ("pid", "2978016"), ("shmpsize", ""), ("stackpsize", ""),
                                             ("textpsize", "")))] == 1



@pytest.mark.parametrize("text,message", [
    ("", "empty output"),
    ("hello\n", "no 'PID TTY"),
    ("      PID    TTY STAT  TIME COMMAND\n", "header without process lines"),
    ("      PID    TTY STAT  TIME COMMAND\n  2753002 garbage\n", "not a process line"),
    ("      PID    TTY STAT  TIME COMMAND\n  1      - A  0:01 /x LDR_CNTRL=LARGE_PAGE_DATA\n", "not KEY=VALUE"),
])
def test_ps_env_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        ps_env.parse(text)



PS_HEADER = "      PID    TTY STAT  TIME COMMAND\n"


def test_processes_without_ldr_cntrl_and_after_blank_lines_are_all_read():
    text = PS_HEADER + \
        "  2978016      - A     3:02 /usr/tivoli/tsm/StorageAgent/bin/dsmsta quiet _=/usr/bin/nohup LANG=C\n\n" \
        "  2753002      - A    812:14 /opt/tivoli/tsm/server/bin/dsmserv -u tsminst1 " \
        "LDR_CNTRL=LARGE_PAGE_DATA=Y@@DATAPSIZE=64K@ PATH=/usr/bin\n"
    a, b = ps_env.parse(text)
    assert (a.pid, a.command, a.ldr_cntrl, a.ldr_cntrl_raw) == (2978016, "dsmsta", {}, "")
    assert (b.pid, b.command, b.ldr_cntrl, b.ldr_cntrl_raw) == (
        2753002, "dsmserv", {"LARGE_PAGE_DATA": "Y", "DATAPSIZE": "64K"}, "LARGE_PAGE_DATA=Y@@DATAPSIZE=64K@")
    env = ps_env.ProcessEnv(1, "x")
    assert (env.ldr_cntrl, env.ldr_cntrl_raw) == ({}, "")


@pytest.mark.parametrize("text,message", [
    (PS_HEADER + "  1      - A     3:02 /bin/x LDR_CNTRL=MAXDATA\n",
     "ps eww: LDR_CNTRL item 'MAXDATA' is not KEY=VALUE (line 2: '  1      - A     3:02 /bin/x LDR_CNTRL=MAXDATA')"),
    (PS_HEADER + "  1      - A     3:02 /bin/x LDR_CNTRL=maxdata=1\n",
     "ps eww: LDR_CNTRL item 'maxdata=1' is not KEY=VALUE (line 2: '  1      - A     3:02 /bin/x LDR_CNTRL=maxdata=1')"),
    (PS_HEADER + "  x      - A     3:02 /bin/x\n", "ps eww: not a process line (line 2: '  x      - A     3:02 /bin/x')"),
    (PS_HEADER + "  1      - A     soon /bin/x\n", "ps eww: not a process line (line 2: '  1      - A     soon /bin/x')"),
    (PS_HEADER + "\n", "ps eww: header without process lines"),
])
def test_ps_env_errors_in_full(text, message):
    with pytest.raises(ParseError) as e:
        ps_env.parse(text)
    assert str(e.value) == message
