"""Write a Comparison as self-contained HTML (Jinja2 page, matplotlib SVG plots inline),
Markdown or CSV."""
from __future__ import annotations

import csv
import datetime as dt
import io
import os

from .. import __version__
from .compare import Comparison, utc

HERE = os.path.dirname(os.path.abspath(__file__))


def plots(c: Comparison) -> list:
    """[(key, svg text)]: each series across both windows, the windows shaded, the change marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt
    out = []
    for key, (title, lines) in c.series.items():
        fig, ax = plt.subplots(figsize=(10, 2.6), dpi=100)
        drawn = False
        for label, pts in lines:
            if pts:
                ax.plot([dt.datetime.fromtimestamp(t, dt.timezone.utc) for t, _ in pts],  # type: ignore[arg-type]
                        [v for _, v in pts], label=label, linewidth=1.2)   # (matplotlib converts datetimes itself)
                drawn = True
        for w, colour, name in ((c.before, "#fca5a5", "before"), (c.after, "#86efac", "after")):
            ax.axvspan(dt.datetime.fromtimestamp(w.start, dt.timezone.utc),  # type: ignore[arg-type]
                       dt.datetime.fromtimestamp(w.end, dt.timezone.utc),  # type: ignore[arg-type]
                       color=colour, alpha=0.25, label=name)
        if c.change_at:
            ax.axvline(dt.datetime.fromtimestamp(c.change_at, dt.timezone.utc),  # type: ignore[arg-type]
                       color="#1d4ed8", linestyle="--",
                       label="regime change")
        ax.set_title(title if drawn else f"{title}: no data in this history", fontsize=10, loc="left")
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%m-%d %H:%M"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", ncol=6)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        plt.close(fig)
        svg = buf.getvalue()
        out.append((key, svg[svg.index("<svg"):]))   # inline: no XML prolog inside HTML
    return out


def html(c: Comparison, prometheus: str) -> str:
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    return env.get_template("report.html.j2").render(
        c=c, plots=plots(c), prometheus=prometheus, version=__version__,
        generated=utc(dt.datetime.now(dt.timezone.utc).timestamp()),
        change_at=utc(c.change_at) if c.change_at else None)


def markdown(c: Comparison) -> str:
    lines = [f"# Before/after: {c.instance}", "", f"* Base run (before): {c.before.label()}",
             f"* New run (after): {c.after.label()}"]
    if c.change_at:
        lines.append(f"* Regime change (end of the last 4 KB run): {utc(c.change_at)}")
    lines += ["", c.verdict(), "", "| figure | unit | before | after | after/before | verdict |",
              "|---|---|---:|---:|---:|---|"]
    for r in c.rows:
        lines.append(f"| {r.figure.title} | {r.figure.unit} | {r.fmt(r.before)} | {r.fmt(r.after)} | "
                     f"{r.ratio_text} | {r.verdict or '-'} |")
    return "\n".join(lines) + "\n"


def csv_text(c: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["instance", "figure", "unit", "before", "after", "ratio", "verdict", "before_window", "after_window"])
    for r in c.rows:
        w.writerow([c.instance, r.figure.key, r.figure.unit, "" if r.before is None else r.before,
                    "" if r.after is None else r.after, r.ratio_text, r.verdict, c.before.label(), c.after.label()])
    return buf.getvalue()
