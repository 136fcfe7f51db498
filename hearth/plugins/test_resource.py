"""OS::Heat::TestResource: a test double with knobs for waiting, failing and replacing."""

from __future__ import annotations

import logging
import time
from typing import Any

from hearth.engine import attributes, constraints, properties, resource, support
from hearth.plugins._waiting import Wait, rest_of_stored_wait, stored_wait

LOG = logging.getLogger(__name__)


def _number(description: str, version: str | None = None, **kwargs: Any) -> properties.Schema:
    return properties.Schema(
        properties.Schema.NUMBER, description, update_allowed=True,
        support_status=support.SupportStatus(version=version), **kwargs)


class TestResource(resource.Resource):
    """A resource which stores the string value that was provided.

    This resource is to be used only for testing.  It has control knobs such
    as ``update_replace``, ``fail`` and ``wait_secs``.  Waiting never blocks
    the engine: ``check_<action>_complete`` returns False until the stack's
    clock passes the deadline (``wait_secs: -1`` waits forever).
    ``attr_wait_secs`` delays resolving an attribute (a green sleep: other
    work goes on), ``client_name``/``entity_name`` are accepted and not polled
    (there is no client to poll).  As in Heat, it takes no signals.
    """

    __test__ = False  # not a pytest test class

    support_status = support.SupportStatus(version="5.0.0")

    ACTION_TIMES = (CREATE_WAIT_SECS, UPDATE_WAIT_SECS, DELETE_WAIT_SECS) = (
        "create", "update", "delete")
    PROPERTIES = (VALUE, UPDATE_REPLACE, FAIL, CLIENT_NAME, ENTITY_NAME, WAIT_SECS,
                  ACTION_WAIT_SECS, ATTR_WAIT_SECS, CONSTRAINT_PROP_SECS,
                  UPDATE_REPLACE_VALUE) = (
        "value", "update_replace", "fail", "client_name", "entity_name", "wait_secs",
        "action_wait_secs", "attr_wait_secs", "constraint_prop_secs", "update_replace_value")
    ATTRIBUTES = (OUTPUT,) = ("output",)

    properties_schema = {
        CONSTRAINT_PROP_SECS: _number(
            "Number value for delay during resolve constraint.", "6.0.0", default=0,
            constraints=[constraints.CustomConstraint("test_constr")]),
        ATTR_WAIT_SECS: _number(
            "Number value for timeout during resolving output value.", "6.0.0", default=0),
        VALUE: properties.Schema(
            properties.Schema.STRING, "The input string to be stored.",
            default="test_string", update_allowed=True),
        UPDATE_REPLACE_VALUE: properties.Schema(
            properties.Schema.STRING,
            "Some value that can be stored but can not be updated.",
            support_status=support.SupportStatus(version="7.0.0")),
        FAIL: properties.Schema(
            properties.Schema.BOOLEAN,
            "Value which can be set to fail the resource operation to test failure "
            "scenarios.", update_allowed=True, default=False),
        UPDATE_REPLACE: properties.Schema(
            properties.Schema.BOOLEAN,
            "Value which can be set to trigger update replace for the particular "
            "resource.", update_allowed=True, default=False),
        WAIT_SECS: _number("Seconds to wait after an action (-1 is infinite).", default=0),
        ACTION_WAIT_SECS: properties.Schema(
            properties.Schema.MAP, "Options for simulating waiting.", update_allowed=True,
            schema={
                action: _number(f"Seconds to wait after a {action}. Defaults to the "
                                "global wait_secs.")
                for action in ACTION_TIMES
            }),
        CLIENT_NAME: properties.Schema(
            properties.Schema.STRING, "Client to poll.", default="", update_allowed=True),
        ENTITY_NAME: properties.Schema(
            properties.Schema.STRING, "Client entity to poll.", default="",
            update_allowed=True),
    }

    attributes_schema = {
        OUTPUT: attributes.Schema(
            "The string that was stored. This value is also available by referencing "
            "the resource.", cache_mode=attributes.Schema.CACHE_NONE),
    }

    def _wait(self) -> Wait:
        """Start the wait of the current action (its own, else ``wait_secs``).

        When it ends is stored as the action's progress (written before the
        engine polls), so that an engine taking the action over waits only
        what is left.
        """
        per_action = self.properties[self.ACTION_WAIT_SECS] or {}
        seconds = per_action.get(self.action.lower())
        if seconds is None:
            seconds = self.properties[self.WAIT_SECS]
        LOG.info("Resource %s waits %ss during %s", self.name, seconds, self.action)
        return stored_wait(self, seconds)

    # an engine that takes an action over waits what is left of the stored wait; when
    # none was stored, the dead engine's handle never finished (what it set is not
    # stored either), so the handle runs again
    def handle_create_continue(self) -> Wait:
        """Continue a create another engine began (docs/plugin-guide.rst)."""
        return rest_of_stored_wait(self) or self.handle_create()

    def handle_update_continue(self, json_snippet: Any, tmpl_diff: Any,
                               prop_diff: Any) -> Wait | None:
        """Continue an update another engine began."""
        self.properties = self.make_properties(json_snippet)
        return rest_of_stored_wait(self) or self.handle_update(json_snippet, tmpl_diff, prop_diff)

    def handle_delete_continue(self) -> Wait:
        """Continue a delete another engine began."""
        return rest_of_stored_wait(self) or self.handle_delete()

    def handle_create(self) -> Wait:
        """Store the value (unless failing) and start waiting."""
        if not self.properties[self.FAIL]:
            self.data_set("value", self.properties[self.VALUE], redact=False)
            self.resource_id_set(self.physical_resource_name())
        return self._wait()

    def needs_replace_with_prop_diff(self, changed_properties: set[str],
                                     after_props: properties.Properties,
                                     before_props: properties.Properties) -> bool:
        """Replace when ``value`` changes and ``update_replace`` is set."""
        return self.VALUE in changed_properties and bool(after_props[self.UPDATE_REPLACE])

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> Wait | None:
        """Take the new value in place (unless failing) and wait."""
        self.properties = self.make_properties(json_snippet)
        value = prop_diff.get(self.VALUE)
        if not value:
            return Wait.start(self.stack, 0)
        if not self.properties[self.FAIL]:
            self.data_set("value", value, redact=False)
        return self._wait()

    def handle_delete(self) -> Wait:
        """Start waiting (there is nothing to delete)."""
        return self._wait()

    def _complete(self, wait: Wait) -> bool | float:
        """Return True when the wait is over (or fail then), else the seconds left."""
        left = wait.poll(self.stack)
        if left is not True:
            return left
        if self.properties[self.FAIL] and self.action != self.DELETE:
            raise ValueError(f"Test Resource failed {self.name}")
        return True

    check_create_complete = _complete
    check_update_complete = _complete
    check_delete_complete = _complete

    def handle_check(self) -> None:
        """Fail when the resource was never created."""
        if not self.resource_id:
            raise Exception("Resource not created")  # noqa: TRY002 - Heat's own error text

    def _resolve_attribute(self, name: str) -> Any:
        delay = self.properties[self.ATTR_WAIT_SECS]
        if delay and delay > 0:
            getattr(self.stack, "sleep", time.sleep)(delay)
        if name == self.OUTPUT:
            return self.data_get().get("value")
        return None


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::TestResource": TestResource}
