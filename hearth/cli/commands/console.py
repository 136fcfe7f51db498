"""stackctl console: the web console for this user, with a one-time login link."""

from __future__ import annotations

import argparse
import os
import sys

from hearth.cli import command


def do_console(args: argparse.Namespace) -> int:
    """Serve the console (``hearth.console.local``, in place of this process).

    The console is started by its module name, not imported: it is a client
    of the CLI's backends, above them.
    """
    argv = [sys.executable, "-m", "hearth.console.local", "--host", args.host,
            "--port", str(args.port)]
    for path in getattr(args, "config_file", None) or ():
        argv += ["--config-file", os.path.abspath(path)]
    sys.stdout.flush()
    os.execv(sys.executable, argv)
    return 0  # pragma: no cover - execv does not return


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the console's own options (also ``python -m hearth.console.local``'s)."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="Loopback address to listen on (default 127.0.0.1); the console "
                             "has your rights, so it never listens elsewhere.")
    parser.add_argument("--port", type=int, default=0,
                        help="Port to listen on (default: a free one, printed).")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``stackctl console``."""
    parser = command.add_command(
        subparsers, "console", do_console,
        description="Serve Hearth's web console (stacks with live events and topology, "
                    "agents, keys, jobs) for you alone: on a loopback address, with your "
                    "rights (your local engine, your master's keys). It prints a link that "
                    "logs one browser in, once, as Jupyter does; Ctrl-C stops it. "
                    "hearth-api serves the same console to API projects under /console.")
    add_arguments(parser)
