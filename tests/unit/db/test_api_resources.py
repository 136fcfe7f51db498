"""Resources and resource data, including redaction."""

import pytest

from hearth.common import exception
from hearth.common.secret_mask import SECRET_MASK
from hearth.db import api
from tests.unit.db.helpers import make_resource, make_stack


@pytest.fixture
def stack(db):
    return make_stack(db, "web")


def test_resource_create_and_get(db, stack):
    resource = make_resource(db, stack, "server", metadata={"k": "v"},
                             properties_data={"size": 1}, requires=[7])
    loaded = api.resource_get(db, resource.id)
    assert (loaded.name, loaded.type, loaded.action, loaded.status) == (
        "server", "OS::Heat::None", "INIT", "COMPLETE")
    assert loaded.metadata_ == {"k": "v"}
    assert loaded.properties_data == {"size": 1}
    assert loaded.requires == [7]
    assert loaded.attr_data is None and len(loaded.uuid) == 36


def test_resource_get_missing(db):
    with pytest.raises(exception.EntityNotFound, match=r"The Resource \(42\) could not be found."):
        api.resource_get(db, 42)


def test_resource_get_by_name_prefers_newest(db, stack):
    old = make_resource(db, stack, "server")
    new = make_resource(db, stack, "server", replaces=old.id)
    api.resource_update(db, old.id, replaced_by=new.id)
    assert api.resource_get_by_name(db, stack.id, "server").id == new.id
    with pytest.raises(exception.EntityNotFound, match=r"The Resource \(db\) could not be found."):
        api.resource_get_by_name(db, stack.id, "db")


def test_resource_get_by_physical_id(db, stack):
    resource = make_resource(db, stack, physical_resource_id="phys-1")
    assert api.resource_get_by_physical_id(db, stack.id, "phys-1").id == resource.id
    with pytest.raises(exception.EntityNotFound, match=r"The Resource \(phys-2\) could not"):
        api.resource_get_by_physical_id(db, stack.id, "phys-2")


def test_resource_get_all_by_stack_with_filters(db, stack):
    make_resource(db, stack, "a", status="FAILED", action="CREATE")
    make_resource(db, stack, "b", type="OS::Heat::RandomString")
    other = make_stack(db, "other")
    make_resource(db, other, "c")
    assert [r.name for r in api.resource_get_all_by_stack(db, stack.id)] == ["a", "b"]
    assert [r.name for r in api.resource_get_all_by_stack(
        db, stack.id, {"status": "FAILED"})] == ["a"]
    assert [r.name for r in api.resource_get_all_by_stack(
        db, stack.id, {"type": ["OS::Heat::RandomString"]})] == ["b"]
    with pytest.raises(exception.InvalidFilter, match=r'Invalid filter "nme".*"name"'):
        api.resource_get_all_by_stack(db, stack.id, {"nme": "a"})


def test_resource_update(db, stack):
    resource = make_resource(db, stack)
    api.resource_update(db, resource.id, action="CREATE", status="COMPLETE",
                        status_reason="state changed", physical_resource_id="p-1",
                        metadata={"m": 1}, properties_data={"x": 2}, attr_data={"a": 3})
    loaded = api.resource_get(db, resource.id)
    assert (loaded.action, loaded.status, loaded.status_reason) == (
        "CREATE", "COMPLETE", "state changed")
    assert (loaded.physical_resource_id, loaded.metadata_, loaded.properties_data,
            loaded.attr_data) == ("p-1", {"m": 1}, {"x": 2}, {"a": 3})
    assert loaded.updated_at is not None
    with pytest.raises(exception.EntityNotFound, match=r"The Resource \(999\) could not"):
        api.resource_update(db, 999, status="FAILED")


def test_resource_delete_removes_data(db, stack):
    resource = make_resource(db, stack)
    api.resource_data_set(db, resource.id, "k", "v")
    api.resource_delete(db, resource.id)
    assert api.resource_get_all_by_stack(db, stack.id) == []
    assert api.resource_data_get_all(db, resource.id) == {}
    api.resource_delete(db, resource.id)  # deleting twice is harmless


# --- resource data ------------------------------------------------------------

def test_resource_data_set_get_replace(db, stack):
    resource = make_resource(db, stack)
    api.resource_data_set(db, resource.id, "value", "one")
    api.resource_data_set(db, resource.id, "value", "two")
    assert api.resource_data_get(db, resource.id, "value") == "two"
    assert api.resource_data_get_all(db, resource.id) == {"value": "two"}


def test_resource_data_missing(db, stack):
    resource = make_resource(db, stack)
    with pytest.raises(exception.EntityNotFound,
                       match=r"The Resource data \(nope\) could not be found."):
        api.resource_data_get(db, resource.id, "nope")
    with pytest.raises(exception.EntityNotFound,
                       match=r"The Resource data \(nope\) could not be found."):
        api.resource_data_delete(db, resource.id, "nope")


def test_resource_data_delete(db, stack):
    resource = make_resource(db, stack)
    api.resource_data_set(db, resource.id, "k", "v")
    api.resource_data_delete(db, resource.id, "k")
    assert api.resource_data_get_all(db, resource.id) == {}


def test_redacted_data_only_readable_by_owner(db, stack):
    resource = make_resource(db, stack)
    api.resource_data_set(db, resource.id, "password", "s3cret", redact=True)
    api.resource_data_set(db, resource.id, "handle", "h-1")
    # the owning resource reads everything
    assert api.resource_data_get(db, resource.id, "password") == "s3cret"
    assert api.resource_data_get_all(db, resource.id) == {"password": "s3cret", "handle": "h-1"}
    # every listing for display masks it
    listed = api.resource_data_list(db, resource.id)
    assert listed == {"handle": "h-1", "password": SECRET_MASK}
    assert "s3cret" not in repr(listed)


def test_redaction_flag_follows_the_last_write(db, stack):
    resource = make_resource(db, stack)
    api.resource_data_set(db, resource.id, "k", "secret", redact=True)
    api.resource_data_set(db, resource.id, "k", "public")
    assert api.resource_data_list(db, resource.id) == {"k": "public"}
