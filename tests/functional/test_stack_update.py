"""Stack UPDATE end to end: in place, replacement order, added/removed, rollback, cancel, preview.

Every test runs on the real engine over SQLite and, marked ``postgres``,
PostgreSQL (the ``db_url`` fixture).
"""

import pytest

from hearth.common import exception
from hearth.common.context import RequestContext

CTX = RequestContext.local()

BASE = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
resources:
  a: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_resource: a}}
outputs:
  a_out: {value: {get_attr: [a, output]}}
"""


@pytest.fixture
def service(hearth_home, db_url):
    from hearth.common import config
    from hearth.engine.service.engine import EngineService
    config.load(config_files=[])
    engine = EngineService(db_url=db_url)
    yield engine
    engine.stop()


def create(service, name, template, **kwargs):
    created = service.create_stack(CTX, name, template, **kwargs)
    stack = service.wait(CTX, created["id"])
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    return created["id"]


def update(service, stack_id, **kwargs):
    service.update_stack(CTX, stack_id, **kwargs)
    return service.wait(CTX, stack_id)


def physical_ids(service, stack_id):
    return {r["resource_name"]: r["physical_resource_id"]
            for r in service.list_resources(CTX, stack_id)}


def events_since(service, stack_id, count):
    events = service.list_events(CTX, stack_id, sort_dir="asc")[count:]
    return [(e["resource_name"], e["resource_status"]) for e in events]


def output(service, stack_id, key):
    return service.show_output(CTX, stack_id, key)["output_value"]


def test_in_place_update_keeps_physical_ids(service):
    stack_id = create(service, "inplace", BASE)
    before = physical_ids(service, stack_id)
    mark = len(service.list_events(CTX, stack_id))
    stack = update(service, stack_id, template=BASE, params={"v": "two"})
    assert stack["stack_status"] == "UPDATE_COMPLETE"
    assert stack["stack_status_reason"] == "Stack UPDATE completed successfully"
    assert physical_ids(service, stack_id) == before
    assert events_since(service, stack_id, mark) == [
        ("inplace", "UPDATE_IN_PROGRESS"), ("a", "UPDATE_IN_PROGRESS"),
        ("a", "UPDATE_COMPLETE"), ("inplace", "UPDATE_COMPLETE")]
    assert output(service, stack_id, "a_out") == "two"
    assert service.show_stack(CTX, stack_id)["parameters"]["v"] == "two"


REPLACE = BASE.replace("{value: {get_param: v}}",
                       "{value: {get_param: v}, update_replace_value: {get_param: v}}")


def test_replacement_is_create_before_delete_and_dependants_follow(service):
    stack_id = create(service, "replace", REPLACE)
    before = physical_ids(service, stack_id)
    mark = len(service.list_events(CTX, stack_id))
    stack = update(service, stack_id, template=REPLACE, params={"v": "two"})
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    after = physical_ids(service, stack_id)
    assert after["a"] != before["a"]
    assert after["b"] == before["b"]
    # the same sequence as Heat 27.0.1 gives for this template
    assert events_since(service, stack_id, mark) == [
        ("replace", "UPDATE_IN_PROGRESS"),
        ("a", "UPDATE_IN_PROGRESS"), ("a", "UPDATE_COMPLETE"),      # "requires replacement"
        ("a", "CREATE_IN_PROGRESS"), ("a", "CREATE_COMPLETE"),      # the replacement first
        ("b", "UPDATE_IN_PROGRESS"), ("b", "UPDATE_COMPLETE"),      # b now points at it
        ("a", "DELETE_IN_PROGRESS"), ("a", "DELETE_COMPLETE"),      # then the original goes
        ("replace", "UPDATE_COMPLETE")]
    resources = service.list_resources(CTX, stack_id)
    assert [(r["resource_name"], r["resource_status"]) for r in resources] == [
        ("b", "UPDATE_COMPLETE"), ("a", "CREATE_COMPLETE")]
    assert output(service, stack_id, "a_out") == "two"
    reasons = [e["resource_status_reason"] for e in service.list_events(
        CTX, stack_id, resource_name="a", sort_dir="asc")[2:4]]
    assert reasons == ["state changed", "The Resource a requires replacement."]


ADD_REMOVE_OLD = """
heat_template_version: 2018-08-31
resources:
  keep: {type: OS::Heat::None}
  gone: {type: OS::Heat::None, properties: {x: {get_resource: keep}}}
  gone_user: {type: OS::Heat::None, properties: {x: {get_resource: gone}}}
