"""OS::Heat::Delay: a pause at a chosen point of a stack's actions."""

from __future__ import annotations

import random
from collections.abc import Callable

from hearth.engine import constraints, properties, resource, support
from hearth.plugins._waiting import Wait, rest_of_stored_wait, stored_wait

DELAYED_ACTIONS = (resource.CREATE, resource.DELETE, resource.SUSPEND, resource.RESUME)


def _seconds(description: str, default: float) -> properties.Schema:
    return properties.Schema(properties.Schema.NUMBER, description, update_allowed=True,
                             default=default, constraints=[constraints.Range(min=0)])


class Delay(resource.Resource):
    """A resource that pauses for a configurable delay.

    By placing it in the dependency graph, a delay can be inserted at any
    point of e.g. stack creation or deletion: it happens after the
    resources it depends on during CREATE or SUSPEND, and before them during
    DELETE or RESUME.  A random jitter, uniformly chosen between 0 and
    ``max_jitter * jitter_multiplier`` seconds, is added to ``min_wait``;
    this spreads out the members of a large group.  The wait never blocks
    the engine.
    """

    support_status = support.SupportStatus(version="11.0.0")

    PROPERTIES = (MIN_WAIT_SECS, MAX_JITTER, JITTER_MULTIPLIER_SECS, DELAY_ACTIONS) = (
        "min_wait", "max_jitter", "jitter_multiplier", "actions")

    properties_schema = {
        MIN_WAIT_SECS: _seconds(
            "Minimum time in seconds to wait during the specified actions.", 0),
        MAX_JITTER: _seconds("Maximum jitter to add to the minimum wait time.", 0),
        JITTER_MULTIPLIER_SECS: _seconds(
            "Number of seconds to multiply the maximum jitter value by.", 1.0),
        DELAY_ACTIONS: properties.Schema(
            properties.Schema.LIST, "Actions during which the delay will occur.",
            update_allowed=True, default=[resource.CREATE],
            constraints=[constraints.AllowedValues(list(DELAYED_ACTIONS))]),
    }

    #: the jitter source (a seam for tests).
    random: Callable[[], float] = staticmethod(random.random)

    def wait_seconds(self, action: str) -> float:
        """Return the (randomised) wait for ``action``; 0 when it is not delayed."""
        if action not in self.properties[self.DELAY_ACTIONS]:
            return 0
        jitter = self.properties[self.MAX_JITTER] * self.properties[self.JITTER_MULTIPLIER_SECS]
        return self.properties[self.MIN_WAIT_SECS] + jitter * self.random()

    def _start(self) -> Wait:
        return stored_wait(self, self.wait_seconds(self.action))

    def _continue(self) -> Wait:
        """Wait what is left of the delay another engine began (or the whole delay)."""
        return rest_of_stored_wait(self) or self._start()

    def _complete(self, wait: Wait) -> bool:
        return wait.done(self.stack)

    handle_create = handle_delete = handle_suspend = handle_resume = _start
    handle_create_continue = handle_delete_continue = _continue
    handle_suspend_continue = handle_resume_continue = _continue
    check_create_complete = check_delete_complete = _complete
    check_suspend_complete = check_resume_complete = _complete


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::Delay": Delay}
