"""Nested stacks on the real engine and database: OS::Heat::Stack and provider templates.

Every action recurses into the nested stack (create, update, suspend,
resume, check, delete, rollback, cancel); the nested stack is a stored
stack of its own (owner, parent resource, depth); limits and failures read
as Heat's.
"""

from __future__ import annotations

import time

import pytest

from hearth.common import exception
from hearth.db import api_stacks
from tests.fixtures.engine import CTX, create_and_wait, events, statuses
from tests.functional.nested import templates as t

CHILD_FILES = t.files(child=t.CHILD)


def nested_rows(service, parent_id):
    """Return the live nested stack rows of a parent."""
    return api_stacks.stack_get_all_by_owner(service.db, parent_id)


def outputs(stack):
    return {o["output_key"]: o.get("output_value") for o in stack["outputs"]}


def test_os_heat_stack_create_outputs_and_delete(service):
    stack = create_and_wait(service, "parent", t.STACK_PARENT, files=CHILD_FILES)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    [row] = nested_rows(service, stack["id"])
    # the stored shape: owner, parent resource, depth, project, name = physical name
    assert (row.owner_id, row.parent_resource_name, row.nested_depth, row.project_id) == (
        stack["id"], "inner", 1, CTX.project_id)
    assert row.name.startswith("parent-inner-") and len(row.name) == len("parent-inner-") + 12
    assert (row.action, row.status, row.disable_rollback) == ("CREATE", "COMPLETE", True)
    resource = service.show_resource(CTX, stack["id"], "inner")
    assert resource["physical_resource_id"] == row.id

    values = outputs(service.show_stack(CTX, stack["id"]))
    assert values["ref"] == row.id
    assert values["name"] == row.name
    assert values["said"] == "hello"
    # inside the child, OS::stack_name/OS::stack_id/OS::project_id are the child's own
    assert values["all"] == {"said": "hello", "me": f"{row.name}|{row.id}|{CTX.project_id}"}
    assert values["member_attr"] == "hello"
    word = service.show_resource(CTX, row.id, "word")
    assert values["member_ref"] == word["physical_resource_id"]
    assert ("word", "CREATE_COMPLETE") in statuses(service, row.id)

    service.delete_stack(CTX, stack["id"])
    assert service.wait(CTX, stack["id"])["stack_status"] == "DELETE_COMPLETE"
    assert nested_rows(service, stack["id"]) == []
    gone = api_stacks.stack_get(service.db, row.id, show_deleted=True)
    assert (gone.action, gone.status, gone.deleted_at is not None) == ("DELETE", "COMPLETE",
                                                                        True)
    assert statuses(service, row.id)[-1] == (row.name, "DELETE_COMPLETE")


def test_provider_templates_by_file_and_by_registry(service):
    stack = create_and_wait(service, "prov", t.PROVIDER_PARENT,
                            files=t.files(provider=t.PROVIDER), environment=t.REGISTRY)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    values = outputs(service.show_stack(CTX, stack["id"]))
    # properties became the template's parameters, outputs the attributes,
    # and the OS::stack_id output the reference
    assert values == {"file_said": "from-file", "file_ref": "from-file",
                      "type_member": "from-registry"}
    by_type = {row.parent_resource_name: row for row in nested_rows(service, stack["id"])}
    assert sorted(by_type) == ["by_file", "by_type"]
    listed = {r["resource_name"]: r["resource_type"]
              for r in service.list_resources(CTX, stack["id"])}
    assert listed == {"by_file": t.PROVIDER_URL, "by_type": "My::Word"}


def test_failed_member_fails_the_parent_and_rollback_deletes_the_nested_stack(service):
    stack = create_and_wait(service, "failing", t.stack_of(t.FAILING_CHILD),
                            disable_rollback=False)
    reason = "ValueError: resources.inner.resources.broken: Test Resource failed broken"
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "ROLLBACK_COMPLETE", "Stack ROLLBACK completed successfully")
    assert ("inner", "CREATE_FAILED", reason) in events(service, stack["id"])
    assert ("failing", "CREATE_FAILED", f"Resource CREATE failed: {reason}") in events(
        service, stack["id"])
    assert nested_rows(service, stack["id"]) == []  # the rollback deleted it


