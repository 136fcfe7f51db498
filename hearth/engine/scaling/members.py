"""A scaling group's members: their names, their definitions and the nested template.

Members of an ``OS::Heat::AutoScalingGroup`` get random 12-character names
(Heat's short ids), never indices.  :func:`member_definitions` is Heat's
rule for the next shape of the group: keep the newest ``count`` existing
members (failed ones, then the oldest, go first), give ``num_new`` of them
the new definition (members to create count first), and name the ones to
create.  :func:`nested_template` turns the result into the HOT template of
the group's nested stack, with the ``refs_map`` output Heat defines.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Container, Mapping, Sequence
from datetime import datetime
from typing import Any

from hearth.engine.resource import short_id

#: The template version of a group's nested stack (as Heat writes it).
NESTED_TEMPLATE_VERSION = "2015-04-30"
#: The nested stack's output mapping member names to their reference ids.
REFS_MAP_OUTPUT = "refs_map"

Definition = dict[str, Any]
Member = tuple[str, Definition]


def new_member_name(taken: Container[str] = ()) -> str:
    """Return a random short name (12 lower-case letters and digits) not in ``taken``."""
    while True:
        name = short_id(str(uuid.uuid4()))
        if name not in taken:
            return name


def member_definition(resource: Mapping[str, Any]) -> Definition:
    """Return the member definition of a group's ``resource`` map, empty parts dropped.

    Two definitions that differ only by an empty ``properties`` or a
    missing ``metadata`` compare equal.
    """
    return {key: value for key, value in resource.items()
            if value is not None and not (key in ("properties", "metadata") and value == {})}


def member_order_key(status: str, created: datetime | int | str, name: str
                     ) -> tuple[bool, datetime | int | str, str]:
    """Return the sort key of a member: failed ones first, then the oldest, then by name.

    ``created`` orders members by age: a creation time, or the id of the
    member's stored row (rows are numbered in creation order).
    """
    return (status != "FAILED", created, name)


def member_definitions(old_members: Sequence[Member], new_definition: Definition, count: int,
                       num_new: int,
                       make_name: Callable[[Container[str]], str] = new_member_name
                       ) -> list[Member]:
    """Return the ``count`` members of the group's next shape, in order.

    ``old_members`` are the existing (name, definition) pairs in removal
    order (:func:`member_order_key`): when shrinking, the first go.
    ``num_new`` members get ``new_definition``: every member created, then
    existing ones whose definition differs, first first; the others keep
    theirs.
    """
    kept = list(old_members[-count:]) if count > 0 else []
    to_replace = num_new - (count - len(kept))
    members: list[Member] = []
    for name, definition in kept:
        if definition != new_definition and to_replace > 0:
            to_replace -= 1
            members.append((name, new_definition))
        else:
            members.append((name, definition))
    taken = {name for name, _ in old_members}
    for _ in range(count - len(kept)):
        name = make_name(taken)
        taken.add(name)
        members.append((name, new_definition))
    return members


def nested_template(members: Sequence[Member]) -> dict[str, Any]:
    """Return the HOT template of a group's nested stack holding ``members``."""
    return {
        "heat_template_version": NESTED_TEMPLATE_VERSION,
        "resources": {name: dict(definition) for name, definition in members},
        "outputs": {REFS_MAP_OUTPUT: {
            "value": {name: {"get_resource": name} for name, _ in members}}},
    }
