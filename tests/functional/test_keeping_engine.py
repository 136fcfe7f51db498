"""Snapshots, restore, abandon, adopt and external_id through the real engine (issue 14).

The engine runs in-process on a fresh database (SQLite here, PostgreSQL from
``test_keeping_engine_postgres.py``); ``Test::Disk``
(``tests/functional/keeping_plugins/disk.py``) writes every call of its
handlers to a ledger file, the "physical" side the tests read.
"""

from __future__ import annotations

import os

import pytest

from hearth.common import exception
from hearth.common.context import RequestContext
from tests.fixtures.engine import CTX, create_and_wait, statuses

PLUGINS = os.path.join(os.path.dirname(__file__), "keeping_plugins")


def disks(ledger, size=1, policy=None, hidden=False) -> str:
    """Return a template of a disk ``a`` and a disk ``b`` that depends on it."""
    extra = f"\n    deletion_policy: {policy}" if policy else ""
    param = ("parameters:\n  secret: {type: string, hidden: true, default: s3cr3t}\n"
             if hidden else "")
    return (f"heat_template_version: 2021-04-16\n{param}resources:\n"
            f"  a:\n    type: Test::Disk\n    properties: {{size: {size}, ledger: {ledger}}}"
            f"{extra}\n"
            f"  b:\n    type: Test::Disk\n    depends_on: a\n"
            f"    properties: {{size: 1, ledger: {ledger}}}\n"
            "outputs:\n  size: {value: {get_attr: [a, size]}}\n")


@pytest.fixture
def keeper(service):
    """The engine service with Test::Disk registered."""
    from hearth.engine.registry.plugin_manager import PluginManager
    from hearth.engine.registry.types import TypeRegistry
    service.catalog._registry = TypeRegistry(PluginManager.load(plugin_dirs=[PLUGINS],
                                                                entry_point_group=None))
    return service


@pytest.fixture
def ledger(tmp_path):
    path = tmp_path / "ledger.txt"
    path.write_text("")
    return path


def lines(path) -> list[str]:
    return path.read_text().splitlines()


def wait(service, stack_id):
    return service.wait(CTX, stack_id)


def test_snapshot_restore_and_delete(keeper, ledger):
    stack = create_and_wait(keeper, "kept", disks(ledger, size=1))
    sid = stack["id"]
    taken = keeper.stack_snapshot(CTX, sid, "first")
    assert (taken["name"], taken["action"], taken["status"], taken["data"]) == (
        "first", "CREATE", "IN_PROGRESS", None)
    assert wait(keeper, sid)["stack_status"] == "SNAPSHOT_COMPLETE"
    shown = keeper.show_snapshot(CTX, sid, taken["id"])
    assert (shown["status"], shown["status_reason"]) == (
        "COMPLETE", "Stack SNAPSHOT completed successfully")
    data = shown["data"]
    assert (data["action"], data["status"], data["name"], data["id"]) == (
        "SNAPSHOT", "COMPLETE", "kept", sid)
    assert data["resources"]["a"]["resource_data"] == {"backup": "1"}
    assert (data["resources"]["a"]["action"], data["resources"]["a"]["status"]) == (
        "SNAPSHOT", "COMPLETE")
    assert lines(ledger)[-2:] == ["snapshot a 1", "snapshot b 1"]

    keeper.update_stack(CTX, sid, disks(ledger, size=5))
    assert wait(keeper, sid)["stack_status"] == "UPDATE_COMPLETE"
    assert keeper.show_output(CTX, sid, "size")["output_value"] == 5
    keeper.stack_restore(CTX, sid, taken["id"])
    restored = wait(keeper, sid)
    assert (restored["stack_status"], restored["stack_status_reason"]) == (
        "RESTORE_COMPLETE", "Stack RESTORE completed successfully")
    assert keeper.show_output(CTX, sid, "size")["output_value"] == 1
    assert lines(ledger)[-1] == "update a 1"
    assert keeper.get_template(CTX, sid)["resources"]["a"]["properties"]["size"] == 1

    assert [s["id"] for s in keeper.list_snapshots(CTX, sid)] == [taken["id"]]
    keeper.delete_snapshot(CTX, sid, taken["id"])
    assert keeper.list_snapshots(CTX, sid) == []
    assert sorted(lines(ledger)[-2:]) == ["delete_snapshot a 1", "delete_snapshot b 1"]
    with pytest.raises(exception.EntityNotFound):
        keeper.show_snapshot(CTX, sid, taken["id"])


