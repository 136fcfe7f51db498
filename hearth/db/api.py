"""The database API in one namespace: every ``api_<noun>`` module's functions, for tests.

Hearth's own code imports the module of the noun it touches
(``api_stacks.stack_get(db, ...)``, see :mod:`hearth.db`); this module
gathers them so that a test or a script can say ``api.stack_get(db, ...)``.
``db`` is a :class:`hearth.db.session.Database` handle
(``session.get_database(url)``).  Each function runs in its own short
transaction and returns detached model objects (plain attribute access; no
lazy loading) or plain values.  Lookups that find nothing raise
:class:`hearth.common.exception.EntityNotFound` (``StackNotFound`` for
stacks).
"""

from hearth.db.api_engines import (
    engine_deregister,
    engine_get,
    engine_heartbeat,
    engine_is_alive,
    engine_list,
    engine_register,
    engine_status,
)
from hearth.db.api_events import (
    EVENT_FILTERS,
    EVENT_SORT_KEYS,
    event_count_by_stack,
    event_create,
    event_get,
    event_list,
)
from hearth.db.api_locks import (
    lock_acquire,
    lock_get_engine_id,
    lock_release,
    lock_steal,
    lock_take,
    stacks_in_progress_of_dead_engines,
)
from hearth.db.api_resources import (
    RESOURCE_FILTERS,
    resource_create,
    resource_data_delete,
    resource_data_get,
    resource_data_get_all,
    resource_data_list,
    resource_data_set,
    resource_delete,
    resource_get,
    resource_get_all_by_stack,
    resource_get_by_name,
    resource_get_by_physical_id,
    resource_update,
)
from hearth.db.api_snapshots import (
    snapshot_count,
    snapshot_create,
    snapshot_delete,
    snapshot_get,
    snapshot_list,
    snapshot_update,
)
from hearth.db.api_stacks import (
    STACK_FILTERS,
    STACK_SORT_KEYS,
    raw_template_create,
    raw_template_delete,
    raw_template_get,
    raw_template_update,
    stack_count,
    stack_count_by_project,
    stack_create,
    stack_delete,
    stack_find,
    stack_get,
    stack_get_all_by_owner,
    stack_get_by_name,
    stack_list,
    stack_update,
)
from hearth.db.session import Database, get_database

__all__ = [
    "Database", "get_database",
    "EVENT_FILTERS", "EVENT_SORT_KEYS", "RESOURCE_FILTERS", "STACK_FILTERS", "STACK_SORT_KEYS",
    "engine_deregister", "engine_get", "engine_heartbeat", "engine_is_alive", "engine_list",
    "engine_register", "engine_status",
    "event_count_by_stack", "event_create", "event_get", "event_list",
    "lock_acquire", "lock_get_engine_id", "lock_release", "lock_steal", "lock_take",
    "stacks_in_progress_of_dead_engines",
    "resource_create", "resource_data_delete", "resource_data_get", "resource_data_get_all",
    "resource_data_list", "resource_data_set", "resource_delete", "resource_get",
    "resource_get_all_by_stack", "resource_get_by_name", "resource_get_by_physical_id",
    "resource_update",
    "snapshot_count", "snapshot_create", "snapshot_delete", "snapshot_get", "snapshot_list",
    "snapshot_update",
    "raw_template_create", "raw_template_delete", "raw_template_get", "raw_template_update",
    "stack_count", "stack_count_by_project", "stack_create", "stack_delete", "stack_find",
    "stack_get", "stack_get_all_by_owner", "stack_get_by_name", "stack_list", "stack_update",
]
