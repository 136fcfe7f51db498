"""A parsed template (HOT or CloudFormation format): its version, sections and validation.

:class:`Template` wraps the located document.  Sections and keys are named
the HOT way (``resources``, ``properties``); the version spells them as its
documents do (``Resources``, ``Properties``), so paths in errors name what
the user wrote.  It gives the parameters,
conditions, resource definitions (condition-false resources absent),
outputs and the dependency graph, and validates everything that can be
checked without resource plug-ins.  Resource types and properties are
checked by a ``resource_validator`` the caller passes in (the engine wires
the plug-in registry in).

:meth:`Template.context` gives the one
:class:`~hearth.engine.template.context.ResolutionContext` functions ask,
for validation (no resource exists yet) and for a live stack alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.located import LocatedDict, line_of
from hearth.engine.template import function, graph, parser, structure, versions
from hearth.engine.template.conditions import Conditions
from hearth.engine.template.context import ResolutionContext
from hearth.engine.template.environment import Environment
from hearth.engine.template.parameters import Parameters, validate_parameter_groups
from hearth.engine.template.resource_definition import ResourceDefinition
from hearth.engine.template.snippet import parse_snippet

if TYPE_CHECKING:
    import networkx as nx

DEFAULT_DESCRIPTION = "No description"
ResourceValidator = Callable[[ResourceDefinition], Any]


@dataclasses.dataclass(slots=True)
class CheckedTemplate:
    """What validating a template built: its enabled definitions and dependency graph."""

    definitions: dict[str, ResourceDefinition]
    graph: nx.DiGraph


@dataclasses.dataclass(slots=True)
class OutputDefinition:
    """One output: its parsed value snippet, description and condition."""

    name: str
    value: Any
    description: str = ""
    condition: Any = None
    line: int | None = None


class Template:
    """One template with its files map and environment.

    ``data`` is the parsed document (a LocatedDict from the parser, or any
    mapping); ``env`` an :class:`Environment` or Heat's environment JSON.
    Raises InvalidTemplateVersion when the version is missing or unknown,
    and StackValidationFailed when the document breaks the version's
    structure, so no caller can use a malformed template.  ``checked``
    skips that check for a document that already passed it (a stored one).
    """

    def __init__(self, data: Mapping[str, Any], files: Mapping[str, str] | None = None,
                 env: Environment | Mapping[str, Any] | None = None,
                 filename: str | None = None, checked: bool = False) -> None:
        self.version = versions.get_version(data)  # refuses a document that is not a map
        self.data: LocatedDict = data if isinstance(data, LocatedDict) else parser.locate(
            dict(data))
        self.filename = filename
        if not checked:
            self.validate_structure()
        self.files = dict(files or {})
        self.env = env if isinstance(env, Environment) else Environment.from_dict(env or {})

    @classmethod
    def from_text(cls, text: str | bytes, filename: str | None = None,
                  **kwargs: Any) -> Template:
        """Parse ``text`` and return its Template."""
        return cls(parser.parse(text, filename), filename=filename, **kwargs)

    # --- sections -------------------------------------------------------------
    def key(self, name: str) -> str:
        """Return how this template writes section or key ``name`` (a HOT name)."""
        return self.version.spell(name)

    def section(self, name: str) -> Any:
        """Return section ``name`` (a HOT name; an empty map when absent or null)."""
        value = self.data.get(self.key(name))
        return value if value is not None else LocatedDict()

    @property
    def description(self) -> str:
        """Return the template's description (Heat's default when absent)."""
        return self.data.get(self.key("description")) or DEFAULT_DESCRIPTION

    @property
    def parameter_groups(self) -> list[Any]:
        """Return the ``parameter_groups`` section (a list, maybe empty)."""
        return self.data.get("parameter_groups") or []

    def _located(self, error: exception.StackValidationFailed) -> exception.StackValidationFailed:
        return error.located(self.filename)

    # --- parts ------------------------------------------------------------------
    def validate_structure(self) -> None:
        """Check sections and keys against this version's JSON Schema."""
        structure.validate_structure(self.data, self.version, self.filename)

    def parameters(self, user_params: Mapping[str, Any] | None = None, *,
                   validate_value: bool = True, stack_name: str | None = None,
                   stack_id: str | None = None, project_id: str | None = None) -> Parameters:
        """Return the parameters with the user's and the environment's values."""
        return Parameters(self.version, self.section("parameters"), user_params,
                          self.env.params, self.env.param_defaults, validate_value,
                          stack_name=stack_name, stack_id=stack_id, project_id=project_id,
                          filename=self.filename)

    def context(self, parameters: Parameters, **knowledge: Any) -> ResolutionContext:
        """Return the resolution context of this template and ``parameters``.

        ``knowledge`` is what the caller knows beyond the template: the stack
        identity (``stack_name``, ``stack_id``, ``project_id``), the live
        ``resources`` of a stack, or a ``resource_class`` lookup for validation.
        """
        return ResolutionContext(self, parameters, **knowledge)

    def conditions(self, context: Any) -> Conditions:
        """Return the (one, remembered) evaluator of the ``conditions`` section of ``context``."""
        conditions: Conditions = context.conditions
        return conditions

    def _condition_enabled(self, conditions: Conditions, owner: Mapping[str, Any],
                           path: tuple[Any, ...], keys: frozenset[str]) -> bool:
        """Return the truth of ``owner``'s condition (``keys``: those its kind may have)."""
        key = self.key("condition")
        if not isinstance(owner, Mapping) or key not in owner or key not in keys:
            return True
        try:
            return conditions.is_enabled(owner[key], (*path, key), line_of(owner, key))
        except exception.StackValidationFailed as exc:
            raise self._located(exc) from None

    def _parse(self, context: Any, snippet: Any, path: tuple[Any, ...], line: int | None) -> Any:
        try:
            return parse_snippet(self.version, context, snippet, path, line)
        except exception.StackValidationFailed as exc:
            raise self._located(exc) from None

    def _definition(self, context: Any, name: str, raw: Mapping[str, Any]) -> ResourceDefinition:
        path = (self.key("resources"), name)
        line = line_of(self.section("resources"), name)

        def field(name: str) -> Any:
            key = self.key(name)
            return raw.get(key) if key in self.version.resource_keys else None

        def parsed(name: str) -> Any:
            key = self.key(name)
            return self._parse(context, field(name), (*path, key), line_of(raw, key) or line)

        depends = field("depends_on")
        return ResourceDefinition(
            name=name, type=field("type"), properties=parsed("properties") or {},
            metadata=parsed("metadata") or {},
            depends_on=[depends] if isinstance(depends, str) else list(depends or []),
            deletion_policy=parsed("deletion_policy"), update_policy=parsed("update_policy"),
            external_id=parsed("external_id"), condition=field("condition"),
            description=field("description") or "", line=line, raw=raw,
            spelling=dict(self.version.spelling))

    def _split_resources(self, context: Any) -> tuple[dict[str, Mapping[str, Any]], list[str]]:
        conditions = self.conditions(context)
        enabled: dict[str, Mapping[str, Any]] = {}
        disabled: list[str] = []
        for name, raw in self.section("resources").items():
            if self._condition_enabled(conditions, raw, (self.key("resources"), name),
                                       self.version.resource_keys):
                enabled[name] = raw
            else:
                disabled.append(name)
        return enabled, disabled

    def resource_definitions(self, context: Any) -> dict[str, ResourceDefinition]:
        """Return the enabled resources' definitions (condition-false ones absent)."""
        enabled, _ = self._split_resources(context)
        return {name: self._definition(context, name, raw) for name, raw in enabled.items()}

    def resource_definition(self, context: Any, name: str,
                            raw: Mapping[str, Any]) -> ResourceDefinition:
        """Return the definition of snippet ``raw`` as resource ``name`` of this template.

        For a snippet kept outside the ``resources`` section (what a stopped
        update left behind); parsed as the section's own.
        """
        return self._definition(context, name, raw)

    def enabled_resource_names(self, context: Any) -> list[str]:
        """Return the names of resources whose condition is true (or absent)."""
        return list(self._split_resources(context)[0])

    def disabled_resource_names(self, context: Any) -> list[str]:
        """Return the names of resources whose condition is false."""
        return self._split_resources(context)[1]

    def outputs(self, context: Any) -> dict[str, OutputDefinition]:
        """Return the enabled outputs, each with its parsed value snippet."""
        conditions = self.conditions(context)
        value, description, condition = (self.key(name) for name in
                                         ("value", "description", "condition"))
        result = {}
        for name, raw in self.section("outputs").items():
            path = (self.key("outputs"), name)
            if not self._condition_enabled(conditions, raw, path, self.version.output_keys):
                continue
            line = line_of(self.section("outputs"), name)
            result[name] = OutputDefinition(
                name, self._parse(context, raw.get(value), (*path, value),
                                  line_of(raw, value) or line),
                raw.get(description) or "", raw.get(condition), line)
        return result

    def dependency_graph(self, context: Any,
                         definitions: Mapping[str, ResourceDefinition] | None = None
                         ) -> nx.DiGraph:
        """Return the networkx dependency graph of the enabled resources."""
        if definitions is None:
            definitions = self.resource_definitions(context)
        return graph.build(definitions, self.disabled_resource_names(context), self.filename)

    # --- validation -------------------------------------------------------------
    def validate(self, context: ResolutionContext | None = None,
                 resource_validator: ResourceValidator | None = None,
                 user_params: Mapping[str, Any] | None = None,
                 validate_value: bool = True) -> Parameters:
        """Validate the template without plug-ins; return its Parameters.

        Without a ``context`` one is made from ``user_params``; the checks
        are :meth:`check`'s.
        """
        if context is None:
            params = self.parameters(user_params, validate_value=validate_value)
            context = self.context(params, resource_class=self.class_lookup(resource_validator))
        self.check(context, resource_validator)
        return context.params

    def check(self, context: ResolutionContext,
              resource_validator: ResourceValidator | None = None) -> CheckedTemplate:
        """Validate everything ``context`` resolves; return what was built doing it.

        The structure was checked when the template was built.  Order:
        parameters and parameter groups, conditions, functions of every
        resource and output, the dependency graph, then
        ``resource_validator(definition)`` for each resource.
        """
        params = context.params
        params.validate()
        validate_parameter_groups(self.parameter_groups, params.non_pseudo_names(),
                                  self.filename)
        try:
            context.conditions.evaluate_all()
        except exception.StackValidationFailed as exc:
            raise self._located(exc) from None
        definitions = self.resource_definitions(context)
        outputs = self.outputs(context)
        self._validate_functions(definitions, outputs)
        dependencies = self.dependency_graph(context, definitions)
        if resource_validator is not None:
            for definition in definitions.values():
                try:
                    resource_validator(definition)
                except exception.StackValidationFailed as exc:
                    raise self._located(exc) from None
        return CheckedTemplate(definitions, dependencies)

    def class_lookup(self, resource_validator: Any) -> Callable[[str], Any] | None:
        """Return resource name -> plug-in class, when the validator can tell it.

        A validator with ``resource_class(type_name, resource_name)`` (the
        engine's, which knows the plug-in registry) lets ``get_attr`` names
        be checked against the type's attributes.
        """
        find = getattr(resource_validator, "resource_class", None)
        if find is None:
            return None
        resources = self.section("resources")

        def lookup(name: str) -> Any:
            raw = resources.get(name)
            return find(raw.get(self.key("type")), name) if isinstance(raw, Mapping) else None
        return lookup

    def _validate_functions(self, definitions: Mapping[str, ResourceDefinition],
                            outputs: Mapping[str, OutputDefinition]) -> None:
        snippets = [getattr(definition, field)
                    for definition in definitions.values()
                    for field in ("properties", "metadata", "deletion_policy", "update_policy",
                                  "external_id")]
        snippets.extend(output.value for output in outputs.values())
        try:
            for snippet in snippets:
                function.validate(snippet)
        except exception.StackValidationFailed as exc:
            raise self._located(exc) from None

