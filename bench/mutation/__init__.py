"""The mutation tools (issue 61, item 3): each plants one-line bugs in a part of the project and
runs the tests that should catch them; what survives is listed here with the reason it cannot be
caught, or as unexplained.

    python3 -m bench.mutation.package      parsers, collectors and the other areas (mutmut 2.x)
    python3 -m bench.mutation.rules        alerts/alerts.libsonnet through promtool test rules
    python3 -m bench.mutation.dashboards   dashboards/src and lib through the dashboard tests
    python3 -m bench.mutation.thresholds   each numeric alert setting halved and doubled

Their survivors and equivalence files live beside them; their figures are in RESULTS.md here."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
