"""Keep what a stopped update leaves behind, until the next update or the stack's delete.

An update that fails and is not rolled back (a failed rollback, a cancel
without rollback) stops with resources of two templates.  As Heat does,
nothing is deleted then (:func:`keep`):

- the stack's stored template becomes a *merged* template
  (:func:`merged_template`): each resource left in the stack keeps the
  definition that describes it: the new one when its update or create ran,
  the old one when its update was not reached or failed in place, and
  when the update removed it but did not delete it yet;
- an original whose replacement was made but which is not deleted yet
  (its row's ``replaced_by`` set) stays stored with its own definition
  (the row's ``definition``).

The next update loads those originals (:func:`load`) and, as Heat, swaps
one back in place of a replacement that failed or was never created
(:func:`split`); the others are deleted by its cleanup nodes.  A stack
delete deletes them in the same walk as the rest (:func:`deletion_graph`).

The merged template's environment and parameters are the new ones over
the old ones (as Heat's legacy engine).  So that an old definition keeps
the values it was made with, its parts that need no resource are stored
resolved, and so are its references to a resource replaced since (the
original's values; :func:`frozen_snippet`); those reading a hidden
parameter are not (they read the new value).
"""

from __future__ import annotations

import copy
import graphlib
import logging
from collections.abc import Hashable, Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.located import plain
from hearth.db import api_resources, api_stacks, models
from hearth.engine.resources.stored_properties import StoredProperties
from hearth.engine.stacks.prepare import StackIdentity, rebuild
from hearth.engine.stacks.stack import exists
from hearth.engine.states import COMPLETE, DELETE, FAILED, INIT
from hearth.engine.template import function
from hearth.engine.template.versions import get_version, section_of

if TYPE_CHECKING:
    from hearth.engine.resource import Resource
    from hearth.engine.stacks.stack import Stack
    from hearth.engine.template.resource_definition import ResourceDefinition

LOG = logging.getLogger(__name__)

#: template sections an old definition may read, merged (the new template's entries win)
MERGED_SECTIONS = ("parameters", "conditions")
#: the definition fields whose functions :func:`frozen_snippet` resolves
FROZEN_FIELDS = ("properties", "metadata", "deletion_policy", "update_policy", "external_id")


