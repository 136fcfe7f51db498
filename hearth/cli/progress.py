"""Print a stack action's progress as it happens, one line per state change.

The printer is fed by the stack's events, polled through the backend with a
marker, so embedded and HTTP modes print the same lines::

    2026-11-21 18:45:01Z [web]: CREATE_COMPLETE  state changed

Following reads the stack's events and its status row (the stack's list
item) only; it never loads the stack itself.  It ends when the stack
leaves IN_PROGRESS.  A first Ctrl-C asks the engine to cancel the action
(``on_interrupt``) and keeps following until the stack settles (rolled
back or FAILED, never left IN_PROGRESS).

The display never changes the outcome of the action.  When listing or
printing events keeps failing (a closed output, as in ``stackctl
stack-create ... | head``, is the common case), the printer says so once
on stderr, stops printing and keeps following the stack's status to the
end of the action.  Events stay readable while they are purged: the
engine never purges the events of the action in progress, and a marker
that was purged pages from the oldest event left
(:mod:`hearth.db.api_events`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from hearth.cli.backend import Backend
from hearth.common import exception

#: How often, and how far apart (seconds), a refused cancel is asked again.
CANCEL_ATTEMPTS = 50
CANCEL_RETRY_DELAY = 0.05
#: Polls in a row whose events could not be shown before the display is given up.
DISPLAY_ATTEMPTS = 20
#: Polls in a row whose status could not be read before following fails.
STATUS_ATTEMPTS = 100


def format_event_line(event: Mapping[str, Any]) -> str:
    """Return the one-line form of an event: time, resource, status, reason."""
    when = (event.get("event_time") or "").replace("T", " ")
    status = event.get("resource_status") or ""
    reason = event.get("resource_status_reason") or ""
    return f"{when} [{event.get('resource_name')}]: {status}  {reason}".rstrip()


def last_event_id(backend: Backend, stack_identity: str) -> str | None:
    """Return the id of the stack's newest event (the marker to follow from)."""
    events = backend.list_events(stack_identity, sort_dir="desc", limit=1)
    return events[0]["id"] if events else None


def stack_status(backend: Backend, stack_id: str) -> dict[str, Any]:
    """Return the stack's list item (name, status, reason), read from its row alone."""
    stack_id = stack_id.rpartition("/")[2]
    found = backend.list_stacks(filters={"id": stack_id}, show_deleted=True,
                                show_nested=True)
    if not found:
        raise exception.StackNotFound(stack_id)
    return found[0]


def in_progress(stack: Mapping[str, Any]) -> bool:
    """Return whether the stack's action is still running."""
    return str(stack["stack_status"]).endswith("_IN_PROGRESS")


