"""Member definitions (index replacement), group, rolling-batch and chain templates."""

from __future__ import annotations

from hearth.plugins._group import definitions

RESOURCE_DEF = {
    "type": "OS::Heat::TestResource",
    "properties": {"value": "server_%index%", "list": ["a%index%", {"k": "%index%-x"}],
                   "number": 3, "gone": None, "%index%": "key kept"},
    "metadata": {"m": "%index%"},
}


def test_index_is_replaced_in_every_property_string_not_keys_nor_metadata():
    member = definitions.member(RESOURCE_DEF, "4")
    assert member == {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "server_4", "list": ["a4", {"k": "4-x"}], "number": 3,
                       "%index%": "key kept"},
        "metadata": {"m": "%index%"},
    }


def test_index_var_can_be_another_string():
    member = definitions.member({"type": "T", "properties": {"v": "n-$i-%index%"}}, "2", "$i")
    assert member == {"type": "T", "properties": {"v": "n-2-%index%"}}


def test_group_template_names_members_and_maps_their_references():
    template = definitions.group_template({"type": "OS::Heat::None"}, ["0", "2"])
    assert template == {
        "heat_template_version": "2015-04-30",
        "resources": {"0": {"type": "OS::Heat::None"}, "2": {"type": "OS::Heat::None"}},
        "outputs": {"refs_map": {"value": {"0": {"get_resource": "0"},
                                           "2": {"get_resource": "2"}}}},
    }


def build(name):
    return {"type": "New", "properties": {"name": name}}


OLD = {"type": "Old"}


def test_rolling_batch_updates_the_highest_index_first():
    existing = [("0", OLD), ("1", OLD), ("2", OLD)]
    members = definitions.rolling_members(existing, ["0", "1", "2"], 3, 1, build)
    assert dict(members) == {"0": OLD, "1": OLD, "2": build("2")}
    members = definitions.rolling_members(members, ["0", "1", "2"], 3, 1, build)
    assert dict(members) == {"0": OLD, "1": build("1"), "2": build("2")}


def test_rolling_batch_above_the_target_creates_then_shrinks():
    # min_in_service 1 of a 1-member group: grow to 2, update, shrink back (Heat's batches)
    existing = [("0", OLD)]
    grown = definitions.rolling_members(existing, ["0", "1"], 1, 1, build)
    assert dict(grown) == {"0": OLD, "1": build("1")}
    updated = definitions.rolling_members(grown, ["0", "1"], 1, 1, build)
    assert dict(updated) == {"0": build("0"), "1": build("1")}
    shrunk = definitions.rolling_members(updated, ["0"], 1, 0, build)
    assert dict(shrunk) == {"0": build("0")}


def test_rolling_batch_removes_members_no_longer_named_first():
    existing = [("0", OLD), ("1", OLD), ("2", OLD)]
    members = definitions.rolling_members(existing, ["0", "2"], 2, 0, build)
    assert dict(members) == {"0": OLD, "2": OLD}


def test_chain_members_depend_on_the_previous_unless_concurrent():
    template = definitions.chain_template(["A", "B", "C"], {"p": 1}, concurrent=False)
    assert template == {
        "heat_template_version": "2015-04-30",
        "resources": {"0": {"type": "A", "properties": {"p": 1}},
                      "1": {"type": "B", "properties": {"p": 1}, "depends_on": ["0"]},
                      "2": {"type": "C", "properties": {"p": 1}, "depends_on": ["1"]}},
    }
    concurrent = definitions.chain_template(["A", "B"], None, concurrent=True)
    assert concurrent["resources"] == {"0": {"type": "A"}, "1": {"type": "B"}}


def test_unknown_parameters_resolve_as_none_while_validating():
    from hearth.common import exception
    from hearth.engine.template import function

    class Missing(function.Function):
        def result(self):
            raise exception.UserParameterMissing(key="p")

    class Joined(function.Function):
        def result(self):
            return "-".join(function.resolve(self.args))

    missing = Missing(None, "get_param", "p")
    snippet = {"a": missing, "b": [1, missing], "c": Joined(None, "list_join", ["x", missing]),
               "d": Joined(None, "list_join", ["x", "y"])}
    assert definitions.resolve_known(snippet) == {"a": None, "b": [1, None], "c": None,
                                                  "d": "x-y"}