def _reads_hidden(value: Any) -> bool:
    """Return whether a parsed snippet reads a hidden parameter (or one named at run time)."""
    if isinstance(value, function.Function) and value.reads_parameter():
        name = value.parameter_name()
        if name is None:
            return True
        param = value.context.params.params.get(name)
        if param is not None and param.schema.hidden:
            return True
    if isinstance(value, function.Macro):
        return _reads_hidden(value.parsed)
    if isinstance(value, function.Function):
        return _reads_hidden(value.args)
    if isinstance(value, dict):
        return any(_reads_hidden(key) or _reads_hidden(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_reads_hidden(item) for item in value)
    return False


class _Freezer:
    """Turn parsed snippets into template data, resolving the calls that keep a value.

    A call is resolved when it needs no resource, or when a resource it
    names is not the one the stack now holds under that name (a replaced
    original: the call keeps its value, and the name joins :attr:`needs`
    so that the order stays).  Never when it reads a hidden parameter.
    """

    def __init__(self, survivors: Mapping[str, Any] | None = None) -> None:
        self.survivors = survivors or {}
        self.needs: set[str] = set()

    def _replaced(self, call: function.Function, names: set[str]) -> bool:
        known = call.context.resources or {}
        return any(name in known and name in self.survivors
                   and known[name] is not self.survivors[name] for name in names)

    def freeze(self, value: Any) -> Any:
        """Return ``value`` as template data (plain values and function calls)."""
        if isinstance(value, function.Function):
            names = set(value.dependencies())
            if (not names or self._replaced(value, names)) and not _reads_hidden(value):
                try:
                    result = plain(function.resolve(value))
                except exception.HearthException:
                    pass
                else:
                    self.needs |= names
                    return result
            if isinstance(value, function.Macro):
                return self.freeze(value.parsed)
            return {value.fn_name: self.freeze(value.args)}
        if isinstance(value, dict):
            items = {key: self.freeze(item) for key, item in value.items()}
            return {(function.resolve(key) if isinstance(key, function.Function) else key): item
                    for key, item in items.items() if item is not function.ABSENT}
        if isinstance(value, list):
            return [item for item in map(self.freeze, value) if item is not function.ABSENT]
        return value


def frozen_snippet(definition: Any, survivors: Mapping[str, Any] | None = None
                   ) -> dict[str, Any]:
    """Return a definition's snippet with the values it was made with.

    Each function call that needs no resource (``get_param``, ``if``,
    ``str_replace`` of parameters...) is replaced by its value in the
    definition's own template, and so is each call naming a resource that is
    not ``survivors``' resource of that name any more (the definition still
    reads the replaced original); unless it reads a hidden parameter (a
    secret is never written in a template).
    """
    freezer = _Freezer(survivors)
    snippet: dict[str, Any] = copy.deepcopy(definition.render_hot())
    for field in FROZEN_FIELDS:
        key = definition.key(field)
        if snippet.get(key) is not None:
            snippet[key] = freezer.freeze(getattr(definition, field))
            if snippet[key] is function.ABSENT:
                del snippet[key]
    if freezer.needs:
        key = definition.key("depends_on")
        depends = snippet.get(key) or []
        depends = [depends] if isinstance(depends, str) else list(depends)
        snippet[key] = depends + sorted(freezer.needs - set(depends))
    return snippet


def snippet_of(resource: Resource, names: set[str] | None = None, freeze: bool = True,
               survivors: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return the template snippet of a live resource's definition.

    Frozen (:func:`frozen_snippet`, against ``survivors``) unless ``freeze``
    is false; without ``condition`` (the resource exists) and, when
    ``names`` is given, with ``depends_on`` kept to those names.
    """
    snippet = (frozen_snippet(resource.t, survivors) if freeze
               else copy.deepcopy(resource.t.render_hot()))
    snippet.pop(resource.t.key("condition"), None)
    depends_key = resource.t.key("depends_on")
    depends = snippet.get(depends_key)
    if names is not None and depends is not None:
        kept = [name for name in ([depends] if isinstance(depends, str) else depends)
                if name in names]
        if kept:
            snippet[depends_key] = kept
        else:
            del snippet[depends_key]
    return snippet


def merged_template(old: Any, new: Any, survivors: Mapping[str, Any],
                    updated: AbstractSet[str] = frozenset()
                    ) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """Return (template, files, environment) describing ``survivors`` after a stopped update.

    ``old`` and ``new`` are the stored raw templates the update went from and
    to; ``survivors`` maps each name left in the stack to its resource,
    ``updated`` names those whose definition is the new template's (the
    others are frozen).  The new template gives everything but the
    resources; the sections old definitions may read
    (:data:`MERGED_SECTIONS`), the files and the environment are the old
    ones with the new ones over them.
    """
    data = copy.deepcopy(dict(new.template))
    spell = get_version(data).spell
    for section in MERGED_SECTIONS:
        merged = {**section_of(old.template, section, {}), **section_of(data, section, {})}
        if merged:
            data[spell(section)] = copy.deepcopy(merged)
    names = set(survivors)
    data[spell("resources")] = {name: snippet_of(resource, names, name not in updated, survivors)
                                for name, resource in survivors.items()}
    files = {**(old.files or {}), **(new.files or {})}
    return data, files, merge_environment(old.environment or {}, new.environment or {})


def keep(stack: Stack, survivors: Mapping[str, Any], updated: set[str],
         leftovers: Mapping[str, list[Any]], old_template_id: int, new_template_id: int
         ) -> None:
    """Store the merged template as the stack's, and the leftovers' own definitions.

    ``updated`` names the survivors whose definition is the new template's.

    Raises the template's error (a :class:`HearthException`) when the merged
    template cannot be loaded back with every survivor in it; nothing is
    stored then.
    """
    old = api_stacks.raw_template_get(stack.db, old_template_id)
    new = api_stacks.raw_template_get(stack.db, new_template_id)
    data, files, env = merged_template(old, new, survivors, updated)
    prepared = rebuild(data, files, env, StackIdentity.of(stack.row))
    missing = sorted(set(survivors) - set(prepared.definitions))
    if missing:
        raise exception.StackValidationFailed(
            f"The merged template of a stopped update lacks {', '.join(missing)}",
            path=["resources"])
    prepared.build(stack.db, stack.row, stack.registry).requires()  # every type, every edge
    raw = api_stacks.raw_template_create(stack.db, data, files, env)
    for name, items in leftovers.items():
        survivor = survivors.get(name)
        marked = {} if survivor is None else {"replaced_by": survivor.db_id}  # never listed
        for resource in items:
            api_resources.resource_update(stack.db, resource.db_id, **marked,
                                          definition=snippet_of(resource, survivors=survivors))
    stack.row = api_stacks.stack_update(stack.db, stack.id, raw_template_id=raw.id)
    LOG.info("stack %s: the stopped update's resources are kept (%d left in the stack, "
             "%d originals to delete later)", stack.name, len(survivors),
             sum(len(items) for items in leftovers.values()))


def load(stack: Stack) -> dict[str, list[Resource]]:
    """Return ``{name: [originals]}``: the leftovers of an earlier stopped update, oldest first.

    A leftover is every stored resource of the stack that is not the
    stack's resource of its name: the originals a stopped update kept, and
    whatever an engine that died mid-update left (a removed resource, an
    original not yet marked replaced).  Each is built with its stored
    definition, parsed in ``stack``'s template (one without, or that no
    longer parses, is read as its type alone: enough to delete it).
    """
    return _load(stack)[0]


def resume(stack: Stack) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Return (doomed, originals) of a new update of ``stack``: its leftovers, :func:`split`."""
    loaded, described = _load(stack)
    return split(stack.resources, loaded, described)


