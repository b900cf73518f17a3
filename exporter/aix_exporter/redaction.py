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
_OPTION = r"-pa(?:s(?:s(?:w(?:o(?:r(?:d)?)?)?)?)?)?"
PASSWORD_OPTION = re.compile(rf"^{_OPTION}=", re.IGNORECASE)
_IN_TEXT = re.compile(rf"(?<![\w-])({_OPTION}(?:=|\s+(?!-)|'\s*,\s*'(?!-)))"
                      r"(\"[^\"]*\"|'[^']*'|[^\s'\",\]\)]+)", re.IGNORECASE)
# the option alone, its value the next argv element (``-password X``, ``-pa X``)
PASSWORD_OPTION_ALONE = re.compile(rf"^{_OPTION}$", re.IGNORECASE)
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


def argv_has_password(argv: list) -> bool:
    """Whether an argv gives dsmadmc's password in any form: ``-password=X``, ``-pa=X`` (any
    abbreviation from -pa, any case), or the option alone with its value as the next element
    (one that is not itself an option: dsmadmc reads an element starting with - as one)."""
    return any(isinstance(a, str) and has_password(a) for a in argv) or any(
        isinstance(a, str) and PASSWORD_OPTION_ALONE.match(a) and isinstance(b, str) and not b.startswith("-")
        for a, b in zip(argv, argv[1:]))


def redact_argv(argv: list) -> list:
    """The argv with every password value hidden: the value of ``-password=X`` in every spelling,
    and the element after the option alone unless that element is itself an option."""
    out = []
    for i, a in enumerate(argv):
        if i and PASSWORD_OPTION_ALONE.match(argv[i - 1]) and not a.startswith("-"):
            out.append(HIDDEN)
            continue
        m = PASSWORD_OPTION.match(a)
        out.append(a[:m.end()] + HIDDEN if m and m.end() < len(a) else redact(a))
    return out
