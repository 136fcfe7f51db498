"""An update compares each resource with the properties its last action stored (as Heat).

Through ``stackctl`` as a subprocess: a resource whose property reads
another resource's attribute is updated (or replaced, for a property that
cannot change in place) when only that attribute changed, and the events
are those Heat 27.0.1 records for the same template.
"""

from __future__ import annotations

import json

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


def stackctl(home, *args):
    return stackctl_process.run(home, *args, timeout=120)


def resource_events(home, stack):
    """Return (resource, status, reason) of every resource event, oldest first."""
    listed = json.loads(stackctl(home, "event-list", stack, "--format", "json").stdout)
    return [(event["resource_name"], event["resource_status"], event["resource_status_reason"])
            for event in listed if event["resource_name"] != stack]


def test_a_resource_reading_a_changed_attribute_is_updated(hearth_home, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    created = stackctl(hearth_home, "stack-create", "-f", str(template), "attrs")
    assert created.returncode == 0, created.stdout + created.stderr
    ids = {r["resource_name"]: r["physical_resource_id"] for r in json.loads(
        stackctl(hearth_home, "resource-list", "attrs", "--format", "json").stdout)}
    before = len(resource_events(hearth_home, "attrs"))

    updated = stackctl(hearth_home, "stack-update", "-f", str(template), "-P", "v=two", "attrs")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "[reader]: UPDATE_COMPLETE" in updated.stdout
    assert "[ordered]: UPDATE" not in updated.stdout   # depends_on alone changes nothing
    events = resource_events(hearth_home, "attrs")[before:]
    # what Heat 27.0.1 records for this template (the order of independent ones aside)
    assert [e for e in events if e[0] == "reader"] == [
        ("reader", "UPDATE_IN_PROGRESS", "state changed"),
        ("reader", "UPDATE_COMPLETE", "state changed")]
    replaced = [e[1:3] for e in events if e[0] == "reader_replace"]
    assert [status for status, _ in replaced] == [
        "UPDATE_IN_PROGRESS", "UPDATE_COMPLETE", "CREATE_IN_PROGRESS", "CREATE_COMPLETE",
        "DELETE_IN_PROGRESS", "DELETE_COMPLETE"]
    stack_id = json.loads(stackctl(hearth_home, "stack-show", "attrs", "--format",
                                   "json").stdout)["id"]
    assert replaced[1][1] == (
        f'The Resource TestResource "reader_replace" [{ids["reader_replace"]}] Stack "attrs" '
        f"[{stack_id}] requires replacement.")
    outputs = json.loads(stackctl(hearth_home, "output-show", "attrs", "--all",
                                  "--format", "json").stdout)
    assert (outputs["reader"]["output_value"],
            outputs["reader_replace"]["output_value"]) == ("two", "two")

    again = stackctl(hearth_home, "stack-update", "-f", str(template), "-P", "v=two", "attrs")
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(resource_events(hearth_home, "attrs")) == before + len(events)  # nothing moved
