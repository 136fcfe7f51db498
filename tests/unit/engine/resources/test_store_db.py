"""The database resource store: plain writes, and writes held back until the next one."""

from types import SimpleNamespace

import pytest

from hearth.db import api_batch, api_resources, api_stacks
from hearth.engine.resources import actions as resource_actions
from hearth.engine.resources.store_db import DbResourceStore


@pytest.fixture
def resource(db):
    raw = api_stacks.raw_template_create(db, {"heat_template_version": "2018-08-31"}, {}, {})
    stack_id = api_stacks.stack_create(db, {"name": "s", "raw_template_id": raw.id,
                                            "project_id": "p"}).id
    row = api_resources.resource_create(db, {"name": "r", "uuid": "u-1", "stack_id": stack_id,
                                             "type": "OS::Heat::None"})
    return SimpleNamespace(db_id=row.id, uuid="u-1", resource_id=None, name="r")


def stored(db, resource):
    row = api_resources.resource_get(db, resource.db_id)
    return row.physical_resource_id, api_resources.resource_data_get_all(db, resource.db_id)


def test_writes_go_straight_to_the_database(db, resource):
    store = DbResourceStore(db)
    store.set_resource_id(resource, "p-1")
    store.save_data(resource, "k", {"a": 1}, False)
    assert stored(db, resource) == ("p-1", {"k": '{"a": 1}'})
    store.delete_data(resource, "k")
    assert store.load_data(resource) == {}


def test_deferred_writes_are_seen_but_not_stored_until_taken(db, resource):
    store = DbResourceStore(db)
    store.defer(resource)
    resource.resource_id = "p-2"
    store.set_resource_id(resource, "p-2")
    store.save_data(resource, "k", "v", True)
    assert store.load_data(resource) == {"k": "v"}
    assert stored(db, resource) == (None, {})
    assert store.take_pending(resource) == [("k", "v", True)]
    assert store.take_pending(resource) == []
    store.save_data(resource, "k2", "v2", False)  # no longer deferred
    assert stored(db, resource) == (None, {"k2": "v2"})


def test_flush_writes_what_was_held_in_one_go(db, resource):
    store = DbResourceStore(db)
    store.defer(resource)
    store.set_resource_id(resource, "p-3")
    store.save_data(resource, "k", "v", False)
    store.flush(resource)
    assert stored(db, resource) == ("p-3", {"k": "v"})
    store.flush(resource)  # nothing held: no write


def test_other_writes_flush_first(db, resource):
    store = DbResourceStore(db)
    store.defer(resource)
    store.save_data(resource, "k", "v", False)
    store.delete_data(resource, "k")
    assert store.load_data(resource) == {}
    store.defer(resource)
    store.save_data(resource, "k", "v", False)
    store.save_metadata(resource, {"m": 1})
    assert stored(db, resource)[1] == {"k": "v"}


def test_a_resource_without_a_row_is_never_deferred(db):
    store = DbResourceStore(db)
    ghost = SimpleNamespace(db_id=None, uuid="u-9", resource_id=None)
    store.defer(ghost)
    store.set_resource_id(ghost, "p")
    assert store.take_pending(ghost) == [] and store.load_data(ghost) == {}


class Waiter(SimpleNamespace):
    """A plug-in that sets its id in the handle, then needs polling."""

    def handle_create(self):
        self.resource_id = "p-4"
        self.stack.store.set_resource_id(self, "p-4")
        self.stack.store.save_data(self, "k", "v", False)

    def check_create_complete(self, _cookie):
        return False


def test_the_engine_writes_held_data_before_it_waits(db, resource):
    store = DbResourceStore(db)
    waiter = Waiter(**vars(resource), stack=SimpleNamespace(store=store))
    steps = resource_actions.plugin_steps(waiter, "CREATE")
    assert next(steps) is None  # the first poll wait
    assert stored(db, resource) == ("p-4", {"k": "v"})


def test_writes_of_a_handle_without_polling_wait_for_the_state_change(db, resource):
    store = DbResourceStore(db)
    waiter = Waiter(**vars(resource), stack=SimpleNamespace(store=store))
    waiter.check_create_complete = None
    assert list(resource_actions.plugin_steps(waiter, "CREATE")) == []
    assert stored(db, resource) == (None, {})
    assert store.take_pending(waiter) == [("k", "v", False)]
    api_batch.resource_writes(db, resource.db_id, waiter.resource_id)
    assert stored(db, resource)[0] == "p-4"


def test_both_stores_are_resource_stores(db):
    # the engine calls defer and flush on whatever store a stack has: both kinds have them
    from hearth.engine.resources.store import InMemoryResourceStore, ResourceStore
    wanted = sorted(name for name, value in vars(ResourceStore).items()
                    if callable(value) and not name.startswith("_"))
    assert {"defer", "flush", "load_metadata", "merge_metadata"} <= set(wanted)
    for store in (DbResourceStore(db), InMemoryResourceStore()):
        assert isinstance(store, ResourceStore)
        assert [name for name in wanted if not callable(getattr(store, name, None))] == []
