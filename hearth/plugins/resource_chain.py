"""OS::Heat::ResourceChain: a nested stack of one member per listed type, "0".."n-1"."""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.common.template_names import is_template
from hearth.engine import attributes, properties, support
from hearth.engine.nested.stack_resource import StackResource
from hearth.plugins._group import attributes as group_attributes
from hearth.plugins._group import definitions

Schema = properties.Schema


class ResourceChain(StackResource):
    """Creates one or more resources with the same configuration.

    One member is created for each type listed in ``resources`` (type names
    or aliases of the resource registry, not templates), each given
    ``resource_properties``.  Unless ``concurrent`` is true, each member
    depends on the one before it.
    """

    support_status = support.SupportStatus(version="6.0.0")

    PROPERTIES = (RESOURCES, CONCURRENT, RESOURCE_PROPERTIES) = (
        "resources", "concurrent", "resource_properties")
    ATTRIBUTES = (REFS, ATTR_ATTRIBUTES) = (group_attributes.REFS,
                                            group_attributes.ATTR_ATTRIBUTES)

    properties_schema = {
        RESOURCES: Schema(
            Schema.LIST, "The list of resource types to create. This list may contain type "
            "names or aliases defined in the resource registry. Specific template names are "
            "not supported.", required=True, update_allowed=True),
        CONCURRENT: Schema(
            Schema.BOOLEAN, "If true, the resources in the chain will be created "
            "concurrently. If false or omitted, each resource will be treated as having a "
            "dependency on the previous resource in the list.", default=False),
        RESOURCE_PROPERTIES: Schema(
            Schema.MAP, "Properties to pass to each resource being created in the chain."),
    }

    attributes_schema = {
        REFS: attributes.Schema("A list of resource IDs for the resources in the chain.",
                                type=attributes.Schema.LIST),
        ATTR_ATTRIBUTES: attributes.Schema(
            "A map of resource names to the specified attribute of each individual resource.",
            type=attributes.Schema.MAP),
    }

    def _types(self) -> list[Any]:
        return list(self.properties[self.RESOURCES] or [])

    def member_names(self) -> list[str]:
        """Return the members' names: "0".."n-1"."""
        return [str(index) for index in range(len(self._types()))]

    def child_template(self) -> dict[str, Any]:
        """Return the nested template of the chain."""
        return definitions.chain_template(self._types(),
                                          self.properties[self.RESOURCE_PROPERTIES],
                                          bool(self.properties[self.CONCURRENT]))

    def validate_nested_stack(self) -> None:
        """Refuse templates among the types, then validate the members."""
        for index, type_name in enumerate(self._types()):
            if is_template(type_name):
                raise exception.StackValidationFailed(
                    f'"{type_name}" is a template: the resources of a ResourceChain are '
                    "resource types or aliases of the resource registry",
                    error="Property error", path=[self.name, "properties", self.RESOURCES,
                                                  index])
        super().validate_nested_stack()

    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Accept every name: any other name is the list of that attribute over the members."""
        return True

    def FnGetAtt(self, name: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """Return an attribute read from the members (as a group's, without ``refs_map``)."""
        if name == attributes.SHOW_ATTR:
            return super().FnGetAtt(name, *path)
        return group_attributes.read(self.name, name, path, self.member_names(),
                                     group_attributes.NestedMembers(self), own=self.ATTRIBUTES)


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::ResourceChain": ResourceChain}
