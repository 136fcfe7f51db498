"""What template functions need from the world: the one resolution context.

Functions never see a Stack.  They ask a :class:`ResolutionContext` for
parameter values, condition truths, resource references and attributes.
The same class serves validation and a live stack; the two differ only in
what they know:

- validating, no resource exists: ``get_resource`` and ``get_attr`` give
  None, and attribute names are checked against the plug-in class that
  ``resource_class`` names for a resource (when the caller gives one);
- live, ``resources`` is the stack's ``{name: Resource}`` map, shared so
  that references see resources as they are created.

Parameters and the ``conditions`` section are evaluated by the same code in
both cases: one :class:`~hearth.engine.template.conditions.Conditions`
evaluator per context, remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.engine.template.conditions import Conditions

if TYPE_CHECKING:
    from hearth.engine.template.parameters import Parameters
    from hearth.engine.template.template import Template

#: resource name -> the plug-in class of its type (None: unknown, not checked here)
ResourceClassLookup = Callable[[str], Any]


class ResolutionContext:
    """Answer intrinsic functions' questions for one template and its parameters.

    ``parameters`` is the template's :class:`Parameters` (pseudo parameters
    included); ``resources`` the live resource map of a stack (None while
    validating); ``resource_class`` tells validation which plug-in class a
    resource name has, so that ``get_attr`` names can be checked;
    ``facade`` gives ``resource_facade``'s answer for a key (a nested
    stack's parent resource; None: a top-level stack).
    """

    def __init__(self, template: Template, parameters: Parameters, *,
                 stack_name: str = "", stack_id: str | None = None,
                 project_id: str | None = None,
                 resources: Mapping[str, Any] | None = None,
                 resource_class: ResourceClassLookup | None = None,
                 facade: Callable[[str], Any] | None = None) -> None:
        self.template = template
        self.params = parameters
        self.resources = resources
        self.resource_class = resource_class
        self._facade = facade
        self.stack_name = stack_name
        self.stack_id = stack_id
        self.project_id = project_id
        self.files: Mapping[str, str] = template.files
        self._values: dict[str, Any] = {}
        self._conditions: Conditions | None = None
        self._names: list[str] | None = None

    def attach(self, resources: Mapping[str, Any]) -> None:
        """Resolve against the live ``resources`` from now on (a stack built from it)."""
        self.resources = resources

    @property
    def live(self) -> bool:
        """Return whether this context resolves against real resources."""
        return self.resources is not None

    # --- parameters ----------------------------------------------------------
    def parameter_names(self) -> list[str]:
        """Return the declared parameter names (for "did you mean" hints)."""
        return self.params.non_pseudo_names()

    def parameter_value(self, name: str) -> Any:
        """Return a parameter's value; an unknown name is an InvalidTemplateReference.

        While validating without values (``validate_value`` false), a
        parameter with neither default nor value resolves to None.
        """
        if name in self._values:
            return self._values[name]
        if name not in self.params:
            raise exception.InvalidTemplateReference(
                f'The specified reference "{name}" is incorrect.'
                + exception.did_you_mean(name, self.params.non_pseudo_names()))
        value = None if not self.parameter_known(name) else self.params[name]
        self._values[name] = value
        return value

    def parameter_known(self, name: str) -> bool:
        """Return whether parameter ``name`` has a value (or an unknown name: reported elsewhere).

        Only while validating without values (``validate_value`` false) can
        a declared parameter have none: its value comes when the stack (a
        provider template's nested stack) is created.
        """
        param = self.params.params.get(name)
        return param is None or self.params.validate_value or param.has_default() \
            or param.user_value is not None

    # --- conditions ----------------------------------------------------------
    @property
    def conditions(self) -> Conditions:
        """Return the one evaluator of the template's ``conditions`` section."""
        if self._conditions is None:
            version = self.template.version
            self._conditions = Conditions(version, self,
                                          self.template.data.get(version.spell("conditions")))
        return self._conditions

    def condition(self, name: str) -> bool:
        """Return the truth of the named condition."""
        return self.conditions.is_enabled(name)

    # --- mappings (CloudFormation format) -----------------------------------
    def mappings(self) -> Mapping[str, Any]:
        """Return the template's ``Mappings`` section (empty when it has none)."""
        section: Mapping[str, Any] = self.template.section("mappings")
        return section

    # --- resources -----------------------------------------------------------
    def resource_names(self) -> list[str]:
        """Return the names of the enabled resources."""
        if self.resources is not None:
            return list(self.resources)
        if self._names is None:
            self._names = self.template.enabled_resource_names(self)
        return list(self._names)

    def has_resource(self, name: str) -> bool:
        """Return whether ``name`` is an enabled resource."""
        if self.resources is not None:
            return name in self.resources
        return name in self.resource_names()

    def _live(self, name: str) -> Any:
        """Return the live resource ``name`` (None while validating)."""
        if self.resources is None:
            return None
        try:
            return self.resources[name]
        except KeyError:
            raise exception.InvalidTemplateReference(
                f'The specified reference "{name}" is incorrect.') from None

    def resource_reference(self, name: str) -> Any:
        """Return ``get_resource`` of ``name``: the physical id, else the name (None unknown)."""
        resource = self._live(name)
        return None if resource is None else resource.FnGetRefId()

    def resource_attribute(self, name: str, attribute: str, path: list[Any]) -> Any:
        """Return ``get_attr`` of ``name`` (None before the resource is created)."""
        resource = self._live(name)
        if resource is None or resource.action == "INIT":
            return None
        return resource.FnGetAtt(attribute, *path)

    def resource_all_attributes(self, name: str) -> Any:
        """Return every attribute of ``name`` as a map (None before it exists)."""
        resource = self._live(name)
        if resource is None:
            return None
        return {key: self.resource_attribute(name, key, [])
                for key in getattr(resource, "attributes_schema", {})}

    def _class_of(self, name: str) -> Any:
        if self.resources is not None:
            resource = self.resources.get(name)
            return None if resource is None else type(resource)
        return self.resource_class(name) if self.resource_class is not None else None

    def validate_attribute(self, name: str, attribute: str) -> None:
        """Raise InvalidTemplateAttribute when the type of ``name`` lacks ``attribute``."""
        cls = self._class_of(name)
        if cls is not None and not cls.has_attribute(attribute):
            raise exception.InvalidTemplateAttribute.named(
                name, attribute, cls.attribute_names())

    def attach_facade(self, facade: Callable[[str], Any]) -> None:
        """Answer ``resource_facade`` with ``facade(key)`` from now on (a loaded nested stack)."""
        self._facade = facade

    def facade(self, key: str) -> Any:
        """Return the parent resource's value of ``key`` (None: a top-level stack has none)."""
        return None if self._facade is None else self._facade(key)
