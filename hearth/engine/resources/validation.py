"""Validate one resource definition of a template before anything is created.

This is what the template's ``resource_validator`` hook calls for each
resource: the type must exist (with a "did you mean") and be usable, and the
properties must be known, assigned, well typed and within their
constraints.  Every error is a StackValidationFailed located at
``resources.<name>...`` with the template line of the innermost value.
Deprecated types and properties do not fail: they are returned as warnings.
"""

from __future__ import annotations

import logging
import time
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.common import exception
from hearth.engine import properties, support
from hearth.engine.registry.types import ResourceRegistry, deprecation_warning
from hearth.engine.template.located import line_of

LOG = logging.getLogger(__name__)

RESOURCES = "resources"


@dataclass
class ResourceValidation:
    """What validating one definition found: its class and any warnings."""

    resource_class: type
    warnings: list[str] = field(default_factory=list)


def validate_resource_definition(defn: Any, registry: ResourceRegistry, env: Any,
                                 stack_view: Any, allow_hidden: bool = False
                                 ) -> ResourceValidation:
    """Validate ``defn`` (a ResourceDefinition); raise a located StackValidationFailed.

    ``allow_hidden`` lets an existing stack keep a type that is now hidden.
    """
    try:
        resource_class = registry.get_class(defn.type, env, resource_name=defn.name,
                                            allow_hidden=allow_hidden)
    except (exception.ResourceTypeNotFound, exception.ResourceTypeUnavailable) as exc:
        raise exception.StackValidationFailed(
            str(exc), path=[RESOURCES, defn.name, "type"],
            line=line_of(getattr(defn, "raw", None), "type") or defn.line) from exc
    resource = resource_class(defn.name, defn, stack_view)
    try:
        resource.validate()
    except exception.StackValidationFailed as exc:
        raise exc.prefixed(RESOURCES, line=defn.line) from None
    warnings = [w for w in (deprecation_warning(defn.type, resource_class),) if w]
    warnings += deprecated_properties(defn.name, resource_class.properties_schema,
                                      getattr(defn, "properties", None) or {})
    for warning in warnings:
        LOG.warning("%s", warning)
    return ResourceValidation(resource_class, warnings)


def definition_checker(registry: ResourceRegistry, env: Any) -> Callable[[Any], Any]:
    """Return the template's ``resource_validator``: one definition against ``registry``.

    Validation runs before any stack exists, so the stack view a plug-in's
    ``validate()`` sees has no name, id, context or store.
    """
    view = types.SimpleNamespace(name="", id=None, context=None, store=None, env=env,
                                 clock=time.monotonic)
    return lambda definition: validate_resource_definition(definition, registry, env, view)


def deprecated_properties(resource_name: str, schema: Mapping[str, properties.Schema],
                          data: Mapping[str, Any]) -> list[str]:
    """Return a warning for every DEPRECATED property the template sets."""
    warnings = []
    for key in data:
        prop = schema.get(key)
        if prop is not None and prop.support_status.status == support.DEPRECATED:
            message = f" {prop.support_status.message}" if prop.support_status.message else ""
            warnings.append(f"{RESOURCES}.{resource_name}.properties.{key}: "
                            f"Property {key} is DEPRECATED.{message}")
    return warnings
