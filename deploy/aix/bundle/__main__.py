"""aix_exporter, bundled: the exporter and its pure-Python dependencies in one place (the .pyz
zipapp, or /opt/aix_exporter/lib of the RPM); any python3 >= 3.9 runs it.

    python3 aix_exporter.pyz [exporter options]        run the exporter (--version, --help)
    python3 aix_exporter.pyz install [-p PREFIX] [-u USER] [-c CONFIG] [-l LOG] [-s STATEDIR]
                                     [-L LISTEN] [-W WEBCONFIG] [-i] [-n]
    python3 aix_exporter.pyz install -r [-P] [-n]       remove the SRC subsystem (-P: with the
                                                        user, state directory, flags and logs)

install copies the bundle to PREFIX (default /opt/aix_exporter), writes the launcher
PREFIX/bin/aix-exporter, creates CONFIG from the example when it does not exist yet and sets
up the SRC subsystem with deploy/aix/src-setup.sh, the script the RPM and install.sh use too.
"""
import os
import sys


def _say(argv):
    print("+" + "".join(f" '{a}'" for a in argv))


def install(argv) -> int:
    import argparse
    import pkgutil
    import shutil
    import subprocess
    import tempfile

    p = argparse.ArgumentParser(prog="aix_exporter.pyz install",
                                description="Install this bundle on AIX as the SRC subsystem aix_exporter.")
    p.add_argument("-p", dest="prefix", default="/opt/aix_exporter", help="where the bundle goes (default %(default)s)")
    p.add_argument("-u", dest="user", default="aixexp", help="run as USER (default %(default)s; root for splat)")
    p.add_argument("-c", dest="config", default="/etc/aix_exporter.yml", help="configuration file (default %(default)s)")
    p.add_argument("-l", dest="log", default="/var/log/aix_exporter/aix_exporter.log", help="log file (default %(default)s)")
    p.add_argument("-s", dest="statedir", default="/var/lib/aix_exporter",
                   help="the service user's state directory (default %(default)s)")
    p.add_argument("-L", dest="listen", default="", help="listen address (default :10990; kept on upgrade)")
    p.add_argument("-W", dest="webconfig", default="", help="web configuration file: TLS, basic auth (kept on upgrade)")
    p.add_argument("-i", dest="inittab", action="store_true", help="an inittab entry instead of SRC")
    p.add_argument("-r", dest="remove", action="store_true", help="remove the SRC subsystem or inittab entry")
    p.add_argument("-P", dest="purge", action="store_true",
                   help="with -r: remove the user, the state directory, the flags file and the logs too "
                        "(the configuration is kept)")
    p.add_argument("-n", dest="dry", action="store_true", help="print the commands instead of running them")
    args = p.parse_args(argv)
    for path in (args.prefix, args.config, args.log, args.statedir) + ((args.webconfig,) if args.webconfig else ()):
        if not os.path.isabs(path):
            p.error(f"{path!r} must be an absolute path")
        if any(c.isspace() for c in path):
            p.error(f"{path!r} contains a blank: SRC and inittab would split it")
    bundle = os.path.abspath(sys.argv[0])
    env = dict(os.environ, LC_ALL="C", LANG="C")
    with tempfile.TemporaryDirectory(prefix="aix_exporter-install-") as tmp:
        files = {}
        for name in ("src-setup.sh", "aix_exporter.yml"):
            files[name] = os.path.join(tmp, name)
            with open(files[name], "wb") as fh:
                fh.write(pkgutil.get_data("aix_exporter_deploy", name))
        setup = ["/bin/sh", files["src-setup.sh"]]
        if args.remove:
            return subprocess.run(setup + ["remove", "-u", args.user, "-c", args.config, "-l", args.log,
                                           "-s", args.statedir] + (["-P"] if args.purge else [])
                                  + (["-n"] if args.dry else []), env=env).returncode
        target = os.path.join(args.prefix, "aix_exporter.pyz")
        launcher = os.path.join(args.prefix, "bin", "aix-exporter")
        script = f'#!/bin/sh\n# aix_exporter launcher, written by aix_exporter.pyz install\nexec {sys.executable} -s {target} "$@"\n'
        if args.dry:
            _say(["cp", bundle, target])
            _say(["write", launcher])
        else:
            os.makedirs(os.path.dirname(launcher), exist_ok=True)
            if os.path.realpath(bundle) != os.path.realpath(target):
                shutil.copyfile(bundle, target + ".new")
                os.replace(target + ".new", target)   # a running copy keeps its open file
            with open(launcher + ".new", "w") as fh:
                fh.write(script)
            os.chmod(launcher + ".new", 0o755)
            os.replace(launcher + ".new", launcher)
        argv = setup + ["install", "-x", launcher, "-u", args.user, "-c", args.config, "-e", files["aix_exporter.yml"],
                        "-l", args.log, "-s", args.statedir] + (["-L", args.listen] if args.listen else []) \
            + (["-W", args.webconfig] if args.webconfig else []) + (["-i"] if args.inittab else []) \
            + (["-n"] if args.dry else [])
        return subprocess.run(argv, env=env).returncode


def main() -> int:
    if sys.version_info < (3, 9):
        print("aix_exporter needs python3 >= 3.9", file=sys.stderr)
        return 1
    if sys.argv[1:2] == ["install"]:
        return install(sys.argv[2:])
    from aix_exporter.cli import main as run
    return run(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
