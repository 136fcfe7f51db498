"""Tests of environments: sections, merging, registry lookup, hooks."""

import pytest

from hearth.common import exception
from hearth.engine.template.environment import Environment, ProviderTemplate


def env_of(*texts):
    return Environment.from_documents((f"e{index}.yaml", text)
                                      for index, text in enumerate(texts, 1))


REGISTRY = """\
resource_registry:
  My::Alias: OS::Heat::None
  My::Chain: My::Alias
  "OS::Networking::*": "OS::Neutron::*"
  "Stub::*": OS::Heat::None
  My::Provider: file:///lib/p.yaml
  resources:
    web:
      My::Alias: OS::Heat::Value
      hooks: [pre-create, pre-delete]
    "*_server":
      hooks: post-create
      restricted_actions: replace
"""


@pytest.mark.parametrize("type_name, resource, expected", [
    ("My::Alias", None, "OS::Heat::None"),
    ("My::Chain", None, "OS::Heat::None"),
    ("OS::Networking::Port", None, "OS::Neutron::Port"),
    ("Stub::Anything", None, "OS::Heat::None"),
    ("My::Provider", None, ProviderTemplate("file:///lib/p.yaml")),
    ("lib/x.template", None, ProviderTemplate("lib/x.template")),
    ("OS::Heat::None", None, "OS::Heat::None"),
    ("My::Alias", "web", "OS::Heat::Value"),
    ("My::Alias", "db", "OS::Heat::None"),
])
def test_resolve_type(type_name, resource, expected):
    assert env_of(REGISTRY).registry.resolve_type(type_name, resource) == expected


def test_hooks_and_restricted_actions():
    registry = env_of(REGISTRY).registry
    assert registry.hooks_for("web") == ["pre-create", "pre-delete"]
    assert registry.hooks_for("db_server") == ["post-create"]
    assert registry.restricted_actions("db_server") == ["replace"]
    assert registry.hooks_for("other") == []


def test_null_removes_mappings():
    env = env_of(REGISTRY, "resource_registry:\n  My::Alias: null\n  'Stub::*': null\n")
    assert env.registry.resolve_type("My::Alias") == "My::Alias"
    assert env.registry.resolve_type("Stub::X") == "Stub::X"


def test_alias_loop():
    env = env_of("resource_registry:\n  A: B\n  B: A\n")
    with pytest.raises(exception.InvalidEnvironment) as info:
        env.registry.resolve_type("A")
    assert str(info.value) == "resource_registry.A: resource_registry aliases form a loop: " \
                              "A -> B -> A"


