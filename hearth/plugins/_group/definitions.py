"""Member definitions and the nested templates of resource groups and chains.

A group's member is its ``resource_def`` with the index variable (default
``%index%``) replaced by the member's name in every string of its
``properties`` (values at any depth, not keys; ``metadata`` is kept as
written, as Heat does), and properties set to null dropped.  The nested
template holds the members under their names, with the ``refs_map``
output of every group (:func:`hearth.engine.scaling.members.nested_template`).

A rolling update moves the group there a batch at a time:
:func:`rolling_members` is Heat's choice of the members of one batch.  A
chain's members are its types in order, each given ``resource_properties``
and depending on the one before it unless ``concurrent``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hearth.common import exception
from hearth.engine.scaling.members import Definition, Member, member_definition, nested_template
from hearth.engine.template import function

#: The default of ``index_var``.
DEFAULT_INDEX_VAR = "%index%"
RESOURCE_DEF_KEYS = (TYPE, PROPERTIES, METADATA) = ("type", "properties", "metadata")


def resolve_known(snippet: Any) -> Any:
    """Resolve ``snippet``, a function needing a parameter without a value giving None.

    Validation reads a group's properties before parameters have values
    (``template-validate``): what is not known yet is left out, as Heat does.
    """
    if isinstance(snippet, function.Function):
        try:
            result = snippet.result()
        except exception.UserParameterMissing:
            return None
        return resolve_known(result)
    if isinstance(snippet, Mapping):
        resolved = {key: resolve_known(value) for key, value in snippet.items()}
        return {key: value for key, value in resolved.items() if value is not function.ABSENT}
    if isinstance(snippet, list):
        return [item for item in map(resolve_known, snippet) if item is not function.ABSENT]
    return snippet


def replace_index(value: Any, index_var: str, name: str) -> Any:
    """Return ``value`` with ``index_var`` replaced by ``name`` in every string in it."""
    if isinstance(value, str):
        return value.replace(index_var, name)
    if isinstance(value, Mapping):
        return {key: replace_index(item, index_var, name) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [replace_index(item, index_var, name) for item in value]
    return value


def member(resource_def: Mapping[str, Any], name: str,
           index_var: str = DEFAULT_INDEX_VAR) -> Definition:
    """Return the definition of member ``name`` of a group with this ``resource_def``."""
    properties = {key: value for key, value in (resource_def.get(PROPERTIES) or {}).items()
                  if value is not None}
    return member_definition({TYPE: resource_def[TYPE],
                              PROPERTIES: replace_index(properties, index_var, name),
                              METADATA: resource_def.get(METADATA)})


def group_members(resource_def: Mapping[str, Any], names: Iterable[str],
                  index_var: str = DEFAULT_INDEX_VAR) -> list[Member]:
    """Return the (name, definition) of every member named."""
    return [(name, member(resource_def, name, index_var)) for name in names]


def group_template(resource_def: Mapping[str, Any], names: Iterable[str],
                   index_var: str = DEFAULT_INDEX_VAR) -> dict[str, Any]:
    """Return the nested template of a group whose members are ``names``."""
    return nested_template(group_members(resource_def, names, index_var))


def _replace_priority(names: Sequence[str], target: int, capacity: int
                      ) -> Callable[[Member], int]:
    """Return the sort key of existing members: removed first, then higher indices first."""
    position = {name: index for index, name in enumerate(names)}

    def priority(item: Member) -> int:
        index = position.get(item[0])
        if index is None:
            return 0  # no longer a member: goes first
        return target - index if index < target else capacity

    return priority


def rolling_members(existing: Sequence[Member], names: Sequence[str], target: int,
                    num_new: int, build: Callable[[str], Definition]) -> list[Member]:
    """Return the members of a group after one batch of a rolling update (Heat's rule).

    ``existing`` are the current (name, definition) pairs, skip-listed ones
    left out; ``names`` the group's member names at the batch's capacity
    (``len(names)``), of which the first ``target`` are the group's size at
    the end; ``build(name)`` the new definition of a member.  Members no
    longer named go first, the rest keep their place from the highest index
    down; ``num_new`` members get the new definition: those created, then
    existing ones whose definition differs, in that order.
    """
    capacity = len(names)
    ordered = sorted(existing, key=_replace_priority(names, target, capacity))
    kept = ordered[len(ordered) - capacity:] if capacity < len(ordered) else ordered
    taken = {name for name, _ in existing}
    new_names = iter([name for name in names if name not in taken])
    to_replace = num_new - (capacity - len(kept))
    members: list[Member] = []
    for name, definition in kept:
        wanted = build(name)
        if definition != wanted and to_replace > 0:
            to_replace -= 1
            members.append((name, wanted))
        else:
            members.append((name, definition))
    for _ in range(capacity - len(kept)):
        name = next(new_names)
        members.append((name, build(name)))
    return members


def chain_members(types: Sequence[str], properties: Mapping[str, Any] | None,
                  concurrent: bool) -> list[Member]:
    """Return a chain's members "0".."n-1": one per type, each after the previous one."""
    members: list[Member] = []
    for index, type_name in enumerate(types):
        definition: Definition = {TYPE: type_name}
        if properties:
            definition[PROPERTIES] = dict(properties)
        if index and not concurrent:
            definition["depends_on"] = [str(index - 1)]
        members.append((str(index), definition))
    return members


def chain_template(types: Sequence[str], properties: Mapping[str, Any] | None,
                   concurrent: bool) -> dict[str, Any]:
    """Return the nested template of a chain of ``types``."""
    template = nested_template(chain_members(types, properties, concurrent))
    template.pop("outputs", None)  # a chain's nested stack has no refs_map output
    return template