def test_snapshot_limit_and_refusals(keeper, ledger, engine_options):
    engine_options(max_snapshots_per_stack=1)
    sid = create_and_wait(keeper, "limited", disks(ledger))["id"]
    first = keeper.stack_snapshot(CTX, sid)
    assert first["name"] is None
    wait(keeper, sid)
    # an admin is not held by the limit (as Heat); anyone else is
    second = keeper.stack_snapshot(CTX, sid, "second")
    wait(keeper, sid)
    member = RequestContext(project_id=CTX.project_id, user="member", roles=())
    with pytest.raises(exception.RequestLimitExceeded) as refused:
        keeper.stack_snapshot(member, sid, "second")
    assert str(refused.value) == ("Request limit exceeded: You have reached the maximum "
                                  "snapshots per stack, 1. Please delete some snapshots.")
    with pytest.raises(exception.EntityNotFound):
        keeper.stack_restore(CTX, sid, "no-such-snapshot")
    other = create_and_wait(keeper, "other", disks(ledger))["id"]
    with pytest.raises(exception.EntityNotFound):  # a snapshot of another stack
        keeper.show_snapshot(CTX, other, first["id"])
    keeper.stack_snapshot(CTX, other)  # while it is taken, it cannot be deleted
    with pytest.raises(exception.NotSupported) as in_progress:
        keeper.delete_snapshot(CTX, other, keeper.list_snapshots(CTX, other)[0]["id"])
    assert str(in_progress.value) == "Deleting in-progress snapshot is not supported."
    wait(keeper, other)
    assert second["status"] == "IN_PROGRESS"
    keeper.delete_stack(CTX, sid)
    wait(keeper, sid)
    from hearth.db import api_snapshots
    assert api_snapshots.snapshot_count(keeper.db, sid) == 0
    # as Heat: deleting the stack deleted its two snapshots' data first
    assert lines(ledger).count("delete_snapshot a 1") == 2
    assert lines(ledger).index("delete_snapshot a 1") < lines(ledger).index("delete a")


def test_hidden_values_kept_for_restore_but_never_shown(keeper, ledger):
    sid = create_and_wait(keeper, "secretive", disks(ledger, hidden=True),
                          params={"secret": "t0ps3cr3t"})["id"]
    snapshot = keeper.stack_snapshot(CTX, sid)
    wait(keeper, sid)
    assert "t0ps3cr3t" not in str(keeper.show_snapshot(CTX, sid, snapshot["id"]))
    assert "t0ps3cr3t" not in str(keeper.list_snapshots(CTX, sid))
    keeper.stack_restore(CTX, sid, snapshot["id"])
    assert wait(keeper, sid)["stack_status"] == "RESTORE_COMPLETE"
    assert keeper.get_environment(CTX, sid)["parameters"] == {"secret": "******"}
    from hearth.db import api_stacks
    row = api_stacks.stack_get(keeper.db, sid)
    raw = api_stacks.raw_template_get(keeper.db, row.raw_template_id)
    assert raw.environment["parameters"]["secret"] == "t0ps3cr3t"


def test_snapshot_deletion_policy_and_its_validation(keeper, ledger):
    sid = create_and_wait(keeper, "policy", disks(ledger, policy="Snapshot"))["id"]
    keeper.delete_stack(CTX, sid)
    assert wait(keeper, sid)["stack_status"] == "DELETE_COMPLETE"
    assert "snapshot_delete a CREATE_COMPLETE" in lines(ledger)
    assert "delete a" not in lines(ledger) and "delete b" in lines(ledger)
    with pytest.raises(exception.StackValidationFailed) as refused:
        keeper.create_stack(CTX, "refused", "heat_template_version: 2021-04-16\nresources:\n"
                            "  n: {type: OS::Heat::RandomString, deletion_policy: snapshot}\n")
    assert '"Snapshot" deletion policy not supported' in str(refused.value)
    assert "resources.n.deletion_policy" in str(refused.value)
    # as Heat: OS::Heat::None validates nothing, so it takes the policy (and keeps nothing)
    create_and_wait(keeper, "placeholder", "heat_template_version: 2021-04-16\nresources:\n"
                    "  n: {type: OS::Heat::None, deletion_policy: Snapshot}\n")


