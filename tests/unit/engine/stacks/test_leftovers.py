"""What a stopped update keeps: the merged template, frozen definitions, the swap-back choice."""

from types import SimpleNamespace

from hearth.engine.stacks import leftovers
from hearth.engine.stacks.prepare import StackIdentity, rebuild

IDENTITY = StackIdentity("s", "sid", "p")

OLD = {
    "heat_template_version": "2018-08-31",
    "parameters": {"v": {"type": "string", "default": "one"},
                   "gone": {"type": "string", "default": "g"},
                   "pw": {"type": "string", "hidden": True, "default": "secret"}},
    "conditions": {"on": True},
    "resources": {
        "a": {"type": "OS::Heat::None", "condition": "on",
              "properties": {"v": {"get_param": "v"}, "joined": {
                  "list_join": ["-", [{"get_param": "gone"}, {"get_resource": "b"}]]}},
              "metadata": {"pw": {"get_param": "pw"}}, "depends_on": ["b", "c"]},
        "b": {"type": "OS::Heat::None"},
        "c": {"type": "OS::Heat::None"},
    },
}
NEW = {
    "heat_template_version": "2018-08-31",
    "parameters": {"v": {"type": "string", "default": "two"}},
    "resources": {"a": {"type": "OS::Heat::None"}, "b": {"type": "OS::Heat::None"}},
    "outputs": {"o": {"value": {"get_resource": "a"}}},
}


def definitions(template, env=None):
    return rebuild(template, {}, env or {}, IDENTITY).definitions


def raw(template, env=None, files=None):
    return SimpleNamespace(template=template, environment=env or {}, files=files or {})


def live(definition):
    return SimpleNamespace(t=definition)


def test_frozen_snippet_resolves_what_needs_no_resource_but_secrets():
    snippet = leftovers.frozen_snippet(definitions(OLD)["a"])
    assert snippet["properties"] == {
        "v": "one", "joined": {"list_join": ["-", ["g", {"get_resource": "b"}]]}}
    assert snippet["metadata"] == {"pw": {"get_param": "pw"}}  # hidden: never written


def test_merged_template_keeps_each_survivors_definition():
    old, new = definitions(OLD), definitions(NEW)
    survivors = {"a": live(old["a"]), "b": live(new["b"])}
    data, files, env = leftovers.merged_template(
        raw(OLD, {"parameters": {"v": "old", "gone": "x"}}, {"f": "1"}),
        raw(NEW, {"parameters": {"v": "new"}}, {"g": "2"}), survivors, updated={"b"})
    assert data["resources"]["a"]["properties"]["v"] == "one"  # frozen: as it was made
    assert data["resources"]["a"]["depends_on"] == ["b"]  # c is not in the stack any more
    assert "condition" not in data["resources"]["a"]
    assert data["resources"]["b"] == {"type": "OS::Heat::None"}
    assert set(data["parameters"]) == {"v", "gone", "pw"}
    assert data["parameters"]["v"]["default"] == "two"  # the new template's entries win
    assert data["conditions"] == {"on": True}
    assert data["outputs"] == NEW["outputs"]
    assert files == {"f": "1", "g": "2"}
    assert env["parameters"] == {"v": "new", "gone": "x"}
    assert set(definitions(data, env)) == {"a", "b"}  # it loads back


def resource(status="COMPLETE", action="CREATE", db_id=1):
    return SimpleNamespace(status=status, action=action, db_id=db_id)


def test_split_swaps_back_the_newest_usable_original_of_a_failed_replacement():
    old, older, broken = resource(db_id=2), resource(db_id=1), resource("FAILED", db_id=3)
    doomed, originals = leftovers.split(
        {"a": resource("FAILED", db_id=9), "b": resource(db_id=8),
         "c": resource("COMPLETE", "INIT", db_id=7)},
        {"a": [older, old, broken], "b": [resource(db_id=4)], "c": [broken]})
    assert originals == {"a": old}
    assert doomed == {"a": [older, old, broken], "b": doomed["b"], "c": [broken]}


def test_split_swaps_back_only_an_original_whose_definition_was_kept():
    unknown = resource(db_id=5)
    doomed, originals = leftovers.split({"a": resource("FAILED", db_id=9)}, {"a": [unknown]},
                                        described=set())
    assert (doomed, originals) == ({"a": [unknown]}, {})
