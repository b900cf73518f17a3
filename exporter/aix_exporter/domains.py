"""What a value of each metric can be: a value outside it is an error in the input, never data.

One rule for every collector (collectors/base.py Families.set) and every importer (the nmon
samples, counted and skipped): an AIX command that prints a negative size, a CPU share of
1e306 or ``+Inf`` has been cut, garbled or misread, and serving it with
``aix_exporter_collector_success 1`` would put a false figure into every rule and report.

* every value is a finite number;
* every value is 0 or more, but for the metrics listed in SIGNED (vmo tunables can be -1);
* a ``_ratio`` is at most 1, beyond rounding (a percentage printed as 100.4 is 1.004), but for
  those listed in UNBOUNDED_RATIOS (entitlement consumed: an uncapped LPAR runs above 100 %);
* a label value is at most MAX_LABEL_VALUE characters (``label_why``).
"""
from __future__ import annotations

import math
import sys
from typing import Optional

SIGNED = frozenset({"aix_vmo_tunable"})
UNBOUNDED_RATIOS = frozenset({"aix_vmstat_entitlement_consumed_ratio"})
RATIO_ROUNDING = 0.01      # a whole percentage rounded up from 100.x
# A label value is a name the LPAR or its server printed (a device, a drive, a volume, a pool, a
# node, an errpt resource, a status-monitor row). The longest of them is a path: AIX's PATH_MAX is
# 1,024 bytes with its NUL (Storage Protect's own names are at most 256: a FILE volume's path). A
# longer value is cut, garbled or hostile output, never a name; as a label it would be held in
# memory and sent to Prometheus at every scrape (the output caps alone allow 64 MiB in one line).
MAX_LABEL_VALUE = 1023


def why(name: str, value: float) -> Optional[str]:
    """Why ``value`` cannot be a sample of the metric ``name`` (without the name), or None."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return f"{value!r} is not a number"
    if not math.isfinite(v):
        return f"{v} is not a finite number"
    if v < 0 and name not in SIGNED:
        return f"{v:g} is negative, which it cannot be"
    if name.endswith("_ratio") and name not in UNBOUNDED_RATIOS and v > 1 + RATIO_ROUNDING:
        return f"{v:g} is above 1 (100 %), which it cannot be"
    return None


def bounds(name: str) -> tuple:
    """(lowest, highest) such that a float ``v`` passes ``why`` exactly when lowest <= v <= highest
    (NaN fails both comparisons; the infinities lie outside): the same rule as one comparison,
    for readers that check hundreds of thousands of samples of a few series."""
    low = -sys.float_info.max if name in SIGNED else 0.0
    ratio = name.endswith("_ratio") and name not in UNBOUNDED_RATIOS
    return low, 1 + RATIO_ROUNDING if ratio else sys.float_info.max


def label_why(labels: dict) -> Optional[str]:
    """Why a sample with these labels cannot be served (the first value longer than
    MAX_LABEL_VALUE characters as served, its label, length and start), or None."""
    for key, value in labels.items():
        text = str(value)
        if len(text) > MAX_LABEL_VALUE:
            return (f"label {key} is {len(text):,} characters long ({text[:40]!r}...), longer than any name "
                    f"AIX or the server prints (at most {MAX_LABEL_VALUE:,})")
    return None


def problem(name: str, value: float) -> Optional[str]:
    """``why`` with the metric's name in front, or None."""
    reason = why(name, value)
    return None if reason is None else f"{name}: {reason}"
