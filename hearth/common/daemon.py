"""What hearth-master and hearth-agent share as daemons: options, logging, detaching.

``--foreground`` keeps the process attached and logs to stderr; otherwise
it detaches (double fork, new session) and logs to ``--log-file``.
SIGTERM and SIGINT call the daemon's ``stop``, which drains and exits.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from hearth.common import paths


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """Return the argument parser every Hearth daemon shares."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable).")
    parser.add_argument("--foreground", action="store_true",
                        help="Stay in the foreground and log to stderr.")
    parser.add_argument("--log-file", metavar="FILE", default=None,
                        help="Log to FILE (default when detached: <state_path>/<prog>.log).")
    parser.add_argument("--pid-file", metavar="FILE", default=None,
                        help="Write the process id to FILE.")
    parser.add_argument("--debug", action="store_true", help="Log debug messages.")
    return parser


def setup_logging(prog: str, log_file: str | None, debug: bool) -> None:
    """Log to ``log_file`` (or stderr) at INFO, or DEBUG with ``debug``."""
    handler: logging.Handler
    if log_file:
        paths.ensure_directory(os.path.dirname(os.path.abspath(log_file)),
                               "the log file's directory")
        handler = logging.FileHandler(log_file)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        f"%(asctime)s {prog}[%(process)d] %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    logging.getLogger("alembic").setLevel(logging.WARNING)


def detach() -> None:
    """Detach from the terminal: double fork, new session, stdio on /dev/null."""
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)


def load_settings(prog: str, config_files: Sequence[str] | None,
                  from_conf: Callable[[Any], Any]) -> tuple[Any, Any]:
    """Load the configuration files and build a daemon's settings from them.

    A bad configuration is reported on stderr as ``PROG: reason`` (never a
    traceback) and ends the process with exit code 2.
    """
    from hearth.common import config

    try:
        conf = config.load(config_files=config_files)
        return conf, from_conf(conf)
    except Exception as error:  # noqa: BLE001 - a bad configuration is reported, not traced
        print(f"{prog}: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def start(args: argparse.Namespace, prog: str, default_log: str) -> None:
    """Detach unless ``--foreground``, set up logging and write the pid file."""
    log_file = args.log_file
    if not args.foreground:
        log_file = log_file or default_log
        detach()
    setup_logging(prog, log_file, args.debug)
    if args.pid_file:
        with open(args.pid_file, "w", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")


def on_termination(stop: Callable[[], None],
                   signals: Sequence[int] = (signal.SIGTERM, signal.SIGINT)) -> None:
    """Call ``stop`` when the process is asked to terminate."""
    for number in signals:
        signal.signal(number, lambda *_: stop())
