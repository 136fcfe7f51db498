"""Helpers shared by every stackctl command: registration, errors, arguments."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from hearth.cli import output
from hearth.common.text import NotUtf8, decode_utf8

Handler = Callable[[argparse.Namespace], int | None]


class CommandError(Exception):
    """A command failed in a way that is not a HearthException (bad usage, bad file)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def add_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    handler: Handler,
    description: str | None = None,
    formats: Sequence[str] | None = None,
) -> argparse.ArgumentParser:
    """Add one command; ``formats`` adds ``--format`` with those choices.

    Its one-line help is its program's table's summary
    (:class:`hearth.cli.command_table.CommandChoices`), and so is its
    description unless ``description`` gives a longer one.
    """
    parser = subparsers.add_parser(
        name, description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(handler=handler)
    if formats:
        output.add_format_argument(parser, formats)
    return parser


def add_template_file_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """Add ``-f FILE``, ``-e ENV`` (repeatable) and ``-P KEY=VALUE`` (repeatable)."""
    parser.add_argument("-f", "--template-file", required=required, metavar="FILE",
                        help="Path to the template.")
    parser.add_argument("-e", "--environment-file", action="append", metavar="ENV",
                        help="Environment file (repeatable, later ones win).")
    parser.add_argument("-P", "--parameter", action="append", metavar="KEY=VALUE",
                        help="Parameter value (repeatable, or 'K1=V1;K2=V2').")


def non_negative_int(text: str) -> int:
    """Return ``text`` as an integer of zero or more (an argparse ``type``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: must not be negative")
    return value


def parse_key_values(items: Sequence[str] | None, option: str = "-P") -> dict[str, str]:
    """Turn ``KEY=VALUE`` strings into a dict; several ``;``-separated pairs are allowed."""
    result: dict[str, str] = {}
    for item in items or ():
        for pair in item.split(";") if ";" in item and "=" in item.split(";")[-1] else [item]:
            key, sep, value = pair.partition("=")
            if not sep or not key:
                raise CommandError(f"{option} {item!r}: expected KEY=VALUE", exit_code=2)
            result[key.strip()] = value
    return result


def read_text_file(path: str, label: str | None = None) -> str:
    """Return the text of a UTF-8 file; a CommandError names it and says what is wrong.

    ``label`` names the file in messages (default: ``path``).
    """
    label = label or path
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise CommandError(f"Cannot read {label}: {exc.strerror}") from None
    try:
        return decode_utf8(data)
    except NotUtf8 as exc:
        raise CommandError(f"{label}:{exc.line}: {exc}") from None


def print_error(error: Any) -> None:
    """Print an error message to stderr, as 'ERROR: ...'."""
    print(f"ERROR: {error}", file=sys.stderr)