"""
ADD_REMOVE_NEW = """
heat_template_version: 2018-08-31
resources:
  keep: {type: OS::Heat::None}
  fresh: {type: OS::Heat::Value, properties: {value: {get_resource: keep}}}
"""


def test_added_created_and_removed_deleted_in_reverse_order(service):
    stack_id = create(service, "addrm", ADD_REMOVE_OLD)
    mark = len(service.list_events(CTX, stack_id))
    stack = update(service, stack_id, template=ADD_REMOVE_NEW)
    assert stack["stack_status"] == "UPDATE_COMPLETE"
    changes = events_since(service, stack_id, mark)
    assert ("fresh", "CREATE_COMPLETE") in changes
    deletes = [name for name, status in changes if status == "DELETE_IN_PROGRESS"]
    assert deletes == ["gone_user", "gone"]
    assert sorted(physical_ids(service, stack_id)) == ["fresh", "keep"]


def test_type_change_replaces(service):
    stack_id = create(service, "retype", ADD_REMOVE_NEW)
    before = physical_ids(service, stack_id)
    new = ADD_REMOVE_NEW.replace("keep: {type: OS::Heat::None}",
                                 "keep: {type: OS::Heat::RandomString}")
    stack = update(service, stack_id, template=new)
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    after = physical_ids(service, stack_id)
    assert after["keep"] != before["keep"]
    assert service.show_resource(CTX, stack_id, "keep")["resource_type"] == \
        "OS::Heat::RandomString"


FAILING = BASE.replace("{value: {get_resource: a}}",
                       "{value: {get_resource: a}, fail: {get_param: broken}}").replace(
    "  v: {type: string, default: one}",
    "  v: {type: string, default: one}\n  broken: {type: boolean, default: false}")


def test_failed_update_rolls_back_to_previous_template(service):
    stack_id = create(service, "rb", FAILING, disable_rollback=False)
    before = physical_ids(service, stack_id)
    stack = update(service, stack_id, template=FAILING, params={"v": "two", "broken": True})
    assert stack["stack_status"] == "ROLLBACK_COMPLETE", stack["stack_status_reason"]
    assert stack["stack_status_reason"] == "Stack ROLLBACK completed successfully"
    statuses = [e["resource_status"] for e in service.list_events(CTX, stack_id)
                if e["resource_name"] == "rb"]
    assert statuses[-4:] == ["UPDATE_IN_PROGRESS", "UPDATE_FAILED",
                             "ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"]
    failed = [e for e in service.list_events(CTX, stack_id)
              if e["resource_status"] == "UPDATE_FAILED" and e["resource_name"] == "rb"]
    assert failed[0]["resource_status_reason"] == (
        "Resource UPDATE failed: ValueError: resources.b: Test Resource failed b")
    assert output(service, stack_id, "a_out") == "one"
    assert service.show_stack(CTX, stack_id)["parameters"]["broken"] == "False"  # as Heat shows it
    after = physical_ids(service, stack_id)
    assert after["a"] == before["a"]
    assert all(r["resource_status"].endswith("COMPLETE")
               for r in service.list_resources(CTX, stack_id))


def test_failed_update_without_rollback_ends_failed(service):
    stack_id = create(service, "norb", FAILING)
    stack = update(service, stack_id, template=FAILING, params={"broken": True})
    assert stack["stack_status"] == "UPDATE_FAILED"
    assert stack["stack_status_reason"] == (
        "Resource UPDATE failed: ValueError: resources.b: Test Resource failed b")
    # the stack can be updated again, and the failed resource is replaced
    stack = update(service, stack_id, template=FAILING, params={"broken": False})
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]


def test_rollback_swaps_replaced_original_back(service):
    template = REPLACE.replace("{value: {get_resource: a}}",
                               "{value: {get_resource: a}, fail: {get_param: broken}}").replace(
        "  v: {type: string, default: one}",
        "  v: {type: string, default: one}\n  broken: {type: boolean, default: false}")
    stack_id = create(service, "swap", template, disable_rollback=False)
    before = physical_ids(service, stack_id)
    stack = update(service, stack_id, template=template, params={"v": "two", "broken": True})
    assert stack["stack_status"] == "ROLLBACK_COMPLETE", stack["stack_status_reason"]
    assert physical_ids(service, stack_id)["a"] == before["a"]
    assert output(service, stack_id, "a_out") == "one"


WAITING = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
resources:
  slow:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}, action_wait_secs: {update: 60}}
"""


def wait_for_slow_update(service, stack_id):
    from hearth.engine.scheduler import green_sleep
    for _ in range(500):
        if any(e["resource_status"] == "UPDATE_IN_PROGRESS" and e["resource_name"] == "slow"
               for e in service.list_events(CTX, stack_id)):
            return
        green_sleep(0.01)
    raise AssertionError("the update never reached the slow resource")


