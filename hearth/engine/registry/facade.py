"""Heat's facade checks: a provider template standing for a type keeps the type's interface.

The environment's ``resource_registry`` may map a type, for one resource
only, to a provider template other than the one the type has otherwise
(the facade).  That template must keep the facade's interface: every
required property, with the same type, and every attribute.
:func:`check_facade` raises the first failure with Heat's text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common import exception
from hearth.common.template_names import is_template
from hearth.engine import attributes, properties
from hearth.engine.registry.plugin_class import PluginClass


def _param_type(prop_type: str) -> str:
    """Return the property type a template parameter gives for a property of ``prop_type``."""
    return properties.NUMBER if prop_type == properties.INTEGER else prop_type


def facade_errors(provider: type[PluginClass], facade: type[PluginClass],
                  type_name: str) -> list[str]:
    """Return Heat's facade check failures of ``provider`` against ``facade`` (Heat's texts).

    A type the environment maps, for one resource, to a provider template
    keeps the interface of the type it has otherwise (the facade): every
    required property, with the same type, and every attribute.
    """
    given, wanted = provider.properties_schema, facade.properties_schema
    errors = []
    for name, schema in wanted.items():
        if schema.required and name not in given:
            errors.append(f"Required property {name} for facade {type_name} missing in provider")
        elif name in given and _param_type(schema.type) != given[name].type:
            errors.append(f"Property {name} type mismatch between facade {type_name} "
                          f"({schema.type}) and provider ({given[name].type})")
    errors += [f"Provider requires property {name} unknown in facade {type_name}"
               for name, schema in given.items() if schema.required and name not in wanted]
    errors += [f"Attribute {name} for facade {type_name} missing in provider"
               for name in facade.attributes_schema
               if name not in provider.attributes_schema
               and name not in attributes.BASE_ATTRIBUTES]
    return errors


def check_facade(registry: Any, type_name: Any, resource_name: str, env: Any,
                 files: Mapping[str, str] | None) -> None:
    """Raise StackValidationFailed when a resource's own provider template breaks its facade.

    Checked when the environment maps ``type_name`` for ``resource_name`` to a
    template other than the one the type has otherwise (the facade).
    """
    overrides = getattr(getattr(env, "registry", None), "resolve_type", None)
    if not isinstance(type_name, str) or overrides is None or is_template(type_name):
        return
    own, general = overrides(type_name, resource_name=resource_name), overrides(type_name)
    if not is_template(str(getattr(own, "url", own))) or \
            str(getattr(own, "url", own)) == str(getattr(general, "url", general)):
        return
    try:
        provider = registry.get_class(type_name, env, resource_name=resource_name,
                                      allow_hidden=True, files=files)
        facade = registry.get_class(type_name, env, allow_hidden=True, files=files)
    except exception.HearthException:
        return  # an unknown facade, or an unreadable template: reported where it is named
    errors = facade_errors(provider, facade, type_name)
    if errors:
        raise exception.StackValidationFailed(errors[0])
