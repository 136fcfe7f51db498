"""ResourceGroup and ResourceChain through ``stackctl`` as a subprocess (SQLite).

One HEARTH_HOME serves the module; each test works on stacks of its own
names.  Expected values are Heat's (its ResourceGroup/ResourceChain code
and texts, read from Heat 27's source and oracle).
"""

from __future__ import annotations

import json

import pytest

from tests.functional.groups import templates
from tests.functional.stackctl_process import run

TIMEOUT_REASON = ("Resource CREATE failed: ValueError: resources.g: The current update policy "
                  "will result in stack update timeout.")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("groups-home")


def stackctl(home, *args, ok=True):
    result = run(home, *args, timeout=300)
    if ok:
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result


def write(home, name, text):
    path = home / name
    path.write_text(text)
    return str(path)


def outputs(home, stack):
    shown = json.loads(stackctl(home, "stack-show", stack, "--format", "json").stdout)
    return {o["output_key"]: o.get("output_error", o["output_value"]) for o in shown["outputs"]}


def nested_events(home, stack):
    """Return the (member, status) events of the stack's nested stacks, in order."""
    events = json.loads(stackctl(home, "event-list", stack, "-n", "1", "--format",
                                 "json").stdout)
    return [(e["resource_name"], e["resource_status"]) for e in events
            if e["stack_name"] != stack and e["resource_name"] != e["stack_name"]]


def nested_stacks(home):
    return [s for s in json.loads(stackctl(home, "stack-list", "--show-nested", "--format",
                                           "json").stdout) if s.get("parent")]


@pytest.mark.slow
def test_group_attributes_scaling_and_removal_policies(home):
    template = write(home, "group.yaml", templates.GROUP)
    stackctl(home, "stack-create", "-f", template, "grp")
    out = outputs(home, "grp")
    assert list(out["refs_map"]) == ["0", "2", "3"]  # "1" removed before it ever existed
    refs = out["refs_map"]
    assert out["refs"] == [refs["0"], refs["2"], refs["3"]]
    assert out["attributes"] == {"0": "v0", "2": "v2", "3": "v3"}
    assert out["output"] == ["v0", "v2", "v3"]
    assert (out["first_ref"], out["first_output"], out["first_output_path"]) == (
        refs["0"], "v0", "v0")
    assert out["removed"] == ["1"]
    assert out["gone"] == "Member '1' not found in group resource 'g'."
    nested = nested_stacks(home)
    assert [s["id"] for s in nested] == [out["reference"]]  # get_resource: the nested stack

    stackctl(home, "stack-update", "-f", template, "-P", "count=5", "grp")
    grown = outputs(home, "grp")
    assert list(grown["refs_map"]) == ["0", "2", "3", "4", "5"]
    assert {k: grown["refs_map"][k] for k in refs} == refs  # scaled up in place

    # a removal by reference id names member "2"; "1" stays on the skip-list
    stackctl(home, "stack-update", "-f", template, "-P", "count=2",
             "-P", f"removed={refs['2']}", "grp")
    shrunk = outputs(home, "grp")
    assert shrunk["refs_map"] == {"0": refs["0"], "3": refs["3"]}
    assert shrunk["removed"] == ["1", "2"]

    # mode "update" replaces the skip-list: "1" and "2" are members again, new ones
    stackctl(home, "stack-update", "-f", template, "-P", "count=2", "-P", "removed=0",
             "-P", "mode=update", "grp")
    replaced = outputs(home, "grp")
    assert list(replaced["refs_map"]) == ["1", "2"]
    assert replaced["attributes"] == {"1": "v1", "2": "v2"}
    assert replaced["refs_map"]["2"] != refs["2"]
    assert replaced["removed"] == ["0"]

    stackctl(home, "stack-delete", "-y", "grp")
    assert nested_stacks(home) == []


@pytest.mark.slow
def test_batch_create_and_rolling_update_go_in_heats_batches(home):
    template = write(home, "rolling.yaml", templates.ROLLING)
    stackctl(home, "stack-create", "-f", template, "roll")
    created = nested_events(home, "roll")
    # two members in the first batch, the third one in the second
    assert [name for name, status in created if status == "CREATE_COMPLETE"][-1] == "2"
    assert created.index(("2", "CREATE_IN_PROGRESS")) > created.index(("1", "CREATE_COMPLETE"))
    assert outputs(home, "roll")["output"] == ["a-0", "a-1", "a-2"]

    stackctl(home, "stack-update", "-f", template, "-P", "value=b", "roll")
    updated = [name for name, status in nested_events(home, "roll")[len(created):]
               if status == "UPDATE_IN_PROGRESS"]
    # min_in_service 1, batches of 2: the highest indices first, then the rest
    assert updated[:2] in (["2", "1"], ["1", "2"]) and updated[2:] == ["0"]
    assert outputs(home, "roll")["output"] == ["b-0", "b-1", "b-2"]
    stackctl(home, "stack-delete", "-y", "roll")