def test_failed_member_without_rollback_keeps_the_failed_nested_stack(service):
    stack = create_and_wait(service, "kept", t.stack_of(t.FAILING_CHILD))
    assert stack["stack_status"] == "CREATE_FAILED"
    [row] = nested_rows(service, stack["id"])
    assert (row.status, row.status_reason) == (
        "FAILED", "Resource CREATE failed: ValueError: resources.broken: "
                  "Test Resource failed broken")
    service.delete_stack(CTX, stack["id"])
    assert service.wait(CTX, stack["id"])["stack_status"] == "DELETE_COMPLETE"
    assert nested_rows(service, stack["id"]) == []


def test_update_in_place_and_replacement_inside_the_nested_stack(service):
    stack = create_and_wait(service, "upd", t.STACK_PARENT, files=CHILD_FILES)
    [row] = nested_rows(service, stack["id"])
    word = service.show_resource(CTX, row.id, "word")["physical_resource_id"]
    secret = service.show_resource(CTX, row.id, "secret")["physical_resource_id"]

    service.update_stack(CTX, stack["id"], t.STACK_PARENT, files=CHILD_FILES,
                         params={"greeting": "bonjour"})
    updated = service.wait(CTX, stack["id"])
    assert updated["stack_status"] == "UPDATE_COMPLETE", updated["stack_status_reason"]
    [after] = nested_rows(service, stack["id"])
    assert (after.id, after.action, after.status) == (row.id, "UPDATE", "COMPLETE")
    # the Value member updated in place, the untouched one left alone
    assert service.show_resource(CTX, row.id, "word")["physical_resource_id"] == word
    assert ("word", "UPDATE_COMPLETE") in statuses(service, row.id)
    assert service.show_resource(CTX, row.id, "secret")["physical_resource_id"] == secret
    assert outputs(service.show_stack(CTX, stack["id"]))["said"] == "bonjour"

    # a change the member cannot take in place replaces it, inside the nested stack
    replaced = t.STACK_PARENT.replace("length: 6", "length: 9")
    service.update_stack(CTX, stack["id"], replaced, files=CHILD_FILES)
    assert service.wait(CTX, stack["id"])["stack_status"] == "UPDATE_COMPLETE"
    assert [r.id for r in nested_rows(service, stack["id"])] == [row.id]
    new_secret = service.show_resource(CTX, row.id, "secret")
    assert new_secret["physical_resource_id"] != secret
    assert len(service.show_resource(CTX, row.id, "secret")["attributes"]["value"]) == 9


def test_failed_nested_update_rolls_back_to_the_old_template(service):
    stack = create_and_wait(service, "uroll", t.STACK_PARENT, files=CHILD_FILES,
                            disable_rollback=False)
    broken = t.CHILD.replace("outputs:", "  extra:\n    type: OS::Heat::TestResource\n"
                                         "    properties: {fail: true}\noutputs:")
    service.update_stack(CTX, stack["id"], t.STACK_PARENT, files=t.files(child=broken))
    final = service.wait(CTX, stack["id"])
    assert final["stack_status"] == "ROLLBACK_COMPLETE", final["stack_status_reason"]
    assert ("uroll", "UPDATE_FAILED",
            "Resource UPDATE failed: ValueError: resources.inner.resources.extra: "
            "Test Resource failed extra") in events(service, stack["id"])
    [row] = nested_rows(service, stack["id"])
    assert sorted(r["resource_name"] for r in service.list_resources(CTX, row.id)) == [
        "secret", "word"]


def test_suspend_resume_and_check_recurse(service):
    stack = create_and_wait(service, "acts", t.STACK_PARENT, files=CHILD_FILES)
    [row] = nested_rows(service, stack["id"])
    for action in ("suspend", "resume", "check"):
        service.stack_action(CTX, stack["id"], action)
        state = f"{action.upper()}_COMPLETE"
        assert service.wait(CTX, stack["id"])["stack_status"] == state
        nested = service.show_stack(CTX, row.id, resolve_outputs=False)
        assert nested["stack_status"] == state
        members = {r["resource_name"]: r["resource_status"]
                   for r in service.list_resources(CTX, row.id)}
        assert set(members.values()) == {state}, members


