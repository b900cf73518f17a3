"""The landing page at /: version, the source (with a banner when it is simulated), the metrics
link and each enabled collector's state. Its text is templates/landing.html, filled with the
standard library's string.Template (no template engine to install on an AIX LPAR); every value
put into it is HTML-escaped here."""
from __future__ import annotations

import html
from importlib import resources
from string import Template
from typing import Sequence

from . import __version__

# read as package data: the .pyz bundle holds it inside its zip, where open() cannot reach
LANDING = Template(resources.files(__package__).joinpath("templates").joinpath("landing.html").read_text(encoding="utf-8"))

SIMULATED_BANNER = ('<p style="background:#fde68a;border:2px solid #b45309;padding:0.6em;font-weight:bold">'
                    'SIMULATED DATA: source {source} is the simulator, not a real AIX LPAR. '
                    'Use --source system on AIX.</p>\n')


def landing_page(source: str, telemetry_path: str, collectors: Sequence = ()) -> str:
    """The page for ``source``, the telemetry path and the collectors' states (Exporter.status())."""
    src = html.escape(source)
    banner = SIMULATED_BANNER.format(source=src) if source.startswith("simulate:") else ""
    rows = []
    for c in collectors:
        state = "ok" if c["ok"] else ("failing" if c["ran"] else "not run yet")
        age = "never" if c["age"] is None else f"{c['age']:.0f} s ago"
        rows.append(f"<tr><td>{html.escape(c['name'])}</td><td>{c['schedule']}</td><td>{state}</td>"
                    f"<td>{age}</td><td><code>{html.escape(c['error'])}</code></td></tr>")
    table = ("<h2>Collectors</h2>\n<table border=\"1\" cellpadding=\"4\"><tr><th>enabled collector</th>"
             "<th>runs</th><th>state</th><th>last success</th><th>last error</th></tr>\n"
             + "\n".join(rows) + "\n</table>\n") if rows else ""
    return LANDING.substitute(version=__version__, source=src, path=html.escape(telemetry_path), banner=banner,
                              collectors=table)
