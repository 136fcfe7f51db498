"""The ResolutionContext of a live stack: functions resolved against real resources."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common import exception


class StackContext:
    """Answer intrinsic functions' questions from a stack's parameters and resources.

    ``parameters`` maps names (pseudo parameters included) to values;
    ``resources`` is the live ``{name: Resource}`` map of the stack, shared
    so that references see resources as they are created.
    """

    def __init__(self, stack_name: str, stack_id: str | None, project_id: str | None,
                 parameters: Mapping[str, Any], resources: Mapping[str, Any],
                 files: Mapping[str, str] | None = None,
                 conditions: Mapping[str, bool] | None = None) -> None:
        self.stack_name = stack_name
        self.stack_id = stack_id
        self.project_id = project_id
        self.parameters = parameters
        self.resources = resources
        self.files = files or {}
        self.conditions = dict(conditions or {})

    def parameter_value(self, name: str) -> Any:
        """Return a parameter's value."""
        try:
            return self.parameters[name]
        except KeyError:
            raise exception.InvalidTemplateReference(
                f'The specified reference "{name}" (in unknown) is incorrect.')

    def has_resource(self, name: str) -> bool:
        """Return whether the stack has resource ``name``."""
        return name in self.resources

    def resource_names(self) -> list[str]:
        """Return the names of the stack's resources."""
        return list(self.resources)

    def _resource(self, name: str) -> Any:
        try:
            return self.resources[name]
        except KeyError:
            raise exception.InvalidTemplateReference(
                f'The specified reference "{name}" (in unknown) is incorrect.')

    def resource_reference(self, name: str) -> Any:
        """Return ``get_resource`` of ``name``: the physical id, else the name."""
        return self._resource(name).FnGetRefId()

    def resource_attribute(self, name: str, attribute: str, path: list[Any]) -> Any:
        """Return ``get_attr`` of ``name`` (None before the resource is created)."""
        resource = self._resource(name)
        if resource.action == "INIT":
            return None
        return resource.FnGetAtt(attribute, *path)

    def resource_all_attributes(self, name: str) -> Any:
        """Return every attribute of ``name`` as a map."""
        resource = self._resource(name)
        return {key: self.resource_attribute(name, key, [])
                for key in getattr(resource, "attributes_schema", {})}

    def validate_attribute(self, name: str, attribute: str) -> None:
        """Raise InvalidTemplateAttribute when the type of ``name`` lacks ``attribute``."""
        resource = self._resource(name)
        if not resource.has_attribute(attribute):
            raise exception.InvalidTemplateAttribute(
                f"The Referenced Attribute ({name} {attribute}) is incorrect.")

    def condition(self, name: str) -> bool:
        """Return the value of a named condition."""
        return self.conditions.get(name, True)

    def facade(self, key: str) -> Any:
        """Return nothing: a top-level stack has no parent resource."""
        return None
