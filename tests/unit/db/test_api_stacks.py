"""Raw templates and stacks: CRUD, soft delete, filters, tags, sort and pagination."""

import pytest

from hearth.common import exception
from hearth.db import api
from tests.unit.db.helpers import make_stack


def names(stacks):
    return [stack.name for stack in stacks]


# --- raw templates -------------------------------------------------------------

def test_raw_template_round_trip(db):
    template = api.raw_template_create(db, {"resources": {}}, files={"a.yaml": "x"},
                                       environment={"parameters": {"k": "v"}})
    loaded = api.raw_template_get(db, template.id)
    assert loaded.template == {"resources": {}}
    assert loaded.files == {"a.yaml": "x"}
    assert loaded.environment == {"parameters": {"k": "v"}}


def test_raw_template_update_and_delete(db):
    template = api.raw_template_create(db, {"v": 1})
    api.raw_template_update(db, template.id, template={"v": 2})
    assert api.raw_template_get(db, template.id).template == {"v": 2}
    api.raw_template_delete(db, template.id)
    with pytest.raises(exception.EntityNotFound, match=rf"The Template \({template.id}\) could"):
        api.raw_template_get(db, template.id)


def test_raw_template_update_missing(db):
    with pytest.raises(exception.EntityNotFound, match=r"The Template \(999\) could not be found"):
        api.raw_template_update(db, 999, template={})


def test_unknown_column_is_refused(db):
    with pytest.raises(TypeError, match="Stack has no column 'colour'"):
        make_stack(db, colour="red")


# --- create, get, find -----------------------------------------------------------

def test_stack_create_defaults(db):
    stack = make_stack(db, "web")
    loaded = api.stack_get(db, stack.id)
    assert len(loaded.id) == 36
    assert (loaded.action, loaded.status, loaded.status_reason) == ("INIT", "COMPLETE", "")
    assert loaded.tags == [] and loaded.deleted_at is None and loaded.backup is False


def test_stack_name_unique_per_project(db):
    make_stack(db, "web", "p1")
    make_stack(db, "web", "p2")
    with pytest.raises(exception.StackExists, match=r"The Stack \(web\) already exists."):
        make_stack(db, "web", "p1")


def test_stack_name_reusable_after_delete(db):
    first = make_stack(db, "web")
    api.stack_delete(db, first.id)
    second = make_stack(db, "web")
    assert api.stack_get_by_name(db, "web", "p1").id == second.id
    assert api.stack_get_by_name(db, "web", "p1", show_deleted=True).id == second.id


def test_stack_get_scoped_by_project(db):
    stack = make_stack(db, "web", "p1")
    assert api.stack_get(db, stack.id, project_id="p1").name == "web"
    with pytest.raises(exception.StackNotFound, match=rf"The Stack \({stack.id}\) could not"):
        api.stack_get(db, stack.id, project_id="p2")


def test_stack_find_by_name_id_and_both(db):
    stack = make_stack(db, "web")
    assert api.stack_find(db, "web", "p1").id == stack.id
    assert api.stack_find(db, stack.id, "p1").id == stack.id
    assert api.stack_find(db, f"web/{stack.id}", "p1").id == stack.id
    with pytest.raises(exception.StackNotFound, match=r"The Stack \(other/"):
        api.stack_find(db, f"other/{stack.id}", "p1")
    with pytest.raises(exception.StackNotFound, match=r"The Stack \(nope\) could not be found."):
        api.stack_find(db, "nope", "p1")


def test_stack_update_state_and_tags(db):
    stack = make_stack(db, "web", tags=["a"])
    updated = api.stack_update(db, stack.id, action="CREATE", status="IN_PROGRESS",
                               status_reason="Stack CREATE started", tags=["b"])
    assert updated.updated_at is not None
    loaded = api.stack_get(db, stack.id)
    assert (loaded.action, loaded.status) == ("CREATE", "IN_PROGRESS")
    assert loaded.tags == ["b"]
    assert names(api.stack_list(db, tags=["b"])) == ["web"]
    assert api.stack_list(db, tags=["a"]) == []


