"""stackctl console: the web console for this user, with a one-time login link."""

from __future__ import annotations

import argparse
import os
import sys


def do_console(args: argparse.Namespace) -> int:
    """Serve the console (:mod:`hearth.console.local`, in place of this process)."""
    argv = [sys.executable, "-m", "hearth.console.local", "--host", args.host,
            "--port", str(args.port)]
    for path in getattr(args, "config_file", None) or ():
        argv += ["--config-file", os.path.abspath(path)]
    sys.stdout.flush()
    os.execv(sys.executable, argv)
    return 0  # pragma: no cover - execv does not return


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``stackctl console``."""
    from hearth.cli import command
    from hearth.console.local import add_arguments

    parser = command.add_command(
        subparsers, "console", do_console,
        "Serve the web console for you on 127.0.0.1 and print a one-time login link.",
        description="Serve Hearth's web console (stacks with live events and topology, "
                    "agents, keys, jobs) for you alone: on a loopback address, with your "
                    "rights (your local engine, your master's keys). It prints a link that "
                    "logs one browser in, once, as Jupyter does; Ctrl-C stops it. "
                    "hearth-api serves the same console to API projects under /console.")
    add_arguments(parser)
