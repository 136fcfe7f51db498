"""The stacks nested below a stack, read from the database, as nested listings show them.

A nested stack is a stack row whose ``owner_id`` is its parent stack's id;
the parent's resource holding it has the nested stack's id as physical
resource id.  :class:`StackTree` reads the tree below a stack one level
per query (never loading a stack); :func:`tree_resources` lists resources
down to a depth in Heat's order (a stack's own resources, then, for each
of them holding a nested stack, that stack's resources, depth first) and
:func:`tree_events` lists the events of the whole tree in one query, so
sorting, ``limit`` and ``marker`` work across the nested stacks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hearth.common.config import CONF
from hearth.db import api_events, api_resources, api_stacks
from hearth.engine.service import api_format

if TYPE_CHECKING:
    from hearth.db import models
    from hearth.db.session import Database

JsonMap = dict[str, Any]
#: (stack row, its raw template) -> ``{resource name: names of the resources requiring it}``
RequiredBy = Callable[["models.Stack", "models.RawTemplate"], Mapping[str, list[str]]]


def capped_depth(nested_depth: int | None) -> int:
    """Return the depth a nested listing goes to: at most ``max_nested_stack_depth``."""
    return max(0, min(int(nested_depth or 0), int(CONF.max_nested_stack_depth)))


class StackTree:
    """A stack and the stacks nested below it, ``depth`` levels down.

    Deleted nested stacks are kept (a resource still links to the nested
    stack it held, as in Heat) but never descended into or listed.
    """

    def __init__(self, root: models.Stack, children: Mapping[str, list[models.Stack]]) -> None:
        self.root = root
        self._children = dict(children)

    @classmethod
    def read(cls, db: Database, root: models.Stack, depth: int) -> StackTree:
        """Read the tree below ``root`` down to ``depth`` levels (one query per level)."""
        children: dict[str, list[models.Stack]] = {}
        level = [root.id]
        for _ in range(depth):
            rows = api_stacks.stack_get_all_by_owners(db, level, show_deleted=True)
            for row in rows:
                assert row.owner_id is not None  # selected by owner
                children.setdefault(row.owner_id, []).append(row)
            level = [row.id for row in rows if row.deleted_at is None]
            if not level:
                break
        return cls(root, children)

    def nested_of(self, stack: models.Stack) -> dict[str, models.Stack]:
        """Return ``{nested stack id: row}`` of the stacks ``stack``'s resources hold."""
        return {row.id: row for row in self._children.get(stack.id, [])}

    def live_stacks(self, depth: int | None = None) -> list[models.Stack]:
        """Return the root and the live stacks below it, level by level (``depth`` levels)."""
        found, level, levels = [self.root], [self.root], 0
        while level and (depth is None or levels < depth):
            level = [child for row in level for child in self._children.get(row.id, [])
                     if child.deleted_at is None]
            found += level
            levels += 1
        return found


def tree_resources(db: Database, tree: StackTree, depth: int, required_by: RequiredBy,
                   filters: Mapping[str, Any] | None = None) -> list[JsonMap]:
    """Return the resources of the tree's root and of its nested stacks ``depth`` levels down.

    ``filters`` apply at every level.  ``tree`` must reach one level below
    ``depth``, for the ``nested`` stacks of the deepest resources listed.
    The resources and templates of every stack listed are read in one
    query each.
    """
    stacks = tree.live_stacks(depth)
    ids = [stack.id for stack in stacks]
    every = api_resources.resource_get_all_by_stacks(db, ids)
    shown = api_resources.resource_get_all_by_stacks(db, ids, filters) if filters else every
    raws = api_stacks.raw_template_get_many(db, (stack.raw_template_id for stack in stacks))
    return _listing(tree, tree.root, depth, every, shown,
                    lambda stack: required_by(stack, raws[stack.raw_template_id]))


def _listing(tree: StackTree, stack: models.Stack, depth: int,
             every: Mapping[str, list[models.Resource]],
             shown: Mapping[str, list[models.Resource]],
             required_by: Callable[[models.Stack], Mapping[str, list[str]]]
             ) -> list[JsonMap]:
    """Heat's order: a stack's own resources, then each holder's nested stack, depth first."""
    nested = tree.nested_of(stack)
    users = required_by(stack)
    items = [api_format.format_resource(item, stack, users.get(item.name, []),
                                        nested=nested.get(item.physical_resource_id or ""))
             for item in shown[stack.id] if item.replaced_by is None]
    if depth <= 0:
        return items
    for item in every[stack.id]:
        child = nested.get(item.physical_resource_id or "")
        if item.replaced_by is None and child is not None and child.deleted_at is None:
            items += _listing(tree, child, depth - 1, every, shown, required_by)
    return items


def tree_events(db: Database, tree: StackTree, filters: Mapping[str, Any] | None = None,
                limit: int | None = None, marker: str | None = None,
                sort_keys: Sequence[str] | None = None,
                sort_dir: str | None = None) -> list[JsonMap]:
    """Return the events of every live stack of ``tree`` as one sorted, paged listing.

    Each event names its own stack and the root (``root_stack`` link).
    """
    stacks = {row.id: row for row in tree.live_stacks()}
    rows = api_events.event_list(db, list(stacks), filters, limit, marker, sort_keys,
                                 sort_dir)
    return [api_format.format_event(row, stack_row=stacks[row.stack_id], root_row=tree.root)
            for row in rows]
