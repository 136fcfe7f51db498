"""Print a stack action's progress as it happens, one line per state change.

The printer is fed by the stack's events, polled through the backend with a
marker, so embedded and HTTP modes print the same lines::

    2026-11-21 18:45:01Z [web]: CREATE_COMPLETE  state changed

Following ends when the stack leaves IN_PROGRESS.  A first Ctrl-C asks the
engine to cancel the action (``on_interrupt``) and keeps following until
the stack settles (rolled back or FAILED, never left IN_PROGRESS).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from hearth.cli.backend import backend_sleep

#: How often, and how far apart (seconds), a refused cancel is asked again.
CANCEL_ATTEMPTS = 50
CANCEL_RETRY_DELAY = 0.05


def format_event_line(event: Mapping[str, Any]) -> str:
    """Return the one-line form of an event: time, resource, status, reason."""
    when = (event.get("event_time") or "").replace("T", " ")
    status = event.get("resource_status") or ""
    reason = event.get("resource_status_reason") or ""
    return f"{when} [{event.get('resource_name')}]: {status}  {reason}".rstrip()


def last_event_id(backend: Any, stack_identity: str) -> str | None:
    """Return the id of the stack's newest event (the marker to follow from)."""
    events = backend.list_events(stack_identity, sort_dir="desc", limit=1)
    return events[0]["id"] if events else None


class ProgressPrinter:
    """Poll a stack's events from a marker and print each new one."""

    def __init__(self, backend: Any, stack_identity: str, marker: str | None = None,
                 stream: TextIO | None = None) -> None:
        self.backend = backend
        self.stack_identity = stack_identity
        self.marker = marker
        self.stream = stream or sys.stdout

    def print_new_events(self) -> int:
        """Print the events after the marker; return how many were printed."""
        events = self.backend.list_events(self.stack_identity, marker=self.marker,
                                          sort_dir="asc")
        for event in events:
            print(format_event_line(event), file=self.stream, flush=True)
            self.marker = event["id"]
        return len(events)

    def follow(self, on_interrupt: Callable[[], None] | None = None,
               poll_interval: float | None = None) -> dict[str, Any]:
        """Print events until the stack's action ends; return the final stack."""
        interval = poll_interval or getattr(self.backend, "poll_interval", 1.0)
        interrupted = False
        while True:
            try:
                stack = self.backend.show_stack(self.stack_identity, resolve_outputs=False)
                self.print_new_events()
                if not stack["stack_status"].endswith("_IN_PROGRESS"):
                    self.print_new_events()
                    return stack
                backend_sleep(self.backend, interval)
            except KeyboardInterrupt:
                if interrupted or on_interrupt is None:
                    raise
                interrupted = True
                print("Interrupted: cancelling the action...", file=sys.stderr, flush=True)
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
                stack = self.backend.show_stack(self.stack_identity, resolve_outputs=False)
                if not stack["stack_status"].endswith("_IN_PROGRESS"):
                    return
                backend_sleep(self.backend, CANCEL_RETRY_DELAY)
        on_interrupt()


def follow_events(backend: Any, stack_identity: str, marker: str | None,
                  stream: TextIO | None = None, poll_interval: float | None = None) -> None:
    """Print a stack's events forever, as they come (``event-list --follow``)."""
    printer = ProgressPrinter(backend, stack_identity, marker, stream)
    interval = poll_interval or getattr(backend, "poll_interval", 1.0)
    while True:
        printer.print_new_events()
        backend_sleep(backend, interval)
