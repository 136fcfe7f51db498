"""What a failed update (no rollback) leaves behind, through the real engine.

The stack's template becomes the merged one (each resource with the
definition describing it); removed resources stay until an update deletes
them; the original of a failed replacement stays, is swapped back by the
next update and is deleted with the stack.
"""

import json

import pytest

from hearth.db import api_resources, api_stacks
from tests.functional.test_stack_update import (
    CTX,
    create,
    output,
    physical_ids,
    stackctl,
    update,
)


@pytest.fixture
def engine_db_url(db_url):
    """Run the shared ``service`` fixture on SQLite and on PostgreSQL."""
    return db_url

REPLACING = """
heat_template_version: 2018-08-31
parameters:
  r: {type: string, default: "1"}
  broken: {type: boolean, default: false}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: x, update_replace_value: {get_param: r}, fail: {get_param: broken}}
"""


def resource_rows(service, stack_id):
    return [(row.name, row.action, row.status, row.replaced_by is not None)
            for row in api_resources.resource_get_all_by_stack(service.db, stack_id)]


def test_update_back_after_failed_replacement_keeps_the_original(service):
    stack_id = create(service, "back", REPLACING, disable_rollback=True)
    original = physical_ids(service, stack_id)["a"]
    stack = update(service, stack_id, template=REPLACING, params={"r": "2", "broken": True})
    assert stack["stack_status"] == "UPDATE_FAILED", stack["stack_status_reason"]
    # the failed replacement is listed; the original is kept (hidden) for the next update
    listed = service.list_resources(CTX, stack_id)
    assert [(r["resource_name"], r["resource_status"]) for r in listed] == [
        ("a", "CREATE_FAILED")]
    rows = sorted(resource_rows(service, stack_id))
    assert rows == [
        ("a", "CREATE", "FAILED", False), ("a", "UPDATE", "COMPLETE", True)], rows
    stack = update(service, stack_id, template=REPLACING, params={"r": "1", "broken": False})
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    assert physical_ids(service, stack_id) == {"a": original}
    assert resource_rows(service, stack_id) == [("a", "UPDATE", "COMPLETE", False)]


def test_delete_after_failed_replacement_deletes_the_original(service):
    stack_id = create(service, "gone", REPLACING, disable_rollback=True)
    original = physical_ids(service, stack_id)["a"]
    stack = update(service, stack_id, template=REPLACING, params={"r": "2", "broken": True})
    assert stack["stack_status"] == "UPDATE_FAILED"
    service.delete_stack(CTX, stack_id)
    assert service.wait(CTX, stack_id)["stack_status"] == "DELETE_COMPLETE"
    deleted = [e["physical_resource_id"] for e in service.list_events(CTX, stack_id)
               if e["resource_name"] == "a" and e["resource_status"] == "DELETE_COMPLETE"]
    assert original in deleted
    assert len(deleted) == 2  # the original and the failed replacement


CHAIN = """
heat_template_version: 2018-08-31
parameters:
  broken: {type: boolean, default: false}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: a, fail: {get_param: broken}}
  b: {type: OS::Heat::TestResource, depends_on: a}
  c: {type: OS::Heat::TestResource, depends_on: b}
"""
WITHOUT_B = CHAIN.replace("  b: {type: OS::Heat::TestResource, depends_on: a}\n", "").replace(
    "depends_on: b", "depends_on: a")


def test_removed_resource_stays_until_an_update_completes(service):
    stack_id = create(service, "removed", CHAIN, disable_rollback=True)
    stack = update(service, stack_id, template=WITHOUT_B, params={"broken": True})
    assert stack["stack_status"] == "UPDATE_FAILED", stack["stack_status_reason"]
    assert sorted(physical_ids(service, stack_id)) == ["a", "b", "c"]
    stored = service.get_template(CTX, stack_id)
    assert stored["resources"]["b"] == {"type": "OS::Heat::TestResource", "depends_on": ["a"]}
    stack = update(service, stack_id, template=WITHOUT_B, params={"broken": False})
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    assert sorted(physical_ids(service, stack_id)) == ["a", "c"]


WAITING_ON_B = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
  broken: {type: boolean, default: false}
  pw: {type: string, hidden: true, default: a-default}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}}
    metadata: {pw: {get_param: pw}}
    depends_on: b
  b:
    type: OS::Heat::TestResource
    properties: {value: b, fail: {get_param: broken}}
outputs:
  a_out: {value: {get_attr: [a, output]}}
