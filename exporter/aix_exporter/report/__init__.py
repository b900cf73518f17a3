"""aix-exporter report: a before/after comparison of one LPAR, from Prometheus, as one
self-contained HTML file (or Markdown or CSV) to hand to a colleague or a change board.

compare.py asks Prometheus (windows, figures, ratios, verdict); render.py writes the page with
Jinja2 and matplotlib (the optional extra ``aix-exporter[report]``); cli/report.py and cli/plan.py are the commands."""