@pytest.mark.parametrize("text, message", [
    ("paramters: {}", 'e1.yaml:1: paramters: environment has wrong section "paramters" '
                      'Did you mean "parameters"?'),
    ("parameters:\n", 'e1.yaml:1: parameters: environment has empty section "parameters"'),
    ("resource_registry:\n  resources:\n    web:\n      hooks: pre-craete\n",
     'e1.yaml:4: resource_registry.resources.web.hooks: "pre-craete" is not a valid hook type; '
     "use one of pre-create, pre-update, pre-delete, post-create, post-update, post-delete. "
     'Did you mean "pre-create"?'),
    ("resource_registry:\n  resources:\n    web:\n      restricted_actions: [delete]\n",
     'e1.yaml:4: resource_registry.resources.web.restricted_actions: "delete" is not a valid '
     "restricted action; use one of update, replace."),
    ("parameter_merge_strategies:\n  p: append\n",
     'e1.yaml:2: parameter_merge_strategies.p: "append" is not a valid merge strategy; use one '
     "of overwrite, merge, deep_merge."),
    ("[1]", "e1.yaml:1: The environment is not a valid YAML mapping data type."),
])
def test_invalid_environments(text, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        env_of(text)
    assert str(info.value) == message


def test_merge_strategies():
    strategies = "parameter_merge_strategies: {default: merge, m: deep_merge, o: overwrite}\n"
    env = env_of(strategies + "parameters: {s: a, l: [1], m: {x: {y: 1}}, n: 1, o: first}",
                 strategies + "parameters: {s: b, l: [2], m: {x: {z: 2}}, n: 2, o: second}")
    assert env.params == {"s": "ab", "l": [1, 2], "m": {"x": {"y": 1, "z": 2}}, "n": 3,
                          "o": "second"}


def test_conflicting_strategies():
    with pytest.raises(exception.InvalidEnvironment) as info:
        env_of("parameter_merge_strategies: {p: merge}\nparameters: {p: a}",
               "parameter_merge_strategies: {p: deep_merge}\nparameters: {p: b}")
    assert str(info.value) == (
        "e2.yaml:2: parameters.p: Conflicting merge strategy 'deep_merge' for parameter 'p' in "
        "file 'e2.yaml'. (An earlier file used 'merge'.)")


def test_first_file_fixes_the_implicit_strategy():
    # Heat 27.0.1: a parameter first given without a strategy is fixed to overwrite.
    with pytest.raises(exception.InvalidEnvironment) as info:
        env_of("parameters: {p: a}", "parameter_merge_strategies: {p: merge}\nparameters: {p: b}")
    assert str(info.value) == (
        "e2.yaml:2: parameters.p: Conflicting merge strategy 'merge' for parameter 'p' in "
        "file 'e2.yaml'. (An earlier file used 'overwrite'.)")


def test_booleans_cannot_merge():
    with pytest.raises(exception.InvalidEnvironment) as info:
        env_of("parameter_merge_strategies: {b: merge}\nparameters: {b: true}",
               "parameter_merge_strategies: {b: merge}\nparameters: {b: false}")
    assert str(info.value) == ("e2.yaml:2: parameters.b: Invalid merge strategy 'merge' for "
                               "parameter 'b': boolean parameters cannot be merged.")


def test_to_dict_round_trips():
    env = env_of(REGISTRY + "parameters: {a: 1}\nparameter_defaults: {b: 2}\n"
                 "encrypted_param_names: [a]\nevent_sinks: [{type: zaqar-queue, target: q}]\n")
    data = env.to_dict()
    assert data["parameters"] == {"a": 1}
    assert data["parameter_defaults"] == {"b": 2}
    assert data["encrypted_param_names"] == ["a"]
    assert data["event_sinks"] == [{"type": "zaqar-queue", "target": "q"}]
    assert data["resource_registry"]["resources"]["web"]["hooks"] == ["pre-create",
                                                                        "pre-delete"]
    assert Environment.from_dict(data).to_dict() == data


def typed_env_of(types, *texts):
    return Environment.from_documents(((f"e{index}.yaml", text)
                                       for index, text in enumerate(texts, 1)), types)


MERGE_ALL = "parameter_merge_strategies: {default: merge}\n"


@pytest.mark.parametrize("declared, first, second, merged", [
    # a comma_delimited_list given as strings stays one, joined by a comma
    ("comma_delimited_list", "x", "y", "x,y"),
    ("comma_delimited_list", "'a,b'", "[c]", ["a", "b", "c"]),
    ("string", "x", "y", "xy"),
    ("string", 1, 2, "12"),
    ("number", 1, 2, 3),
    ("number", "1.5", "2", 3.5),
    ("json", "{a: 1, b: 2}", "{b: 3}", {"a": 1, "b": 3}),
    ("json", "'{\"a\": 1}'", "{b: 2}", {"a": 1, "b": 2}),
])
def test_merge_follows_the_declared_parameter_type(declared, first, second, merged):
    env = typed_env_of({"p": declared}, MERGE_ALL + f"parameters: {{p: {first}}}",
                       MERGE_ALL + f"parameters: {{p: {second}}}")
    assert env.params["p"] == merged


def test_deep_merge_of_json_appends_lists_and_keeps_what_null_leaves():
    strategy = "parameter_merge_strategies: {p: deep_merge}\n"
    env = typed_env_of({"p": "json"},
                       strategy + "parameters: {p: {l: [1], m: {x: 1}, s: a, k: keep}}",
                       strategy + "parameters: {p: {l: [2], m: {y: 2}, s: b, k: null}}")
    assert env.params["p"] == {"l": [1, 2], "m": {"x": 1, "y": 2}, "s": "ab", "k": "keep"}


def test_numbers_that_are_not_numbers_do_not_merge():
    with pytest.raises(exception.InvalidEnvironment) as info:
        typed_env_of({"n": "number"}, MERGE_ALL + "parameters: {n: 1}",
                     MERGE_ALL + "parameters: {n: many}")
    assert str(info.value) == ("e2.yaml:2: parameters.n: Parameter 'n' cannot be merged: 1 "
                               "and 'many' are not both numbers.")


def test_a_declared_boolean_cannot_merge_even_as_strings():
    with pytest.raises(exception.InvalidEnvironment) as info:
        typed_env_of({"b": "boolean"}, MERGE_ALL + "parameters: {b: 'yes'}",
                     MERGE_ALL + "parameters: {b: 'no'}")
    assert "boolean parameters cannot be merged" in str(info.value)


def test_a_json_parameter_that_is_not_json_does_not_merge():
    with pytest.raises(exception.InvalidEnvironment) as info:
        typed_env_of({"j": "json"}, MERGE_ALL + "parameters: {j: {a: 1}}",
                     MERGE_ALL + "parameters: {j: '{oops'}")
    assert str(info.value).startswith(
        "e2.yaml:2: parameters.j: Invalid parameter in environment: 'j' is not JSON (")
