"""OS::Heat::Stack: a nested stack of a template given as text (local only).

Heat's type may also build the stack in another region (``context``);
Hearth builds it locally and refuses ``context.region_name`` clearly.
Attributes: ``stack_name`` and ``outputs`` (a map by output key, so
``get_attr: [res, outputs, key]`` reads one).
"""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.engine import attributes, properties, support
from hearth.engine.nested.stack_resource import StackResource
from hearth.engine.template import parser


class NestedStack(StackResource):
    """A resource for managing a nested stack from a template given inline.

    The stack is created in this engine, in the parent's project, under the
    parent's lock; its outputs are the ``outputs`` attribute.
    """

    support_status = support.SupportStatus(version="6.0.0")

    PROPERTIES = (CONTEXT, TEMPLATE, TIMEOUT, PARAMETERS) = (
        "context", "template", "timeout", "parameters")
    CONTEXT_KEYS = (REGION_NAME, CREDENTIAL_SECRET_ID, CA_CERT, INSECURE) = (
        "region_name", "credential_secret_id", "ca_cert", "insecure")
    ATTRIBUTES = (NAME_ATTR, OUTPUTS) = ("stack_name", "outputs")

    properties_schema = {
        CONTEXT: properties.Schema(
            properties.Schema.MAP, "Context for this stack.",
            schema={
                REGION_NAME: properties.Schema(
                    properties.Schema.STRING,
                    "Region name in which this stack will be created (not supported: "
                    "Hearth creates local nested stacks only)."),
                CREDENTIAL_SECRET_ID: properties.Schema(
                    properties.Schema.STRING,
                    "A secret holding credentials of a remote cloud (not supported)."),
                CA_CERT: properties.Schema(
                    properties.Schema.STRING, "CA certificate of a remote cloud."),
                INSECURE: properties.Schema(
                    properties.Schema.BOOLEAN, "Skip TLS verification of a remote cloud.",
                    default=False),
            }),
        TEMPLATE: properties.Schema(
            properties.Schema.STRING, "Template that specifies the stack to be created as "
            "a resource.", required=True, update_allowed=True),
        TIMEOUT: properties.Schema(
            properties.Schema.INTEGER, "Number of minutes to wait for this stack creation.",
            update_allowed=True),
        PARAMETERS: properties.Schema(
            properties.Schema.MAP, "Set of parameters passed to this stack.",
            default={}, update_allowed=True),
    }

    attributes_schema = {
        NAME_ATTR: attributes.Schema("Name of the stack.", type=attributes.Schema.STRING),
        OUTPUTS: attributes.Schema("A dict of key-value pairs output from the stack.",
                                   type=attributes.Schema.MAP),
    }

    def validate(self) -> None:
        """Refuse a remote region, then validate the template with the parent's."""
        context = self.properties.data.get(self.CONTEXT)
        if isinstance(context, dict) and context.get(self.REGION_NAME) is not None:
            raise exception.StackValidationFailed(
                "OS::Heat::Stack creates local nested stacks only: a remote region "
                f"({context.get(self.REGION_NAME)}) is not supported by Hearth.",
                path=[self.name, "properties", self.CONTEXT, self.REGION_NAME])
        super().validate()

    def child_template(self) -> Any:
        """Return the ``template`` property parsed (YAML or JSON text; None while unknown)."""
        text = self.properties[self.TEMPLATE]
        if text is None:  # not known yet (validating a template built from attributes)
            return None
        return parser.parse(text, self.child_template_name())

    def child_params(self) -> dict[str, Any]:
        """Return the ``parameters`` property."""
        return dict(self.properties[self.PARAMETERS] or {})

    def handle_create(self) -> None:
        """Create the nested stack (``timeout`` minutes, else the parent's)."""
        self.create_with_template(self.child_template(), self.child_params(),
                                  self.properties[self.TIMEOUT])

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> str:
        """Update the nested stack to the new template and parameters."""
        self.t, self.properties = json_snippet, self.make_properties(json_snippet)
        return self.update_with_template(self.child_template(), self.child_params(),
                                         self.properties[self.TIMEOUT])

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.NAME_ATTR:
            child = self.nested()
            return child.name if child is not None else None
        if name == self.OUTPUTS:
            return self.nested_outputs()
        return None


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::Stack": NestedStack}
