"""OS::Heat::ScalingPolicy: a signal that resizes an ``OS::Heat::AutoScalingGroup``."""

from __future__ import annotations

import logging
from typing import Any

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, resource, support
from hearth.engine.resources.signal_url import signal_url
from hearth.engine.scaling import capacity

LOG = logging.getLogger(__name__)


class ScalingPolicy(resource.Resource):
    """A resource to manage scaling of ``OS::Heat::AutoScalingGroup``.

    Each signal (``stackctl resource-signal STACK POLICY``, or a ``POST`` to
    its ``signal_url``) adjusts the group named by ``auto_scaling_group_id``
    by ``scaling_adjustment`` in the way ``adjustment_type`` says, within
    the group's ``min_size`` and ``max_size``, unless the group is in its
    cooldown (then the signal is ignored, as in Heat).  ``alarm_url`` is the
    same URL as ``signal_url``: Hearth has no EC2-style pre-signed URLs, so a
    signal always needs a valid token.
    """

    PROPERTIES = (AUTO_SCALING_GROUP_NAME, SCALING_ADJUSTMENT, ADJUSTMENT_TYPE, COOLDOWN,
                  MIN_ADJUSTMENT_STEP) = (
        "auto_scaling_group_id", "scaling_adjustment", "adjustment_type", "cooldown",
        "min_adjustment_step")
    ATTRIBUTES = (ALARM_URL, SIGNAL_URL) = ("alarm_url", "signal_url")

    properties_schema = {
        AUTO_SCALING_GROUP_NAME: properties.Schema(
            properties.Schema.STRING, "AutoScaling group ID to apply policy to.",
            required=True),
        SCALING_ADJUSTMENT: properties.Schema(
            properties.Schema.NUMBER, "Size of adjustment.",
            required=True, update_allowed=True),
        ADJUSTMENT_TYPE: properties.Schema(
            properties.Schema.STRING, "Type of adjustment (absolute or percentage).",
            required=True, update_allowed=True,
            constraints=[constraints.AllowedValues([capacity.CHANGE_IN_CAPACITY,
                                                    capacity.EXACT_CAPACITY,
                                                    capacity.PERCENT_CHANGE_IN_CAPACITY])]),
        COOLDOWN: properties.Schema(
            properties.Schema.NUMBER, "Cooldown period, in seconds.", update_allowed=True),
        MIN_ADJUSTMENT_STEP: properties.Schema(
            properties.Schema.INTEGER,
            "Minimum number of resources that are added or removed when the AutoScaling "
            "group scales up or down. This can be used only when specifying "
            "percent_change_in_capacity for the adjustment_type property.",
            constraints=[constraints.Range(min=0)], update_allowed=True),
    }

    attributes_schema = {
        ALARM_URL: attributes.Schema(
            "A url to handle the alarm (in Hearth the signal_url: there is no EC2 "
            "pre-signing, a signal needs a token).",
            type=attributes.Schema.STRING, cache_mode=attributes.Schema.CACHE_NONE),
        SIGNAL_URL: attributes.Schema(
            "A url to handle the alarm using native API.",
            type=attributes.Schema.STRING,
            support_status=support.SupportStatus(version="5.0.0")),
    }

    def validate(self) -> None:
        """Validate the properties; ``min_adjustment_step`` only goes with a percentage."""
        super().validate()
        adjustment_type = self.properties[self.ADJUSTMENT_TYPE]
        if (self.properties[self.MIN_ADJUSTMENT_STEP] is not None
                and isinstance(adjustment_type, str)
                and adjustment_type != capacity.PERCENT_CHANGE_IN_CAPACITY):
            raise exception.ResourcePropertyValueDependency(
                f"{self.MIN_ADJUSTMENT_STEP} property should only be specified for "
                f"{self.ADJUSTMENT_TYPE} with value {capacity.PERCENT_CHANGE_IN_CAPACITY}.",
                path=[self.name, "properties"])

    #: its handles change nothing outside Hearth's database (a signal's resize is no
    #: action of its own): an engine taking an action over runs them again
    acts_outside = False

    def handle_create(self) -> None:
        """Use the physical name as the resource id (Heat uses a stack user's id)."""
        self.resource_id_set(self.physical_resource_name())

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> None:
        """Take the new properties in place: the next signal uses them."""
        if prop_diff:
            self.properties = self.make_properties(json_snippet)

    def scaling_group(self) -> Any:
        """Return the group resource ``auto_scaling_group_id`` names in this stack."""
        group_id = self.properties[self.AUTO_SCALING_GROUP_NAME]
        for candidate in getattr(self.stack, "resources", {}).values():
            if callable(getattr(candidate, "adjust", None)) and (
                    candidate.FnGetRefId() == group_id):
                return candidate
        raise exception.NotFound(
            message=f'Alarm {self.name} could not find scaling group named "{group_id}"')

    def handle_signal(self, details: Any = None) -> None:
        """Adjust the group (see :meth:`AutoScalingGroup.adjust`) with this policy's values."""
        state = "alarm"
        if isinstance(details, dict):
            state = str(details.get("current", details.get("state", "alarm"))).lower()
        LOG.info("Alarm %s, new state %s", self.name, state)
        group = self.scaling_group()
        LOG.info("%s alarm, adjusting group %s with id %s by %s", self.name, group.name,
                 group.FnGetRefId(), self.properties[self.SCALING_ADJUSTMENT])
        group.adjust(self.properties[self.SCALING_ADJUSTMENT],
                     self.properties[self.ADJUSTMENT_TYPE],
                     self.properties[self.MIN_ADJUSTMENT_STEP],
                     self.properties[self.COOLDOWN])

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name in (self.ALARM_URL, self.SIGNAL_URL):
            return signal_url(self)
        return None


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::ScalingPolicy": ScalingPolicy}
