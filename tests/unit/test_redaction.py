"""Secrets never shown (issue 45): dsmadmc's password option in any spelling and place, and a
URL's userinfo, hidden in every text a log, the landing page or the terminal shows."""
import logging

import pytest

from aix_exporter import redaction
from aix_exporter.config import ConfigError, load


@pytest.mark.parametrize("text, shown", [
    ("-password=geheim", "-password=***"),
    ("/usr/bin/dsmadmc -id=admin -PAssword=geheim -dataonly=yes q actlog", "/usr/bin/dsmadmc -id=admin "
                                                                            "-PAssword=*** -dataonly=yes q actlog"),
    ("-pa=x1 and -passw='two words' and -PASSWORD=\"three words\"", "-pa=*** and -passw=*** and -PASSWORD=***"),
    ("argv ['/usr/bin/dsmadmc', '-pass=s3cret', 'q']", "argv ['/usr/bin/dsmadmc', '-pass=***', 'q']"),
    ("http://prom:p%40ss@host:9090/api and https://u@h/", "http://***@host:9090/api and https://***@h/"),
    ("-p=notthepassword -path=/x --password=gnu-style", "-p=notthepassword -path=/x --password=gnu-style"),
    ("", ""),
])
def test_every_spelling_and_place_is_hidden(text, shown):
    assert redaction.redact(text) == shown


@pytest.mark.parametrize("text, has", [("-pa=x", True), ("/usr/bin/dsmadmc -id=a -password=x q", True),
                                       ("-p=x", False), ("-id=pa=x", False), ("q actlog", False)])
def test_has_password_from_both_sides(text, has):
    assert redaction.has_password(text) is has


def test_a_one_string_dsmadmc_is_refused_with_the_reason_and_its_password_is_named(tmp_path):
    p = tmp_path / "c.yml"
    p.write_text('tsm:\n  dsmadmc: "/usr/bin/dsmadmc -id=admin -password=geheim -dataonly=yes q actlog"\n')
    with pytest.raises(ConfigError) as e:
        load(str(p))
    lines = str(e.value).splitlines()
    assert lines == [
        f"{p}:2:12: tsm.dsmadmc: one string: commands are argv lists, one element per argument and no shell "
        "(write [/usr/bin/dsmadmc, -id=ADMIN, -dataonly=yes, query, actlog])",
        f"{p}:2:12: tsm.dsmadmc: a password on the command line (every user sees it in ps): use tsm.admin_id and "
        "tsm.password_file, which go to dsmadmc on standard input"]
    assert "geheim" not in str(e.value)


def test_the_log_formatters_hide_secrets_whatever_logged_them():
    import io

    from aix_exporter import logfmt
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        for fmt in ("logfmt", "json"):
            stream = io.StringIO()
            logfmt.setup("INFO", fmt, stream)
            logging.getLogger("aix_exporter").error("msg=failed command=%s url=%s", "/usr/bin/dsmadmc -pa=geheim q",
                                                    "http://u:geheim@h/x")
            err = stream.getvalue()
            assert "geheim" not in err and "-pa=***" in err and "http://***@h/x" in err, err
    finally:
        root.handlers[:], root.level = saved[0], saved[1]


def test_a_collector_error_naming_the_password_reaches_neither_the_log_nor_the_landing_page(caplog):
    from aix_exporter.collectors.base import Collector
    from aix_exporter.exporter import Exporter
    from aix_exporter.sources import SourceError

    class Leaky(Collector):
        name, keys = "leaky", ("vmo",)

        def collect(self, source):
            raise SourceError("/usr/bin/dsmadmc -id=admin -password=geheim: exit status 11")
    ex = Exporter(object(), [Leaky(None)])
    with caplog.at_level(logging.ERROR):
        ex.run_collector(ex.collectors[0])
    (status,) = ex.status()
    assert status["error"] == "source error: /usr/bin/dsmadmc -id=admin -password=*** exit status 11"
    assert "geheim" not in caplog.text


def test_a_url_with_userinfo_is_never_printed_by_the_report_or_the_plan(tmp_path, capsys):
    from aix_exporter.cli import _options as cli
    for argv in (["report", "--prometheus", "http://prom:geheim@127.0.0.1:9", "--instance", "a:1", "--auto"],
                 ["plan", "--prometheus", "http://prom:geheim@127.0.0.1:9", "--instance", "a:1"]):
        from aix_exporter.cli import main
        code = main([*argv, "--out", str(tmp_path / "x.md")])
        out, err = capsys.readouterr()
        assert code == 1 and "geheim" not in out + err and "prom:" not in out + err
        assert "http://127.0.0.1:9: Connection refused" in err, err
    assert cli.shown("http://a:b@h:1/") == "http://h:1/" and cli.shown(None) is None
