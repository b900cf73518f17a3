"""The exposition, text 0.0.4 and OpenMetrics 1.0, byte for byte what prometheus_client writes,
at the cost of its bytes.

prometheus_client 0.26 (the version the AIX bundle pins) escapes every sample's name one
character at a time in its OpenMetrics encoder: at 5,000 series that took longer than parsing
and collecting the commands together (issue 47). Here a name is escaped once and remembered
(the set of names is bounded: one per metric and suffix), label values are escaped with three
str.replace calls, and each line is one f-string. The format rules are prometheus_client's own
(its ``_escape`` with the UNDERSCORES scheme, ``floatToGoString``, the text format's ``_total``
and ``_created`` munging); tests/unit/test_exposition.py compares the bytes with its encoders
for every scenario, the replay fixtures and hostile label values, in both formats.

What these encoders do not write (exemplars, native histograms, escaping schemes other than the
default one that a scraper asks for by name) goes to prometheus_client's encoders: ``choose``
returns theirs for such a request, and a family with an exemplar or a native histogram makes
the whole exposition theirs.
"""
from __future__ import annotations

import re
from functools import partial
from typing import Callable, Dict, List, Tuple

from prometheus_client.exposition import choose_encoder
from prometheus_client.exposition import generate_latest as client_text
from prometheus_client.openmetrics import exposition as client_om
from prometheus_client.utils import floatToGoString

_METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_RESERVED_LABEL = re.compile(r"^__.*$")


class _Unsupported(Exception):
    """A sample this module does not write (an exemplar, a native histogram)."""


def _underscored(name: str, rune_ok) -> str:
    """prometheus_client's UNDERSCORES escaping: each character that is not valid at its place
    becomes '_'."""
    return "".join(ch if rune_ok(ch, i) else "_" for i, ch in enumerate(name))


def _metric_rune(ch: str, i: int) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ch == "_" or ch == ":" or ("0" <= ch <= "9" and i > 0)


def _label_rune(ch: str, i: int) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ch == "_" or ("0" <= ch <= "9" and i > 0)


_names: Dict[Tuple[str, str], str] = {}   # (kind, name) -> escaped; bounded by the metric names
_NAMES_MAX = 100_000


def _escaped(kind: str, name: str) -> str:
    """A metric name ('metric': the text format's rule), a sample name in OpenMetrics ('sample':
    escaped as label names are, as prometheus_client does) or a label name ('label')."""
    key = (kind, name)
    out = _names.get(key)
    if out is None:
        if not name:
            out = name
        elif kind == "metric":
            out = name if _METRIC_NAME.match(name) else _underscored(name, _metric_rune)
        elif kind == "sample":
            out = _underscored(name, _label_rune)
        else:
            valid = _LABEL_NAME.match(name) and not _RESERVED_LABEL.match(name)
            out = name if valid else _underscored(name, _label_rune)
        if len(_names) < _NAMES_MAX:
            _names[key] = out
    return out


def _value(v: str) -> str:
    return v.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")


def _labels(labels: dict) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{_escaped("label", k)}="{_value(v)}"' for k, v in sorted(labels.items())) + "}"


def _check(s) -> None:
    if getattr(s, "exemplar", None) or getattr(s, "native_histogram", None):
        raise _Unsupported()


def text(registry) -> bytes:
    """The text format 0.0.4 of ``registry``, as prometheus_client's generate_latest writes it."""
    try:
        return _text(registry)
    except _Unsupported:
        return client_text(registry)


_TEXT_TYPES = {"counter": "counter", "info": "gauge", "stateset": "gauge", "gaugehistogram": "histogram",
               "unknown": "untyped"}


def _text(registry) -> bytes:
    out: List[str] = []
    for metric in registry.collect():
        mname, mtype = metric.name, metric.type
        if mtype == "counter":
            mname += "_total"
        elif mtype == "info":
            mname += "_info"
        mtype = _TEXT_TYPES.get(mtype, mtype)
        name = _escaped("metric", mname)
        doc = metric.documentation.replace("\\", r"\\").replace("\n", r"\n")
        out.append(f"# HELP {name} {doc}\n# TYPE {name} {mtype}\n")
        extra: Dict[str, List[str]] = {}
        for s in metric.samples:
            _check(s)
            ts = "" if s.timestamp is None else f" {int(float(s.timestamp) * 1000):d}"
            line = f"{_escaped('metric', s.name)}{_labels(s.labels)} {floatToGoString(s.value)}{ts}\n"
            for suffix in ("_created", "_gsum", "_gcount"):
                if s.name == metric.name + suffix:   # OpenMetrics' own samples: a gauge after the family
                    extra.setdefault(suffix, []).append(line)
                    break
            else:
                out.append(line)
        for suffix, lines in sorted(extra.items()):
            name = _escaped("metric", metric.name + suffix)
            out.append(f"# HELP {name} {doc}\n# TYPE {name} gauge\n")
            out.extend(lines)
    return "".join(out).encode("utf-8")


def openmetrics(registry) -> bytes:
    """OpenMetrics 1.0.0 of ``registry``, as prometheus_client's openmetrics encoder writes it."""
    try:
        return _openmetrics(registry)
    except _Unsupported:
        return client_om.generate_latest(registry)


def _openmetrics(registry) -> bytes:
    out: List[str] = []
    for metric in registry.collect():
        name = _escaped("metric", metric.name)
        out.append(f"# HELP {name} {_value(metric.documentation)}\n# TYPE {name} {metric.type}\n")
        if metric.unit:
            out.append(f"# UNIT {name} {metric.unit}\n")
        for s in metric.samples:
            _check(s)
            ts = "" if s.timestamp is None else f" {s.timestamp}"
            value = "" if s.value is None else floatToGoString(s.value)
            out.append(f"{_escaped('sample', s.name)}{_labels(s.labels)} {value}{ts}\n")
    out.append("# EOF\n")
    return "".join(out).encode("utf-8")


def choose(accept: str) -> Tuple[Callable, str]:
    """(encoder, content type) for an Accept header, negotiated as prometheus_client does; the
    encoder is this module's for the formats it writes (text 0.0.4, OpenMetrics 1.x with the
    default escaping), prometheus_client's for any other."""
    encoder, ctype = choose_encoder(accept)
    if encoder is client_text:
        return text, ctype
    if encoder is client_om.generate_latest:   # (prometheus_client before 0.22: no escaping schemes)
        return openmetrics, ctype
    if isinstance(encoder, partial) and encoder.func is client_om.generate_latest:
        kw = encoder.keywords
        if kw.get("escaping") == client_om.UNDERSCORES and str(kw.get("version", "")).startswith("1."):
            return openmetrics, ctype
    return encoder, ctype
