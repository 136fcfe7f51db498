"""Snapshots of a stack."""

import pytest

from hearth.common import exception
from hearth.db import api
from tests.unit.db.helpers import make_stack


def test_snapshot_life_cycle(db):
    stack = make_stack(db, "web")
    snapshot = api.snapshot_create(db, {"stack_id": stack.id, "name": "s1",
                                        "data": {"resources": {}}})
    assert (snapshot.action, snapshot.status) == ("SNAPSHOT", "IN_PROGRESS")
    api.snapshot_update(db, snapshot.id, status="COMPLETE", status_reason="done")
    loaded = api.snapshot_get(db, snapshot.id, stack_id=stack.id)
    assert (loaded.status, loaded.data) == ("COMPLETE", {"resources": {}})
    assert [s.id for s in api.snapshot_list(db, stack.id)] == [snapshot.id]
    assert api.snapshot_count(db, stack.id) == 1
    api.snapshot_delete(db, snapshot.id)
    assert api.snapshot_list(db, stack.id) == []


def test_snapshot_errors(db):
    stack = make_stack(db, "web")
    other = make_stack(db, "other")
    snapshot = api.snapshot_create(db, {"stack_id": stack.id})
    with pytest.raises(exception.EntityNotFound, match=r"The Snapshot \(.*\) could not be found"):
        api.snapshot_get(db, snapshot.id, stack_id=other.id)
    with pytest.raises(exception.EntityNotFound, match=r"The Snapshot \(x\) could not be found"):
        api.snapshot_update(db, "x", status="FAILED")
    with pytest.raises(exception.EntityNotFound, match=r"The Snapshot \(x\) could not be found"):
        api.snapshot_delete(db, "x")


def test_unfinished_snapshots_of_a_recovered_stack_fail(db):
    from hearth.db import api_snapshots
    stack = make_stack(db, "web")
    taking = api.snapshot_create(db, {"stack_id": stack.id, "status": "IN_PROGRESS"})
    done = api.snapshot_create(db, {"stack_id": stack.id, "status": "COMPLETE"})
    assert api_snapshots.snapshot_fail_unfinished(db, stack.id, "Engine went down") == 1
    assert (api.snapshot_get(db, taking.id).status,
            api.snapshot_get(db, taking.id).status_reason) == ("FAILED", "Engine went down")
    assert api.snapshot_get(db, done.id).status == "COMPLETE"
