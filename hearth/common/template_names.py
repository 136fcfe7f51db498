"""Which type names are provider templates: one rule for the client and the engine.

A resource type, or a ``resource_registry`` value, names a provider
template when it ends in ``.yaml`` or ``.template``, as in Heat: heatclient
gathers exactly those files into the files map and Heat's engine takes
exactly those for templates.  Any other name (``server.yml``, a URL
without one of the suffixes) is an ordinary type name, looked up among the
plug-ins and reported as an unknown type when none has it.
"""

from __future__ import annotations

TEMPLATE_SUFFIXES = (".yaml", ".template")


def is_template(name: object) -> bool:
    """Return whether ``name`` (a type name or registry value) names a provider template."""
    return isinstance(name, str) and name.endswith(TEMPLATE_SUFFIXES)