def _load(stack: Stack) -> tuple[dict[str, list[Resource]], set[int]]:
    """Return :func:`load`'s map and the row ids of those whose definition was kept."""
    result: dict[str, list[Resource]] = {}
    described: set[int] = set()
    attached = {resource.db_id for resource in stack.resources.values()}
    if (None not in attached
            and api_resources.resource_count_by_stack(stack.db, stack.id) == len(attached)):
        return result, described  # every stored row is the stack's own: no leftover
    for row in api_resources.resource_get_all_by_stack(stack.db, stack.id):
        if row.id in attached:
            continue
        if row.definition is not None:
            described.add(row.id)
        definition = _definition(stack, row)
        resource = stack.make_resource(row.name, definition)
        resource.db_id, resource.uuid = row.id, row.uuid
        resource.action, resource.status = row.action, row.status
        resource.status_reason = row.status_reason
        resource.resource_id = row.physical_resource_id
        resource.stored_properties = StoredProperties.from_column(row.properties_data)
        result.setdefault(row.name, []).append(resource)
    return result, described


def _definition(stack: Stack, row: models.Resource) -> ResourceDefinition:
    snippet = row.definition or {"type": row.type}
    try:
        return stack.template.resource_definition(stack.context, row.name, snippet)
    except exception.HearthException as error:
        LOG.warning("stack %s: the kept definition of %s no longer parses (%s); "
                    "read as its type alone", stack.name, row.name, error)
        return stack.template.resource_definition(stack.context, row.name,
                                                  {"type": row.type})


def usable(resource: Resource | None) -> bool:
    """Return whether a resource was made and is neither failed nor deleted."""
    return (exists(resource) and resource.status != FAILED
            and (resource.action, resource.status) != (INIT, COMPLETE)
            and resource.action != DELETE)


def split(current: Mapping[str, Any], loaded: Mapping[str, list[Any]],
          described: set[int] | None = None) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Return (doomed, originals) of an update starting with ``loaded`` leftovers.

    As Heat: where the stack's resource is not usable (its replacement
    failed, or was never made) and a leftover original is, the newest such
    original is swapped back (``originals``); every other leftover is doomed.
    Only originals whose row id is in ``described`` (their definition was
    kept; all when None) are swapped back.
    """
    doomed = {name: list(items) for name, items in loaded.items()}
    originals = {}
    for name, items in loaded.items():
        candidates = [item for item in items if usable(item)
                      and (described is None or item.db_id in described)]
        if candidates and not usable(current.get(name)):
            originals[name] = candidates[-1]
    return doomed, originals


def deletion_graph(stack: Stack) -> tuple[dict[Hashable, set[Hashable]], dict[Hashable, Any]]:
    """Return (requires, resources) of a stack delete: its resources and its leftovers.

    A leftover (node ``(name, row id)``) is deleted after every resource that
    requires its name and before the resources its own definition requires
    (without those last edges if they would make a cycle).
    """
    requires: dict[Hashable, set[Hashable]] = {
        name: set(needs) for name, needs in stack.requires().items()}
    nodes: dict[Hashable, Any] = {name: resource for name, resource in stack.resources.items()}
    loaded = load(stack)
    if not loaded:
        return requires, nodes
    users: dict[Hashable, set[Hashable]] = {}
    for node, needs in requires.items():
        for need in needs:
            users.setdefault(need, set()).add(node)
    own: dict[Hashable, set[Hashable]] = {}
    for name, items in loaded.items():
        for resource in items:
            key = (name, resource.db_id)
            nodes[key] = resource
            own[key] = resource.t.dependencies() & set(stack.resources)
            requires[key] = set()
            for user in users.get(name, ()):
                requires[user].add(key)
    with_own = {node: needs | own.get(node, set()) for node, needs in requires.items()}
    try:
        graphlib.TopologicalSorter(with_own).prepare()
    except graphlib.CycleError:
        return requires, nodes
    return with_own, nodes


def merge_environment(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``old`` with each section of ``new`` merged over it (maps) or replacing it."""
    merged = copy.deepcopy(dict(old))
    for key, value in new.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = copy.deepcopy(value)
    return merged
