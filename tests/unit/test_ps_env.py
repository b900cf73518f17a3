"""ps eww: LDR_CNTRL of the monitored processes; bad input."""
import pytest

from aix_exporter.collectors.ldr_cntrl import ldr_families
from aix_exporter.parsers import ParseError, ps_env
from tests.conftest import fixture_text
from tests.unit.helpers import samples


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