def test_stack_update_missing(db):
    with pytest.raises(exception.StackNotFound, match=r"The Stack \(nope\) could not be found."):
        api.stack_update(db, "nope", status="FAILED")


def test_stack_soft_delete(db):
    stack = make_stack(db, "web")
    api.stack_delete(db, stack.id)
    with pytest.raises(exception.StackNotFound):
        api.stack_get(db, stack.id)
    assert api.stack_get(db, stack.id, show_deleted=True).deleted_at is not None
    assert api.stack_list(db) == []
    assert names(api.stack_list(db, show_deleted=True)) == ["web"]
    with pytest.raises(exception.StackNotFound, match=rf"The Stack \({stack.id}\) could not"):
        api.stack_delete(db, stack.id)


def test_stack_delete_removes_resources_snapshots_and_lock(db):
    from tests.unit.db.helpers import make_resource
    stack = make_stack(db, "web")
    resource = make_resource(db, stack)
    api.resource_data_set(db, resource.id, "k", "v")
    api.snapshot_create(db, {"stack_id": stack.id, "name": "s"})
    api.lock_acquire(db, stack.id, "engine-1")
    api.stack_delete(db, stack.id)
    assert api.resource_get_all_by_stack(db, stack.id) == []
    assert api.snapshot_list(db, stack.id) == []
    assert api.lock_get_engine_id(db, stack.id) is None


def test_nested_stacks_by_owner(db):
    parent = make_stack(db, "parent")
    child = make_stack(db, "parent-child", owner_id=parent.id, nested_depth=1,
                       parent_resource_name="child")
    assert [s.id for s in api.stack_get_all_by_owner(db, parent.id)] == [child.id]


# --- listing: filters --------------------------------------------------------------

@pytest.fixture
def three_stacks(db):
    a = make_stack(db, "alpha", "p1", 1, action="CREATE", status="COMPLETE", username="ann",
                   tags=["web", "prod"])
    b = make_stack(db, "beta", "p1", 2, action="UPDATE", status="FAILED", tags=["web"])
    c = make_stack(db, "gamma", "p2", 3, action="CREATE", status="FAILED", tags=["db"])
    return a, b, c


def test_list_scoped_to_project_and_global(db, three_stacks):
    assert names(api.stack_list(db, project_id="p1")) == ["beta", "alpha"]
    assert names(api.stack_list(db)) == ["gamma", "beta", "alpha"]


@pytest.mark.parametrize("filters, expected", [
    ({"status": "CREATE_COMPLETE"}, ["alpha"]),
    ({"stack_status": "FAILED"}, ["gamma", "beta"]),
    ({"status": ["CREATE_FAILED", "UPDATE_FAILED"]}, ["gamma", "beta"]),
    ({"action": "CREATE"}, ["gamma", "alpha"]),
    ({"name": "beta"}, ["beta"]),
    ({"stack_name": ["alpha", "gamma"]}, ["gamma", "alpha"]),
    ({"tenant": "p2"}, ["gamma"]),
    ({"username": "ann"}, ["alpha"]),
])
def test_list_filters(db, three_stacks, filters, expected):
    assert names(api.stack_list(db, filters=filters)) == expected
    assert api.stack_count(db, filters=filters) == len(expected)


def test_list_filter_by_id(db, three_stacks):
    assert names(api.stack_list(db, filters={"id": three_stacks[1].id})) == ["beta"]


def test_list_in_progress_status_filter(db):
    make_stack(db, "busy", action="CREATE", status="IN_PROGRESS")
    make_stack(db, "idle")
    assert names(api.stack_list(db, filters={"status": "CREATE_IN_PROGRESS"})) == ["busy"]
    assert names(api.stack_list(db, filters={"status": "IN_PROGRESS"})) == ["busy"]


def test_list_unknown_filter(db):
    with pytest.raises(exception.InvalidFilter,
                       match=r'Invalid filter "stauts".*Did you mean "status"\?'):
        api.stack_list(db, filters={"stauts": "x"})


