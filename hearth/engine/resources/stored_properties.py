"""The properties a resource's last action was given: what an update compares against.

As Heat's ``properties_data``: when a create or an adopt starts, and when an
in-place update ends, the resource's properties are resolved and kept
(:func:`keep`); the stack writes them with the resource's next state change,
in the same group-committed write (the ``properties_data`` column).  An
update compares its new definition, resolved, with these values
(:meth:`hearth.engine.resource.Resource.frozen_definition`), so a property
reading another resource (``get_attr``, ``get_resource`` of a replaced
resource, a ``Hearth::Pillar::Data`` value, a nested stack's output) makes the
resource update, or be replaced, when only what it reads changed.  Events
show them, as Heat's events do (:func:`event_view`): an update's
IN_PROGRESS shows the values it starts from, its COMPLETE the new ones.

The stored values are the real ones: the comparison must see a hidden
parameter change.  So that they never show, the places holding a secret
when they were stored (a hidden parameter, a value a resource keeps
secret) are stored beside them (``hidden``) and masked in every event,
even once the secret itself has changed.  Nothing but the engine reads the
column: no API answer, export or snapshot includes it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common.secret_mask import SECRET_MASK
from hearth.engine.resources.shown import event_properties, event_secrets, mask
from hearth.engine.template import function

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView

LOG = logging.getLogger(__name__)

#: one place in a properties map: its keys and list indexes from the top
Path = list[Any]


@dataclasses.dataclass(slots=True)
class StoredProperties:
    """Resolved property values, and the paths of those that held a secret when stored."""

    values: dict[str, Any]
    hidden: list[Path] = dataclasses.field(default_factory=list)

    def to_column(self) -> dict[str, Any]:
        """Return the ``properties_data`` column's JSON value."""
        column: dict[str, Any] = {"values": self.values}
        if self.hidden:
            column["hidden"] = self.hidden
        return column

    @classmethod
    def from_column(cls, column: Any) -> StoredProperties | None:
        """Return the stored properties of a column value (None: none were stored)."""
        if not isinstance(column, Mapping) or not isinstance(column.get("values"), Mapping):
            return None
        return cls(dict(column["values"]), [list(path) for path in column.get("hidden") or ()])

    def shown(self, secrets: Iterable[str]) -> dict[str, Any]:
        """Return the values as events show them: hidden places and ``secrets`` masked."""
        values = self.values
        if self.hidden:
            values = copy.deepcopy(values)
            for path in self.hidden:
                _set_hidden(values, path)
        shown: dict[str, Any] = mask(values, secrets)
        return shown


def _current(resource: ResourceView) -> dict[str, Any]:
    """Return the data of the resource's properties resolved (a type reading none stores {})."""
    properties = getattr(resource, "properties", None)
    data = properties.data if properties is not None else getattr(resource.t, "properties", None)
    resolved: dict[str, Any] = function.resolve(dict(data or {}))
    return resolved


def comparable(values: Any) -> Any:
    """Return ``values`` as the column gives them back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(values, default=str))


def keep(resource: ResourceView) -> None:
    """Resolve and keep the resource's properties; its next state change writes them.

    The places holding a value that must never show (a hidden parameter of
    its stack, a value one of its resources keeps secret, a signal token)
    are kept with them.  Properties that cannot be resolved are not kept
    (the action fails on them, saying why).
    """
    try:
        values = comparable(_current(resource))
    except Exception:  # noqa: BLE001 - the action fails on it, with its reason
        LOG.debug("resource %s: properties not resolved, not stored", resource.name,
                  exc_info=True)
        return
    stack = resource.stack
    secrets = [*stack.secrets(), *event_secrets(resource)]
    masked = mask(values, secrets)
    hidden = [] if masked is values else list(_hidden_paths(values, masked))
    resource.stored_properties = StoredProperties(values, hidden)
    resource.properties_unwritten = True


def take_unwritten(resource: ResourceView) -> dict[str, Any] | None:
    """Return the column value to write with the resource's state change, if kept since."""
    if not resource.properties_unwritten:
        return None
    resource.properties_unwritten = False
    column: dict[str, Any] = resource.stored_properties.to_column()
    return column


def event_view(resource: ResourceView, secrets: Iterable[str]) -> dict[str, Any]:
    """Return the properties an event of ``resource`` shows, every secret masked.

    The stored values (as Heat's events); a resource that has none yet (its
    first action has not started, or an engine before this one made it)
    shows its definition's, resolved now
    (:func:`hearth.engine.resources.shown.event_properties`).
    """
    stored: StoredProperties | None = resource.stored_properties
    if stored is None:
        return event_properties(resource, secrets)
    return stored.shown([*secrets, *event_secrets(resource)])


def _hidden_paths(values: Any, masked: Any, path: Path | None = None) -> Iterator[Path]:
    """Yield the paths where ``masked`` hides what ``values`` holds."""
    path = path or []
    if masked == SECRET_MASK and values != SECRET_MASK:
        yield path
    elif isinstance(values, Mapping) and isinstance(masked, Mapping):
        for key, value in values.items():
            yield from _hidden_paths(value, masked.get(key), [*path, key])
    elif isinstance(values, (list, tuple)) and isinstance(masked, list):
        for index, (value, shown) in enumerate(zip(values, masked, strict=False)):
            yield from _hidden_paths(value, shown, [*path, index])


def _set_hidden(values: Any, path: Path) -> None:
    """Replace the value at ``path`` of ``values`` with the secret mask (if it is there)."""
    if not path:
        return
    container = values
    for step in path[:-1]:
        try:
            container = container[step]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    found = (last in container if isinstance(container, dict)
             else isinstance(container, list) and isinstance(last, int)
             and 0 <= last < len(container))
    if found:
        container[last] = SECRET_MASK
