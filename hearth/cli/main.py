"""``stackctl``: the command-line client of Hearth.

Every command lives in a module under :mod:`hearth.cli.commands`; each such
module defines ``register(subparsers)``, which adds its commands with
:func:`hearth.cli.command.add_command`.  stackctl imports only the module
of the command it runs (the table :data:`hearth.cli.commands.TABLE` says
which), and none for ``--help``, so that a command pays only for what it
uses (``stackctl stack-list`` loads no eventlet, SQLAlchemy or engine).
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Sequence

from hearth import __version__
from hearth.cli import command
from hearth.cli import parser as parsing
from hearth.cli.command_table import add_commands, named_command
from hearth.cli.commands import COMMAND_MODULES, MASTER_COMMANDS, TABLE
from hearth.common import exception

LOG = logging.getLogger("hearth")


#: Global options that take a value (the token after them is not the command).
VALUE_OPTIONS = ("--config-file", "--url", "--token")


def find_command(argv: Sequence[str]) -> str | None:
    """Return the command named on a command line (None: none, or only options)."""
    return named_command(argv, VALUE_OPTIONS)


DESCRIPTION = ("Create and manage Hearth stacks: declarative resources described by Heat "
               "(HOT) templates, on machines that run Salt-style agents. Stack commands "
               "talk to your local engine, which the first one starts (see engine-status), "
               "or to a hearth-api with --url.")


def build_parser(command_name: str | None = None) -> parsing.StackctlParser:
    """Build the argument parser: with the command ``command_name`` when it is one.

    Without a command its ``--help`` lists every command from the table,
    whose modules are not imported.
    """
    parser = parsing.StackctlParser(
        prog="stackctl", description=parsing.wrap(DESCRIPTION),
        formatter_class=parsing.CommandListFormatter)
    parser.add_argument("--version", action="version", version=f"stackctl {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="Log debug messages and show tracebacks of unexpected errors.")
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable); replaces the default search "
                             "($HEARTH_CONFIG, ~/.config/hearth/hearth.conf, "
                             "/etc/hearth/hearth.conf).")
    parser.add_argument("--url", default=None, metavar="URL",
                        help="Talk to a hearth-api server at URL (http://HOST:PORT/v1/PROJECT) "
                             "instead of your local engine. Default: $HEARTH_URL.")
    parser.add_argument("--token", default=None, metavar="TOKEN",
                        help="Token sent to the API server. Default: $HEARTH_TOKEN.")
    parser.add_argument("--in-process", action="store_true",
                        help="Run the engine inside this stackctl process, for this command "
                             "only, instead of the local engine that stackctl starts and "
                             "reuses (default: $HEARTH_IN_PROCESS).")
    subparsers = add_commands(parser, TABLE.summaries, dest="command", metavar="COMMAND",
                              prog="stackctl", parser_class=parsing.StackctlParser)
    if command_name in COMMAND_MODULES:
        TABLE.load(command_name).register(subparsers)
    else:
        groups = [(title, list(group)) for title, group in TABLE.groups]
        parser.epilog = (parsing.grouped_commands(groups, TABLE.summaries)
                         + "\n\nRun 'stackctl COMMAND --help' for the options of a command.")
    return parser


def _stray_option(arguments: Sequence[str], name: str) -> str | None:
    """Return the first option before the command word that stackctl itself does not take."""
    before = list(arguments[:list(arguments).index(name)])
    known = {"--version", "--debug", "--in-process", "-h", "--help", *VALUE_OPTIONS}
    for index, token in enumerate(before):
        if token.startswith("-") and token.split("=", 1)[0] not in known and \
                not (index and before[index - 1] in VALUE_OPTIONS):
            return token.split("=", 1)[0]
    return None


def _refuse_unknown_command(arguments: Sequence[str], name: str) -> int:
    """Refuse a command word that names no command, or the unknown option before it."""
    stray = _stray_option(arguments, name)
    if stray is None:
        return parsing.print_unknown_command(name, COMMAND_MODULES)
    parser = build_parser(name)
    hint = parsing.did_you_mean(stray, parsing.option_strings(parser))
    parser.error(f"unknown option '{stray}'{hint} (a command's own options come after the "
                 "command)")


def configure_logging(debug: bool) -> None:
    """Send warnings (and debug messages with --debug) to stderr."""
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run stackctl (``argv`` None: this process is stackctl); return the exit code."""
    try:
        return run(argv)
    finally:
        if argv is None:
            # The process ends now.  Its objects (a stack's thousands of them) need no
            # more collecting: frozen, the interpreter's final collection skips them
            # (about a sixth of a 1000-resource stack-create's CPU time).
            gc.freeze()


def run(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run its command; return the exit code."""
    # stackctl never monkey-patches sockets, so eventlet's green DNS resolver
    # (dnspython, a third of eventlet's import time) would only be loaded, never used
    os.environ.setdefault("EVENTLET_NO_GREENDNS", "yes")
    arguments = sys.argv[1:] if argv is None else list(argv)
    name = find_command(arguments)
    if name is not None and name not in COMMAND_MODULES:
        return _refuse_unknown_command(arguments, name)
    parser = build_parser(name)
    args, extras = parser.parse_known_args(arguments)
    if extras:
        subparser = parser.command_parser(args.command)
        (subparser or parser).refuse_extras(extras, parser)
    configure_logging(args.debug)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    if args.command in MASTER_COMMANDS and args.url:
        command.print_error(f"{args.command} talks to hearth-master with its client key, on "
                            "the master's host: it has no --url form.")
        return 2
    try:
        result = args.handler(args)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (stackctl ... | head): not an error of ours.
        sys.stderr.close()
        return 0
    except exception.HearthException as exc:
        command.print_error(exc)
        return 1
    except command.CommandError as exc:
        command.print_error(exc)
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback for users
        if args.debug:
            raise
        LOG.debug("unexpected error", exc_info=True)
        command.print_error(f"Unexpected error ({type(exc).__name__}): {exc}. "
                            "Run with --debug for the traceback.")
        return 1
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
