"""Plan a stack update: compose the new template, classify resources, build the graph.

Pure decisions, no acting: :func:`compose_request` applies PUT or PATCH
semantics to the stored template, files and environment;
:func:`classify` sorts resources into Heat's preview categories (added,
deleted, replaced, updated, unchanged); :func:`update_graph` builds the one
dependency map the update walks, with an ``update`` node per resource of
the new template and a ``cleanup`` node per resource that may have to go.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.engine.stacks.leftovers import merge_environment
from hearth.engine.stacks.stack import exists
from hearth.engine.template.environment import declared_parameters

if TYPE_CHECKING:
    from hearth.engine.resource import Resource

#: Heat's update preview categories, in the order of its response.
CHANGES = (ADDED, DELETED, REPLACED, UPDATED, UNCHANGED) = (
    "added", "deleted", "replaced", "updated", "unchanged")

#: Walk node kinds: bring a resource to the new definition / delete what is left over.
UPDATE, CLEANUP = "update", "cleanup"

Node = tuple[str, str]


def compose_request(old_template: Any, old_files: Mapping[str, str] | None,
                    old_env: Mapping[str, Any] | None, template: Any,
                    files: Mapping[str, str] | None, env: Mapping[str, Any],
                    existing: bool, clear_parameters: Iterable[str] | None = None
                    ) -> tuple[Any, dict[str, str], dict[str, Any]]:
    """Return the (template, files, environment) an update stores.

    PUT (``existing`` false) takes the request as it is: parameters not
    given fall back to their defaults.  PATCH reuses the stored template when
    none is given, merges files and environment over the stored ones, resets
    ``clear_parameters`` to their defaults and, as Heat, drops the stored
    parameter values the template no longer declares.
    """
    if not existing:
        if template is None:
            raise exception.BadRequest(message="A template is required for a stack update "
                                               "without existing (PATCH).")
        return template, dict(files or {}), dict(env)
    template = old_template if template is None else template
    merged_env = merge_environment(old_env or {}, env)
    for name in clear_parameters or ():
        for section in ("parameters", "parameter_defaults"):
            merged_env.get(section, {}).pop(name, None)
    declared = declared_parameters(template)
    if isinstance(merged_env.get("parameters"), Mapping):
        merged_env["parameters"] = {name: value for name, value
                                    in merged_env["parameters"].items() if name in declared}
    merged_files = {**(old_files or {}), **(files or {})}
    return template, merged_files, merged_env


def change_of(resource: Resource, after: Any, after_class: type | None = None) -> str:
    """Return how ``resource`` changes to definition ``after``: replaced, updated or unchanged.

    As Heat, ``after`` (resolved now) is compared with the properties the
    resource's last action stored (:meth:`~hearth.engine.resource.Resource.frozen_definition`).

    ``after_class`` is the class the new environment gives ``after``'s type:
    another plug-in than the resource's is a replacement.

    Raises what the resource raises for a change it refuses (an immutable
    property: :class:`NotSupported`).
    """
    if (not exists(resource) or not resource.same_type(getattr(after, "type", None))
            or (after_class is not None and not resource.same_implementation(after_class))):
        return REPLACED
    try:
        before = resource.frozen_definition()
        after_props = resource.make_properties(after)
        if not resource._needs_update(after, before, after_props,
                                      resource.make_properties(before)):
            return UNCHANGED
        resource.update_diffs(after, before)
    except exception.UpdateReplace:
        return REPLACED
    return UPDATED


def classify(current: Mapping[str, Any], definitions: Mapping[str, Any],
             class_of: Callable[[str, Any], type] | None = None,
             order: Iterable[str] | None = None,
             forget: Callable[[str], None] | None = None) -> dict[str, list[str]]:
    """Return ``{change: [resource names]}`` for ``current`` live resources -> ``definitions``.

    ``class_of(name, definition)`` gives the class the new environment gives
    a definition (another plug-in than the live one's is a replacement).
    ``order`` names the definitions dependencies first (default: as
    given); ``forget(name)`` is called for each one found added, replaced or
    updated, before any resource reading it is compared: what the update
    will make of it is not known yet, so the caller makes what it gives
    unknown (as in Heat's preview; a resource reading only unchanged ones is
    compared with their values now).
    """
    result: dict[str, list[str]] = {change: [] for change in CHANGES}
    for name in (definitions if order is None else order):
        after = definitions[name]
        resource = current.get(name)
        if not exists(resource):
            change = ADDED
        else:
            after_class = None if class_of is None else class_of(name, after)
            change = change_of(resource, after, after_class)
        result[change].append(name)
        if change != UNCHANGED and forget is not None:
            forget(name)
    position = {name: index for index, name in enumerate(definitions)}
    for change in (ADDED, REPLACED, UPDATED, UNCHANGED):
        result[change].sort(key=position.__getitem__)
    result[DELETED] = [name for name, resource in current.items()
                       if name not in definitions and exists(resource)]
    return result


def _users(requires: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """Return ``{name: the names that require it}`` of a requirement map."""
    users: dict[str, set[str]] = {}
    for user, needs in requires.items():
        for need in needs:
            users.setdefault(need, set()).add(user)
    return users


def update_graph(current: Mapping[str, Any], definitions: Mapping[str, Any],
                 leftovers: Iterable[str] = (),
                 new_requires: Mapping[str, Iterable[str]] | None = None
                 ) -> dict[Node, set[Node]]:
    """Return the forward dependency map of an update.

    ``(update, n)`` needs the update of what ``n`` requires in the new
    template.  ``(cleanup, n)`` (delete a removed or replaced ``n``) waits for
    ``n``'s own update, for the update of every new resource that requires
    ``n`` (so dependants point elsewhere first) and for the cleanup of every
    old resource that required ``n`` (dependants are deleted first).
    ``new_requires`` is the new template's requirement map when the caller
    has it (its dependency graph), else it is read from ``definitions``.
    """
    if new_requires is None:
        new_requires = {name: d.dependencies() & set(definitions)
                        for name, d in definitions.items()}
    old_requires = {name: r.t.dependencies() & set(current) for name, r in current.items()}
    graph: dict[Node, set[Node]] = {
        (UPDATE, name): {(UPDATE, need) for need in needs}
        for name, needs in new_requires.items()}
    new_users, old_users = _users(new_requires), _users(old_requires)
    for name in {*current, *leftovers}:
        needs = {(UPDATE, name)} if name in definitions else set()
        needs |= {(UPDATE, user) for user in new_users.get(name, ())}
        needs |= {(CLEANUP, user) for user in old_users.get(name, ())}
        graph[(CLEANUP, name)] = needs
    return graph
