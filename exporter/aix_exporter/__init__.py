"""aix_exporter: Prometheus exporter for IBM AIX performance (large pages, lock contention, tape, TSM)."""

__version__ = "0.1.0"
