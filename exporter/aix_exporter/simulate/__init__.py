"""Simulator: a model of an AIX LPAR running a TSM server (model.py) whose
state is rendered as the exact text the real commands print (render.py), so
the exporter's parsers and collectors run for real on any Linux machine."""
