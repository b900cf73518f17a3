"""Active System Optimizer tunables: ``asoo -a`` (and ``asoo -L``).

Format rules (tests/fixtures/asoo; the layout is the AIX tuning framework's, shared with vmo,
so the rules are ``parsers/vmo.py``'s):

* ``asoo -a``: ``name = value`` lines, current values (``aso_active = 1``, ``debug_level = -1``).
* ``asoo -L``: the ``NAME CUR DEF BOOT MIN MAX UNIT TYPE`` table with its dashed rules.
* ``aso_active`` must be there: ASO's on/off switch (0 inactive, the default; 1 active). The
  ASO daemon ships with AIX 7.1 TL1 and later on POWER7 and later; where it is missing the
  command is missing too, and the collector fails with the system source's reason.
"""
from __future__ import annotations

from . import ParseError
from .vmo import parse_tunables

COMMAND = "asoo"


def parse(text: str) -> dict:
    """Return {name: Tunable}; ParseError without aso_active."""
    tunables = parse_tunables(text, COMMAND)
    if "aso_active" not in tunables or tunables["aso_active"].current is None:
        raise ParseError(f"{COMMAND}: no aso_active value (output cut, or not asoo?)")
    return tunables
