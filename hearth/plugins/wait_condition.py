"""OS::Heat::WaitCondition: wait for signals sent to a wait condition handle.

The condition stays CREATE_IN_PROGRESS (or UPDATE_IN_PROGRESS) until its
handle (:mod:`hearth.plugins.wait_condition_handle`) holds ``count``
SUCCESS signals; the first FAILURE signal fails it with the failure
reasons (';'-joined), and ``timeout`` seconds without enough signals fail
it with WaitConditionTimeout "<n> of <count> received[ - <reasons>]", as
Heat.  Waiting never blocks the engine: each look at the handle reads its
stored signals, then the condition is polled again at most
:data:`POLL_SECONDS` later.  Deleting the condition clears the handle's
signals.
"""

from __future__ import annotations

import json
from typing import Any

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, resource, support
from hearth.plugins._waiting import rest_of_stored_wait, stored_wait
from hearth.plugins.wait_condition_handle import (
    DATA,
    STATUS_FAILURE,
    STATUS_SUCCESS,
    WaitConditionHandle,
)

#: Longest pause between two looks at the handle (seconds).
POLL_SECONDS = 0.5


class WaitCondition(resource.Resource):
    """Waits until its handle received enough successful signals, or times out.

    The resource stays CREATE_IN_PROGRESS (UPDATE_IN_PROGRESS on update)
    until its ``handle`` (an OS::Heat::WaitConditionHandle) holds ``count``
    SUCCESS signals.  A FAILURE signal fails it with the failure reasons;
    ``timeout`` seconds without enough signals fail it with
    "WaitConditionTimeout: <n> of <count> received".  The ``data`` attribute
    is the JSON of ``{signal id: data}``.  Deleting it clears the handle's
    signals.
    """

    support_status = support.SupportStatus(version="2014.2")

    PROPERTIES = (HANDLE, TIMEOUT, COUNT) = ("handle", "timeout", "count")
    ATTRIBUTES = (DATA_ATTR,) = ("data",)

    properties_schema = {
        HANDLE: properties.Schema(
            properties.Schema.STRING,
            "A reference to the wait condition handle used to signal this wait condition.",
            required=True),
        TIMEOUT: properties.Schema(
            properties.Schema.NUMBER,
            "The number of seconds to wait for the correct number of signals to arrive.",
            required=True, constraints=[constraints.Range(1, 43200)]),
        COUNT: properties.Schema(
            properties.Schema.INTEGER,
            "The number of success signals that must be received before the stack "
            "creation process continues.",
            default=1, update_allowed=True, constraints=[constraints.Range(min=1)]),
    }

    attributes_schema = {
        DATA_ATTR: attributes.Schema(
            "JSON string containing data associated with wait condition signals sent to "
            "the handle.", cache_mode=attributes.Schema.CACHE_NONE,
            type=attributes.Schema.STRING),
    }

    def _handle(self) -> WaitConditionHandle | None:
        """Return the handle the ``handle`` property names (by reference id or name)."""
        ref = self.properties[self.HANDLE]
        for candidate in self.stack.resources.values():
            if candidate is not self and (candidate.FnGetRefId() == ref
                                          or candidate.name == ref):
                return candidate
        return None

    def _valid_handle(self) -> WaitConditionHandle:
        handle = self._handle()
        if not isinstance(handle, WaitConditionHandle):
            name = handle.name if handle is not None else self.properties[self.HANDLE]
            raise ValueError(f"{name} is not a valid wait condition handle.")
        return handle

    def _start(self) -> tuple[float, float]:
        """Begin waiting: (start on the stack's clock, timeout in seconds).

        When the timeout ends is stored, for an engine that takes the wait over.
        """
        self._valid_handle()
        wait = stored_wait(self, float(self.properties[self.TIMEOUT]))
        return wait.started, wait.seconds

    def _continue(self) -> tuple[float, float]:
        """Wait, until the stored timeout, for the signals another engine was waiting for.

        The signals are the handle's, stored as they come: whatever arrived
        while no engine was looking counts.
        """
        self._valid_handle()
        wait = rest_of_stored_wait(self)
        return self._start() if wait is None else (wait.started, wait.seconds)

    def handle_create_continue(self) -> tuple[float, float]:
        """Continue the wait of a create another engine began."""
        return self._continue()

    def handle_update_continue(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
                               ) -> tuple[float, float]:
        """Continue the wait of an update another engine began."""
        if prop_diff:
            self.properties = self.make_properties(json_snippet)
        return self._continue()

    def handle_create(self) -> tuple[float, float]:
        """Check the handle and start waiting."""
        return self._start()

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
                      ) -> tuple[float, float]:
        """Take the new count and wait again."""
        if prop_diff:
            self.properties = self.make_properties(json_snippet)
        return self._start()

    def _complete(self, waiting: tuple[float, float]) -> bool | float:
        """Return True with enough signals; raise on failure or timeout; else a poll delay."""
        started, timeout = waiting
        handle = self._valid_handle()
        left = timeout - (resource.now(self.stack) - started)
        if left <= 0:
            raise exception.WaitConditionTimeout(message=self._timeout_message(handle))
        statuses = handle.statuses()
        if any(status != STATUS_SUCCESS for status in statuses):
            raise exception.WaitConditionFailure(
                reasons=";".join(handle.reasons(STATUS_FAILURE)))
        if len(statuses) >= self.properties[self.COUNT]:
            return True
        return min(left, POLL_SECONDS)

    check_create_complete = _complete
    check_update_complete = _complete

    def _timeout_message(self, handle: WaitConditionHandle) -> str:
        reasons = handle.reasons(STATUS_SUCCESS)
        message = f"{len(reasons)} of {self.properties[self.COUNT]} received"
        return f"{message} - {';'.join(reasons)}" if reasons else message

    def handle_delete(self) -> None:
        """Clear the handle's signals (a handle that holds none has nothing to clear)."""
        handle = self._handle()
        if isinstance(handle, WaitConditionHandle) and handle.held_signals():
            handle.metadata_set({})

    def _resolve_attribute(self, name: str) -> Any:
        if name != self.DATA_ATTR:
            return None
        handle = self._handle()
        if not isinstance(handle, WaitConditionHandle):
            return None
        held = handle.held_signals()
        return json.dumps({key: entry.get(DATA) for key, entry in held.items()})


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::WaitCondition": WaitCondition}
