"""The ``attributes`` map of Heat's resource-show: which attributes, resolved how.

As in Heat: when the type's ``show`` attribute resolves to a map, that map
is the answer (plus any ``with_attr`` names it lacks); otherwise every
attribute of the schema but ``show`` is resolved, plus the ``with_attr``
names.  An attribute that cannot be resolved shows as None.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.engine.attributes import SHOW_ATTR

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView


def _resolve(resource: ResourceView, name: str) -> Any:
    try:
        return resource.FnGetAtt(name)
    except Exception:  # noqa: BLE001 - an unresolvable attribute shows as None, as in Heat
        return None


def show_attributes(resource: ResourceView, with_attr: Iterable[str] | None = None
                    ) -> dict[str, Any]:
    """Return the resolved attributes resource-show lists for ``resource``."""
    extra = list(with_attr or [])
    resource.attributes.reset()
    shown = _resolve(resource, SHOW_ATTR)
    if isinstance(shown, Mapping):
        result = dict(shown)
        result.update({name: _resolve(resource, name) for name in extra if name not in shown})
        return result
    names = [name for name in resource.attributes.schema if name != SHOW_ATTR]
    names += [name for name in extra if name not in names]
    return {name: _resolve(resource, name) for name in names}
