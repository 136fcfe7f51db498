"""The limits of nested stacks, with Heat's texts.

``max_nested_stack_depth``: a stack at that depth may hold no nested stack
("Recursion depth exceeds 5."); ``max_resources_per_stack``: the resources
of the whole tree under the root, the new nested stack's included
("Maximum resources per stack exceeded."); -1 means no limit.
"""

from __future__ import annotations

import functools
from typing import Any

from hearth.common import config, exception

#: Heat's message when a tree grows over ``max_resources_per_stack``.
TREE_TOO_BIG = "Maximum resources per stack exceeded."


@functools.lru_cache(maxsize=1)
def _conf() -> Any:
    """Return the configuration, its options registered (once: registering is not cheap)."""
    config.register_opts()
    return config.CONF


def child_depth(parent_depth: int) -> int:
    """Return a nested stack's depth under a stack at ``parent_depth`` (or refuse it)."""
    limit = _conf().max_nested_stack_depth
    if parent_depth >= limit:
        raise exception.RequestLimitExceeded(message=f"Recursion depth exceeds {limit}.")
    return parent_depth + 1


def check_tree_size(db: Any, parent_stack_id: str, adding: int, removing: int = 0,
                    top_level: bool = False) -> None:
    """Refuse ``adding`` resources (replacing ``removing``) in the tree of ``parent_stack_id``.

    ``top_level`` says the parent is the root (no query to find it).
    """
    limit = _conf().max_resources_per_stack
    if limit < 0:
        return
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db import api_nested  # SQLAlchemy: only where stacks are stored
    root = parent_stack_id if top_level else api_nested.stack_root_id(db, parent_stack_id)
    total = api_nested.tree_resource_count(db, root) + adding - removing
    if total > limit:
        raise exception.RequestLimitExceeded(message=TREE_TOO_BIG)
