"""Command line in node_exporter's vocabulary.

    aix-exporter [--web.listen-address=:10990] [--web.telemetry-path=/metrics]
                 [--source system|replay:DIR|simulate:SCENARIO] [--config.file=FILE]
                 [--path.commands=DIR] [--collector.NAME | --no-collector.NAME ...]
                 [--log.level=info] [--log.format=logfmt] [--once] [--check-config]
    aix-exporter simulate --scenario S --out DIR [--at T]

No collector is named here: each declares its flags, schedule and configuration
(collectors/base.py).
"""
from __future__ import annotations

import argparse
import importlib.util
import logging
import math
import os
import platform
import signal
import sys
import threading

from . import __version__, version_line
from .collectors import registry as collector_registry
from .config import ConfigError, load
from .exporter import Exporter
from .sources import open_source

DEFAULT_ADDRESS = ":10990"
log = logging.getLogger("aix_exporter")


OFF_AIX = ("aix-exporter: this is not AIX ({system}), so --source system has no AIX commands to run.\n"
           "  For the simulated LPAR:        --source simulate:SCENARIO  (scenarios: {scenarios})\n"
           "  For captured command output:   --source replay:DIR\n"
           "  For stand-in commands:         --source system --path.commands DIR")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help text wrapped at spaces only: a flag such as --no-collector.memory stays whole."""

    def _split_lines(self, text, width):
        import textwrap
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False, break_long_words=False)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aix-exporter", description="Prometheus exporter for IBM AIX.",
        formatter_class=_HelpFormatter, fromfile_prefix_chars="@",
        epilog="subcommands:\n"
               "  aix-exporter simulate --scenario S (--out DIR | --openmetrics FILE)\n"
               "                        a replay directory or an OpenMetrics history from the simulator\n"
               "                        (aix-exporter simulate --help)\n"
               "  aix-exporter import nmon [--tz ZONE] (--out HISTORY.om | --tsdb DIR [--rules FILE] | --store URL) "
               "FILE...\n"
               "                        nmon recordings as Prometheus history on the exporter's metric names\n"
               "  aix-exporter report --prometheus URL --instance INST (--auto | --before A..B --after C..D) --out F\n"
               "                        a before/after report (HTML, Markdown or CSV) of one LPAR\n"
               "  aix-exporter plan --prometheus URL --instance INST [--at TIME] [--out PLAN.md]\n"
               "                        the 16 MB large-page change of one LPAR: evidence, sizing, memory check,\n"
               "                        restart pre-flight, commands, rollback, verification\n\n"
               "Every collector has --collector.NAME and --no-collector.NAME (listed above).")
    p.add_argument("--web.listen-address", dest="listen", default=DEFAULT_ADDRESS,
                   help=f"address to listen on (default {DEFAULT_ADDRESS})")
    p.add_argument("--web.telemetry-path", dest="path", default="/metrics", help="path of the metrics (default /metrics)")
    p.add_argument("--config.file", dest="config", default=None, help="YAML configuration file")
    p.add_argument("--web.config.file", dest="web_config", default=None,
                   help="TLS and basic auth, exporter-toolkit format (tls_server_config, basic_auth_users)")
    p.add_argument("--log.level", dest="log_level", default="info", choices=["debug", "info", "warn", "error"],
                   help="the least level logged (default info)")
    p.add_argument("--log.format", dest="log_format", default="logfmt", choices=["logfmt", "json"],
                   help="log lines as logfmt (ts=... level=... msg=...) or one JSON object a line")
    p.add_argument("--log.file", dest="log_file", default=None,
                   help="write the log (and stderr) to FILE, rotated by size: FILE.1 .. FILE.N (default: stderr; "
                        "not with --check-config or --once, which answer on stderr)")
    p.add_argument("--log.file.max-bytes", dest="log_max_bytes", type=int, default=10 << 20,
                   help="rotate --log.file at this size (default 10485760, 10 MiB)")
    p.add_argument("--log.file.backups", dest="log_backups", type=int, default=3,
                   help="rotated files kept, FILE.1 the newest (default 3)")
    p.add_argument("--source", default="system",
                   help="system (the AIX commands; default), replay:DIR (captured output) or simulate:SCENARIO")
    p.add_argument("--path.commands", dest="command_root", default=None,
                   help="run the system source's commands from under DIR (DIR/usr/bin/vmstat ...): stand-in "
                        "commands for tests off AIX")
    p.add_argument("--once", action="store_true", help="collect once, print the exposition to stdout, exit")
    p.add_argument("--collect.min-interval", dest="min_interval", type=float, default=5.0,
                   help="scrapes within this many seconds of the last collection share its pre-rendered "
                        "exposition (default 5; 0 collects on every scrape)")
    p.add_argument("--web.max-scrape-timeout", dest="max_scrape_timeout", type=float, default=60.0,
                   help="upper bound in seconds on the scrape timeout a client announces "
                        "(X-Prometheus-Scrape-Timeout-Seconds; default 60)")
    p.add_argument("--web.max-requests", dest="max_requests", type=int, default=40,
                   help="scrapes served at once; more are answered 503 (default 40)")
    p.add_argument("--web.max-connections", dest="max_connections", type=int, default=1024,
                   help="open HTTP connections at most; more are closed on accept (default 1024)")
    p.add_argument("--check-config", action="store_true", help="validate --config.file and exit")
    p.add_argument("--version", action="version", version=version_line())
    for name, cls in collector_registry().items():
        state = "enabled" if cls.default_enabled else "disabled"
        p.add_argument(f"--collector.{name}", dest=f"c_{name}", action="store_true", default=None,
                       help=f"enable the {name} collector ({cls.help}; default {state}); "
                            f"--no-collector.{name} disables it")
        p.add_argument(f"--no-collector.{name}", dest=f"c_{name}", action="store_false", help=argparse.SUPPRESS)
    return p


def selected_collectors(args, settings, source) -> list:
    out = []
    for name, cls in collector_registry().items():
        flag = getattr(args, f"c_{name}")
        enabled = cls.default_enabled if flag is None else flag
        if cls.requires_system and source.name != "system":
            if flag:
                log.warning("msg=collector disabled: it needs --source system collector=%s", name)
            continue
        if enabled and source.name == "system" and not cls.configured(settings):
            if flag:
                log.warning("msg=collector disabled: enabled but not configured (see README) collector=%s", name)
            continue
        if enabled and cls.requires_module and importlib.util.find_spec(cls.requires_module) is None:
            log.warning("msg=collector disabled: the Python module %s is not installed, so %s is not exported "
                        "(AIX Toolbox: dnf install python3-%s) collector=%s", cls.requires_module,
                        ", ".join(cls.metrics), cls.requires_module, name)
            continue
        if enabled:
            out.append(cls(settings))
    return out


def main(argv=None) -> int:  # noqa: C901 (issue 46: too complex today, must not grow)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "report":
        from .report.cli import main as report_main
        return report_main(argv[1:])
    if argv and argv[0] == "plan":
        from .report.cli import plan_main
        return plan_main(argv[1:])
    if argv and argv[0] == "import":
        from .tools.importing import main as import_main
        return import_main(argv[1:])
    if argv and argv[0] == "simulate":
        from .tools.simulate import main as sim_main
        return sim_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.log_max_bytes < 65536 or args.log_backups < 1:
        parser.error("--log.file.max-bytes must be 65536 or more and --log.file.backups 1 or more")
    level = {"warn": "WARNING"}.get(args.log_level, args.log_level.upper())
    from . import logfmt
    # --check-config and --once answer on the terminal (an installer shows what is wrong)
    log_file = None if args.check_config or args.once else args.log_file
    try:
        logfmt.setup(level, args.log_format, sys.stderr, log_file, args.log_max_bytes, args.log_backups)
    except OSError as e:
        print(f"aix-exporter: cannot write the log file {args.log_file}: {e}", file=sys.stderr)
        return 1
    from . import webconfig
    try:
        settings = load(args.config, check_files=args.check_config)
        web_config = webconfig.load(args.web_config)
    except ConfigError as e:
        lines = str(e).splitlines()
        if len(lines) == 1:
            print(f"aix-exporter: invalid configuration: {lines[0]}", file=sys.stderr)
        else:   # every problem at once, one a line
            print(f"aix-exporter: invalid configuration ({len(lines)} problems):", file=sys.stderr)
            for line in lines:
                print(f"  {line}", file=sys.stderr)
        return 1
    for warning in web_config.warnings:   # --check-config says them too: an installer shows them
        log.warning("msg=slow basic auth: %s", warning)
    if not (1 <= args.max_requests <= 10000 and 1 <= args.max_connections <= 1000000):
        print("aix-exporter: --web.max-requests must be 1-10000 and --web.max-connections 1-1000000", file=sys.stderr)
        return 1
    if not (math.isfinite(args.max_scrape_timeout) and args.max_scrape_timeout > 0):
        print("aix-exporter: --web.max-scrape-timeout must be a finite number of seconds above 0", file=sys.stderr)
        return 1
    if args.command_root:
        if not args.command_root.startswith("/") or not os.path.isdir(args.command_root):
            print(f"aix-exporter: --path.commands {args.command_root}: not an absolute path to a directory",
                  file=sys.stderr)
            return 1
        settings.command_root = args.command_root
    if args.check_config:
        print(f"aix-exporter: configuration {args.config or '(defaults)'} is valid"
              + (f", web configuration {args.web_config} is valid" if args.web_config else ""))
        return 0
    if args.source == "system" and platform.system() != "AIX" and not settings.command_root:
        from .simulate.scenarios import SCENARIOS
        print(OFF_AIX.format(system=platform.system(), scenarios=", ".join(sorted(SCENARIOS))), file=sys.stderr)
        return 1
    try:
        source = open_source(args.source, settings)
    except ValueError as e:
        print(f"aix-exporter: {e}", file=sys.stderr)
        return 1
    collectors = selected_collectors(args, settings, source)
    exporter = Exporter(source, collectors, min_interval=args.min_interval)
    if args.once:
        from prometheus_client import generate_latest
        exporter.collect_all()
        sys.stdout.write(generate_latest(exporter.registry()).decode())
        return 0
    from .web import make_server
    exporter.start_background()
    try:
        server = make_server(exporter, args.listen, args.path, web_config, args.max_scrape_timeout,
                             max_requests=args.max_requests, max_connections=args.max_connections)
    except (OSError, ValueError) as e:
        print(f"aix-exporter: cannot listen on {args.listen}: {e}", file=sys.stderr)
        return 1

    def on_term(signum, frame):
        log.info("msg=stopping on signal %d: draining scrapes in flight", signum)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_term)   # before 'listening' is said: a stop right after it drains too
    signal.signal(signal.SIGINT, on_term)
    log.info("msg=listening address=%s tls=%s basic_auth=%s source=%s collectors=%s version=%s", args.listen,
             web_config.ssl_context is not None, bool(web_config.users), source.name,
             ",".join(c.name for c in collectors), __version__)
    if web_config.users and web_config.verifier != "bcrypt":
        log.warning("msg=basic auth: the bcrypt module is not installed; the built-in pure-Python verifier "
                    "checks passwords (seconds for each new user and password, answers kept). Install bcrypt "
                    "for speed, or use TLS client certificates (README: Securing the endpoint)")
    try:
        server.serve_forever()
    finally:
        exporter.stop()
        server.server_close()
        from .sources import system
        if system.kill_running():   # commands still running (hung): their process groups end with us
            log.info("msg=killed the process groups of commands still running")
    # A collector stuck in a read that no timeout can interrupt (a hung NFS file) must not
    # keep the process alive: the interpreter would join its thread at exit. Leave now.
    logging.shutdown()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
