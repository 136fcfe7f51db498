"""``hearth-manage``: administration of a Hearth server (database schema, tokens).

Every command lives in a module under :mod:`hearth.cli.manage_commands`
defining ``register(subparsers)``; the table
:data:`hearth.cli.manage_commands.TABLE` names each command's module, and
only the module of the command run is imported (SQLAlchemy and the
migrations are loaded by the command that uses them, never by ``--help``).
``--config-file`` is read by each handler through ``args.config_file``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from hearth import __version__
from hearth.cli import command
from hearth.cli.command_table import add_commands, named_command
from hearth.cli.manage_commands import TABLE
from hearth.common import exception


def build_parser(command_name: str | None = None) -> argparse.ArgumentParser:
    """Build the argument parser: with the command ``command_name`` when it is one."""
    parser = argparse.ArgumentParser(
        prog="hearth-manage",
        description="Administer a Hearth installation: database schema and API tokens.",
        epilog="Run 'hearth-manage COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"hearth-manage {__version__}")
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable); replaces the default search.")
    subparsers = add_commands(parser, TABLE.summaries, dest="command", metavar="COMMAND",
                              title="commands")
    if command_name in TABLE.commands:
        TABLE.load(command_name).register(subparsers)
    else:
        subparsers.list_summaries()
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run hearth-manage; return the process exit code."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(named_command(arguments, ("--config-file",)))
    args = parser.parse_args(arguments)
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