def test_depth_limit_refuses_the_stack_with_heats_text(service, engine_options):
    engine_options(max_nested_stack_depth=2)
    levels = t.files(a="heat_template_version: 2018-08-31\nresources:\n"
                       "  b: {type: 'file:///templates/b.yaml'}\n",
                     b="heat_template_version: 2018-08-31\nresources:\n"
                       "  c: {type: 'file:///templates/c.yaml'}\n",
                     c="heat_template_version: 2018-08-31\nresources:\n"
                       "  none: {type: OS::Heat::None}\n")
    top = "heat_template_version: 2018-08-31\nresources:\n  a: {type: 'file:///templates/a.yaml'}\n"
    with pytest.raises(exception.StackValidationFailed) as raised:
        service.create_stack(CTX, "deep", top, files=levels)
    assert str(raised.value).endswith(
        "resources.a.resources.b.resources.c: Request limit exceeded: Recursion depth "
        "exceeds 2.")
    with pytest.raises(exception.StackNotFound):
        service.show_stack(CTX, "deep")
    engine_options(max_nested_stack_depth=3)
    assert create_and_wait(service, "deep", top, files=levels)["stack_status"] == \
        "CREATE_COMPLETE"


def test_resource_limit_counts_the_whole_tree(service, engine_options):
    engine_options(max_resources_per_stack=3)
    stack = create_and_wait(service, "big", t.stack_of(t.FAILING_CHILD.replace(
        "properties: {fail: true}", "properties: {}") + "  third: {type: OS::Heat::None}\n"))
    assert stack["stack_status"] == "CREATE_FAILED"
    assert stack["stack_status_reason"] == (
        "Resource CREATE failed: RequestLimitExceeded: resources.inner: Request limit "
        "exceeded: Maximum resources per stack exceeded.")


def test_cancel_without_rollback_reaches_the_nested_walk(service, engine_options):
    engine_options(error_wait_time=0.3)  # the grace before the slow child is cut
    created = service.create_stack(CTX, "cancel", t.stack_of(t.SLOW_CHILD))
    deadline = time.monotonic() + 10
    while not nested_rows(service, created["id"]) and time.monotonic() < deadline:
        service.wait(CTX, created["id"], timeout=0.05)
    service.wait(CTX, created["id"], timeout=0.3)
    service.stack_action(CTX, created["id"], "cancel_without_rollback")
    started = time.monotonic()
    stack = service.wait(CTX, created["id"])
    assert time.monotonic() - started < 10
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED", "Stack CREATE cancelled")
    [row] = nested_rows(service, created["id"])
    assert (row.status, row.status_reason) == ("FAILED", "Stack CREATE cancelled")
    assert events(service, row.id)[-2] == ("slow", "CREATE_FAILED", "Create cancelled")
    service.delete_stack(CTX, created["id"])
    assert service.wait(CTX, created["id"])["stack_status"] == "DELETE_COMPLETE"
    assert nested_rows(service, created["id"]) == []


@pytest.mark.parametrize("template, error", [
    (t.PROVIDER_PARENT.replace("{greeting: from-file}", "{greeting: x, colour: red}"),
     "resources.by_file.properties: Unknown Property colour"),
    (t.PROVIDER_PARENT.replace("provider.yaml", "absent.yaml"),
     'resources.by_file.type: Could not fetch remote template '
     '"file:///templates/absent.yaml": it is not in the files map'),
])
def test_validate_preview_and_create_apply_the_same_rules(service, template, error):
    request = {"files": t.files(provider=t.PROVIDER), "environment": t.REGISTRY}
    for call in (lambda: service.catalog.validate_template(CTX, template, **request),
                 lambda: service.preview_stack(CTX, "pre", template, **request),
                 lambda: service.create_stack(CTX, "pre", template, **request)):
        with pytest.raises(exception.StackValidationFailed) as raised:
            call()
        assert error in str(raised.value)
    preview = service.preview_stack(CTX, "pre", t.PROVIDER_PARENT, **request)
    # as Heat: each nested stack is the list of its own resources, never stored
    assert [[(r["resource_name"], r["resource_type"], r["stack_name"]) for r in nested]
            for nested in preview["resources"]] == [
        [("word", "OS::Heat::Value", "pre-by_file")], [("word", "OS::Heat::Value",
                                                       "pre-by_type")]]
    # every property of the schema, as Heat's preview (OS::Heat::Value: value, type)
    assert preview["resources"][1][0]["properties"] == {"value": "from-registry", "type": None}
    assert nested_rows(service, "None") == []