def test_cancel_update_rolls_back(service):
    stack_id = create(service, "cancel", WAITING)
    service.update_stack(CTX, stack_id, template=WAITING, params={"v": "two"})
    wait_for_slow_update(service, stack_id)
    service.stack_action(CTX, stack_id, "cancel_update")
    stack = service.wait(CTX, stack_id)
    assert stack["stack_status"] == "ROLLBACK_COMPLETE", stack["stack_status_reason"]
    statuses = [(e["resource_status"], e["resource_status_reason"])
                for e in service.list_events(CTX, stack_id) if e["resource_name"] == "cancel"]
    assert ("UPDATE_FAILED", "Stack UPDATE cancelled") in statuses
    assert service.show_stack(CTX, stack_id)["parameters"]["v"] == "one"


def test_cancel_without_rollback_marks_failed(service, engine_options):
    engine_options(error_wait_time=0.5)  # the slow update is interrupted after this grace
    stack_id = create(service, "cancel2", WAITING)
    service.update_stack(CTX, stack_id, template=WAITING, params={"v": "two"})
    wait_for_slow_update(service, stack_id)
    service.stack_action(CTX, stack_id, "cancel_without_rollback")
    stack = service.wait(CTX, stack_id)
    assert stack["stack_status"] == "UPDATE_FAILED"
    assert stack["stack_status_reason"] == "Stack UPDATE cancelled"


def test_cancel_update_refused_when_not_updating(service):
    stack_id = create(service, "nocancel", BASE)
    with pytest.raises(exception.NotSupported) as error:
        service.stack_action(CTX, stack_id, "cancel_update")
    assert str(error.value) == (
        "Cancelling update when stack is CREATE_COMPLETE is not supported.")


def test_update_refused_while_suspended(service):
    stack_id = create(service, "refuse", WAITING)
    service.stack_action(CTX, stack_id, "suspend")
    service.wait(CTX, stack_id)
    with pytest.raises(exception.NotSupported) as error:
        service.update_stack(CTX, stack_id, template=WAITING)
    assert str(error.value) == "Updating a stack when it is suspended is not supported."


def test_update_preempts_the_update_in_progress(service):
    """As Heat's convergence engine: the new update takes over, the stack never FAILED."""
    stack_id = create(service, "preempted", WAITING)
    service.update_stack(CTX, stack_id, template=WAITING, params={"v": "two"})
    wait_for_slow_update(service, stack_id)
    with pytest.raises(exception.StackValidationFailed):  # a bad request stops nothing
        service.update_stack(CTX, stack_id, template=WAITING.replace("TestResource", "Nope"))
    assert service.show_stack(CTX, stack_id)["stack_status"] == "UPDATE_IN_PROGRESS"
    quick = WAITING.replace("update: 60", "update: 0")
    service.update_stack(CTX, stack_id, template=quick, params={"v": "three"})
    stack = service.wait(CTX, stack_id)
    assert (stack["stack_status"], stack["parameters"]["v"]) == ("UPDATE_COMPLETE", "three")
    states = [e["resource_status"] for e in service.list_events(CTX, stack_id)
              if e["resource_name"] == "preempted"]
    assert states == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE", "UPDATE_IN_PROGRESS",
                      "UPDATE_COMPLETE"]


IMMUTABLE = """
heat_template_version: 2018-08-31
parameters:
  fixed: {type: string, default: one, immutable: true}
resources:
  a: {type: OS::Heat::None}
"""


def test_immutable_parameter_change_refused(service):
    stack_id = create(service, "immut", IMMUTABLE)
    with pytest.raises(exception.ImmutableParameterModified) as error:
        service.update_stack(CTX, stack_id, template=IMMUTABLE, params={"fixed": "two"})
    assert str(error.value) == (
        "The following parameters are immutable and may not be updated: fixed")
    assert service.show_stack(CTX, stack_id)["stack_status"] == "CREATE_COMPLETE"


def test_patch_keeps_template_and_parameters_and_clears(service):
    template = BASE.replace("  v: {type: string, default: one}",
                            "  v: {type: string, default: one}\n"
                            "  w: {type: string, default: dflt}")
    stack_id = create(service, "patch", template, params={"w": "set"})
    stack = update(service, stack_id, existing=True, params={"v": "two"})
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    params = service.show_stack(CTX, stack_id)["parameters"]
    assert (params["v"], params["w"]) == ("two", "set")
    stack = update(service, stack_id, existing=True, clear_parameters=["w"])
    params = service.show_stack(CTX, stack_id)["parameters"]
    assert (params["v"], params["w"]) == ("two", "dflt")
    # PUT: parameters not given go back to their defaults
    stack = update(service, stack_id, template=template)
    params = service.show_stack(CTX, stack_id)["parameters"]
    assert (params["v"], params["w"]) == ("one", "dflt")


