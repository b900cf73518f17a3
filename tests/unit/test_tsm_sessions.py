"""dsmadmc select from sessions: rows, quoted fields; bytes summed per client (bounded labels)."""
from aix_exporter.collectors.tsm_server import families_from
from aix_exporter.parsers import tsm_sessions
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_sessions_summed_per_client():
    sessions = tsm_sessions.parse(fixture_text("tsm_sessions", "two-clients-three-sessions.txt"))
    assert len(sessions) == 3
    m = samples(families_from([], sessions, [], []))
    assert m[("aix_tsm_session_received_bytes", (("client", "TSMCLI01"),))] == 858993459200 + 1048576
    assert m[("aix_tsm_session_sent_bytes", (("client", "TSMCLI02"),))] == 655360
    assert m[("aix_tsm_sessions", ())] == 3


def test_a_quoted_field_keeps_its_commas():
    (s,) = tsm_sessions.parse(fixture_text("tsm_sessions", "quoted-client-name.txt"))
    assert s.client == "NODE,WITH,COMMAS" and s.bytes_received == 2


def test_an_empty_text_field_reads_as_a_dash_and_an_empty_sum_as_0():
    (s,) = tsm_sessions.parse("141,,,2048\n")
    assert (s.client, s.bytes_sent, s.bytes_received) == ("-", 0, 2048)
