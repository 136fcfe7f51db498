"""Provider templates: a resource type implemented by a template (Heat's TemplateResource).

A resource whose ``type`` names a template file (``type: server.yaml``,
which the client sends as a ``file:///...`` URL with the file's text in the
``files`` map) or a type the environment's ``resource_registry`` maps to
one becomes a nested stack of that template.  The template's parameters are
the resource's properties (each parameter type mapped to a property type;
a parameter without default is a required property), its outputs are the
resource's attributes, and an ``OS::stack_id`` output, when the template
has one, is what ``get_resource`` gives (else the nested stack's ARN, as
Heat).  (A template the environment maps for one resource keeps the
interface its type has otherwise: :mod:`hearth.engine.registry.facade`.)

:func:`template_class` is the plug-in registry's template class factory
(:attr:`hearth.engine.registry.types.TypeRegistry.template_class_factory`):
one class per template text, built once; :func:`default_registry` is the
registry of the process, built with it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any, ClassVar

from hearth.common import exception
from hearth.common.template_names import is_template
from hearth.engine import attributes, properties
from hearth.engine.nested import children
from hearth.engine.nested.stack_resource import StackResource
from hearth.engine.registry.plugin_manager import PluginManager
from hearth.engine.registry.types import TypeRegistry
from hearth.engine.stacks.prepare import StackIdentity
from hearth.engine.template import parser
from hearth.engine.template.template import Template
from hearth.engine.template.versions import get_version

#: The output whose value is the resource's reference id.
STACK_ID_OUTPUT = "OS::stack_id"


class TemplateResource(StackResource):
    """A resource implemented by a provider template (a nested stack of it).

    Subclasses made by :func:`template_class` set ``template_url``,
    ``template_data`` and the schemas derived from the template.
    """

    template_url: ClassVar[str] = ""
    template_data: ClassVar[Any] = None
    _source_text: ClassVar[str | None] = None

    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Accept any name while validating, as Heat: the provider's outputs answer when read.

        An attribute the provider template does not output fails where it
        is read (an output's error, the reading resource's failure); an
        update may bring the output with a new provider template.
        """
        return True

    def current_class(self) -> type[TemplateResource]:
        """Return the class of the template as the stack's files map has it now.

        An update brings the new files map: a provider template that gained
        parameters or outputs is read through its new schemas.
        """
        text = (self.stack.files or {}).get(self.template_url)
        if text is None or text == self._source_text:
            return type(self)
        try:
            return _class_of(self.template_url, text)
        except exception.HearthException:
            return type(self)  # the child's own validation reports it

    def make_properties(self, definition: Any) -> properties.Properties:
        """Read ``definition``'s properties through the current template's parameters."""
        current = self.current_class()
        if self.properties_schema is not current.properties_schema:
            # this resource reads its current template's schemas (an instance attribute)
            self.properties_schema = current.properties_schema  # type: ignore[misc]
            if hasattr(self, "_properties"):  # the current values, read the new way
                self.properties = super().make_properties(self.t)
        return super().make_properties(definition)

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> str:
        """Take the current template's outputs as attributes, then update the nested stack."""
        new_type = getattr(json_snippet, "type", None)
        if isinstance(new_type, str) and new_type != self.type_name:
            # another alias of the same template: updated in place, listed by its new name
            children.live_parent(self).store.set_type(self, new_type)
        current = self.current_class()
        if current.attributes_schema != self.attributes_schema:
            self.attributes_schema = current.attributes_schema  # type: ignore[misc]  # (as above)
            self.attributes = attributes.Attributes(self.name, self.attributes_schema,
                                                    self._resolve_any_attribute)
        return super().handle_update(json_snippet, tmpl_diff, prop_diff)

    def child_template(self) -> Any:
        """Return the provider template (as the stack's files map has it now)."""
        text = (self.stack.files or {}).get(self.template_url)
        if text is not None and text != self._source_text:
            return parse_template(self.template_url, text)
        return self.template_data

    def child_params(self) -> dict[str, Any]:
        """Return the properties given (resolved) as the template's parameter values."""
        values = {}
        for key in self.properties_schema:
            try:
                value = self.properties.get_user_value(key)
            except (KeyError, ValueError, exception.StackValidationFailed):
                if self.action != self.INIT:
                    raise
                value = None
            if value is not None:
                values[key] = value
        return values

    def child_template_name(self) -> str:
        """Return the template's URL (its errors are reported under it)."""
        return self.template_url

    def child_removed_type(self) -> str | None:
        """Return the registry type mapped to this template (its child resolves it anew)."""
        type_name = getattr(self.t, "type", None)
        return None if not isinstance(type_name, str) or is_template(type_name) \
            or "://" in type_name else type_name

    def same_type(self, type_name: Any) -> bool:
        """Return True also for another type naming this same template (updated in place)."""
        if super().same_type(type_name):
            return True
        env = self.stack.env
        registry = env.registry if env is not None else None
        if not isinstance(type_name, str) or registry is None:
            return False
        try:
            resolved = registry.resolve_type(type_name, resource_name=self.name)
        except exception.HearthException:
            return False
        return str(getattr(resolved, "url", resolved)) == self.template_url

    def same_implementation(self, other_class: type) -> bool:
        """Return True for any class made from this same provider template."""
        return getattr(other_class, "template_url", None) == self.template_url

    def get_reference_id(self) -> str:
        """Return the ``OS::stack_id`` output, else the nested stack's ARN (as Heat).

        Before the nested stack exists: the resource's name.
        """
        if self.resource_id is None:
            return self.name
        if STACK_ID_OUTPUT in self.attributes_schema:
            try:
                value = self.get_output(STACK_ID_OUTPUT)
            except exception.InvalidTemplateAttribute:
                value = None
            if value is not None:
                return str(value)
        return StackIdentity(self.physical_resource_name() or self.name, self.resource_id,
                             children.live_parent(self).row.project_id).arn()


