"""What ``get_attr`` of a resource group or chain reads from its members.

- ``refs``: the members' reference ids, in member order (a path selects in
  the list);
- ``refs_map``: ``{member name: reference id}``;
- ``attributes``: ``{member name: attribute}``, the attribute named by the
  path (which is required);
- ``resource.<name>``: one member's reference id; ``resource.<name>.<attr>``
  (or ``resource.<name>`` followed by a path): one member's attribute;
- any other name: the list of that attribute (with the path) over the
  members.

Members are read through a :class:`MemberReader`; a member the nested
stack does not hold is Heat's "Member ... not found" error.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any, Protocol

from hearth.common import exception
from hearth.engine.attributes import select_from_attribute
from hearth.engine.nested.stack_resource import MEMBER_PREFIX

ATTRIBUTES = (REFS, REFS_MAP, ATTR_ATTRIBUTES, REMOVED_RSRC_LIST) = (
    "refs", "refs_map", "attributes", "removed_rsrc_list")
#: The prefix of the attributes reaching one member.


class MemberReader(Protocol):
    """Reads the members of a group's nested stack (None for everything before it exists)."""

    def reference(self, name: str) -> Any:
        """Return member ``name``'s reference id."""

    def attribute(self, name: str, *attr_path: Any) -> Any:
        """Return member ``name``'s attribute ``attr_path[0]`` walked down the rest."""


def member_not_found(member: str, group: str) -> exception.NotFound:
    """Return Heat's error for a member a group does not hold."""
    return exception.NotFound(message=f"Member '{member}' not found in group resource "
                                      f"'{group}'.")


def is_member_attribute(key: str) -> bool:
    """Return whether ``key`` reaches one member (``resource.<name>...``)."""
    return key.startswith(MEMBER_PREFIX)


def member_of(key: str) -> str:
    """Return the member name in a ``resource.<name>...`` key."""
    return key.split(".", 2)[1]


def read(group: str, key: str, path: Sequence[Any], names: Sequence[str],
         members: MemberReader, own: Container[str] = ATTRIBUTES) -> Any:
    """Return attribute ``key`` (with ``path``) of the group ``group`` named ``names``.

    ``own`` are the type's declared attributes (a chain has no ``refs_map``:
    there it is a member attribute like any other).  ``attributes`` without
    a path is an InvalidTemplateAttribute (Heat's); ``refs_map`` ignores its
    path, as Heat's does.
    """
    if key == ATTR_ATTRIBUTES and not path:
        raise exception.InvalidTemplateAttribute.named(group, key)
    if is_member_attribute(key):
        name, *attr_path = key.split(".", 2)[1:] + list(path)
        if attr_path:
            return members.attribute(name, *attr_path)
        return members.reference(name)
    if key == REFS:
        return select_from_attribute([members.reference(name) for name in names], path)
    if key == REFS_MAP and REFS_MAP in own:
        return {name: members.reference(name) for name in names}
    if key == ATTR_ATTRIBUTES:
        return {name: members.attribute(name, *path) for name in names}
    return [members.attribute(name, key, *path) for name in names]


class NestedMembers:
    """The :class:`MemberReader` of a group resource's nested stack (``nested()``)."""

    def __init__(self, group: Any) -> None:
        self.group = group
        self.child = group.nested() if group.resource_id is not None else None

    def _member(self, name: str) -> Any:
        if self.child is None:
            return None
        member = self.child.resources.get(name)
        if member is None:
            raise member_not_found(name, self.group.name)
        return member

    def reference(self, name: str) -> Any:
        """Return member ``name``'s reference id (None before the nested stack exists)."""
        member = self._member(name)
        return None if member is None else member.FnGetRefId()

    def attribute(self, name: str, *attr_path: Any) -> Any:
        """Return member ``name``'s attribute (None before the nested stack exists)."""
        member = self._member(name)
        if member is None:
            return None
        return member.FnGetAtt(str(attr_path[0]), *attr_path[1:])
