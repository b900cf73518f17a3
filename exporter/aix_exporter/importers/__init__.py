"""Importers: recordings made without the exporter (nmon) mapped onto the exporter's own
metric names, so imported history and live data are one series set for the same rules,
dashboards and report. Pure: text lines in, samples out; the command line is tools/nmon_import.py."""
