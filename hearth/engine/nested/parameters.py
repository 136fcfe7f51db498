"""``NestedParameters`` of the validate API (``template-validate --show-nested``).

For each resource whose type builds a nested stack (a provider template,
``OS::Heat::Stack``, any :class:`~hearth.engine.nested.stack_resource.StackResource`),
Heat's validate answer with ``show_nested`` has an entry under the
resource's name::

    {"Type": <the type as written>, "Description": <nested template's>,
     "Parameters": {<as the top level's, Value = the property given>},
     "ParameterGroups": [...],            # when the nested template has some
     "NestedParameters": {...}}           # when it has nested stacks in turn

:class:`NestedParametersCollector` wraps the validation's
``resource_validator``: each definition is validated as before, then, when
its class makes a nested stack, the nested template (the ``files`` map's
text, or the ``template`` property) is validated with the values the
resource gives it, by a collector of its own, one level deeper.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common.located import plain
from hearth.engine.nested import children, limits
from hearth.engine.nested.environment import child_environment
from hearth.engine.nested.stack_resource import StackResource
from hearth.engine.resources.validation import DefinitionChecker
from hearth.engine.template.template import Template

if TYPE_CHECKING:
    from hearth.engine.resources.stack_view import StackView

JsonMap = dict[str, Any]


class NestedParametersCollector:
    """A ``resource_validator`` that also gathers the nested stacks' parameters.

    ``checker`` is the validator it wraps (a
    :class:`~hearth.engine.resources.validation.DefinitionChecker`): its
    other methods (``resource_class``...) are its own.
    """

    def __init__(self, checker: DefinitionChecker) -> None:
        self.checker = checker
        self.nested: JsonMap = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.checker, name)

    def __call__(self, definition: Any) -> Any:
        """Validate ``definition``; note its nested stack's parameters if it has one."""
        validation = self.checker(definition)
        entry = nested_entry(definition, validation.resource_class, self.checker.view)
        if entry is not None:
            self.nested[definition.name] = entry
        return validation

    def result(self) -> JsonMap:
        """Return ``{"NestedParameters": ...}``, or ``{}`` when no resource nests a stack."""
        return {"NestedParameters": self.nested} if self.nested else {}


def nested_entry(definition: Any, resource_class: type, view: StackView) -> JsonMap | None:
    """Return the ``NestedParameters`` entry of one resource (None: it nests no stack)."""
    if not issubclass(resource_class, StackResource):
        return None
    resource = resource_class(definition.name, definition, view)
    template = resource.child_template()
    if template is None:  # built from values known only at run time
        return None
    params = {key: value for key, value in resource.child_params().items()
              if value is not None}
    files = resource.child_files()
    env = child_environment(view.env, params, resource.name,
                            resource.child_removed_type())
    depth = limits.child_depth(children.depth_of(view))
    collector = NestedParametersCollector(DefinitionChecker(
        view.registry, env, files, nested_depth=depth, stack_name=f"{view.name}-{resource.name}"))
    child = Template(template, files=files, env=env, filename=resource.child_template_name())
    parameters = child.validate(children.validation_context(child, resource, collector, params),
                                collector)
    entry: JsonMap = {"Type": definition.type, "Description": child.description,
                      "Parameters": plain(parameters.validate_output())}
    if child.parameter_groups:
        entry["ParameterGroups"] = plain(child.parameter_groups)
    entry.update(collector.result())
    return entry


def with_nested_parameters(result: Mapping[str, Any], nested: Mapping[str, Any]) -> JsonMap:
    """Return the validate answer with ``NestedParameters`` before ``Environment``."""
    answer = {key: value for key, value in result.items() if key != "Environment"}
    answer.update(nested)
    if "Environment" in result:
        answer["Environment"] = result["Environment"]
    return answer
