"""An update compares each resource with the properties its last action stored (as Heat).

Through ``stackctl`` as a subprocess: a resource whose property reads
another resource's attribute is updated (or replaced, for a property that
cannot change in place) when only that attribute changed, and the events
are those Heat 27.0.1 records for the same template.  A stack made before
stored properties (none stored) is compared with its definitions as Heat
compares such resources; a rollback stores what it restores; a check, a
suspend and a resume store nothing.
"""

from __future__ import annotations

import json

import pytest

from tests.functional import stackctl_process

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
resources:
  other: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
  reader: {type: OS::Heat::TestResource, properties: {value: {get_attr: [other, output]}}}
  reader_replace:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [other, output]}, update_replace: true}
  ordered:
    type: OS::Heat::TestResource
    depends_on: other
    properties: {value: fixed}
outputs:
  reader: {value: {get_attr: [reader, output]}}
  reader_replace: {value: {get_attr: [reader_replace, output]}}
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """Return the module's HEARTH_HOME: one local engine for its tests, each with its stack."""
    return tmp_path_factory.mktemp("stored-properties-home")


def stackctl(home, *args):
    return stackctl_process.run(home, *args, timeout=120)


def resource_events(home, stack):
    """Return (resource, status, reason) of every resource event, oldest first."""
    listed = json.loads(stackctl(home, "event-list", stack, "--format", "json").stdout)
    return [(event["resource_name"], event["resource_status"], event["resource_status_reason"])
            for event in listed if event["resource_name"] != stack]


