"""What template functions need from the world: the resolution context.

Functions never see a Stack.  They ask a :class:`ResolutionContext` for
parameter values, resource references and attributes.  The template layer
provides :class:`ValidationContext` (parameters known, no resource exists:
references and attributes resolve to None); the engine's Stack implements the
same protocol with real resources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ResolutionContext(Protocol):
    """The questions an intrinsic function may ask while resolving."""

    stack_name: str
    stack_id: str | None
    project_id: str | None
    files: Mapping[str, str]

    def parameter_value(self, name: str) -> Any:
        """Return a parameter's value (pseudo parameters included).

        Raises InvalidTemplateReference / UserParameterMissing.
        """

    def parameter_names(self) -> list[str]:
        """Return the declared parameter names (for "did you mean" hints)."""

    def has_resource(self, name: str) -> bool:
        """Return whether the template defines (an enabled) resource ``name``."""

    def resource_names(self) -> list[str]:
        """Return the names of the template's enabled resources."""

    def resource_reference(self, name: str) -> Any:
        """Return what ``get_resource`` gives for ``name`` (None before it exists)."""

    def resource_attribute(self, name: str, attribute: str, path: list[Any]) -> Any:
        """Return ``get_attr`` of ``name``; ``path`` is passed for types that interpret it."""

    def resource_all_attributes(self, name: str) -> Any:
        """Return the map of all attributes of ``name`` (attribute-less get_attr)."""

    def validate_attribute(self, name: str, attribute: str) -> None:
        """Raise InvalidTemplateAttribute if the type of ``name`` has no ``attribute``."""

    def condition(self, name: str) -> bool:
        """Return the value of the named condition."""

    def facade(self, key: str) -> Any:
        """Return the parent resource's metadata/deletion_policy/update_policy."""