"""


def test_resource_the_failed_update_did_not_reach_keeps_its_values(service):
    stack_id = create(service, "unreached", WAITING_ON_B, disable_rollback=True)
    stack = update(service, stack_id, template=WAITING_ON_B,
                   params={"v": "two", "broken": True, "pw": "s3cret-two"})
    assert stack["stack_status"] == "UPDATE_FAILED", stack["stack_status_reason"]
    assert output(service, stack_id, "a_out") == "one"
    stored = service.get_template(CTX, stack_id)
    assert stored["resources"]["a"]["properties"] == {"value": "one"}  # as it was made
    assert "s3cret" not in json.dumps(stored)  # a hidden value given is never written
    # the next update still sees a's change (before: the stored template was the new one)
    stack = update(service, stack_id, template=WAITING_ON_B,
                   params={"v": "two", "broken": False, "pw": "s3cret-two"})
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    assert output(service, stack_id, "a_out") == "two"
    assert service.get_template(CTX, stack_id)["resources"]["a"]["properties"] == {
        "value": {"get_param": "v"}}


def test_stackctl_lists_what_a_failed_update_left(hearth_home, tmp_path):
    chain, without_b = tmp_path / "chain.yaml", tmp_path / "without_b.yaml"
    chain.write_text(CHAIN)
    without_b.write_text(WITHOUT_B)
    created = stackctl(hearth_home, "stack-create", "--disable-rollback", "-f", str(chain),
                       "left")
    assert created.returncode == 0, created.stderr
    failed = stackctl(hearth_home, "stack-update", "-f", str(without_b), "-P", "broken=true",
                      "left")
    assert "UPDATE_FAILED" in failed.stdout + failed.stderr
    listed = stackctl(hearth_home, "resource-list", "--format", "json", "left")
    assert listed.returncode == 0, listed.stderr
    assert sorted(r["resource_name"] for r in json.loads(listed.stdout)) == ["a", "b", "c"]


def test_merged_template_is_stored_as_the_stacks(service):
    stack_id = create(service, "merged", CHAIN, disable_rollback=True)
    first = api_stacks.stack_get(service.db, stack_id, CTX.project_id).raw_template_id
    update(service, stack_id, template=WITHOUT_B, params={"broken": True})
    row = api_stacks.stack_get(service.db, stack_id, CTX.project_id)
    assert row.prev_raw_template_id == first
    assert set(api_stacks.raw_template_get(service.db, row.raw_template_id)
               .template["resources"]) == {"a", "b", "c"}


REFERRING = """
heat_template_version: 2018-08-31
parameters:
  r: {type: string, default: "1"}
  broken: {type: boolean, default: false}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: x, update_replace_value: {get_param: r}}
  c:
    type: OS::Heat::TestResource
    properties: {value: c, fail: {get_param: broken}}
    depends_on: a
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_resource: a}}
    depends_on: c
outputs:
  b_out: {value: {get_attr: [b, output]}}
"""


def test_resource_still_on_a_replaced_original_is_updated_next_time(service):
    stack_id = create(service, "referring", REFERRING, disable_rollback=True)
    original = physical_ids(service, stack_id)["a"]
    stack = update(service, stack_id, template=REFERRING, params={"r": "2", "broken": True})
    assert stack["stack_status"] == "UPDATE_FAILED", stack["stack_status_reason"]
    replacement = physical_ids(service, stack_id)["a"]
    assert replacement != original
    # b was not reached: it still holds the original, and its stored definition says so
    assert output(service, stack_id, "b_out") == original
    stored = service.get_template(CTX, stack_id)["resources"]["b"]
    assert stored == {"type": "OS::Heat::TestResource", "properties": {"value": original},
                      "depends_on": ["c", "a"]}
    stack = update(service, stack_id, template=REFERRING, params={"r": "2", "broken": False})
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    assert output(service, stack_id, "b_out") == replacement


def test_what_a_dead_engine_left_is_deleted_by_the_next_update(service):
    stack_id = create(service, "ghosts", CHAIN, disable_rollback=True)
    # a removed resource an engine died before deleting: stored, not in the template
    api_resources.resource_create(service.db, {
        "name": "ghost", "stack_id": stack_id, "type": "OS::Heat::TestResource",
        "action": "CREATE", "status": "COMPLETE", "physical_resource_id": "ghost-1"})
    stack = update(service, stack_id, template=CHAIN)
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    assert [(e["physical_resource_id"], e["resource_status"])
            for e in service.list_events(CTX, stack_id) if e["resource_name"] == "ghost"] == [
        ("ghost-1", "DELETE_IN_PROGRESS"), ("ghost-1", "DELETE_COMPLETE")]
    assert "ghost" not in {name for name, *_ in resource_rows(service, stack_id)}