def test_a_resource_reading_a_changed_attribute_is_updated(home, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    created = stackctl(home, "stack-create", "-f", str(template), "attrs")
    assert created.returncode == 0, created.stdout + created.stderr
    ids = {r["resource_name"]: r["physical_resource_id"] for r in json.loads(
        stackctl(home, "resource-list", "attrs", "--format", "json").stdout)}
    before = len(resource_events(home, "attrs"))

    updated = stackctl(home, "stack-update", "-f", str(template), "-P", "v=two", "attrs")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "[reader]: UPDATE_COMPLETE" in updated.stdout
    assert "[ordered]: UPDATE" not in updated.stdout   # depends_on alone changes nothing
    events = resource_events(home, "attrs")[before:]
    # what Heat 27.0.1 records for this template (the order of independent ones aside)
    assert [e for e in events if e[0] == "reader"] == [
        ("reader", "UPDATE_IN_PROGRESS", "state changed"),
        ("reader", "UPDATE_COMPLETE", "state changed")]
    replaced = [e[1:3] for e in events if e[0] == "reader_replace"]
    assert [status for status, _ in replaced] == [
        "UPDATE_IN_PROGRESS", "UPDATE_COMPLETE", "CREATE_IN_PROGRESS", "CREATE_COMPLETE",
        "DELETE_IN_PROGRESS", "DELETE_COMPLETE"]
    stack_id = json.loads(stackctl(home, "stack-show", "attrs", "--format",
                                   "json").stdout)["id"]
    assert replaced[1][1] == (
        f'The Resource TestResource "reader_replace" [{ids["reader_replace"]}] Stack "attrs" '
        f"[{stack_id}] requires replacement.")
    outputs = json.loads(stackctl(home, "output-show", "attrs", "--all",
                                  "--format", "json").stdout)
    assert (outputs["reader"]["output_value"],
            outputs["reader_replace"]["output_value"]) == ("two", "two")

    again = stackctl(home, "stack-update", "-f", str(template), "-P", "v=two", "attrs")
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(resource_events(home, "attrs")) == before + len(events)  # nothing moved


# --- where the stored properties come from, and where they do not change ----------------
# (what Heat 27.0.1 answers for the same templates and steps, through python-heatclient)

FAILING = """\
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
  fail: {type: boolean, default: false}
resources:
  other: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
  reader: {type: OS::Heat::TestResource, properties: {value: {get_attr: [other, output]}}}
  bad:
    type: OS::Heat::TestResource
    depends_on: reader
    properties: {value: {get_param: v}, fail: {get_param: fail}}
"""


def moves(home, stack, since=0):
    """Return (resource, status) of the stack's resource events from the ``since``-th on."""
    return [event[:2] for event in resource_events(home, stack)[since:]]


def output(home, stack, resource):
    """Return the resource's ``output`` attribute (an OS::Heat::TestResource's value)."""
    shown = stackctl(home, "resource-show", stack, resource, "--format", "json")
    return json.loads(shown.stdout)["attributes"]["output"]


def forget_stored_properties(home, stack):
    """Make the stack's resources look as a Hearth before stored properties left them."""
    import sqlite3
    with sqlite3.connect(home / "hearth.db") as database:
        changed = database.execute(
            "UPDATE resource SET properties_data = NULL WHERE stack_id ="
            " (SELECT id FROM stack WHERE name = ? AND deleted_at IS NULL)", (stack,)).rowcount
    assert changed == 3


def test_a_stack_made_before_stored_properties_compares_with_its_definition(
        home, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(FAILING)
    created = stackctl(home, "stack-create", "-f", str(template), "legacy")
    assert created.returncode == 0, created.stdout + created.stderr
    forget_stored_properties(home, "legacy")
    before = len(moves(home, "legacy"))

    # Heat 27.0.1, its resources' stored properties removed: other and bad (reading the
    # parameter) are updated; reader is compared with its definition resolved as it is
    # reached, other already updated: unchanged
    updated = stackctl(home, "stack-update", "-f", str(template), "-P", "v=two", "legacy")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    events = moves(home, "legacy", before)
    assert sorted(events) == [
        ("bad", "UPDATE_COMPLETE"), ("bad", "UPDATE_IN_PROGRESS"),
        ("other", "UPDATE_COMPLETE"), ("other", "UPDATE_IN_PROGRESS")]
    assert [output(home, "legacy", name) for name in ("other", "reader", "bad")] == [
        "two", "one", "two"]   # reader keeps what it was created with

    # the update stored what it updated to: the same again moves nothing
    again = stackctl(home, "stack-update", "-f", str(template), "-P", "v=two", "legacy")
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(moves(home, "legacy")) == before + len(events)


def test_a_rollback_stores_the_properties_it_restores(home, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(FAILING)
    created = stackctl(home, "stack-create", "-f", str(template), "rb")
    assert created.returncode == 0, created.stdout + created.stderr
    before = len(moves(home, "rb"))

    failed = stackctl(home, "stack-update", "-f", str(template), "-P", "v=two",
                      "-P", "fail=true", "rb")
    assert failed.returncode != 0
    shown = json.loads(stackctl(home, "stack-show", "rb", "--format", "json").stdout)
    assert shown["stack_status"] == "ROLLBACK_COMPLETE", shown
    events = moves(home, "rb", before)
    # as Heat 27.0.1: other and reader updated, then updated back; the failed bad replaced
    for name in ("other", "reader"):
        assert [status for resource, status in events if resource == name] == [
            "UPDATE_IN_PROGRESS", "UPDATE_COMPLETE", "UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"]
    assert [status for resource, status in events if resource == "bad"] == [
        "UPDATE_IN_PROGRESS", "UPDATE_FAILED", "CREATE_IN_PROGRESS", "CREATE_COMPLETE",
        "DELETE_IN_PROGRESS", "DELETE_COMPLETE"]
    assert [output(home, "rb", name) for name in ("other", "reader", "bad")] == [
        "one", "one", "one"]

    # the rollback stored what it restored: the original template moves nothing (Heat)
    back = stackctl(home, "stack-update", "-f", str(template), "-P", "v=one",
                    "-P", "fail=false", "rb")
    assert back.returncode == 0, back.stdout + back.stderr
    assert len(moves(home, "rb")) == before + len(events)


WAITING = """\
heat_template_version: 2018-08-31
resources:
  handle: {type: OS::Heat::WaitConditionHandle}
"""
READING_THE_WAIT = WAITING + """\
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, count: 1, timeout: 60}
  reader: {type: OS::Heat::TestResource, properties: {value: {get_attr: [wait, data]}}}
"""


def signal(home, stack, ident, data):
    sent = stackctl(home, "resource-signal", stack, "handle", "-D", json.dumps(
        {"status": "SUCCESS", "id": ident, "data": data}))
    assert sent.returncode == 0, sent.stdout + sent.stderr


def test_check_suspend_and_resume_keep_the_stored_properties(home, tmp_path):
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text(WAITING)
    second.write_text(READING_THE_WAIT)
    created = stackctl(home, "stack-create", "-f", str(first), "chk")
    assert created.returncode == 0, created.stdout + created.stderr
    signal(home, "chk", "a", "first")
    grown = stackctl(home, "stack-update", "-f", str(second), "chk")
    assert grown.returncode == 0, grown.stdout + grown.stderr
    assert output(home, "chk", "reader") == json.dumps({"a": "first"})
    signal(home, "chk", "b", "second")   # what reader reads changes meanwhile

    for command in ("stack-check", "stack-suspend", "stack-resume"):
        done = stackctl(home, command, "chk")
        assert done.returncode == 0, done.stdout + done.stderr
    # none of them stored what reader reads now (as Heat: only a create, an adopt and an
    # update store a resource's properties), so the update finds it changed
    updated = stackctl(home, "stack-update", "-f", str(second), "chk")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "[reader]: UPDATE_COMPLETE" in updated.stdout
    assert output(home, "chk", "reader") == json.dumps({"a": "first", "b": "second"})
