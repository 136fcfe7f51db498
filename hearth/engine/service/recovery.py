"""Fail the stacks that dead engines left IN_PROGRESS, from the database alone.

An engine runtime recovers when it starts, and a process that only reads
(``stackctl stack-list``) recovers once before its first read, so a stack
whose engine died is shown FAILED ("Engine went down during stack
<ACTION>") and can be updated, rolled back or deleted.
"""

from __future__ import annotations

import logging

from hearth.common.config import CONF
from hearth.db import api_events, api_locks, api_resources, api_snapshots, api_stacks
from hearth.db.session import Database
from hearth.engine.states import FAILED, IN_PROGRESS

LOG = logging.getLogger(__name__)


def recover(db: Database, life_timeout: float | None = None) -> list[str]:
    """Fail stacks left IN_PROGRESS by dead engines (and their resources); return their ids.

    An engine is dead when it has not beaten for ``life_timeout`` seconds
    (default ``engine_life_check_timeout``).
    """
    recovered = []
    timeout = CONF.engine_life_check_timeout if life_timeout is None else life_timeout
    for row in api_locks.stacks_in_progress_of_dead_engines(db, timeout):
        reason = f"Engine went down during stack {row.action}"
        api_stacks.stack_update(db, row.id, status=FAILED, status_reason=reason)
        # its resources left running fail too, so the next action may replace them
        for left in api_resources.resource_get_all_by_stack(db, row.id,
                                                            {"status": IN_PROGRESS}):
            api_resources.resource_update(db, left.id, status=FAILED, status_reason=reason)
        # a snapshot being taken will never be finished: it fails (and may be deleted)
        api_snapshots.snapshot_fail_unfinished(db, row.id, reason)
        api_events.event_create(db, {
            "stack_id": row.id, "resource_name": row.name, "physical_resource_id": row.id,
            "resource_type": "OS::Heat::Stack", "resource_action": row.action,
            "resource_status": FAILED, "resource_status_reason": reason})
        holder = api_locks.lock_get_engine_id(db, row.id)
        if holder:
            api_locks.lock_release(db, row.id, holder)
        LOG.warning("stack %s (%s): %s", row.name, row.id, reason)
        recovered.append(row.id)
    return recovered