def test_cancel_update_cancels_the_nested_update_and_rolls_it_back(service):
    quick = t.SLOW_CHILD.replace("create", "delete")  # slow only at delete: never here
    stack = create_and_wait(service, "cupd", t.stack_of(quick),
                            disable_rollback=False)
    [row] = nested_rows(service, stack["id"])
    slower = t.SLOW_CHILD.replace("create: 30", "update: 30").replace(
        "properties: {", "properties: {value: changed, ")
    service.update_stack(CTX, stack["id"], t.stack_of(slower))
    deadline = time.monotonic() + 10
    while ("slow", "UPDATE_IN_PROGRESS") not in statuses(service, row.id) \
            and time.monotonic() < deadline:
        service.wait(CTX, stack["id"], timeout=0.05)
    service.stack_action(CTX, stack["id"], "cancel_update")
    final = service.wait(CTX, stack["id"])
    assert (final["stack_status"], final["stack_status_reason"]) == (
        "ROLLBACK_COMPLETE", "Stack ROLLBACK completed successfully")
    nested = service.show_stack(CTX, row.id, resolve_outputs=False)
    assert nested["stack_status"] == "UPDATE_COMPLETE"  # updated back by the rollback
    assert ("slow", "UPDATE_FAILED", "Update cancelled") in events(service, row.id)


FACADE_CHILD = """
heat_template_version: 2018-08-31
resources:
  seen:
    type: OS::Heat::Value
    properties:
      value: {list_join: [',', [{resource_facade: deletion_policy},
                                {get_attr: [meta, value]}]]}
  meta:
    type: OS::Heat::Value
    properties: {value: {str_replace: {template: m=$m, params: {$m: {resource_facade: metadata}}}}}
outputs:
  seen: {value: {get_attr: [seen, value]}}
"""


def test_resource_facade_reads_the_parent_resource(service):
    parent = ("heat_template_version: 2018-08-31\nresources:\n  prov:\n"
              "    type: file:///templates/facade.yaml\n    deletion_policy: Retain\n"
              "    metadata: {m: 1}\noutputs:\n  seen: {value: {get_attr: [prov, seen]}}\n")
    stack = create_and_wait(service, "facade", parent, files=t.files(facade=FACADE_CHILD))
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    assert outputs(service.show_stack(CTX, stack["id"]))["seen"] == 'Retain,m={"m": 1}'


def test_update_reads_a_provider_template_that_gained_a_parameter_and_an_output(service):
    request = {"files": t.files(provider=t.PROVIDER), "environment": t.REGISTRY}
    stack = create_and_wait(service, "grow", t.PROVIDER_PARENT, **request)
    grown = t.PROVIDER.replace("  count:", "  suffix: {type: string, default: '!'}\n  count:")
    grown += "  shout: {value: {str_replace: {template: $w$s, params: {$w: {get_attr: " \
             "[word, value]}, $s: {get_param: suffix}}}}}\n"
    parent = t.PROVIDER_PARENT.replace("{greeting: from-file}",
                                       "{greeting: from-file, suffix: '?'}")
    parent += "  shout: {value: {get_attr: [by_file, shout]}}\n"
    service.update_stack(CTX, stack["id"], parent, files=t.files(provider=grown),
                         environment=t.REGISTRY)
    updated = service.wait(CTX, stack["id"])
    assert updated["stack_status"] == "UPDATE_COMPLETE", updated["stack_status_reason"]
    values = outputs(service.show_stack(CTX, stack["id"]))
    assert (values["shout"], values["file_said"]) == ("from-file?", "from-file")


