"""Write a Comparison as self-contained HTML (Jinja2 page, matplotlib SVG plots inline),
Markdown or CSV."""
from __future__ import annotations

import csv
import datetime as dt
import io
import os

from .. import __version__
from .compare import Comparison

HERE = os.path.dirname(os.path.abspath(__file__))

# every plot has the same size and the same margins (not tight_layout, which fits each to its
# own tick labels): the axes of all plots line up, so the change and the windows do too; the
# legend sits right of the axes, never on the data
PLOT_SIZE = (10.0, 2.4)          # inches at 100 dpi: the page's width
PLOT_MARGINS = {"left": 0.075, "right": 0.80, "top": 0.86, "bottom": 0.17}
WINDOW_COLOURS = {"before": "#9ca3af", "after": "#60a5fa"}   # neutral: a window is not a verdict


def y_range(values: list):
    """The y axis of a plot: from 0 for a figure that cannot be negative, with room above its
    largest value, and 0..1 for one that stayed 0 (not matplotlib's -0.04..0.04 around a flat
    line); None (matplotlib's choice) when it goes negative."""
    if not values or min(values) < 0:
        return None
    top = max(values)
    return (0.0, top * 1.1 if top > 0 else 1.0)


def percent(share) -> str:
    return "n/a" if share is None else f"{share:.0%}"


def plots(c: Comparison) -> list:
    """[(key, svg text)]: each series with data across both windows on one time axis, the
    windows shaded and the change marked; series without data are left out (listed by
    ``empty_plots``)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt
    out = []
    start = min(c.before.start, c.after.start)
    end = max(c.before.end, c.after.end)
    if c.tz is not None:
        tz = c.tz
    else:   # the machine's zone with its daylight saving rules (dateutil comes with matplotlib)
        from dateutil import tz as dateutil_tz
        tz = dateutil_tz.tzlocal()

    def t(x):
        return dt.datetime.fromtimestamp(x, tz)

    for key, (title, lines) in c.series.items():
        drawn = [(label, pts) for label, pts in lines if pts]
        if not drawn:
            continue
        fig = plt.figure(figsize=PLOT_SIZE, dpi=100)
        fig.subplots_adjust(**PLOT_MARGINS)
        ax = fig.add_subplot()
        for label, pts in drawn:
            ax.plot([t(x) for x, _ in pts], [v for _, v in pts], label=label, linewidth=1.2)
        for name, w in (("before", c.before), ("after", c.after)):
            ax.axvspan(t(w.start), t(w.end), color=WINDOW_COLOURS[name], alpha=0.22, label=f"{name} window")
        if c.change_at:
            ax.axvline(t(c.change_at), color="#1f2937", linestyle="--", linewidth=1, label="regime change")
        limits = y_range([v for _, pts in drawn for _, v in pts])
        if limits:
            ax.set_ylim(*limits)
        ax.set_xlim(t(start), t(end))
        ax.set_title(title, fontsize=10, loc="left")
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%m-%d %H:%M", tz=tz))
        ax.set_xlabel(f"time ({c.zone_name})", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        plt.close(fig)
        svg = buf.getvalue()
        out.append((key, svg[svg.index("<svg"):]))   # inline: no XML prolog inside HTML
    return out


def empty_plots(c: Comparison) -> list:
    """The titles of the series the history has no data for (said in a line, not drawn)."""
    return [title for title, lines in c.series.values() if not any(pts for _, pts in lines)]


def html(c: Comparison, prometheus: str) -> str:
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    return env.get_template("report.html.j2").render(
        c=c, plots=plots(c), empty=empty_plots(c), prometheus=prometheus, version=__version__, percent=percent,
        generated=c.at(dt.datetime.now(dt.timezone.utc).timestamp()),
        change_at=c.at(c.change_at) if c.change_at else None)


def markdown(c: Comparison) -> str:
    lines = [f"# {c.heading}", ""]
    if c.title:
        lines += [f"LPAR: {c.instance}", ""]
    if c.note:
        lines += [c.note, ""]
    lines += [f"* Base run (before): {c.window(c.before)}", f"* New run (after): {c.window(c.after)}"]
    if c.change_at:
        lines.append(f"* Regime change ({c.change_text}): {c.at(c.change_at)}")
    lines.append(f"* Usable data (deciding figures): before {percent(c.usable(0))}, after {percent(c.usable(1))}")
    lines += ["", c.verdict(), "", "| figure | unit | before | after | after/before | verdict | what it means |",
              "|---|---|---:|---:|---:|---|---|"]
    for r in c.rows:
        lines.append(f"| {r.figure.title} | {r.figure.unit} | {r.fmt(r.before)} | {r.fmt(r.after)} | "
                     f"{r.ratio_text} | {r.verdict or '-'} | {r.figure.reading} |")
    refused = [r for r in c.rows if r.problems]
    if refused:
        lines += ["", "Data problems (a deciding figure with any is not judged):", ""]
        lines += [f"* {r.figure.title}: {'; '.join(r.problems)}" for r in refused]
    cc = c.comparability
    if cc is not None:
        lines += ["", "## Comparability", "", cc.sentence(), ""] + [f"* {line}" for line in cc.lines()]
        if cc.drives:
            lines += ["", "| drive | before MiB/s | after MiB/s | tape errors before | tape errors after |",
                      "|---|---:|---:|---|---|"]
            lines += [f"| {d.device} | {d.mib_text(0)} | {d.mib_text(1)} | {d.errors_text(0)} | {d.errors_text(1)} |"
                      for d in cc.drives]
    lines += ["", f"Times in {c.zone_name}. \"n/a\": no data for the figure in that window; \"new\": it was 0 "
              "before. CPU seconds are physical processors consumed (physc)."]
    return "\n".join(lines) + "\n"


def csv_text(c: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["instance", "figure", "unit", "before", "after", "ratio", "verdict", "before_window", "after_window",
                "usable_before", "usable_after", "problems"])
    for r in c.rows:
        w.writerow([c.instance, r.figure.key, r.figure.unit, "" if r.before is None else r.before,
                    "" if r.after is None else r.after, r.ratio_text, r.verdict, c.window(c.before),
                    c.window(c.after)] + ["" if ch.usable is None else round(ch.usable, 4) for ch in r.checks]
                   + ["; ".join(r.problems)])
    cc = c.comparability
    if cc is not None:   # the comparability's rows: the drives at work, then each drive's MiB/s and errors
        before, after = cc.confounders()
        w.writerow([c.instance, "drives_at_work", "", cc.at_work[0], cc.at_work[1],
                    f"{cc.at_work[1] / cc.at_work[0]:.2f}" if cc.at_work[0] else "n/a", cc.state, c.window(c.before),
                    c.window(c.after), "", "", "; ".join([f"before: {b}" for b in before] + [f"after: {a}" for a in after])])
        for d in cc.drives:
            ratio = f"{d.mibps[1] / d.mibps[0]:.2f}" if d.mibps[0] and d.mibps[1] is not None else "n/a"
            errs = [f"{name}: {d.errors_text(k)}" for k, name in ((0, "before"), (1, "after")) if d.errors[k]]
            w.writerow([c.instance, f"drive:{d.device}", "MiB/s", "" if d.mibps[0] is None else d.mibps[0],
                        "" if d.mibps[1] is None else d.mibps[1], ratio, "", c.window(c.before), c.window(c.after),
                        "", "", "; ".join(errs)])
    return buf.getvalue()
