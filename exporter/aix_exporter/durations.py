"""The one reader of durations: every flag and setting that takes one, and the stores' own
retention flags, read ``30d``, ``12h``, ``90m``, ``600s``, ``500ms`` and runs of them (``1y2d``,
``30d12h``), as Prometheus writes them.

A bare number is refused: ``--window 1`` meant an hour and was read as one second. Only a
reader of another program's setting whose bare numbers have a unit of their own (VictoriaMetrics'
``-retentionPeriod=1`` is a month) names it with ``bare_unit``.
"""
from __future__ import annotations

import re
from typing import Optional

DAY = 86400
UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": DAY, "w": 7 * DAY, "y": 365 * DAY, "month": 31 * DAY}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|[smhdwy])")
EXAMPLES = "such as 30d, 12h, 600s"


class DurationError(ValueError):
    """Not a duration; the message says what one looks like."""


def seconds(text: str, bare_unit: Optional[str] = None) -> float:
    """Seconds of ``text``; DurationError for a bare number (unless ``bare_unit``) or anything else."""
    text = str(text).strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        if bare_unit is None:
            raise DurationError(f"{text!r}: a duration needs its unit, such as 30d, 12h, 90m or 600s (a bare "
                                "number is not taken as seconds)")
        return float(text) * UNITS[bare_unit]
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise DurationError(f"{text!r}: a duration {EXAMPLES}")
    return sum(float(n) * UNITS[u] for n, u in parts)
