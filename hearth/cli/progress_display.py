"""How a stack action's progress looks: plain lines, colour, a live summary, or quiet.

:class:`~hearth.cli.progress.ProgressPrinter` follows the events;
a :class:`ProgressDisplay` decides what a person sees of them:

- one line per state change, as always (left out with ``--quiet``);
- on a terminal only, the status word in colour (not with ``--no-color``
  or the ``NO_COLOR`` environment variable, https://no-color.org) and a
  live summary line under the event lines, redrawn in place::

      [ 3/5 done | 1 in progress | 0 failed | 00:12 ]

  The summary line is erased before each event line and when the stack's
  own event says its action ended (before the final status line), so
  nothing of it stays on the screen, and none of it ever reaches a pipe or
  a file: piped output is exactly the plain event lines.

:func:`make_display` returns None when a plain line per event is all there
is to show, so the printer's plain path stays as it was.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from hearth.cli.backend import Backend

#: Status word -> ANSI colour code (SGR parameters).
STATUS_COLOURS: dict[str, str] = {
    "COMPLETE": "32",      # green
    "FAILED": "1;31",      # bold red
    "IN_PROGRESS": "33",   # yellow
}
SUMMARY_COLOUR = "2"      # dim
ERASE_LINE = "\r\x1b[2K"

#: Seconds between two resource listings while the total is still growing.
TOTAL_REFRESH_INTERVAL = 0.5


@dataclasses.dataclass(frozen=True)
class DisplayOptions:
    """What to show: event lines (not quiet), colour, and the live summary line."""

    quiet: bool = False
    colour: bool = False
    live: bool = False


def add_display_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--quiet`` and ``--no-color`` to an action command."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="Print only the final status (no line per state change).")
    parser.add_argument("--no-color", action="store_true",
                        help="No colour, even on a terminal (also: NO_COLOR=1 in the "
                             "environment).")


def display_options(args: argparse.Namespace, stream: TextIO,
                    environ: Mapping[str, str] | None = None) -> DisplayOptions:
    """Return the options for ``args`` writing to ``stream``: extras only on a terminal."""
    environ = os.environ if environ is None else environ
    structured = getattr(args, "format", None) not in (None, "table")
    terminal = _is_terminal(stream) and environ.get("TERM") != "dumb" and not structured
    quiet = bool(getattr(args, "quiet", False))
    colour = (terminal and not getattr(args, "no_color", False)
              and not environ.get("NO_COLOR"))
    return DisplayOptions(quiet=quiet, colour=colour, live=terminal and not quiet)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def paint(text: str, code: str | None, enabled: bool) -> str:
    """Return ``text`` in the ANSI colour ``code`` when ``enabled``."""
    return f"\x1b[{code}m{text}\x1b[0m" if enabled and code else text


def status_colour(status: str) -> str | None:
    """Return the colour of an ``ACTION_STATUS`` word (by its status part)."""
    return next((code for word, code in STATUS_COLOURS.items() if status.endswith(word)), None)


def format_elapsed(seconds: float) -> str:
    """Return ``MM:SS`` (``H:MM:SS`` past an hour)."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class ResourceTally:
    """The latest status of each resource seen in the events, counted."""

    def __init__(self) -> None:
        self.latest: dict[str, str] = {}

    def record(self, resource_name: str, status: str) -> None:
        """Note a resource's new ``ACTION_STATUS``."""
        self.latest[resource_name] = status

    def count(self, word: str) -> int:
        """Return how many resources are now in a status ending with ``word``."""
        return sum(1 for status in self.latest.values() if status.endswith(word))


class ProgressDisplay:
    """Show followed events as :class:`DisplayOptions` say (see the module docstring).

    ``format_line`` turns an event into its plain line; ``count_resources``
    returns the stack's number of resources (asked again, at most once per
    :data:`TOTAL_REFRESH_INTERVAL`, while the events name resources it did
    not count); ``stack_name`` tells the stack's own events from its
    resources'.  ``clock`` is a test seam.
    """

    def __init__(self, options: DisplayOptions, format_line: Callable[[Mapping[str, Any]], str],
                 stack_name: str = "", count_resources: Callable[[], int] | None = None,
                 stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.options = options
        self.format_line = format_line
        self.stack_name = stack_name
        self.count_resources = count_resources
        self.stream = stream or sys.stdout
        self.clock = clock
        self.started = clock()
        self.tally = ResourceTally()
        self.total = 0
        self._counted_at: float | None = None
        self._summary_shown = False
        self._summary_text = ""
        #: False once the stack's own event says its action ended: the line is gone
        self.running = True

    # --- what the printer calls -------------------------------------------------
    def event(self, event: Mapping[str, Any]) -> None:
        """Show one event: its line (unless quiet), then the summary again."""
        name = event.get("resource_name") or ""
        status = event.get("resource_status") or ""
        if name == self.stack_name:
            # the stack's own event: the summary shows while its action runs
            self.running = status.endswith("IN_PROGRESS")
        elif not status.startswith("INIT_"):
            self.tally.record(name, status)
        self._erase_summary()
        if self.options.quiet:
            return
        line = self.format_line(event)
        if self.options.colour and status:
            line = line.replace(f"]: {status}", f"]: {paint(status, status_colour(status), True)}",
                                1)
        print(line, file=self.stream, flush=True)
        self.tick()

    def tick(self) -> None:
        """Redraw the live summary line (elapsed time moves on)."""
        if not (self.options.live and self.running):
            self._erase_summary()
            return
        self._refresh_total()
        text = self.summary()
        if self._summary_shown and text == self._summary_text:
            return  # nothing moved: no redraw
        self._erase_summary()
        self.stream.write(paint(text, SUMMARY_COLOUR, self.options.colour))
        self.stream.flush()
        self._summary_shown, self._summary_text = True, text

    def close(self) -> None:
        """Erase the live summary line, leaving only the event lines."""
        self._erase_summary()

    # --- the summary ------------------------------------------------------------
    def summary(self) -> str:
        """Return the summary text: done / in progress / failed / total, elapsed."""
        total = max(self.total, len(self.tally.latest))
        return (f"[ {self.tally.count('COMPLETE')}/{total} done | "
                f"{self.tally.count('IN_PROGRESS')} in progress | "
                f"{self.tally.count('FAILED')} failed | "
                f"{format_elapsed(self.clock() - self.started)} ]")

    def _refresh_total(self) -> None:
        if self.count_resources is None or (self.total and self.total >= len(self.tally.latest)):
            return
        now = self.clock()
        if self._counted_at is not None and now - self._counted_at < TOTAL_REFRESH_INTERVAL:
            return
        self._counted_at = now
        try:
            self.total = self.count_resources()
        except Exception:  # noqa: BLE001 - a display never fails the action it shows
            self.count_resources = None

    def _erase_summary(self) -> None:
        if self._summary_shown:
            self.stream.write(ERASE_LINE)
            self.stream.flush()
            self._summary_shown = False


def make_display(backend: Backend, stack_identity: str, options: DisplayOptions | None,
                 format_line: Callable[[Mapping[str, Any]], str],
                 stream: TextIO | None = None) -> ProgressDisplay | None:
    """Return the display of an action on ``stack_identity`` (None: plain lines)."""
    if options is None or options == DisplayOptions():
        return None
    stack_name = ""
    count_resources = None
    if options.live:
        stack_name = backend.identify_stack(stack_identity)["stack_name"]

        def count_resources() -> int:
            return len(backend.list_resources(stack_identity))
    return ProgressDisplay(options, format_line, stack_name, count_resources, stream)
