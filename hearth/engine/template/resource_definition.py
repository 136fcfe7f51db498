"""The record of one resource as the template defines it (after parsing).

A :class:`ResourceDefinition` holds the parsed snippets (with Function
objects) of one entry of the ``resources`` section, and its raw form for
storage, previews and update comparisons.  It knows nothing about resource
plug-ins.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from hearth.common.located import plain
from hearth.engine.template import function

#: The snippet fields whose functions may refer to other resources.
REFERENCE_FIELDS = ("properties", "metadata", "deletion_policy", "update_policy", "external_id")
#: The keys of a definition (HOT names) that its template spells its own way.
DEFINITION_KEYS = ("type", "properties", "metadata", "depends_on", "deletion_policy",
                   "update_policy", "external_id", "condition", "description")


@dataclasses.dataclass(slots=True, eq=False)
class ResourceDefinition:
    """One resource of a template: its type, parsed snippets and raw form.

    ``properties``/``metadata``/``update_policy`` are parsed snippets (they
    may hold Functions); ``depends_on`` the explicit dependencies; ``raw``
    the definition as written (used by :meth:`render_hot` and equality);
    ``line`` the line of the resource's name in the template; ``spelling``
    how its template writes the section and keys (HOT name -> its own, the
    version's: ``Properties`` in a CloudFormation-format template).
    """

    name: str
    type: str
    properties: Any = None
    metadata: Any = None
    depends_on: list[str] = dataclasses.field(default_factory=list)
    deletion_policy: Any = None
    update_policy: Any = None
    external_id: Any = None
    condition: Any = None
    description: str = ""
    line: int | None = None
    raw: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    spelling: dict[str, str] = dataclasses.field(default_factory=dict)

    def key(self, name: str) -> str:
        """Return how the template writes section or key ``name`` (a HOT name)."""
        return self.spelling.get(name, name)

    def raw_field(self, name: str) -> Any:
        """Return the raw value of key ``name`` (a HOT name) as written, None if absent."""
        return self.raw.get(self.key(name)) if isinstance(self.raw, dict) else None

    def spelled_path(self, path: list[Any]) -> list[Any]:
        """Return an error path from the template root spelled as the template writes it.

        ``path`` starts ``[resources, <name>, <key>, ...]`` in HOT names (a
        plug-in's ``[name, "properties", ...]`` prefixed by the validation);
        the section and this definition's key are spelled, nothing deeper.
        """
        spelled = list(path)
        if spelled and spelled[0] == "resources":
            spelled[0] = self.key("resources")
            if len(spelled) > 2 and spelled[2] in DEFINITION_KEYS:
                spelled[2] = self.key(spelled[2])
        return spelled

    def reference_dependencies(self) -> set[str]:
        """Return the resources named by get_resource/get_attr in this definition."""
        names: set[str] = set()
        for field in REFERENCE_FIELDS:
            names.update(function.dependencies(getattr(self, field)))
        return names

    def dependencies(self) -> set[str]:
        """Return every resource this one needs: explicit and by reference."""
        return set(self.depends_on) | self.reference_dependencies()

    def render_hot(self) -> dict[str, Any]:
        """Return the definition as written in the template (plain data)."""
        rendered: dict[str, Any] = plain(self.raw)
        return rendered

    def freeze(self, **overrides: Any) -> ResourceDefinition:
        """Return a copy with fields (``properties``, ``metadata``...) set to plain values.

        Heat's ``freeze``: what a plug-in's ``handle_restore`` returns.  The
        raw form (what :meth:`render_hot` gives) carries the new values.
        """
        raw = dict(plain(self.raw))
        for key, value in overrides.items():
            raw[self.key(key)] = value
        fields = {key: value for key, value in overrides.items()
                  if key in self.__dataclass_fields__}
        return dataclasses.replace(self, raw=raw, **fields)

    def __eq__(self, other: object) -> bool:
        """Compare the raw snippets (what an update compares)."""
        if not isinstance(other, ResourceDefinition):
            return NotImplemented
        return self.name == other.name and plain(self.raw) == plain(other.raw)

    __hash__ = None  # type: ignore[assignment]


def required_by(definitions: Mapping[str, ResourceDefinition]) -> dict[str, list[str]]:
    """Return ``{name: the names that require it}`` among ``definitions``, in their order.

    The reverse of :meth:`ResourceDefinition.dependencies`, the edges of the
    stack's dependency graph (:mod:`hearth.engine.template.graph`).
    """
    names = set(definitions)
    result: dict[str, list[str]] = {name: [] for name in definitions}
    for name, definition in definitions.items():
        for need in sorted(definition.dependencies() & names):
            result[need].append(name)
    return result