def test_abandon_and_adopt_are_refused_by_default(keeper, ledger):
    sid = create_and_wait(keeper, "staying", disks(ledger))["id"]
    with pytest.raises(exception.NotSupported) as refused:
        keeper.abandon_stack(CTX, sid)
    assert str(refused.value) == "Stack Abandon is not supported."
    with pytest.raises(exception.NotSupported) as refused:
        keeper.adopt_stack(CTX, "new", keeper.export_stack(CTX, sid))
    assert str(refused.value) == "Stack Adopt is not supported."


@pytest.fixture
def movable(engine_options):
    engine_options(enable_stack_abandon=True, enable_stack_adopt=True)


def test_abandon_then_adopt_keeps_the_physical_resources(keeper, ledger, movable):
    created = create_and_wait(keeper, "moving", disks(ledger, size=3))
    before = {r["resource_name"]: r["physical_resource_id"]
              for r in keeper.list_resources(CTX, created["id"])}
    data = keeper.abandon_stack(CTX, created["id"])
    assert set(data) == {"name", "id", "action", "status", "project_id",
                         "stack_user_project_id", "tags", "template", "environment",
                         "files", "resources"}
    assert "delete a" not in lines(ledger)
    with pytest.raises(exception.StackNotFound):
        keeper.show_stack(CTX, "moving")

    adopted = keeper.adopt_stack(CTX, "moved", data)
    stack = wait(keeper, adopted["id"])
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "ADOPT_COMPLETE", "Stack ADOPT completed successfully")
    after = {r["resource_name"]: (r["physical_resource_id"], r["resource_status"])
             for r in keeper.list_resources(CTX, adopted["id"])}
    assert after == {name: (pid, "ADOPT_COMPLETE") for name, pid in before.items()}
    assert lines(ledger)[-2:] == [f"adopt a {before['a']}", f"adopt b {before['b']}"]
    assert keeper.show_output(CTX, adopted["id"], "size")["output_value"] == 3


def test_adopt_without_an_entry_fails_and_rolls_back_keeping_everything(keeper, movable):
    template = ("heat_template_version: 2021-04-16\nresources:\n"
                "  kept: {type: OS::Heat::None}\n  lost: {type: OS::Heat::None}\n")
    from hearth.engine.template.parser import parse
    data = {"template": parse(template, None),
            "resources": {"kept": {"resource_id": "phys-1", "resource_data": {"k": "v"},
                                   "metadata": {"m": 1}}}}
    adopted = keeper.adopt_stack(CTX, "partial", data, disable_rollback=True)
    stack = wait(keeper, adopted["id"])
    assert stack["stack_status"] == "ADOPT_FAILED"
    assert stack["stack_status_reason"] == ("Resource ADOPT failed: Exception: resources.lost: "
                                            "Resource ID was not provided.")
    kept = keeper.show_resource(CTX, adopted["id"], "kept")
    assert (kept["physical_resource_id"], kept["resource_status"]) == ("phys-1",
                                                                       "ADOPT_COMPLETE")
    assert keeper.resource_metadata(CTX, adopted["id"], "kept") == {"m": 1}

    rolled = keeper.adopt_stack(CTX, "rolled", data, disable_rollback=False)
    assert wait(keeper, rolled["id"])["stack_status"] == "ROLLBACK_COMPLETE"
    assert ("kept", "DELETE_COMPLETE") in statuses(keeper, rolled["id"])


def test_external_id_adopts_then_checks_and_cannot_change(keeper, ledger):
    template = ("heat_template_version: 2021-04-16\nresources:\n"
                "  n: {type: OS::Heat::None, external_id: %s}\n")
    sid = create_and_wait(keeper, "imported", template % "phys-42")["id"]
    assert [(name, status) for name, status in statuses(keeper, sid) if name == "n"] == [
        ("n", "ADOPT_IN_PROGRESS"), ("n", "ADOPT_COMPLETE"), ("n", "CHECK_COMPLETE")]
    shown = keeper.show_resource(CTX, sid, "n")
    assert (shown["physical_resource_id"], shown["resource_status_reason"]) == (
        "phys-42", "CHECK not supported for OS::Heat::None")
    keeper.update_stack(CTX, sid, template % "phys-43")
    failed = wait(keeper, sid)
    assert (failed["stack_status"], failed["stack_status_reason"]) == (
        "UPDATE_FAILED", "Resource UPDATE failed: NotSupported: resources.n: Update to "
        "property external_id of n (OS::Heat::None) is not supported.")


