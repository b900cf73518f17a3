"""Secrets kept out of every text a person or a scraper reads: log lines, the landing page,
error texts that end up in metric labels or on the terminal.

Two kinds: dsmadmc's password option (``-PAssword=`` in any abbreviation from ``-pa``, any case,
as dsmadmc accepts it: its value), wherever it stands in a text (an argv element, a one-string
command line, an error message quoting either), and the userinfo of a URL
(``http://user:password@host``). ``redact`` is applied where such texts are made (the system
source's command lines, the collectors' error lines) and once more by the log formatter.
"""
from __future__ import annotations

import re

# dsmadmc's -PAssword= in any abbreviation from -pa, any case (config.DSMADMC_PASSWORD_OPTION)
PASSWORD_OPTION = re.compile(r"^-pa(?:s(?:s(?:w(?:o(?:r(?:d)?)?)?)?)?)?=", re.IGNORECASE)
_IN_TEXT = re.compile(r"(?<![\w-])(-pa(?:s(?:s(?:w(?:o(?:r(?:d)?)?)?)?)?)?=)(\"[^\"]*\"|'[^']*'|[^\s'\",\]\)]+)",
                      re.IGNORECASE)
_USERINFO = re.compile(r"\b([a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)
HIDDEN = "***"


def redact(text: str) -> str:
    """``text`` with every dsmadmc password value and every URL's userinfo replaced by ***."""
    if not text:
        return text
    text = _IN_TEXT.sub(lambda m: m.group(1) + HIDDEN, text)
    return _USERINFO.sub(lambda m: m.group(1) + HIDDEN + "@", text)


def has_password(text: str) -> bool:
    """Whether ``text`` (an argv element or a whole command line) gives dsmadmc's password option."""
    return bool(PASSWORD_OPTION.match(text) or _IN_TEXT.search(text))
