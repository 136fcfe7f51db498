"""Tests of the Resource base class (the plug-in contract)."""

import re

import pytest

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, resource
from hearth.engine.resources.store import InMemoryResourceStore, ResourceStore
from tests.unit.engine.resource_helpers import Definition, FakeStack, make


class Sample(resource.Resource):
    """A sample type.

    With detail.
    """

    properties_schema = {
        "size": properties.Schema(properties.INTEGER, default=1, update_allowed=True,
                                  constraints=[constraints.Range(1, 5)]),
        "flavor": properties.Schema(properties.STRING),
        "zone": properties.Schema(properties.STRING, immutable=True),
    }
    attributes_schema = {"addr": attributes.Schema("Address.")}

    def _resolve_attribute(self, name):
        return {"ip": ["10.0.0.1"]} if name == "addr" else None


def test_stack_view_and_store_protocols():
    assert isinstance(FakeStack(), resource.StackView)
    assert isinstance(InMemoryResourceStore(), ResourceStore)


def test_initial_state_and_properties():
    res = make(Sample, {"size": 3})
    assert res.state == ("INIT", "COMPLETE", "") and res.properties["size"] == 3
    assert res.type_name == "Test::Type" and res.resource_id is None
    res.state_set("CREATE", "FAILED", "boom")
    assert res.state == resource.ResourceState("CREATE", "FAILED", "boom")
    assert repr(res) == "<Sample web CREATE_FAILED>"


def test_validate_reports_property_errors():
    with pytest.raises(exception.StackValidationFailed) as info:
        make(Sample, {"size": 9}).validate()
    assert str(info.value) == ("Property error: web.properties.size: "
                               "9 is out of range (min: 1, max: 5)")


def test_resource_id_and_data_go_through_the_store():
    stack = FakeStack()
    res = make(Sample, {}, stack=stack)
    res.resource_id_set(42)
    res.data_set("secret", "s3", redact=True)
    res.data_set("plain", "p")
    assert res.resource_id == "42" and stack.store.resource_ids[res.uuid] == "42"
    assert res.data_get() == {"secret": "s3", "plain": "p"} == res.data()
    assert stack.store.redacted[res.uuid] == {"secret"}
    res.data_delete("secret")
    res.data_delete("missing")
    assert res.data_get() == {"plain": "p"}
    res.resource_id_set(None)
    assert res.resource_id is None


def test_metadata_defaults_to_the_template_then_is_stored():
    stack = FakeStack()
    res = make(Sample, {}, stack=stack, metadata={"a": 1})
    assert res.metadata_get() == {"a": 1}
    res.metadata_set({"b": 2})
    assert res.metadata_get() == {"b": 2} and stack.store.metadata[res.uuid] == {"b": 2}


def test_physical_resource_name():
    res = make(Sample, {})
    assert res.physical_resource_name() is None
    res.state_set("CREATE", "IN_PROGRESS")
    name = res.physical_resource_name()
    assert re.fullmatch(r"demo-web-[a-z2-7]{12}", name)
    assert name == res.physical_resource_name()
    long_stack = FakeStack(name="s" * 300)
    long_res = make(Sample, {}, stack=long_stack)
    long_res.state_set("CREATE", "IN_PROGRESS")
    assert len(long_res.physical_resource_name()) == 255


def test_short_id_matches_heats_algorithm():
    # Heat's short_id.get_id('a0fdd5e9-fb3c-4ee8-93f6-2b85e0bd8b1e'), from the oracle.
    assert resource.short_id("a0fdd5e9-fb3c-4ee8-93f6-2b85e0bd8b1e") == "52h3hsqp3vpj"
    with pytest.raises(ValueError) as info:
        resource.short_id("a0fdd5e9-fb3c-1ee8-93f6-2b85e0bd8b1e")
    assert str(info.value) == "Invalid UUID version (1)"


def test_reference_id():
    res = make(Sample, {})
    assert res.get_reference_id() == "web" == res.FnGetRefId()
    res.resource_id = "abc"
    assert res.FnGetRefId() == "abc"


def test_get_att_with_path_show_and_unknown():
    res = make(Sample, {})
    assert res.FnGetAtt("addr", "ip", 0) == "10.0.0.1"
    assert res.FnGetAtt("addr", "ip", 3) is None
    assert res.FnGetAtt("show") is None
    assert Sample.has_attribute("show") and Sample.has_attribute("addr")
    assert not Sample.has_attribute("nope")
    with pytest.raises(exception.InvalidTemplateAttribute) as info:
        res.FnGetAtt("nope")
    assert str(info.value) == "The Referenced Attribute (web nope) is incorrect."


def after(**props):
    return Definition("web", "Test::Type", props)


def test_update_diffs_in_place():
    res = make(Sample, {"size": 1, "flavor": "a"})
    assert res.update_diffs(after(size=2, flavor="a")) == ({}, {"size": 2})


def test_update_diffs_replace_on_not_update_allowed():
    res = make(Sample, {"flavor": "a"})
    with pytest.raises(exception.UpdateReplace) as info:
        res.update_diffs(after(flavor="b"))
    assert str(info.value) == "The Resource web requires replacement."


def test_update_diffs_refuses_immutable():
    res = make(Sample, {"zone": "a"})
    with pytest.raises(exception.NotSupported) as info:
        res.update_diffs(after(zone="b"))
    assert str(info.value) == "Update to properties zone of web (Test::Type) is not supported."


def test_update_diffs_template_diff_and_hooks():
    class Picky(Sample):
        def needs_replace_with_tmpl_diff(self, tmpl_diff):
            return "metadata" in tmpl_diff

    res = make(Picky, {})
    changed = Definition("web", "Test::Type", {}, metadata={"x": 1})
    with pytest.raises(exception.UpdateReplace):
        res.update_diffs(changed)
    assert make(Sample, {}).update_diffs(changed) == ({"metadata": {"x": 1}}, {})


@pytest.mark.parametrize("state", [("CREATE", "FAILED"), ("DELETE", "COMPLETE"),
                                   ("CHECK", "FAILED"), ("INIT", "COMPLETE")])
def test_needs_update_replaces_in_these_states(state):
    res = make(Sample, {})
    res.state_set(*state)
    with pytest.raises(exception.UpdateReplace):
        res._needs_update(after(), res.t, res.properties, res.properties)


def test_needs_update_compares_definitions():
    res = make(Sample, {"size": 1})
    res.state_set("CREATE", "COMPLETE")
    assert not res._needs_update(after(size=1), res.t, res.properties, res.properties)
    assert res._needs_update(after(size=2), res.t, res.properties, res.properties)
    res.state_set("INIT", "COMPLETE")
    assert res._needs_update(after(size=2), res.t, res.properties, res.properties,
                             check_init_complete=False)


def test_failed_resource_kept_when_type_says_so():
    class Keep(Sample):
        def needs_replace_failed(self):
            return False
    res = make(Keep, {})
    res.state_set("UPDATE", "FAILED")
    assert not res._needs_update(res.t, res.t, res.properties, res.properties)


def test_handler_lookup():
    class WithCreate(Sample):
        def handle_create(self):
            return 1

    res = make(WithCreate, {})
    assert res.handler("CREATE")() == 1
    assert res.completion_check("CREATE") is None and res.handler("DELETE") is None
    assert resource.HANDLER_NAMES["UPDATE"] == ("handle_update", "check_update_complete")


def test_now_reads_the_injected_clock():
    stack = FakeStack()
    stack.clock.advance(5)
    assert resource.now(stack) == 1005.0