def nested_template(ledger) -> str:
    """Return a template whose ``inner`` OS::Heat::Stack holds one disk ``d``."""
    inner = ("heat_template_version: 2021-04-16\\nresources:\\n"
             f"  d: {{type: Test::Disk, properties: {{size: 6, ledger: {ledger}}}}}\\n")
    return ("heat_template_version: 2021-04-16\nresources:\n"
            f"  inner:\n    type: OS::Heat::Stack\n    properties:\n      template: \"{inner}\"\n"
            "  top: {type: OS::Heat::None}\n")


def test_nested_stacks_in_snapshot_abandon_and_adopt(keeper, ledger, movable):
    sid = create_and_wait(keeper, "outer", nested_template(ledger))["id"]
    nested_id = keeper.show_resource(CTX, sid, "inner")["physical_resource_id"]
    snapshot = keeper.stack_snapshot(CTX, sid)
    assert wait(keeper, sid)["stack_status"] == "SNAPSHOT_COMPLETE"
    entry = keeper.show_snapshot(CTX, sid, snapshot["id"])["data"]["resources"]["inner"]
    # as Heat: the nested stack's parent carries the nested stack's own data
    assert (entry["id"], entry["action"], entry["status"]) == (nested_id, "SNAPSHOT",
                                                               "COMPLETE")
    assert entry["resources"]["d"]["resource_data"] == {"backup": "6"}

    data = keeper.abandon_stack(CTX, sid)
    disk = data["resources"]["inner"]["resources"]["d"]["resource_id"]
    from hearth.db import api_stacks
    assert api_stacks.stack_get_all_by_owner(keeper.db, sid) == []
    adopted = keeper.adopt_stack(CTX, "outer2", data)
    assert wait(keeper, adopted["id"])["stack_status"] == "ADOPT_COMPLETE"
    new_nested = keeper.show_resource(CTX, adopted["id"], "inner")["physical_resource_id"]
    member = keeper.show_resource(CTX, new_nested, "d")
    assert (member["physical_resource_id"], member["resource_status"]) == (disk,
                                                                           "ADOPT_COMPLETE")
    assert lines(ledger)[-1] == f"adopt d {disk}"


def test_adopt_does_not_take_a_masked_hidden_value(keeper, ledger, movable):
    sid = create_and_wait(keeper, "masked", disks(ledger, hidden=True),
                          params={"secret": "t0ps3cr3t"})["id"]
    data = keeper.abandon_stack(CTX, sid)
    assert data["environment"]["parameters"] == {"secret": "******"}
    adopted = keeper.adopt_stack(CTX, "unmasked", data, params={"secret": "again"})
    assert wait(keeper, adopted["id"])["stack_status"] == "ADOPT_COMPLETE"
    from hearth.db import api_stacks
    row = api_stacks.stack_get(keeper.db, adopted["id"])
    raw = api_stacks.raw_template_get(keeper.db, row.raw_template_id)
    assert raw.environment["parameters"]["secret"] == "again"
    defaulted = keeper.adopt_stack(CTX, "defaulted", data)
    wait(keeper, defaulted["id"])
    row = api_stacks.stack_get(keeper.db, defaulted["id"])
    assert "secret" not in api_stacks.raw_template_get(
        keeper.db, row.raw_template_id).environment["parameters"]


def test_snapshot_of_a_failed_stack(keeper):
    failing = ("heat_template_version: 2021-04-16\nresources:\n"
               "  good: {type: OS::Heat::TestResource, properties: {value: ok}}\n"
               "  bad: {type: OS::Heat::TestResource, depends_on: good, "
               "properties: {fail: true}}\n")
    sid = create_and_wait(keeper, "broken", failing)["id"]
    snapshot = keeper.stack_snapshot(CTX, sid)
    assert wait(keeper, sid)["stack_status"] == "SNAPSHOT_COMPLETE"
    resources = keeper.show_snapshot(CTX, sid, snapshot["id"])["data"]["resources"]
    assert {name: (entry["action"], entry["status"]) for name, entry in resources.items()} == {
        "good": ("SNAPSHOT", "COMPLETE"), "bad": ("SNAPSHOT", "COMPLETE")}