def test_update_preview_classifies(service):
    stack_id = create(service, "preview", BASE)
    new = REPLACE.replace("outputs:", "  d: {type: OS::Heat::None}\noutputs:")
    changes = service.preview_update_stack(CTX, stack_id, template=new,
                                           params={"v": "two"})["resource_changes"]
    names = {kind: [r["resource_name"] for r in items] for kind, items in changes.items()}
    # as Heat 27.0.1: b reads the replaced a (get_resource), so the update will update it
    assert names == {"added": ["d"], "deleted": [], "replaced": ["a"], "updated": ["b"],
                     "unchanged": []}
    assert changes["replaced"][0]["resource_type"] == "OS::Heat::TestResource"
    assert (changes["added"][0]["resource_action"],
            changes["added"][0]["resource_status"]) == ("INIT", "COMPLETE")
    changes = service.preview_update_stack(CTX, stack_id, existing=True,
                                           params={"v": "three"})["resource_changes"]
    assert [r["resource_name"] for r in changes["updated"]] == ["a", "b"]  # as Heat 27.0.1
    assert changes["unchanged"] == []
    same = service.preview_update_stack(CTX, stack_id, template=BASE)["resource_changes"]
    # nothing b reads changes: unchanged (Heat 27.0.1 says 'updated' for b, reading every
    # resource another reads as not made yet; the update itself leaves b alone)
    assert [r["resource_name"] for r in same["unchanged"]] == ["a", "b"]
    without_b = BASE.replace("  b:\n    type: OS::Heat::TestResource\n"
                             "    properties: {value: {get_resource: a}}\n", "")
    changes = service.preview_update_stack(CTX, stack_id, template=without_b)
    assert [r["resource_name"] for r in changes["resource_changes"]["deleted"]] == ["b"]
    assert service.show_stack(CTX, stack_id)["stack_status"] == "CREATE_COMPLETE"
    assert service.show_stack(CTX, stack_id)["parameters"]["v"] == "one"


def test_create_preview(service):
    preview = service.preview_stack(CTX, "pv", BASE, params={"v": "x"})
    assert preview["id"] == "None"
    assert preview["stack_name"] == "pv"
    resources = {r["resource_name"]: r for r in preview["resources"]}
    assert resources["a"]["resource_action"] == "INIT"
    # every property of the type's schema, defaults included (as Heat's preview)
    assert resources["a"]["properties"]["value"] == "x"
    assert resources["a"]["properties"]["fail"] is False
    assert resources["a"]["resource_identity"] == {
        "tenant": CTX.project_id, "stack_name": "pv", "stack_id": "None", "path": "/resources/a"}
    assert resources["a"]["required_by"] == ["b"]
    assert service.list_stacks(CTX) == []


def stackctl(home, *args):
    import os
    import subprocess
    import sys
    env = dict(os.environ, HEARTH_HOME=str(home), PYTHONWARNINGS="ignore")
    for name in ("HEARTH_URL", "HEARTH_CONFIG"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "hearth.cli.main", *args], env=env,
                          text=True, capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=120)


def test_stackctl_stack_update(hearth_home, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(REPLACE)
    created = stackctl(hearth_home, "stack-create", "-f", str(template), "cli")
    assert created.returncode == 0, created.stderr
    preview = stackctl(hearth_home, "stack-update", "--existing", "-P", "v=two",
                       "--dry-run", "--format", "json", "cli")
    assert preview.returncode == 0, preview.stderr
    import json
    rows = json.loads(preview.stdout)
    assert {(r["change"], r["resource_name"]) for r in rows} == {
        ("replaced", "a"), ("updated", "b")}  # b reads a's id (as Heat 27.0.1)
    updated = stackctl(hearth_home, "stack-update", "--existing", "-P", "v=two", "cli")
    assert updated.returncode == 0, updated.stderr
    assert "Stack cli UPDATE_COMPLETE" in updated.stdout
    assert "a" in updated.stdout and "DELETE_COMPLETE" in updated.stdout
    missing = stackctl(hearth_home, "stack-update", "cli")
    assert missing.returncode == 2
    assert "stack-update needs -f FILE or --existing" in missing.stderr