def parse_template(url: str, text: str) -> Any:
    """Return the parsed provider template ``text`` (errors name ``url``)."""
    return parser.parse(text, url)


def property_schemas(data: Any) -> dict[str, properties.Schema]:
    """Return the property schema of each parameter of template ``data`` (HOT or CFN)."""
    version = get_version(data)
    declared = data.get(version.spell("parameters")) or {}
    result = {}
    for name, definition in declared.items():
        if not isinstance(definition, Mapping):
            continue
        schema = version.parameter_reader(definition, frozenset(version.constraint_names))
        result[name] = properties.Schema.from_parameter(SimpleNamespace(
            type=schema.hot_type(), description=schema.description,
            default=schema.default, constraints=schema.constraints))
    return result


def attribute_schemas(data: Any) -> dict[str, attributes.Schema]:
    """Return an attribute schema per output of template ``data`` (HOT or CFN)."""
    version = get_version(data)
    declared = data.get(version.spell("outputs")) or {}
    description = version.spell("description")
    return {name: attributes.Schema(definition.get(description)
                                    if isinstance(definition, Mapping) else None)
            for name, definition in declared.items()}


@functools.lru_cache(maxsize=256)
def _class_of(url: str, text: str) -> type[TemplateResource]:
    data = parse_template(url, text)
    Template(data, filename=url)  # refuses a template that is not one
    try:
        schemas = property_schemas(data)
    except exception.InvalidSchemaError as error:
        raise exception.StackValidationFailed(
            str(error), path=[get_version(data).spell("parameters")], filename=url) from None
    return type("TemplateResource", (TemplateResource,), {
        "__doc__": f"The provider template {url}.",
        "template_url": url, "template_data": data, "_source_text": text,
        "resource_type": url, "properties_schema": schemas,
        "attributes_schema": attribute_schemas(data),
    })


def template_class(reference: Any, files: Mapping[str, str]) -> type[TemplateResource]:
    """Return the TemplateResource class of a provider template reference.

    ``reference`` is the environment's ProviderTemplate (or the template's
    URL); its text must be in ``files``, where the client puts it.
    """
    url = str(getattr(reference, "url", reference))
    text = files.get(url)
    if text is None:
        raise exception.ResourceTypeUnavailable(
            message=f'Could not fetch remote template "{url}": it is not in the files map '
                    "(the client sends each template a resource type names; give the "
                    "template as a file so its provider templates are read with it).")
    return _class_of(url, text)


@functools.lru_cache(maxsize=1)
def default_registry() -> TypeRegistry:
    """Return the registry of every discovered plug-in (loaded once per process).

    Provider templates become classes through :func:`template_class`.
    """
    return TypeRegistry(PluginManager.load(), template_class_factory=template_class)