class ProgressPrinter:
    """Poll a stack's events from a marker and print each new one."""

    #: what shows the events (:class:`hearth.cli.progress_display.ProgressDisplay`:
    #: colour, live summary, quiet); None prints one plain line per event
    display: Any = None
    #: also the events of nested stacks down to this depth (``event-list --follow -n N``)
    nested_depth: int = 0
    #: what turns a page of events into the ones printed (nested names); None: as they are
    rename: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None

    def __init__(self, backend: Backend, stack_identity: str, marker: str | None = None,
                 stream: TextIO | None = None, errors: TextIO | None = None) -> None:
        self.backend = backend
        self.stack_identity = stack_identity
        self.marker = marker
        self.stream = stream or sys.stdout
        self.errors = errors or sys.stderr
        #: False once the display was given up (the action is still followed)
        self.showing = True
        self._display_failures = 0

    def print_new_events(self) -> int:
        """Print the events after the marker; return how many were printed."""
        query: dict[str, Any] = {"nested_depth": self.nested_depth} if self.nested_depth else {}
        events = self.backend.list_events(self.stack_identity, marker=self.marker,
                                          sort_dir="asc", **query)
        if events and self.rename is not None:
            events = self.rename(events)
        for event in events:
            if self.display is None:
                print(format_event_line(event), file=self.stream, flush=True)
            else:
                self.display.event(event)
            self.marker = event["id"]
        if self.display is not None:
            self.display.tick()
        return len(events)

    def show_new_events(self) -> None:
        """Print the new events; a display that keeps failing is given up, never raised."""
        if not self.showing:
            return
        try:
            self.print_new_events()
        except BrokenPipeError:
            self.give_up_display("the output was closed", closed=True)
        except Exception as error:  # noqa: BLE001 - the display must not end the action
            self._display_failures += 1
            if self._display_failures >= DISPLAY_ATTEMPTS:
                self.give_up_display(f"{type(error).__name__}: {error}")
        else:
            self._display_failures = 0

    def give_up_display(self, reason: str, closed: bool = False) -> None:
        """Stop printing events, say why on stderr; the action is still followed.

        ``closed``: the output is gone; later writes to stdout (and
        Python's flush at exit) go to /dev/null instead of failing again.
        """
        self.showing = False
        if closed and self.stream is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        try:
            print(f"WARNING: progress display stopped ({reason}); the action goes on to "
                  "its end.", file=self.errors, flush=True)
        except (OSError, ValueError):
            pass

    def write(self, line: str) -> None:
        """Print one line of our own (the final status), unless the output is gone."""
        try:
            print(line, file=self.stream, flush=True)
        except BrokenPipeError:
            self.give_up_display("the output was closed", closed=True)

    def read_status(self) -> dict[str, Any]:
        """Return the stack's status, asking again while reads fail (then raise)."""
        failures = 0
        while True:
            try:
                return stack_status(self.backend, self.stack_identity)
            except exception.StackNotFound:
                raise
            except Exception:
                failures += 1
                if failures >= STATUS_ATTEMPTS:
                    raise
                self.backend.sleep(self.interval)

    @property
    def interval(self) -> float:
        """Return the seconds between two polls."""
        return self.backend.poll_interval

    def follow(self, on_interrupt: Callable[[], None] | None = None,
               poll_interval: float | None = None) -> dict[str, Any]:
        """Print events until the stack's action ends; return the stack's final status."""
        interval = poll_interval or self.interval
        interrupted = False
        while True:
            try:
                stack = self.read_status()
                self.show_new_events()
                if not in_progress(stack):
                    self.show_new_events()
                    return stack
                self.backend.sleep(interval)
            except KeyboardInterrupt:
                if interrupted or on_interrupt is None:
                    raise
                interrupted = True
                print("Interrupted: cancelling the action...", file=self.errors, flush=True)
                self.cancel(on_interrupt)

    def cancel(self, on_interrupt: Callable[[], None]) -> None:
        """Ask the engine to cancel, again while the action has not started its walk.

        Between the stack's "started" event and the first resource step the
        engine has nothing to cancel yet and refuses; that window is a few
        milliseconds, so the request is repeated briefly rather than leaving
        the action running after stackctl exits.
        """
        for _ in range(CANCEL_ATTEMPTS):
            try:
                on_interrupt()
                return
            except Exception:  # noqa: BLE001 - refused for now; the last attempt reports
                if not in_progress(self.read_status()):
                    return
                self.backend.sleep(CANCEL_RETRY_DELAY)
        on_interrupt()


def follow_events(backend: Backend, stack_identity: str, marker: str | None,
                  stream: TextIO | None = None, poll_interval: float | None = None,
                  nested_depth: int = 0,
                  rename: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
                  ) -> None:
    """Print a stack's events forever, as they come (``event-list --follow``).

    ``nested_depth`` follows the nested stacks' events too, ``rename`` names them.
    """
    printer = ProgressPrinter(backend, stack_identity, marker, stream)
    printer.nested_depth = nested_depth
    printer.rename = rename
    interval = poll_interval or backend.poll_interval
    while True:
        printer.print_new_events()
        backend.sleep(interval)