def test_a_hook_set_for_a_nested_member_pauses_it_until_cleared(service):
    env = {"resource_registry": {"resources": {"inner": {"word": {"hooks": "pre-create"}}}}}
    created = service.create_stack(CTX, "hooked", t.STACK_PARENT, files=CHILD_FILES,
                                   environment=env)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        rows = nested_rows(service, created["id"])
        try:
            word = service.show_resource(CTX, rows[0].id, "word") if rows else {}
        except exception.EntityNotFound:  # the nested stack is storing its members
            word = {}
        if "Hook" in word.get("resource_status_reason", ""):
            break
        service.wait(CTX, created["id"], timeout=0.05)
    assert (word["resource_status"], word["resource_status_reason"]) == (
        "INIT_COMPLETE", "CREATE paused until Hook pre-create is cleared")
    assert service.show_stack(CTX, created["id"])["stack_status"] == "CREATE_IN_PROGRESS"
    service.resource_signal(CTX, rows[0].id, "word", {"unset_hook": "pre-create"})
    assert service.wait(CTX, created["id"])["stack_status"] == "CREATE_COMPLETE"


def test_another_alias_of_the_same_template_updates_in_place(service):
    registry = {"resource_registry": {"My::Word": t.PROVIDER_URL, "My::Say": t.PROVIDER_URL}}
    request = {"files": t.files(provider=t.PROVIDER), "environment": registry}
    stack = create_and_wait(service, "alias", t.PROVIDER_PARENT, **request)
    before = {row.parent_resource_name: row.id for row in nested_rows(service, stack["id"])}
    service.update_stack(CTX, stack["id"], t.PROVIDER_PARENT.replace("My::Word", "My::Say"),
                         **request)
    assert service.wait(CTX, stack["id"])["stack_status"] == "UPDATE_COMPLETE"
    after = {row.parent_resource_name: row.id for row in nested_rows(service, stack["id"])}
    assert after == before  # the same nested stacks: updated, not replaced
    assert service.show_resource(CTX, stack["id"], "by_type")["resource_type"] == "My::Say"


def test_a_timed_out_parent_stops_the_nested_walk(service, engine_options):
    engine_options(stack_action_timeout=2)
    started = time.monotonic()
    stack = create_and_wait(service, "late", t.stack_of(t.SLOW_CHILD))
    assert time.monotonic() - started < 15
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED", "Create timed out")
    [row] = nested_rows(service, stack["id"])
    assert (row.action, row.status) == ("CREATE", "FAILED")
    slow = service.show_resource(CTX, row.id, "slow")
    assert slow["resource_status"] == "CREATE_FAILED"


def test_a_nested_stack_acted_on_directly_waits_for_its_tree(service, engine_options):
    engine_options(error_wait_time=0.3)  # the grace before the slow child is cut
    created = service.create_stack(CTX, "busy", t.stack_of(t.SLOW_CHILD))
    deadline = time.monotonic() + 10
    while not nested_rows(service, created["id"]) and time.monotonic() < deadline:
        service.wait(CTX, created["id"], timeout=0.05)
    [row] = nested_rows(service, created["id"])
    with pytest.raises(exception.ActionInProgress) as raised:
        service.stack_action(CTX, row.id, "suspend")
    assert str(raised.value) == "Stack busy already has an action (CREATE) in progress."
    service.stack_action(CTX, created["id"], "cancel_without_rollback")
    service.wait(CTX, created["id"])
    service.stack_action(CTX, row.id, "check")  # the tree is idle: a direct action runs
    assert service.wait(CTX, row.id)["stack_status"].startswith("CHECK_")


def test_parameter_defaults_fill_a_provider_parameter_without_default(service):
    parent = """
heat_template_version: 2018-08-31
resources:
  by_type: {type: My::Word}
outputs:
  said: {value: {get_attr: [by_type, said]}}
"""
    request = {"files": t.files(provider=t.PROVIDER)}
    with pytest.raises(exception.HearthException, match="Property greeting not assigned"):
        service.create_stack(CTX, "no-default", parent, environment=t.REGISTRY, **request)
    environment = {**t.REGISTRY, "parameter_defaults": {"greeting": "from-defaults"}}
    stack = create_and_wait(service, "by-defaults", parent, environment=environment, **request)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    assert outputs(service.show_stack(CTX, stack["id"])) == {"said": "from-defaults"}
