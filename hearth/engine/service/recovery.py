"""Take over the stacks that dead engines left IN_PROGRESS: finish their actions, or fail them.

A stack is left when it is IN_PROGRESS and neither it nor a stack above it
(nested stacks act under their root's lock) holds the lock of a live engine
(:func:`hearth.db.api_locks.stacks_in_progress_of_dead_engines`).  What
happens to it is ``engine_takeover``'s choice:

``resume``
    An engine runtime takes the stack's lock (a conditional UPDATE or an
    INSERT: when several engines race, exactly one gets it) and finishes
    the action from the stored states
    (:func:`EngineRuntime.take_over <hearth.engine.service.runtime.EngineRuntime.take_over>`,
    :mod:`hearth.engine.update.takeover`).  A nested stack whose parent
    is left too is continued by its parent's resource.  A process that only
    reads takes nothing over: the stack shows its action in progress until
    an engine runs.
``fail``
    The stack and its resources in progress fail, as Heat does ("Engine
    went down during stack <ACTION>"), with one conditional UPDATE, so
    exactly one process writes the failure and its event
    (:func:`hearth.engine.stacks.engine_down.fail_left`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from hearth.common.config import CONF
from hearth.db import api_locks
from hearth.db.session import Database
from hearth.engine.stacks.engine_down import fail_left, went_down_reason

if TYPE_CHECKING:
    from hearth.engine.service.runtime import EngineRuntime

LOG = logging.getLogger(__name__)

#: ``engine_takeover`` choices
RESUME, FAIL = "resume", "fail"


def resuming() -> bool:
    """Return whether engines finish dead engines' actions (else they fail them)."""
    return bool(CONF.engine_takeover == RESUME)


def recover(db: Database, life_timeout: float | None = None,
            runtime: EngineRuntime | None = None) -> list[str]:
    """Take over (or fail) the stacks dead engines left; return the ids of those this call took.

    An engine is dead when it has not beaten for ``life_timeout`` seconds
    (default ``engine_life_check_timeout``).  Stacks are taken over only by
    an engine ``runtime``; without one (a process that only reads) they are
    failed under ``fail`` and left alone under ``resume``.
    """
    timeout = CONF.engine_life_check_timeout if life_timeout is None else life_timeout
    if not resuming():
        return [row.id for row in api_locks.stacks_in_progress_of_dead_engines(db, timeout)
                if fail_left(db, row, went_down_reason(row.action))]
    if runtime is None:
        return []
    left = api_locks.stacks_in_progress_of_dead_engines(db, timeout)
    ids = {row.id for row in left}
    taken = []
    for row in left:
        if row.owner_id in ids:
            continue  # its parent's resource continues it
        if runtime.take_over(row.id, timeout):
            taken.append(row.id)
    return taken
