"""The tree of nested stacks: a stack's root and the resources under a root.

A nested stack points at its parent through ``owner_id``; these queries
follow that column up (the root) or down (every stack of a tree).
"""

from __future__ import annotations

from sqlalchemy import func, select

from hearth.db import models
from hearth.db.session import Database


def stack_root_id(db: Database, stack_id: str) -> str:
    """Return the id of the top-level stack above ``stack_id`` (itself when top-level)."""
    current, seen = stack_id, {stack_id}
    with db.session_scope() as session:
        while True:
            owner = session.execute(select(models.Stack.owner_id)
                                    .where(models.Stack.id == current)).scalar()
            if owner is None or owner in seen:
                return current
            seen.add(owner)
            current = owner


def tree_stack_ids(db: Database, root_id: str) -> list[str]:
    """Return the ids of the live stacks of the tree under ``root_id`` (the root first)."""
    found, frontier = [root_id], [root_id]
    with db.session_scope() as session:
        while frontier:
            frontier = list(session.scalars(
                select(models.Stack.id).where(models.Stack.owner_id.in_(frontier),
                                              models.Stack.deleted_at.is_(None))))
            frontier = [stack_id for stack_id in frontier if stack_id not in found]
            found.extend(frontier)
    return found


def tree_resource_count(db: Database, root_id: str) -> int:
    """Return how many resources the live stacks under ``root_id`` hold (replaced ones not)."""
    ids = tree_stack_ids(db, root_id)
    with db.session_scope() as session:
        return session.execute(
            select(func.count(models.Resource.id))
            .where(models.Resource.stack_id.in_(ids),
                   models.Resource.replaced_by.is_(None))).scalar() or 0
