"""stackctl's argument parser: commands listed by subject, and "did you mean" on a typo.

``stackctl --help`` lists the commands in the groups of
:data:`hearth.cli.commands.COMMAND_GROUPS`, sorted inside each group.  A
mistyped command, option or choice is refused, as git does, with the
closest names (:func:`suggest`): ``stackctl stack-craete`` names
``stack-create``, ``stackctl stack-list --formt json`` names ``--format``.
"""

from __future__ import annotations

import argparse
import difflib
import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

#: Width of the command-name column of the grouped command list.
NAME_COLUMN = 24
#: Least similarity (difflib's ratio) of a suggested name, and how much less than the
#: best one the others may be; most names suggested.
SIMILAR_ENOUGH = 0.6
AS_SIMILAR = 0.04
MOST_SUGGESTIONS = 8


def suggest(word: str, candidates: Iterable[str]) -> list[str]:
    """Return the candidates closest to ``word``, best first (none when nothing is close).

    As git's suggestions: the candidates that start with ``word`` (``stack``
    names the ``stack-*`` commands), else those as similar as the most
    similar one (``stack-craete`` names ``stack-create`` alone).
    """
    names = sorted(set(candidates))
    prefixed = [name for name in names if word and name.startswith(word)]
    if prefixed:
        return prefixed
    scored = sorted(((difflib.SequenceMatcher(None, word, name).ratio(), name)
                     for name in names), key=lambda pair: (-pair[0], pair[1]))
    if not scored or scored[0][0] < SIMILAR_ENOUGH:
        return []
    best = scored[0][0]
    return [name for score, name in scored if score >= best - AS_SIMILAR][:MOST_SUGGESTIONS]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """Return "; did you mean 'X'?" (or "one of 'X', 'Y'?"), or '' when nothing is close."""
    found = suggest(word, candidates)
    if not found:
        return ""
    if len(found) == 1:
        return f"; did you mean '{found[0]}'?"
    return "; did you mean one of " + ", ".join(f"'{name}'" for name in found) + "?"


def unknown_command(word: str, commands: Iterable[str]) -> str:
    """Return git's message for a word that is no command, with the closest commands."""
    message = f"stackctl: '{word}' is not a stackctl command. See 'stackctl --help'."
    found = suggest(word, commands)
    if found:
        heading = "The most similar command is" if len(found) == 1 else \
            "The most similar commands are"
        message += "\n\n" + heading + "\n" + "".join(f"\t{name}\n" for name in found)
    return message.rstrip("\n")


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Return every long and short option ``parser`` accepts."""
    return [option for action in parser._actions for option in action.option_strings]


class CommandListFormatter(argparse.RawDescriptionHelpFormatter):
    """Leave the commands out of the options: the epilog lists them, by group.

    The options' help starts in the command list's column (:data:`NAME_COLUMN`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._action_max_length = NAME_COLUMN

    def _format_action(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._SubParsersAction):
            return ""
        return super()._format_action(action)


class StackctlParser(argparse.ArgumentParser):
    """An ArgumentParser whose refusals name the closest option or choice."""

    def _check_value(self, action: argparse.Action, value: object) -> None:
        """Refuse a value outside ``choices``, naming the closest ones."""
        if action.choices is None or value in action.choices:
            return None
        hint = did_you_mean(str(value), (str(choice) for choice in action.choices))
        if isinstance(action, argparse._SubParsersAction):
            raise argparse.ArgumentError(
                action, f"'{value}' is not a stackctl command{hint} (see 'stackctl --help')")
        choices = ", ".join(repr(choice) for choice in action.choices)
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint} "
                                             f"(choose from {choices})")

    def command_parser(self, name: str | None) -> StackctlParser | None:
        """Return the parser of the command ``name`` (None: no such command here)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices.get(name or "")
        return None

    def refuse_extras(self, extras: Sequence[str], global_parser: argparse.ArgumentParser
                      ) -> NoReturn:
        """Exit with a usage error for arguments this command does not take.

        An unknown option names the closest option of this command; a global
        option given after the command says to put it before the command.
        """
        globals_ = set(option_strings(global_parser))
        for extra in extras:
            if not extra.startswith("-") or extra == "-":
                continue
            option = extra.split("=", 1)[0]
            if option in globals_:
                self.error(f"'{option}' is an option of stackctl itself: give it before the "
                           f"command ({global_parser.prog} {option} ... {self.prog.split()[-1]}"
                           " ...)")
            hint = did_you_mean(option, (name for name in option_strings(self)
                                         if name.startswith("--") == option.startswith("--")))
            self.error(f"unknown option '{option}'{hint}")
        self.error("unrecognized arguments: " + " ".join(extras))


def grouped_commands(groups: Sequence[tuple[str, Sequence[str]]],
                     helps: dict[str, str], width: int | None = None) -> str:
    """Return the command list of ``stackctl --help``: by group, sorted inside each group."""
    width = width or min(max(shutil.get_terminal_size().columns - 2, 60), 100)
    lines: list[str] = []
    for title, commands in groups:
        lines.append(f"{title}:")
        for name in sorted(commands):
            text = helps.get(name, "")
            wrapped = textwrap.wrap(text, max(width - NAME_COLUMN, 30)) or [""]
            if len(name) + 2 < NAME_COLUMN:
                lines.append(f"  {name:<{NAME_COLUMN - 2}}{wrapped[0]}".rstrip())
                wrapped = wrapped[1:]
            else:
                lines.append(f"  {name}")
            lines += [" " * NAME_COLUMN + line for line in wrapped]
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def wrap(text: str) -> str:
    """Return ``text`` wrapped to the terminal, as argparse wraps descriptions."""
    width = min(max(shutil.get_terminal_size().columns - 2, 60), 100)
    return textwrap.fill(text, width)


def print_unknown_command(word: str, commands: Iterable[str]) -> int:
    """Print git's message for an unknown command on stderr; return the usage exit code."""
    print(unknown_command(word, commands), file=sys.stderr)
    return 2
