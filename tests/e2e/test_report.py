"""aix-exporter report against a real Prometheus holding the backfilled case study: --auto
finds the tuning, the tables reproduce the case study's ratios, Markdown and CSV agree, and
headless Chromium renders the HTML with its plots."""
import csv
import io
import os
import shutil
import subprocess
import sys

import pytest

from tests.lib import ROOT
from tests.lib.processes import env

TUNING = 4 * 3600      # the case study's tuning, from the history's start (8 h before its end)


def report(p, *args):
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "report", "--prometheus", p.url,
                        "--instance", "tsmsrv01:10990", *args], capture_output=True, text=True, env=env(), timeout=300)
    assert r.returncode == 0, r.stderr
    return r


def test_auto_report_reproduces_the_case_study(case_study_prometheus, tmp_path):
    p = case_study_prometheus
    start = p.end - 8 * 3600
    out = tmp_path / "r.csv"
    r = report(p, "--auto", "--end", str(p.end), "--lookback", "9h", "--tz", "UTC", "--format", "csv", "--out", str(out))
    rows = {row["figure"]: row for row in csv.DictReader(io.StringIO(out.read_text()))}
    tape = rows["tape"]
    assert float(tape["after"]) / float(tape["before"]) == pytest.approx(2.7, abs=0.15)
    assert float(rows["user"]["after"]) / float(rows["user"]["before"]) >= 8
    assert float(rows["pin_miss"]["before"]) == pytest.approx(0.25, abs=0.02)
    assert float(rows["pin_miss"]["after"]) < 0.01
    assert rows["sys_per_user"]["verdict"] == "better" and float(rows["cpu_per_gib"]["before"]) > 0
    assert rows["lgpg_regions"]["before"] == "0.0" and rows["lgpg_regions"]["ratio"] == "new"
    assert "the change helped" in r.stdout or "Better:" in r.stdout
    # in the case study's terms (issue 30): sys/usr decides, sys % and CPU per GiB are read, not judged
    assert "System CPU per user CPU went from 4.99 to 1.04" in r.stdout and "Worse" not in r.stdout
    assert "user CPU from 3.0 % to 29.3 %: more of the CPU is the application's own work" in r.stdout
    assert rows["sys"]["verdict"] == rows["cpu_per_gib"]["verdict"] == ""
    assert rows["mem_16m"]["before"] == "0.0" and rows["mem_16m"]["ratio"] == "new"    # 0, not "n/a"
    assert rows["tape"]["usable_before"] == rows["tape"]["usable_after"] == "1.0" and rows["tape"]["problems"] == ""
    # the windows: the before window ends, after the margin, by the tuning
    md = tmp_path / "r.md"
    report(p, "--auto", "--end", str(p.end), "--lookback", "9h", "--tz", "UTC", "--format", "markdown", "--out", str(md))
    text = md.read_text()
    import datetime as dt
    change = dt.datetime.strptime(text.split("Regime change (end of the last 4 KB run): ")[1][:20],
                                  "%Y-%m-%d %H:%M UTC").replace(tzinfo=dt.timezone.utc).timestamp()
    assert abs(change - (start + TUNING)) <= 300, change - (start + TUNING)
    assert "| Tape throughput, read + written | MiB/s |" in text


def test_absolute_windows_and_html_rendered_by_chromium(case_study_prometheus, tmp_path):
    p = case_study_prometheus
    start = p.end - 8 * 3600
    html = tmp_path / "report.html"
    report(p, "--before", f"{start + 3600:.0f}..{start + 3 * 3600:.0f}",
           "--after", f"{start + 5 * 3600:.0f}..{start + 7 * 3600:.0f}", "--tz", "UTC", "--out", str(html))
    page = html.read_text()
    import re
    assert page.count("<svg") == 4                     # the four plots, inline
    # one time axis for all: every plot's axes start at the same x and span the same width, so the
    # windows and the change line up; legends sit right of the axes
    boxes = re.findall(r'<g id="axes_1">\s*<g id="patch_2">\s*<path d="M ([0-9.]+) ([0-9.]+)\s*L ([0-9.]+) ', page)
    assert len(boxes) == 4 and len({(x0, x1) for x0, _, x1 in boxes}) == 1, boxes
    assert "Times in UTC" in page and "time (UTC)" in page
    assert not re.search(r'(src|href)="(https?:)?//', page) and "<script" not in page and "<link" not in page
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        if os.environ.get("AIX_EXPORTER_REQUIRE_TOOLS"):
            pytest.fail("chromium not installed (Debian package chromium)")
        pytest.skip("chromium not installed")
    png = tmp_path / "report.png"
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                        "--window-size=1200,2600", f"--screenshot={png}", f"file://{html}"],
                       capture_output=True, text=True, timeout=120)
    assert png.is_file(), r.stderr[-2000:]
    assert "Uncaught" not in r.stderr and ":CONSOLE(" not in r.stderr, r.stderr[-2000:]
    from PIL import Image
    img = Image.open(png).convert("L")
    w, h = img.size
    # the plots are drawn: below the tables, many pixels are neither white nor near white
    region = img.crop((0, int(h * 0.45), w, int(h * 0.95)))
    dark = sum(region.histogram()[:200])   # pixels darker than near-white
    assert dark > 0.01 * region.size[0] * region.size[1], dark
    if os.environ.get("UPDATE_DOCS"):
        shutil.copy(png, ROOT / "docs" / "report-case-study.png")
