"""``hearth-manage``: administration of a Hearth server (database schema, tokens).

Every command lives in a module under :mod:`hearth.cli.manage_commands`
defining ``register(subparsers)``; modules are discovered, so a new command
never touches this file.  ``--config-file`` is read by each handler through
``args.config_file``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import hearth.cli.manage_commands as package
from hearth import __version__
from hearth.cli import command
from hearth.common import exception


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every manage command module's commands."""
    parser = argparse.ArgumentParser(
        prog="hearth-manage",
        description="Administer a Hearth installation: database schema and API tokens.",
        epilog="Run 'hearth-manage COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"hearth-manage {__version__}")
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable); replaces the default search.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        importlib.import_module(f"{package.__name__}.{info.name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run hearth-manage; return the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except (exception.HearthException, command.CommandError) as error:
        command.print_error(error)
        return getattr(error, "exit_code", 1)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
