"""The catalog: what the engine knows without any stack, database or running engine.

Template versions and their functions, resource types (listing, schema,
generated templates) and template validation.  A :class:`Catalog` is cheap
to build (no database, no heartbeat, no bus) and holds the one plug-in
registry of the process, built from configuration (``plugin_dirs`` and the
``hearth.resources`` entry points) by
:func:`hearth.engine.nested.template_resource.default_registry`.

``stackctl template-validate`` and the resource-type commands use a Catalog
in embedded mode; an :class:`~hearth.engine.service.engine.EngineService`
has one (:attr:`~hearth.engine.service.reads.StackReads.catalog`, made when
it first validates or reads a template), which serves the same operations
over the REST API, and reads its stored templates (:attr:`Catalog.stored`).
Methods take the request context first, as EngineService's do.

This module loads the template layer (YAML, jsonschema, networkx) and the
plug-ins at its top: whoever imports it validates templates.  It loads
neither the database nor the green threads (``--in-process template-validate``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import config, exception
from hearth.common.context import RequestContext
from hearth.engine.nested import parameters as nested_parameters
from hearth.engine.nested.template_resource import default_registry
from hearth.engine.registry import introspection
from hearth.engine.registry import introspection as resource_types
from hearth.engine.resources.validation import DefinitionChecker
from hearth.engine.service.stored_templates import StoredTemplates
from hearth.engine.stacks.graph_view import template_view
from hearth.engine.template import versions
from hearth.engine.template.environment import (
    Environment,
    environment_documents,
    parameter_types,
)
from hearth.engine.template.parser import parse
from hearth.engine.template.validate import validate_template

if TYPE_CHECKING:
    from hearth.engine.registry.types import TypeRegistry

JsonMap = dict[str, Any]


class Catalog:
    """Template versions, functions, resource types and validation, from configuration."""

    def __init__(self, registry: TypeRegistry | None = None) -> None:
        self._registry = registry
        #: what is read of stored templates (an engine service's stacks), kept per template
        self.stored = StoredTemplates()

    @property
    def registry(self) -> TypeRegistry:
        """Return the plug-in registry (configured plug-ins loaded on first use)."""
        if self._registry is None:
            config.register_opts()
            self._registry = default_registry()
        return self._registry

    def list_resource_type_failures(self, ctx: RequestContext) -> list[JsonMap]:
        """Return a listing row (``resource_type``, ``status``, ``reason``) per failed plug-in."""
        return list(introspection.load_failures(self.registry))

    def validate_template(self, ctx: RequestContext, template: Any,
                          params: Mapping[str, Any] | None = None,
                          files: Mapping[str, str] | None = None, environment: Any = None,
                          environment_files: list[str] | None = None,
                          show_nested: bool = False,
                          ignore_errors: list[str] | None = None) -> JsonMap:
        """Return Heat's validate object (Description, Parameters, ParameterGroups...).

        Resource types and properties are checked against the plug-in
        registry.  ``show_nested`` adds Heat's ``NestedParameters`` (see
        :mod:`hearth.engine.nested.parameters`); ``ignore_errors``
        is accepted for Heat's API (Hearth has no error codes).
        """
        files = dict(files or {})
        data = self.parse(template)
        documents = environment_documents(environment, environment_files, files)
        env = Environment.from_documents(documents, parameter_types(data))
        checker: Any = self.resource_validator(env, files)
        if show_nested:
            checker = nested_parameters.NestedParametersCollector(checker)
        result = validate_template(data, None, params, documents, files,
                                   resource_validator=checker)
        if show_nested:
            result = nested_parameters.with_nested_parameters(result, checker.result())
        return result

    def template_graph(self, ctx: RequestContext, template: Any,
                       params: Mapping[str, Any] | None = None,
                       files: Mapping[str, str] | None = None, environment: Any = None,
                       environment_files: list[str] | None = None,
                       name: str | None = None) -> JsonMap:
        """Return the dependency picture of a template, validated in full as a create would.

        The data of :class:`~hearth.engine.stacks.graph_view.GraphView`
        (nothing exists yet: no states), titled ``name``.  Raises the
        validation error of the first problem.
        """
        files = dict(files or {})
        documents = environment_documents(environment, environment_files, files)
        return template_view(self.parse(template), name or "template", params, documents,
                             files, self.registry).as_dict()

    def list_template_versions(self, ctx: RequestContext) -> list[JsonMap]:
        """Return ``[{"version", "type", "aliases"}]``."""
        return [version.as_listing() for version in versions.all_versions()]

    def list_template_functions(self, ctx: RequestContext, version: str,
                                with_condition_func: bool = False) -> list[JsonMap]:
        """Return ``[{"functions", "description"}]`` (NotFound for an unknown version)."""
        try:
            found = versions.find_version(version)
        except exception.InvalidTemplateVersion:
            raise exception.NotFound(
                message=f"Template with version {version} not found") from None
        return found.function_list(with_condition_functions=with_condition_func)

    def list_resource_types(self, ctx: RequestContext, type_name: str | None = None,
                            support_status: str | None = None, version: str | None = None,
                            with_description: bool = False) -> list[Any]:
        """Return type names, or ``{"resource_type", "description"}`` items.

        ``type_name`` is a regular expression matched at the start of the
        names; ``version`` keeps the types whose support status names it.
        """
        try:
            listed = resource_types.list_types(self.registry, type_name, with_description,
                                               support_status)
        except re.error as error:
            raise exception.BadRequest(
                message=f"Invalid resource type name filter {type_name!r}: {error}") from None
        if version is None:
            return listed
        classes: Mapping[str, Any] = self.registry.classes
        return [item for item in listed
                if classes[item["resource_type"] if with_description else item]
                .support_status.version == version]

    def resource_schema(self, ctx: RequestContext, type_name: str,
                        with_description: bool = False) -> JsonMap:
        """Return Heat's resource-type schema object (ResourceTypeNotFound)."""
        return resource_types.resource_schema(self.registry.get_class(type_name), type_name,
                                              with_description)

    def generate_template(self, ctx: RequestContext, type_name: str,
                          template_type: str = "cfn") -> JsonMap:
        """Return a template for the type (properties as parameters, attributes as outputs)."""
        if template_type not in resource_types.TEMPLATE_TYPES:
            raise exception.BadRequest(
                message=f"Template type is not supported: {template_type}")
        return resource_types.generate_template(self.registry.get_class(type_name),
                                                type_name, template_type)

    def resource_validator(self, env: Any, files: Mapping[str, str] | None = None
                           ) -> DefinitionChecker:
        """Return the check of resource definitions against the plug-in registry.

        ``files`` is the request's files map, where provider templates are.
        """
        return DefinitionChecker(self.registry, env, files)

    @staticmethod
    def parse(template: Any) -> Any:
        """Return a request's template parsed (a text is YAML or JSON; a map is as it is)."""
        if not isinstance(template, str):
            return template
        return parse(template, None)
