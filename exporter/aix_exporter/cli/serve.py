"""Command line in node_exporter's vocabulary.

No collector is named here: each declares its flags, schedule and configuration
(collectors/base.py).
"""
from __future__ import annotations

import argparse
import functools
import importlib.util
import logging
import math
import os
import platform
import signal
import sys
import threading

from .. import __version__, version_line
from ..collectors import registry as collector_registry
from ..config import ConfigError, load
from ..errors import CommandError, UsageError
from ..sources import open_source
from . import HelpFormatter, subcommands_epilog

FORMATTER = HelpFormatter
PARSER_OPTIONS = {"fromfile_prefix_chars": "@"}
DEFAULT_ADDRESS = ":10990"
log = logging.getLogger("aix_exporter")


OFF_AIX = ("this is not AIX ({system}), so --source system has no AIX commands to run.\n"
           "  For the simulated LPAR:        --source simulate:SCENARIO  (scenarios: {scenarios})\n"
           "  For captured command output:   --source replay:DIR\n"
           "  For stand-in commands:         --source system --path.commands DIR")


def build_parser() -> argparse.ArgumentParser:
    from . import parser
    return parser("serve")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "Prometheus exporter for IBM AIX."
    p.epilog = subcommands_epilog() + "\n\nEvery collector has --collector.NAME and --no-collector.NAME (listed above)."
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
    p.add_argument("--source", default=None,
                   help="system (the AIX commands; default), replay:DIR (captured output), simulate:SCENARIO, or "
                        "ssh://USER@HOST[:PORT] (the commands run on that LPAR over SSH; ssh: in --config.file). With "
                        "targets: in --config.file and no --source, /metrics serves the exporter's own metrics and "
                        "/probe?target=NAME each target")
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


def selected_collectors(args, settings, source) -> list:
    from ..targets import OwnMetricsOnly
    out: list = []
    if isinstance(source, OwnMetricsOnly):
        return out
    for name, cls in collector_registry().items():
        flag = getattr(args, f"c_{name}")
        enabled = cls.default_enabled if flag is None else flag
        if cls.requires_system and not source.local_system:
            if flag:
                log.warning("msg=collector disabled: it needs --source system collector=%s", name)
            continue
        if enabled and source.runs_commands and not cls.configured(settings):
            if flag:
                log.warning("msg=collector disabled: enabled but not configured (see docs/configuration.md) collector=%s", name)
            continue
        if enabled and cls.requires_module and importlib.util.find_spec(cls.requires_module) is None:
            log.warning("msg=collector disabled: the Python module %s is not installed, so %s is not exported "
                        "(AIX Toolbox: dnf install python3-%s) collector=%s", cls.requires_module,
                        ", ".join(cls.metrics), cls.requires_module, name)
            continue
        if enabled:
            out.append(cls(settings))
    return out


def _configuration(args):
    """(settings, web configuration) of --config.file and --web.config.file, every problem at once."""
    from .. import webconfig
    try:
        settings = load(args.config, check_files=args.check_config, collector_names=list(collector_registry()))
        web_config = webconfig.load(args.web_config)
    except ConfigError as e:
        lines = str(e).splitlines()
        if len(lines) == 1:
            raise CommandError(f"invalid configuration: {lines[0]}") from None
        # every problem at once, one a line
        raise CommandError(f"invalid configuration ({len(lines)} problems):\n"
                           + "\n".join(f"  {line}" for line in lines)) from None
    for warning in web_config.warnings:   # --check-config says them too: an installer shows them
        log.warning("msg=slow basic auth: %s", warning)
    return settings, web_config


def _check_bounds(args) -> None:
    if args.log_max_bytes < 65536 or args.log_backups < 1:
        raise UsageError("--log.file.max-bytes must be 65536 or more and --log.file.backups 1 or more")
    if not (1 <= args.max_requests <= 10000 and 1 <= args.max_connections <= 1000000):
        raise CommandError("--web.max-requests must be 1-10000 and --web.max-connections 1-1000000")
    if not (math.isfinite(args.max_scrape_timeout) and args.max_scrape_timeout > 0):
        raise CommandError("--web.max-scrape-timeout must be a finite number of seconds above 0")
    if args.command_root and (not args.command_root.startswith("/") or not os.path.isdir(args.command_root)):
        raise CommandError(f"--path.commands {args.command_root}: not an absolute path to a directory")


