"""An in-memory ResolutionContext for template function tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common import exception


class FakeContext:
    """A ResolutionContext backed by plain dicts.

    ``resources`` maps a resource name to its attributes (a dict); its
    reference is ``<name>-id`` unless ``references`` says otherwise.
    ``attribute_names`` optionally restricts the valid attribute names.
    ``conditions`` may be a Conditions object (set after construction).
    """

    def __init__(self, parameters: Mapping[str, Any] | None = None,
                 resources: Mapping[str, Mapping[str, Any]] | None = None,
                 files: Mapping[str, str] | None = None,
                 facade: Mapping[str, Any] | None = None,
                 references: Mapping[str, Any] | None = None,
                 attribute_names: Mapping[str, list[str]] | None = None,
                 mappings: Mapping[str, Any] | None = None,
                 stack_name: str = "teststack", stack_id: str | None = "stack-uuid",
                 project_id: str | None = "project-uuid") -> None:
        self.stack_name = stack_name
        self.stack_id = stack_id
        self.project_id = project_id
        self.parameters = dict(parameters or {})
        self.resources = {name: dict(attrs) for name, attrs in (resources or {}).items()}
        self.files = dict(files or {})
        self.facades = dict(facade or {})
        self.references = dict(references or {})
        self.attribute_names = dict(attribute_names or {})
        self.mapping_section = dict(mappings or {})
        self.conditions: Any = None
        self.attribute_requests: list[tuple[str, str, list[Any]]] = []

    def parameter_names(self) -> list[str]:
        """Return the declared parameter names."""
        return list(self.parameters)

    def parameter_value(self, name: str) -> Any:
        """Return a parameter or pseudo parameter value."""
        pseudo = {"OS::stack_name": self.stack_name, "OS::stack_id": self.stack_id,
                  "OS::project_id": self.project_id, "AWS::StackName": self.stack_name}
        if name in pseudo:
            return pseudo[name]
        if name not in self.parameters:
            raise exception.InvalidTemplateReference(f'The specified reference "{name}" is '
                                                     f'incorrect.')
        return self.parameters[name]

    def mappings(self) -> Mapping[str, Any]:
        """Return the template's ``Mappings`` section."""
        return self.mapping_section

    def has_resource(self, name: str) -> bool:
        """Return whether ``name`` is a resource."""
        return name in self.resources

    def resource_names(self) -> list[str]:
        """Return the resource names."""
        return list(self.resources)

    def resource_reference(self, name: str) -> Any:
        """Return the reference id of ``name``."""
        return self.references.get(name, f"{name}-id")

    def resource_attribute(self, name: str, attribute: str, path: list[Any]) -> Any:
        """Return an attribute, walking ``path`` as a group resource would."""
        self.attribute_requests.append((name, attribute, list(path)))
        value = self.resources[name].get(attribute)
        for key in path:
            try:
                value = value[int(key) if isinstance(value, list) else key]
            except (KeyError, IndexError, TypeError, ValueError):
                return None
        return value

    def resource_all_attributes(self, name: str) -> Any:
        """Return all attributes of ``name``."""
        return dict(self.resources[name])

    def validate_attribute(self, name: str, attribute: str) -> None:
        """Refuse attributes outside ``attribute_names`` (when given for ``name``)."""
        allowed = self.attribute_names.get(name)
        if allowed is not None and attribute not in allowed:
            raise exception.InvalidTemplateAttribute(
                f'The Referenced Attribute ({name} {attribute}) is incorrect.'
                + exception.did_you_mean(attribute, allowed))

    def condition(self, name: str) -> bool:
        """Return a named condition through the attached Conditions."""
        if self.conditions is None:
            raise exception.StackValidationFailed(f'Invalid condition "{name}"')
        return self.conditions.is_enabled(name)

    def facade(self, key: str) -> Any:
        """Return the parent resource's value of ``key``."""
        return self.facades.get(key)


def evaluate(snippet: Any, version: str = "2021-04-16", context: FakeContext | None = None,
             validate: bool = True) -> Any:
    """Parse ``snippet`` for ``version``, validate it and return its value."""
    from hearth.engine.template import function, versions
    from hearth.engine.template import snippet as snippets

    parsed = snippets.parse_snippet(versions.find_version(version), context or FakeContext(),
                                    snippet, ("outputs", "o", "value"))
    if validate:
        function.validate(parsed)
    return function.resolve(parsed)
