"""The nested (child) stack of a parent resource, as validation sees it.

A child stack is an ordinary stack of the same tables: its record names its
parent (``owner_id``, ``parent_resource_name``, ``nested_depth``), it is in
the parent's project, never rolls back on its own (the parent does) and is
acted on under the parent's lock.  This module validates its template with
the parent's (:func:`validate_child`) and prepares its pieces
(:func:`prepare_child`); storing, loading and running it is
:mod:`hearth.engine.nested.runtime`, the run-time half (the database and the
green threads), which plug-ins never import: ``template-validate`` loads
every plug-in without SQLAlchemy or eventlet.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from hearth.common import exception
from hearth.engine.nested import limits
from hearth.engine.nested.environment import child_environment
from hearth.engine.resources.validation import DefinitionChecker
from hearth.engine.stacks.prepare import PreparedStack, StackIdentity, prepare
from hearth.engine.template import function
from hearth.engine.template.template import Template
from hearth.engine.template.versions import get_version

if TYPE_CHECKING:
    from hearth.engine.nested.stack_resource import StackResource
    from hearth.engine.resources.stack_view import StackView
    from hearth.engine.stacks.stack import Stack


def is_live(stack: StackView) -> TypeGuard[Stack]:
    """Return whether ``stack`` is a stored, running Stack (not a validation view)."""
    return getattr(stack, "row", None) is not None and getattr(stack, "db", None) is not None


def live_parent(resource: StackResource) -> Stack:
    """Return the running Stack ``resource`` is in: where its nested stack is stored and acts."""
    parent = resource.stack
    if not is_live(parent):
        raise exception.NotSupported(feature=f"acting on the nested stack of {resource.name} "
                                             "outside a stored stack")
    return parent


def depth_of(stack: StackView) -> int:
    """Return the nesting depth of a stack or a validation view (top-level: 0)."""
    row = getattr(stack, "row", None)
    depth = getattr(row, "nested_depth", None) if row is not None else None
    if depth is None:
        depth = getattr(stack, "nested_depth", 0)
    return int(depth or 0)


def _checker(resource: StackResource, env: Any, files: Mapping[str, str], depth: int,
             name: str) -> Any:
    return DefinitionChecker(resource.stack.registry, env, files, nested_depth=depth,
                             stack_name=name)


def _environment(resource: StackResource, params: Mapping[str, Any] | None) -> Any:
    return child_environment(resource.stack.env, params, resource.name,
                             resource.child_removed_type())


def validate_child(resource: StackResource, template: Any,
                   params: Mapping[str, Any] | None) -> None:
    """Validate the child template as the parent is validated (values may still be unknown)."""
    depth = limits.child_depth(depth_of(resource.stack))
    known = {key: value for key, value in (params or {}).items() if value is not None}
    files = resource.child_files()
    env = _environment(resource, known)
    name = f"{resource.stack.name}-{resource.name}"
    child = Template(template, files=files, env=env, filename=resource.child_template_name())
    checker = _checker(resource, env, files, depth, name)
    child.validate(validation_context(child, resource, checker), checker)


def validation_context(child: Template, resource: StackResource, checker: Any,
                       user_params: Mapping[str, Any] | None = None) -> Any:
    """Return the context ``resource``'s child template (a Template) is validated in.

    As the parent is validated: parameter values may still be unknown, and
    ``resource_facade`` reads the parent resource, as at run time (its
    metadata and policies; a value known only later reads as unknown).
    """
    params = child.parameters(user_params, validate_value=False)
    return child.context(params, resource_class=child.class_lookup(checker),
                         facade=functools.partial(facade_value, resource))


def facade_value(resource: StackResource, key: str) -> Any:
    """Return what ``resource_facade: key`` gives inside ``resource``'s nested stack.

    The parent resource's ``metadata``, ``deletion_policy`` (Delete when
    unset) or ``update_policy`` (a map), resolved, as Heat gives them.
    """
    value = function.resolve(getattr(resource.t, key, None))
    if key == "deletion_policy":
        return value or "Delete"
    return value if value is not None else {}


def attach_facade(context: Any, resource: StackResource) -> None:
    """Make ``resource_facade`` in the child's context read the parent ``resource``."""
    context.attach_facade(functools.partial(facade_value, resource))


def hiding_inherited_secrets(template: Any, params: Mapping[str, Any] | None,
                             secrets: list[str]) -> Any:
    """Return ``template`` with every parameter given a parent's secret declared hidden.

    A value hidden in the parent (a hidden parameter, a secret a resource
    keeps) stays hidden in the nested stack's parameters and events, even
    when the nested template does not declare that parameter hidden.
    """
    given = {name for name, value in (params or {}).items()
             if value not in (None, "") and str(value) in secrets}
    if not given:
        return template
    try:
        version = get_version(template)
    except exception.InvalidTemplateVersion:
        return template  # refused where the child is built
    section, hidden_key = version.spell("parameters"), version.spell("hidden")
    declared = template.get(section)
    if not isinstance(declared, Mapping):
        return template
    hidden = {name: ({**definition, hidden_key: True}
                     if name in given and isinstance(definition, Mapping) else definition)
              for name, definition in declared.items()}
    return {**template, section: hidden}


def prepare_child(resource: StackResource, template: Any, params: Mapping[str, Any] | None,
                  identity: StackIdentity,
                  kept_files: Mapping[str, str] | None = None) -> PreparedStack:
    """Validate the child in full (as a stack create) and return its pieces.

    ``kept_files``: the files the child had, for the names the parent's files
    no longer hold (an update keeps reading its members' provider templates).
    """
    depth = limits.child_depth(depth_of(resource.stack))
    files = {**(kept_files or {}), **resource.child_files()}
    env = _environment(resource, params)
    if is_live(resource.stack):
        template = hiding_inherited_secrets(template, params, resource.stack.secrets())
    return prepare(template, files, env, identity,
                   _checker(resource, env, files, depth, identity.name),
                   facade=functools.partial(facade_value, resource))