@pytest.mark.parametrize("kwargs, expected", [
    ({"tags": ["web"]}, ["beta", "alpha"]),
    ({"tags": ["web", "prod"]}, ["alpha"]),
    ({"tags_any": ["prod", "db"]}, ["gamma", "alpha"]),
    ({"not_tags": ["web", "prod"]}, ["gamma", "beta"]),
    ({"not_tags_any": ["prod", "db"]}, ["beta"]),
])
def test_list_tag_filters(db, three_stacks, kwargs, expected):
    assert names(api.stack_list(db, **kwargs)) == expected
    assert api.stack_count(db, **kwargs) == len(expected)


def test_list_hides_nested_and_backup(db):
    parent = make_stack(db, "parent", minutes=1)
    make_stack(db, "child", owner_id=parent.id, nested_depth=1, minutes=2)
    make_stack(db, "parent*", backup=True, minutes=3)
    assert names(api.stack_list(db)) == ["parent"]
    assert names(api.stack_list(db, show_nested=True)) == ["child", "parent"]
    assert names(api.stack_list(db, filters={"owner_id": parent.id}, show_nested=True)) == [
        "child"]


def test_count_by_project(db, three_stacks):
    assert api.stack_count_by_project(db, "p1") == 2
    api.stack_delete(db, three_stacks[0].id)
    assert api.stack_count_by_project(db, "p1") == 1


# --- listing: sort and pagination ----------------------------------------------------

def test_list_default_sort_newest_first(db, three_stacks):
    assert names(api.stack_list(db)) == ["gamma", "beta", "alpha"]


@pytest.mark.parametrize("sort_keys, sort_dir, expected", [
    (["stack_name"], "asc", ["alpha", "beta", "gamma"]),
    (["stack_name"], "desc", ["gamma", "beta", "alpha"]),
    (["stack_status", "stack_name"], "asc", ["alpha", "beta", "gamma"]),
    (["creation_time"], "asc", ["alpha", "beta", "gamma"]),
])
def test_list_sort(db, three_stacks, sort_keys, sort_dir, expected):
    assert names(api.stack_list(db, sort_keys=sort_keys, sort_dir=sort_dir)) == expected


def test_list_sort_updated_time_puts_never_updated_first(db, three_stacks):
    api.stack_update(db, three_stacks[0].id, status="FAILED")
    result = api.stack_list(db, sort_keys=["updated_time"], sort_dir="asc")
    assert names(result)[-1] == "alpha"


def test_list_invalid_sort_key(db):
    with pytest.raises(exception.InvalidSortKey,
                       match=r'Invalid sort key "stack_nam".*Did you mean "stack_name"\?'):
        api.stack_list(db, sort_keys=["stack_nam"])


def test_list_invalid_sort_dir(db):
    with pytest.raises(exception.BadRequest,
                       match='Invalid sort direction "up". Allowed: asc, desc.'):
        api.stack_list(db, sort_dir="up")


def test_list_negative_limit(db):
    with pytest.raises(exception.BadRequest, match="Invalid limit -1: must not be negative."):
        api.stack_list(db, limit=-1)


def test_pagination_walks_every_stack_once_with_ties(db):
    # five stacks created at the same instant: the id tie-break keeps pages stable
    created = {make_stack(db, f"s{i}", minutes=0).id for i in range(5)}
    for sort_dir in ("asc", "desc"):
        seen, marker = [], None
        while True:
            page = api.stack_list(db, limit=2, marker=marker, sort_dir=sort_dir)
            if not page:
                break
            seen.extend(stack.id for stack in page)
            marker = page[-1].id
        assert len(seen) == 5 and set(seen) == created
        assert seen == sorted(seen, reverse=sort_dir == "desc")


def test_pagination_with_sort_key(db, three_stacks):
    first = api.stack_list(db, sort_keys=["stack_name"], sort_dir="asc", limit=2)
    assert names(first) == ["alpha", "beta"]
    rest = api.stack_list(db, sort_keys=["stack_name"], sort_dir="asc", marker=first[-1].id)
    assert names(rest) == ["gamma"]


def test_pagination_unknown_marker_is_ignored_as_heat(db, three_stacks):
    assert names(api.stack_list(db, marker="nope", limit=2)) \
        == names(api.stack_list(db, limit=2))