def test_a_rolling_update_to_a_new_provider_path_keeps_reading_the_old_one(home):
    # Heat's test_resource_group_update_replace_template_changed: the update's files hold
    # only the new provider; the members not replaced yet in a batch still are the old one's
    for provider in ("old", "new"):
        (home / provider).mkdir(exist_ok=True)
        write(home, f"{provider}/provider.yaml", templates.PROVIDER % provider)
    stackctl(home, "stack-create", "-f",
             write(home, "old-group.yaml", templates.provider_group("old/provider.yaml")), "prov")
    assert outputs(home, "prov")["made_by"] == ["old"] * 4
    updated = stackctl(home, "stack-update", "-f",
                       write(home, "new-group.yaml",
                             templates.provider_group("new/provider.yaml")), "prov")
    assert "Stack prov UPDATE_COMPLETE" in updated.stdout
    assert outputs(home, "prov")["made_by"] == ["new"] * 4
    # every member was replaced (a new type), three and then one
    replaced = [name for name, status in nested_events(home, "prov")
                if status == "CREATE_COMPLETE"][4:]
    assert sorted(replaced) == ["0", "1", "2", "3"]
    stackctl(home, "stack-delete", "-y", "prov")


def test_pauses_reaching_the_timeout_fail_the_create_with_heats_reason(home):
    template = write(home, "rolling.yaml", templates.ROLLING)
    result = stackctl(home, "stack-create", "-f", template, "-P", "pause=60", "--timeout", "1",
                      "--disable-rollback", "paused", ok=False)
    assert result.returncode != 0
    shown = json.loads(stackctl(home, "stack-show", "paused", "--format", "json").stdout)
    assert (shown["stack_status"], shown["stack_status_reason"]) == ("CREATE_FAILED",
                                                                     TIMEOUT_REASON)
    stackctl(home, "stack-delete", "-y", "paused")


@pytest.mark.parametrize(("text", "expected"), [
    (templates.group_of("OS::Heat::Nope"),
     "resources.g.resources.0.type: The Resource Type (OS::Heat::Nope) could not be found."),
    (templates.group_of("OS::Heat::TestResource", properties="{valu: 1}"),
     "Property error: resources.g.resources.0.properties: Unknown Property valu."),
    (templates.chain_of("OS::Heat::Nope"),
     "resources.c.resources.0.type: The Resource Type (OS::Heat::Nope) could not be found."),
    (templates.chain_of("OS::Heat::None", "lib/member.yaml"),
     'Property error: resources.c.properties.resources.1: "lib/member.yaml" is a template'),
    (templates.BAD_POLICY, "Property error: resources.g.update_policy.rolling_update."
                           "max_batch_size: 0 is out of range (min: 1, max: None)"),
], ids=["group-type", "group-property", "chain-type", "chain-template", "policy"])
def test_member_definitions_are_validated_by_template_validate(home, text, expected):
    result = stackctl(home, "template-validate", "-f", write(home, "bad.yaml", text), ok=False)
    assert result.returncode != 0
    assert expected in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_groups_validate_without_what_is_not_known_yet(home):
    # count 0 disables a group whatever its members would be (Heat's rule)
    stackctl(home, "template-validate", "-f",
             write(home, "zero.yaml", templates.group_of("OS::Heat::Nope", count=0)))
    # parameters without values: the size and the members' values are not known yet
    stackctl(home, "template-validate", "-f",
             write(home, "unknown.yaml", templates.UNKNOWN_PARAMETERS))


def test_chain_members_follow_each_other_with_the_shared_properties(home):
    stackctl(home, "stack-create", "-f", write(home, "chain.yaml", templates.CHAIN), "chn")
    events = nested_events(home, "chn")
    assert events.index(("1", "CREATE_IN_PROGRESS")) > events.index(("0", "CREATE_COMPLETE"))
    out = outputs(home, "chn")
    assert len(out["refs"]) == 2 and out["second"] == out["refs"][1]
    assert out["output"] == ["shared", "shared"]
    assert out["attributes"] == {"0": "shared", "1": "shared"}
    assert out["second_output"] == "shared"
    stackctl(home, "stack-delete", "-y", "chn")


@pytest.mark.slow
def test_a_thousand_member_group_is_created_and_deleted(home):
    template = write(home, "big.yaml", templates.none_group(1000))
    # the group and its members count against max_resources_per_stack (1001 > 1000), as Heat
    refused = stackctl(home, "stack-create", "-f", template, "--disable-rollback", "refused",
                       ok=False)
    assert "Maximum resources per stack exceeded." in refused.stdout + refused.stderr
    stackctl(home, "stack-delete", "-y", "refused")

    config = home / "unlimited.conf"
    config.write_text("[DEFAULT]\nmax_resources_per_stack = -1\n")
    result = run(home, "stack-create", "-f", template, "big", config=config, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    listed = json.loads(run(home, "resource-list", "big", "--nested-depth", "1", "--format", "json",
                            config=config).stdout)
    members = [r for r in listed if r["resource_type"] == "OS::Heat::None"]
    assert len(members) == 1000
    assert all(r["resource_status"] == "CREATE_COMPLETE" for r in members)
    assert sorted(int(r["resource_name"]) for r in members) == list(range(1000))
    deleted = run(home, "stack-delete", "-y", "big", config=config, timeout=600)
    assert deleted.returncode == 0, deleted.stderr[-2000:]
    assert nested_stacks(home) == []
