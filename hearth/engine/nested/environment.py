"""A nested stack's environment, derived from its parent's (Heat's child environment).

The child keeps the parent's resource registry (type aliases and provider
templates apply all the way down), its ``parameter_defaults`` and event
sinks; its ``parameters`` are the values the parent resource gives.  The
per-resource overrides (``resources:``) the child sees are those the parent
environment keeps under the parent resource's name, or under a pattern
matching it: ``resources: {outer: {inner: {hooks: pre-create}}}`` puts a
hook on ``inner`` inside ``outer``'s nested stack.  A provider template
reached through a registry mapping drops that mapping in its own child, so a
template may implement a type by using the type's plug-in.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any

from hearth.engine.template.environment import (
    EVENT_SINKS,
    PARAMETER_DEFAULTS,
    PARAMETERS,
    RESOURCE_REGISTRY,
    Environment,
)


def child_overrides(resources: Mapping[str, Any], resource_name: str) -> dict[str, Any]:
    """Return the per-resource overrides a child of ``resource_name`` sees.

    Patterns matching the name first, the exact name last (it wins); only
    map values are resource overrides of the child.
    """
    merged: dict[str, Any] = {}
    names = [name for name in resources
             if name != resource_name and fnmatch.fnmatchcase(resource_name, name)]
    if resource_name in resources:
        names.append(resource_name)
    for name in names:
        section = resources[name]
        if isinstance(section, Mapping):
            merged.update({key: value for key, value in section.items()
                           if isinstance(value, Mapping)})
    return merged


def child_environment(parent_env: Environment | None, params: Mapping[str, Any] | None,
                      resource_name: str, removed_type: str | None = None) -> Environment:
    """Return the environment of ``resource_name``'s nested stack.

    ``removed_type`` is the registry mapping that led to a provider template
    (left out of its child, as Heat does).
    """
    parent = parent_env.to_dict() if parent_env is not None else {}
    registry = dict(parent.get(RESOURCE_REGISTRY) or {})
    resources = registry.pop("resources", None) or {}
    if removed_type is not None:
        registry.pop(removed_type, None)
    registry["resources"] = child_overrides(resources, resource_name)
    return Environment.from_dict({
        PARAMETERS: dict(params or {}),
        PARAMETER_DEFAULTS: dict(parent.get(PARAMETER_DEFAULTS) or {}),
        RESOURCE_REGISTRY: registry,
        EVENT_SINKS: list(parent.get(EVENT_SINKS) or []),
    })
