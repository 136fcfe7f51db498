"""OS::Heat::AutoScalingGroup: a nested stack of N like members, resized by signals."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, support
from hearth.engine.nested.stack_resource import MEMBER_PREFIX, StackResource
from hearth.engine.scaling import capacity, members, rolling_update
from hearth.engine.states import COMPLETE, DELETE, FAILED, IN_PROGRESS, UPDATE
from hearth.plugins._scaling import CooldownMixin

LOG = logging.getLogger(__name__)


class AutoScalingGroup(CooldownMixin, StackResource):
    """An autoscaling group that can scale arbitrary resources.

    The group is a nested stack of ``desired_capacity`` (else ``min_size``)
    members, each the HOT resource definition of the ``resource`` property,
    named with random short ids as in Heat.  It is resized by a stack update
    of ``desired_capacity``/``min_size``/``max_size`` and by the signals of
    ``OS::Heat::ScalingPolicy`` resources (see :meth:`adjust`), always within
    ``min_size`` and ``max_size``; the oldest members (failed ones first)
    are removed first.  A change of ``resource`` replaces the members'
    definitions a batch at a time as ``rolling_updates`` says.  After each
    resize no signal is acted on for ``cooldown`` seconds (kept in the
    group's metadata, as Heat does).
    """

    support_status = support.SupportStatus(version="2014.1")

    PROPERTIES = (RESOURCE, MAX_SIZE, MIN_SIZE, COOLDOWN, DESIRED_CAPACITY,
                  ROLLING_UPDATES) = (
        "resource", "max_size", "min_size", "cooldown", "desired_capacity", "rolling_updates")
    ROLLING_UPDATES_KEYS = (MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME) = (
        "min_in_service", "max_batch_size", "pause_time")
    ATTRIBUTES = (OUTPUTS, OUTPUTS_LIST, CURRENT_SIZE, REFS, REFS_MAP) = (
        "outputs", "outputs_list", "current_size", "refs", "refs_map")

    properties_schema = {
        RESOURCE: properties.Schema(
            properties.Schema.MAP,
            "Resource definition for the resources in the group, in HOT format. The value "
            "of this property is the definition of a resource just as if it had been "
            "declared in the template itself.",
            required=True, update_allowed=True),
        MAX_SIZE: properties.Schema(
            properties.Schema.INTEGER, "Maximum number of resources in the group.",
            required=True, update_allowed=True, constraints=[constraints.Range(min=0)]),
        MIN_SIZE: properties.Schema(
            properties.Schema.INTEGER, "Minimum number of resources in the group.",
            required=True, update_allowed=True, constraints=[constraints.Range(min=0)]),
        COOLDOWN: properties.Schema(
            properties.Schema.INTEGER, "Cooldown period, in seconds.", update_allowed=True),
        DESIRED_CAPACITY: properties.Schema(
            properties.Schema.INTEGER, "Desired initial number of resources.",
            update_allowed=True),
        ROLLING_UPDATES: properties.Schema(
            properties.Schema.MAP, "Policy for rolling updates for this scaling group.",
            update_allowed=True,
            schema={
                MIN_IN_SERVICE: properties.Schema(
                    properties.Schema.INTEGER,
                    "The minimum number of resources in service while rolling updates are "
                    "being executed.",
                    constraints=[constraints.Range(min=0)], default=0),
                MAX_BATCH_SIZE: properties.Schema(
                    properties.Schema.INTEGER,
                    "The maximum number of resources to replace at once.",
                    constraints=[constraints.Range(min=1)], default=1),
                PAUSE_TIME: properties.Schema(
                    properties.Schema.NUMBER,
                    "The number of seconds to wait between batches of updates.",
                    constraints=[constraints.Range(min=0)], default=0),
            },
            default={MIN_IN_SERVICE: 0, MAX_BATCH_SIZE: 1, PAUSE_TIME: 0}),
    }

    attributes_schema = {
        OUTPUTS: attributes.Schema(
            "A map of resource names to the specified attribute of each individual "
            "resource that is part of the AutoScalingGroup. This map specifies output "
            "parameters that are available once the AutoScalingGroup has been instantiated.",
            type=attributes.Schema.MAP, support_status=support.SupportStatus(version="2014.2")),
        OUTPUTS_LIST: attributes.Schema(
            "A list of the specified attribute of each individual resource that is part of "
            "the AutoScalingGroup. This list of attributes is available as an output once "
            "the AutoScalingGroup has been instantiated.",
            type=attributes.Schema.LIST,
            support_status=support.SupportStatus(version="2014.2")),
        CURRENT_SIZE: attributes.Schema(
            "The current size of AutoscalingResourceGroup.",
            type=attributes.Schema.INTEGER,
            support_status=support.SupportStatus(version="2015.1")),
        REFS: attributes.Schema(
            "A list of resource IDs for the resources in the group.",
            type=attributes.Schema.LIST, support_status=support.SupportStatus(version="7.0.0")),
        REFS_MAP: attributes.Schema(
            "A map of resource names to IDs for the resources in the group.",
            type=attributes.Schema.MAP, support_status=support.SupportStatus(version="7.0.0")),
    }

    # --- validation -------------------------------------------------------------
    def validate(self) -> None:
        """Validate the properties and the sizes (Heat's messages), then the members."""
        props = self.properties
        props.validate()
        low, high, desired = (props[self.MIN_SIZE], props[self.MAX_SIZE],
                              props[self.DESIRED_CAPACITY])
        where = [self.name, "properties"]
        if isinstance(low, int) and isinstance(high, int) and high < low:
            raise exception.StackValidationFailed("MinSize can not be greater than MaxSize",
                                                  path=where)
        if isinstance(low, int) and low < 0:
            raise exception.StackValidationFailed(
                "The size of AutoScalingGroup can not be less than zero", path=where)
        if (isinstance(desired, int) and isinstance(low, int) and isinstance(high, int)
                and not low <= desired <= high):
            raise exception.StackValidationFailed(
                "DesiredCapacity must be between MinSize and MaxSize", path=where)
        super().validate()

    # --- the members --------------------------------------------------------------
    def member_definition(self) -> members.Definition:
        """Return the members' definition (the ``resource`` property)."""
        return members.member_definition(self.properties[self.RESOURCE] or {})

    def members(self, include_failed: bool = False) -> list[Any]:
        """Return the member resources, failed ones first, then the oldest first."""
        nested = self.nested()
        if nested is None:
            return []
        found = [member for member in nested.resources.values()
                 if member.db_id is not None
                 and (include_failed or member.status != FAILED)]
        return sorted(found, key=lambda member: members.member_order_key(
            member.status, member.db_id, member.name))

    def current_size(self, include_failed: bool = False) -> int:
        """Return how many members the group has (failed ones left out by default)."""
        return len(self.members(include_failed))

    def member_template(self, count: int, num_new: int = 0) -> dict[str, Any]:
        """Return the nested template of ``count`` members, ``num_new`` with the new definition.

        Existing members keep their stored definition unless chosen for the
        new one (:func:`hearth.engine.scaling.members.member_definitions`).
        """
        nested = self.nested()
        stored = nested.template.section("resources") if nested is not None else {}
        old = [(member.name, members.member_definition(dict(stored[member.name])))
               for member in self.members(include_failed=True) if member.name in stored]
        shape = members.member_definitions(old, self.member_definition(), count, num_new)
        return members.nested_template(shape)

    def initial_size(self) -> int:
        """Return the size at create: ``desired_capacity``, else ``min_size``."""
        return int(self.properties[self.DESIRED_CAPACITY] or self.properties[self.MIN_SIZE] or 0)

    def child_template(self) -> dict[str, Any]:
        """Return the nested template of the group at its initial size."""
        return self.member_template(self.initial_size())

    # --- create -------------------------------------------------------------------------
    def handle_create(self) -> None:
        """Create the nested stack of the initial members."""
        self.create_with_template(self.child_template())

    def check_create_complete(self, cookie: Any) -> bool:
        """Poll the nested create; at its end start the cooldown (as Heat)."""
        done = super().check_create_complete(cookie)
        if done:
            self._finished_scaling(self.properties[self.COOLDOWN],
                                f"{capacity.CFN_EXACT_CAPACITY} : {self.current_size()}")
        return done

    # --- update -------------------------------------------------------------------------
    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> Iterator[Any]:
        """Start the update: a rolling replacement if ``resource`` changed, then the resize."""
        self.t, self.properties = json_snippet, self.make_properties(json_snippet)
        return self._update_steps(self.RESOURCE in prop_diff)

    def check_update_complete(self, steps: Iterator[Any]) -> Any:
        """Step the update (a number asks to be polled no sooner than that many seconds)."""
        return self._step(steps)

    @staticmethod
    def _step(steps: Iterator[Any]) -> Any:
        step = next(steps, StopIteration)
        if step is StopIteration:
            return True
        return step if isinstance(step, (int, float)) and not isinstance(step, bool) else False

    def handle_update_cancel(self, cookie: Any = None) -> None:
        """Cancel the nested update and end the update's steps (its scaling mark is cleared)."""
        super().handle_update_cancel(cookie)
        if hasattr(cookie, "close"):
            cookie.close()

    def _update_steps(self, replace_members: bool) -> Iterator[Any]:
        """Resize (and roll) under the group's scaling mark; record the end, then the cooldown.

        The mark keeps a signal's resize and an update from acting on the
        nested stack at once: the update waits for a running resize.
        """
        yield from self._begin_scaling()
        resized = False
        try:
            if replace_members:
                yield from self._rolling_steps()
            current = self.current_size()
            wanted = self.properties[self.DESIRED_CAPACITY] or current
            yield from self._nested_update(self.member_template(self._bounded(current, wanted)))
            resized = True
        finally:
            self._finished_scaling(self.properties[self.COOLDOWN],
                                f"{capacity.CFN_EXACT_CAPACITY} : {self.current_size()}",
                                resized)

    def _rolling_steps(self) -> Iterator[Any]:
        """Give every member the new definition a batch at a time (``rolling_updates``)."""
        policy = self.properties[self.ROLLING_UPDATES] or {}
        size = self.current_size(include_failed=True)
        target = min(self.properties[self.DESIRED_CAPACITY] or size, size)
        batches = list(rolling_update.batches(target, size, policy.get(self.MAX_BATCH_SIZE, 1),
                                              policy.get(self.MIN_IN_SERVICE, 0)))
        pause = float(policy.get(self.PAUSE_TIME) or 0)
        rolling_update.check_pauses_fit(len(batches), pause, self._timeout_secs())
        for index, batch in enumerate(batches):
            yield from self._nested_update(self.member_template(batch.capacity, batch.num_new))
            if pause and index < len(batches) - 1:
                yield from self._pause(pause)

    def _pause(self, seconds: float) -> Iterator[float]:
        clock = self.stack.clock
        end = clock() + seconds
        while clock() < end:
            yield end - clock()

    def _nested_update(self, template: dict[str, Any]) -> Iterator[None]:
        action = self.update_with_template(template)
        while not self.check_nested_complete(action or UPDATE):
            yield None
        self._nested = None  # read the members and their template afresh from now on

    def _bounded(self, current: int, wanted: int) -> int:
        return capacity.new_capacity(current, wanted, capacity.EXACT_CAPACITY, None,
                                     self.properties[self.MIN_SIZE],
                                     self.properties[self.MAX_SIZE])

    # --- delete -------------------------------------------------------------------------
    def handle_delete(self) -> Iterator[Any]:
        """Delete the nested stack once no signal's resize runs on it."""
        return self._delete_steps()

    def check_delete_complete(self, steps: Iterator[Any]) -> Any:
        """Step the delete."""
        return self._step(steps)

    def handle_delete_continue(self) -> Iterator[Any]:
        """Continue the nested stack's delete another engine began (or start it)."""
        cookie = super().handle_delete_continue()
        return cookie if not isinstance(cookie, str) else self._nested_steps(DELETE)

    def _nested_steps(self, action: str) -> Iterator[Any]:
        while not self.check_nested_complete(action):
            yield None

    def _delete_steps(self) -> Iterator[Any]:
        yield from self._begin_scaling()
        self.delete_nested()
        while not self.check_nested_complete(DELETE):
            yield None

    # --- scaling by signals ---------------------------------------------------------
    def adjust(self, adjustment: float, adjustment_type: str = capacity.CHANGE_IN_CAPACITY,
               min_adjustment_step: int | None = None, cooldown_secs: float | None = None
               ) -> None:
        """Resize the group by a scaling policy's adjustment, if its state and cooldown allow.

        Refused with ActionInProgress while the stack is acting (an update
        of the stack would race the resize).  Raises NoActionRequired (the
        signal is ignored, as in Heat) when the group is not COMPLETE, when
        the size would not change, while another scaling runs or inside the
        cooldown.  The resize runs to its end here.
        """
        if getattr(self.stack, "status", COMPLETE) == IN_PROGRESS:
            raise exception.ActionInProgress(stack_name=self.stack.name, action=self.stack.action)
        if self.status != COMPLETE:
            LOG.info("%s NOT performing scaling adjustment, when status is not COMPLETE",
                     self.name)
            raise exception.NoActionRequired()
        current = self.current_size()
        new_size = capacity.new_capacity(current, adjustment, adjustment_type,
                                         min_adjustment_step, self.properties[self.MIN_SIZE],
                                         self.properties[self.MAX_SIZE])
        if new_size == current:
            LOG.info("%s NOT performing scaling adjustment, as there is no change in capacity.",
                     self.name)
            raise exception.NoActionRequired()
        if cooldown_secs is None:
            cooldown_secs = self.properties[self.COOLDOWN]
        self._check_scaling_allowed(cooldown_secs)
        resized = False
        try:
            self.resize(new_size)
            resized = True
        finally:
            self._finished_scaling(cooldown_secs, f"{adjustment_type} : {adjustment}", resized)

    def resize(self, new_size: int) -> None:
        """Update the nested stack to ``new_size`` members and wait for the end (green)."""
        LOG.info("%s: resizing from %s to %s members", self.name, self.current_size(), new_size)
        self.child_stacks().run_to_end(self._nested_update(self.member_template(new_size)))

    # --- attributes ---------------------------------------------------------------------
    def FnGetAtt(self, name: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """Return an attribute; ``outputs``/``outputs_list`` read ``path`` of every member.

        ``resource.<i>`` and ``resource.<i>.<attr>`` read the ``i``-th member
        in the group's order (oldest first), as Heat's scaling groups do.
        """
        if name.startswith(MEMBER_PREFIX):
            parts = [*name.split(".", 2)[1:], *path]
            member = self._member_at(str(parts[0]))
            return member.FnGetAtt(*parts[1:]) if len(parts) > 1 else member.FnGetRefId()
        if name in (self.OUTPUTS, self.OUTPUTS_LIST):
            if not path:
                raise exception.InvalidTemplateAttribute.named(self.name, name)
            values = [(member.name, member.FnGetAtt(*path)) for member in self.members()]
            if name == self.OUTPUTS:
                return dict(values)
            return [value for _, value in values]
        return super().FnGetAtt(name, *path)

    def _member_at(self, index: str) -> Any:
        try:
            return self.members()[int(index)]
        except (ValueError, IndexError):
            raise exception.NotFound(
                message=f"Member '{index}' not found in group resource '{self.name}'."
            ) from None

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.CURRENT_SIZE:
            return self.current_size()
        if name == self.REFS:
            return [member.FnGetRefId() for member in self.members()]
        if name == self.REFS_MAP:
            return {member.name: member.FnGetRefId() for member in self.members()}
        return super()._resolve_attribute(name)


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::AutoScalingGroup": AutoScalingGroup}
