"""The tree of nested stacks: a stack's root and the resources under a root.

A nested stack points at its parent through ``owner_id``; these queries
follow that column up (the root) or down (every stack of a tree) with one
recursive query each, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from sqlalchemy import func, select

from hearth.db import models
from hearth.db.session import Database


def stack_root_id(db: Database, stack_id: str) -> str:
    """Return the id of the top-level stack above ``stack_id`` (itself when top-level)."""
    stack = models.Stack
    up = (select(stack.id, stack.owner_id).where(stack.id == stack_id)
          .cte("up", recursive=True))
    up = up.union(select(stack.id, stack.owner_id).join(up, stack.id == up.c.owner_id))
    with db.session_scope() as session:
        root = session.execute(select(up.c.id).where(up.c.owner_id.is_(None))).scalar()
    return root or stack_id


def _tree(root_id: str):
    stack = models.Stack
    down = select(stack.id).where(stack.id == root_id).cte("down", recursive=True)
    return down.union(select(stack.id).join(down, stack.owner_id == down.c.id)
                      .where(stack.deleted_at.is_(None)))


def tree_stack_ids(db: Database, root_id: str) -> list[str]:
    """Return the ids of the live stacks of the tree under ``root_id`` (the root with them)."""
    down = _tree(root_id)
    with db.session_scope() as session:
        return list(session.scalars(select(down.c.id)))


def tree_resource_count(db: Database, root_id: str) -> int:
    """Return how many resources the live stacks under ``root_id`` hold (replaced ones not)."""
    down = _tree(root_id)
    resource = models.Resource
    with db.session_scope() as session:
        return session.execute(
            select(func.count(resource.id))
            .where(resource.stack_id.in_(select(down.c.id)),
                   resource.replaced_by.is_(None))).scalar() or 0
