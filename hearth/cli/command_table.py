"""A program's table of commands: which module registers each one, and its summary.

``stackctl`` and ``hearth-manage`` keep one :class:`CommandTable` each (in
:mod:`hearth.cli.commands` and :mod:`hearth.cli.manage_commands`).  A
command line imports only the module of the command it runs, so a command
module imports what it needs at its top (SQLAlchemy, ZeroMQ, oslo.config)
and no other command pays for it; ``--help`` imports no command module at
all: the list it prints is the table's.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, cast


def named_command(argv: Sequence[str], value_options: Sequence[str]) -> str | None:
    """Return the command word of a command line (None: none, or only options).

    ``value_options`` are the program's own options that take a value (the
    word after one of them is that value, not the command).
    """
    expect_value = False
    for token in argv:
        if expect_value:
            expect_value = False
        elif token in value_options:
            expect_value = True
        elif not token.startswith("-"):
            return token
    return None


class Command(NamedTuple):
    """One command: the module that registers it and its one-line summary."""

    #: the module of the table's package whose ``register(subparsers)`` adds the command
    module: str
    #: ``--help``'s line for it, and its own ``--help`` description unless it gives one
    summary: str


@dataclass(frozen=True)
class CommandTable:
    """The commands of one program, in the groups its ``--help`` lists them by."""

    #: the package whose modules register the commands
    package: str
    #: (group title, {command: Command}); ``--help`` lists the groups in this order
    groups: tuple[tuple[str, Mapping[str, Command]], ...]

    @cached_property
    def commands(self) -> dict[str, Command]:
        """Every command, by name."""
        return {name: entry for _, group in self.groups for name, entry in group.items()}

    @cached_property
    def summaries(self) -> dict[str, str]:
        """Every command's summary, by name."""
        return {name: entry.summary for name, entry in self.commands.items()}

    def module_commands(self) -> dict[str, set[str]]:
        """Return module -> the commands the table says its ``register`` adds."""
        found: dict[str, set[str]] = {}
        for name, entry in self.commands.items():
            found.setdefault(entry.module, set()).add(name)
        return found

    def load(self, name: str) -> ModuleType:
        """Import the module that registers the command ``name`` (a KeyError if none)."""
        # The one place a command's module is imported: only the command run is loaded.
        return importlib.import_module(f"{self.package}.{self.commands[name].module}")


if TYPE_CHECKING:
    _Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _Subcommands = argparse._SubParsersAction


class CommandChoices(_Subcommands):
    """Subcommands whose help and description default to their table's summaries."""

    #: command -> its one-line summary (:func:`add_commands` sets them)
    summaries: Mapping[str, str] = {}

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Add the command ``name``; its table's summary is its help and description."""
        if kwargs.get("help") is None:
            kwargs["help"] = self.summaries.get(name)
        if kwargs.get("description") is None:
            kwargs["description"] = kwargs["help"]
        parser: argparse.ArgumentParser = super().add_parser(name, **kwargs)
        return parser

    def list_summaries(self) -> None:
        """List every command of the table in ``--help`` without importing its module.

        For a command line that names none of them: ``--help`` lists them,
        and a word that is no command is refused naming them.
        """
        for name, summary in self.summaries.items():
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), summary))
            # a name to refuse others against; the command line named no command
            self.choices[name] = None  # type: ignore[assignment]


def add_commands(parser: argparse.ArgumentParser, summaries: Mapping[str, str],
                 **options: Any) -> CommandChoices:
    """Add ``parser``'s subcommands (``add_subparsers(**options)``), with these summaries."""
    commands = cast(CommandChoices, parser.add_subparsers(action=CommandChoices, **options))
    commands.summaries = summaries
    return commands
