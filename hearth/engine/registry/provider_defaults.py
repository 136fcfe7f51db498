"""A provider template's properties, relaxed by the environment's ``parameter_defaults``.

A provider template parameter without a default is a required property of
the resource using the template.  As in Heat, a value for it under the
environment's ``parameter_defaults`` counts as its default: the property is
no longer required, and the nested stack (whose environment carries the
parent's ``parameter_defaults``, see :mod:`hearth.engine.nested.environment`)
gets the value from there.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from typing import Any

from hearth.engine.registry.plugin_class import PluginClass


def with_parameter_defaults(resource_class: type, env: Any) -> type:
    """Return ``resource_class``, or a subclass whose properties ``env`` gives defaults.

    Only required properties named in ``env.param_defaults`` change; without
    any, the class itself is returned.
    """
    defaults = getattr(env, "param_defaults", None)
    schemas = getattr(resource_class, "properties_schema", None)
    if not isinstance(defaults, Mapping) or not defaults or not isinstance(schemas, Mapping):
        return resource_class
    names = tuple(sorted(name for name in defaults
                         if name in schemas and getattr(schemas[name], "required", False)))
    if not names:
        return resource_class
    return _relaxed(resource_class, names)


@functools.lru_cache(maxsize=256)
def _relaxed(resource_class: type[PluginClass], names: tuple[str, ...]) -> type:
    schemas = dict(resource_class.properties_schema)
    for name in names:
        schemas[name] = copy.copy(schemas[name])
        schemas[name].required = False
    return type(resource_class.__name__, (resource_class,), {
        "__doc__": resource_class.__doc__, "properties_schema": schemas})