def _open(args, settings):
    if args.source is None and settings.targets:
        from ..targets import OwnMetricsOnly
        return OwnMetricsOnly()
    args.source = args.source or "system"
    if args.source == "system" and platform.system() != "AIX" and not settings.command_root:
        from ..simulate.scenarios import SCENARIOS
        raise CommandError(OFF_AIX.format(system=platform.system(), scenarios=", ".join(sorted(SCENARIOS))))
    try:
        return open_source(args.source, settings)
    except ValueError as e:
        raise CommandError(str(e)) from None


def run(args) -> int:
    level = {"warn": "WARNING"}.get(args.log_level, args.log_level.upper())
    from .. import logfmt
    _check_bounds(args)
    # --check-config and --once answer on the terminal (an installer shows what is wrong)
    log_file = None if args.check_config or args.once else args.log_file
    try:
        logfmt.setup(level, args.log_format, sys.stderr, log_file, args.log_max_bytes, args.log_backups)
    except OSError as e:
        raise CommandError(f"cannot write the log file {args.log_file}: {e}") from None
    settings, web_config = _configuration(args)
    if args.command_root:
        settings.command_root = args.command_root
    target_sources = _target_sources(settings, check_files=args.check_config)
    if args.check_config:
        for target_source in target_sources.values():
            target_source.close()
        print(f"aix-exporter: configuration {args.config or '(defaults)'} is valid"
              + (f", web configuration {args.web_config} is valid" if args.web_config else ""))
        return 0
    from .. import targets
    source = _open(args, settings)
    choose = functools.partial(selected_collectors, args)
    exporter = targets.build(source, settings, choose, args.min_interval)
    collectors = exporter.collectors
    if args.once:
        from ..exposition import text
        exporter.collect_all()
        sys.stdout.write(text(exporter.registry()).decode())
        return 0
    return _serve(args, exporter, source, collectors, web_config,
                  targets.fleet(settings, target_sources, choose, args.min_interval))


def _target_sources(settings, check_files: bool) -> dict:
    """The targets' sources (targets.open_sources), every problem at once as the CommandError."""
    from ..targets import open_sources
    try:
        return open_sources(settings, check_files=check_files)
    except ValueError as e:
        lines = str(e).splitlines()
        if len(lines) == 1:
            raise CommandError(lines[0]) from None
        raise CommandError(f"{len(lines)} problems with the targets:\n" + "\n".join(f"  {x}" for x in lines)) from None


def _serve(args, exporter, source, collectors, web_config, fleet=None) -> int:
    from ..web import make_server
    exporter.start_background()   # (a target's background collectors start at its first probe)
    try:
        server = make_server(exporter, args.listen, args.path, web_config, args.max_scrape_timeout,
                             max_requests=args.max_requests, max_connections=args.max_connections, fleet=fleet)
    except (OSError, ValueError) as e:
        exporter.stop()
        if fleet is not None:
            fleet.stop()
        raise CommandError(f"cannot listen on {args.listen}: {e}") from None

    def on_term(signum, frame):
        log.info("msg=stopping on signal %d: draining scrapes in flight", signum)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_term)   # before 'listening' is said: a stop right after it drains too
    signal.signal(signal.SIGINT, on_term)
    log.info("msg=listening address=%s tls=%s basic_auth=%s source=%s collectors=%s%s version=%s", args.listen,
             web_config.ssl_context is not None, bool(web_config.users), source.name,
             ",".join(c.name for c in collectors), f" targets={len(fleet.exporters)}" if fleet else "", __version__)
    if web_config.users and web_config.verifier != "bcrypt":
        log.warning("msg=basic auth: the bcrypt module is not installed; the built-in pure-Python verifier "
                    "checks passwords (seconds for each new user and password, answers kept). Install bcrypt "
                    "for speed, or use TLS client certificates (docs/configuration.md: TLS and basic auth)")
    try:
        server.serve_forever()
    finally:
        exporter.stop()
        if fleet is not None:
            fleet.stop()
        server.server_close()
        from ..sources import system
        if system.kill_running(close=True):   # commands still running (hung): their groups end with us
            log.info("msg=killed the process groups of commands still running")
    # A collector stuck in a read that no timeout can interrupt (a hung NFS file) must not
    # keep the process alive: the interpreter would join its thread at exit. Leave now.
    logging.shutdown()
    sys.stdout.flush()
    os._exit(0)
