"""The limits of nested stacks, with Heat's texts.

``max_nested_stack_depth``: a stack at that depth may hold no nested stack
("Recursion depth exceeds 5."); ``max_resources_per_stack``: the resources
of the whole tree under the root, the new nested stack's included
("Maximum resources per stack exceeded."); -1 means no limit.
"""

from __future__ import annotations

from collections.abc import Callable

from hearth.common import exception
from hearth.common.configured import configured

#: Heat's message when a tree grows over ``max_resources_per_stack``.
TREE_TOO_BIG = "Maximum resources per stack exceeded."


def child_depth(parent_depth: int) -> int:
    """Return a nested stack's depth under a stack at ``parent_depth`` (or refuse it)."""
    limit = configured().max_nested_stack_depth
    if parent_depth >= limit:
        raise exception.RequestLimitExceeded(message=f"Recursion depth exceeds {limit}.")
    return parent_depth + 1


def check_tree_size(in_tree: Callable[[], int], adding: int, removing: int = 0) -> None:
    """Refuse ``adding`` resources (replacing ``removing``) in a tree of stacks.

    ``in_tree()`` counts the resources the whole tree holds now (asked only
    when a limit applies: :func:`hearth.engine.nested.runtime.check_tree_size`
    counts them in the database).
    """
    limit = configured().max_resources_per_stack
    if limit < 0:
        return
    if in_tree() + adding - removing > limit:
        raise exception.RequestLimitExceeded(message=TREE_TOO_BIG)
