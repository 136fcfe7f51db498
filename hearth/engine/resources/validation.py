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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.located import line_of
from hearth.engine import properties, support
from hearth.engine.registry.facade import check_facade
from hearth.engine.registry.types import TypeRegistry, deprecation_warning
from hearth.engine.resources.stack_view import StackView
from hearth.engine.resources.store import InMemoryResourceStore, ResourceStore

if TYPE_CHECKING:
    from hearth.engine.template.context import ResolutionContext
    from hearth.jobservice.caller_jobs import CallerJobs

LOG = logging.getLogger(__name__)

RESOURCES = "resources"


@dataclass
class ValidationView:
    """The :class:`~hearth.engine.resources.stack_view.StackView` a plug-in's ``validate()`` sees.

    Validation runs before any stack exists: no id and no resolution
    context; a store that keeps nothing beyond the validation; no jobs.
    ``nested_depth`` lets nested stacks validate their own templates.
    """

    name: str
    env: Any
    registry: TypeRegistry
    files: Mapping[str, str]
    nested_depth: int = 0
    id: str | None = None
    context: ResolutionContext | None = None
    store: ResourceStore = field(default_factory=InMemoryResourceStore)
    clock: Callable[[], float] = time.monotonic
    jobs: CallerJobs | None = None

    def secrets(self) -> list[str]:
        """Return no value: nothing is resolved or shown while a template is validated."""
        return []

    def start_thread(self, fn: Callable[..., Any], *args: Any) -> None:
        """Refuse: nothing runs while a template is validated."""
        raise exception.NotSupported(feature="running work while a template is validated")


@dataclass
class ResourceValidation:
    """What validating one definition found: its class and any warnings."""

    resource_class: type
    warnings: list[str] = field(default_factory=list)


def validate_resource_definition(defn: Any, registry: TypeRegistry, env: Any,
                                 stack_view: StackView, allow_hidden: bool = False
                                 ) -> ResourceValidation:
    """Validate ``defn`` (a ResourceDefinition); raise a located StackValidationFailed.

    ``allow_hidden`` lets an existing stack keep a type that is now hidden;
    provider templates are read from the view's ``files``.
    """
    try:
        resource_class = registry.get_class(defn.type, env, resource_name=defn.name,
                                            allow_hidden=allow_hidden,
                                            files=stack_view.files)
    except (exception.ResourceTypeNotFound, exception.ResourceTypeUnavailable) as exc:
        raise exception.StackValidationFailed(
            str(exc), path=_spelled(defn, [RESOURCES, defn.name, "type"]),
            line=line_of(getattr(defn, "raw", None), _key(defn, "type")) or defn.line) from exc
    check_facade(registry, defn.type, defn.name, env, stack_view.files)
    resource = resource_class(defn.name, defn, stack_view)
    try:
        resource.validate()
    except exception.StackValidationFailed as exc:
        if tuple(exc.path[:2]) == (_key(defn, RESOURCES), defn.name):
            raise exc.located(None, line=defn.line) from None  # a function's: already absolute
        error = exc.prefixed(RESOURCES, line=defn.line)
        raise error.at_path(_spelled(defn, error.path)) from None
    warnings = [w for w in (deprecation_warning(defn.type, resource_class),) if w]
    warnings += deprecated_properties(defn.name, resource.properties_schema,
                                      getattr(defn, "properties", None) or {})
    for warning in warnings:
        LOG.warning("%s", warning)
    return ResourceValidation(resource_class, warnings)


class DefinitionChecker:
    """The template's ``resource_validator``: definitions checked against a plug-in registry.

    Calling it validates one definition (type, then properties);
    :meth:`resource_class` tells the resolution context which class a
    resource has, so that ``get_attr`` names are checked against its
    attributes.  Validation runs before any stack exists, so the stack view
    a plug-in's ``validate()`` sees (a :class:`ValidationView`) has no id or
    context, and a store that keeps nothing: only the stack's ``name``,
    ``env``, ``files`` (provider templates), ``registry`` and
    ``nested_depth`` (nested stacks validate their own templates).
    """

    def __init__(self, registry: TypeRegistry, env: Any,
                 files: Mapping[str, str] | None = None, nested_depth: int = 0,
                 stack_name: str = "") -> None:
        self.registry = registry
        self.env = env
        self.files = dict(files or {})
        self.view = ValidationView(stack_name, env, registry, self.files, nested_depth)

    def __call__(self, definition: Any) -> ResourceValidation:
        """Validate one definition; raise a located StackValidationFailed."""
        return validate_resource_definition(definition, self.registry, self.env, self.view)

    def resource_class(self, type_name: Any, resource_name: str) -> type | None:
        """Return the plug-in class of a type, None when unknown (reported where it is named)."""
        if not isinstance(type_name, str):
            return None
        check_facade(self.registry, type_name, resource_name, self.env, self.files)
        try:
            return self.registry.get_class(type_name, self.env, resource_name=resource_name,
                                           allow_hidden=True, files=self.files)
        except exception.HearthException:
            return None


def _key(definition: Any, name: str) -> str:
    """Return how ``definition``'s template writes key ``name`` (a HOT name)."""
    key = getattr(definition, "key", None)
    return key(name) if key is not None else name


def _spelled(definition: Any, path: list[Any]) -> list[Any]:
    """Return ``path`` (from the template root) spelled as ``definition``'s template writes it."""
    spell = getattr(definition, "spelled_path", None)
    return spell(path) if spell is not None else path


def definition_checker(registry: TypeRegistry, env: Any,
                       files: Mapping[str, str] | None = None) -> DefinitionChecker:
    """Return the template's ``resource_validator`` for ``registry``, ``env`` and ``files``."""
    return DefinitionChecker(registry, env, files)


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
