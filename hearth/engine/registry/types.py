"""Turn a template's type name into the plug-in class that implements it.

The environment's ``resource_registry`` (aliases, wildcards, per-resource
overrides) is applied first, then the plug-in class map.  An unknown type
is :class:`~hearth.common.exception.ResourceTypeNotFound` with a "did you
mean"; a HIDDEN type is refused for new stacks (``allow_hidden`` lets
existing stacks keep using it); a DEPRECATED one logs a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from hearth.common import exception
from hearth.common.template_names import is_template
from hearth.engine import support
from hearth.engine.registry.plugin_class import PluginClass
from hearth.engine.registry.plugin_manager import PluginManager
from hearth.engine.registry.provider_defaults import with_parameter_defaults

LOG = logging.getLogger(__name__)

#: A provider-template reference resolved by the environment becomes a class
#: through this hook (the engine's template-resource factory): it is given the
#: reference and the stack's files map (where the client put the template).
TemplateClassFactory = Callable[[Any, Mapping[str, str]], type]


class TypeRegistry:
    """The final type-name → class lookup of one engine."""

    def __init__(self, manager: PluginManager,
                 template_class_factory: TemplateClassFactory | None = None) -> None:
        self.manager = manager
        self.template_class_factory = template_class_factory

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, type]) -> TypeRegistry:
        """Build a registry from one in-memory mapping (tests)."""
        return cls(PluginManager.from_mappings([("memory", mapping)]))

    @property
    def classes(self) -> dict[str, type[PluginClass]]:
        """Return every registered type name → class."""
        return self.manager.classes

    @property
    def failures(self) -> list[exception.HearthException]:
        """Return the plug-in load failures (for ``resource-type-list --all``)."""
        return self.manager.failures

    def resolve_name(self, type_name: str, env: Any = None,
                     resource_name: str | None = None) -> Any:
        """Return what ``type_name`` means after the environment's resource_registry."""
        registry = getattr(env, "registry", None)
        if registry is None:
            return type_name
        return registry.resolve_type(type_name, resource_name=resource_name)

    def get_class(self, type_name: str, env: Any = None, resource_name: str | None = None,
                  allow_hidden: bool = False, files: Mapping[str, str] | None = None) -> type:
        """Return the class implementing ``type_name`` (for ``resource_name``, if given).

        A provider template (a type naming a template file, or mapped to one
        by the environment) is read from ``files``, the stack's files map.
        """
        resolved = self.resolve_name(type_name, env, resource_name)
        if not isinstance(resolved, str) or resolved not in self.classes:
            if self.template_class_factory is not None and _names_template(resolved):
                return with_parameter_defaults(
                    self.template_class_factory(resolved, files or {}), env)
            candidates = list(self.classes)
            raise exception.ResourceTypeNotFound(
                type_name=str(type_name), hint=exception.did_you_mean(type_name, candidates))
        resource_class = self.classes[resolved]
        check_support(resolved, resource_class, allow_hidden)
        return resource_class


def _names_template(resolved: Any) -> bool:
    """Return whether a resolved type is a provider template.

    The environment resolves a template to a reference object; without an
    environment a type name is one by :func:`~hearth.common.template_names.is_template`.
    """
    return is_template(resolved) if isinstance(resolved, str) else resolved is not None


def check_support(type_name: str, resource_class: type, allow_hidden: bool = False) -> None:
    """Refuse a HIDDEN type for new stacks; warn about a DEPRECATED one."""
    status = getattr(resource_class, "support_status", None) or support.SupportStatus()
    if status.status == support.HIDDEN and not allow_hidden:
        raise exception.ResourceTypeUnavailable(
            message=f"Resource type {type_name} is hidden and may not be used in new "
                    f"stacks.{' ' + status.message if status.message else ''}")
    if status.status == support.DEPRECATED:
        LOG.warning("Resource type %s is deprecated%s", type_name,
                    f": {status.message}" if status.message else ".")


def deprecation_warning(type_name: str, resource_class: type) -> str | None:
    """Return the warning text for a deprecated type, or None."""
    status = getattr(resource_class, "support_status", None)
    if status is None or status.status != support.DEPRECATED:
        return None
    detail = f" {status.message}" if status.message else ""
    return f"{type_name} is DEPRECATED.{detail}"
