"""Tests of the validate API and of the example templates (good and broken)."""

import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth.common import exception
from hearth.engine.template.validate import validate_template

TEMPLATES = pathlib.Path(__file__).resolve().parents[4] / "templates"


def validate_file(name, **kwargs):
    path = TEMPLATES / name
    return validate_template(path.read_text(), name, **kwargs)


@pytest.mark.parametrize("name", ["basics.yaml", "parameters.yaml", "conditions.yaml",
                                  "provider.yaml", "lib/named.yaml"])
def test_examples_validate(name):
    assert "Parameters" in validate_file(name)


BROKEN = {
    "misspelled_key.yaml": 'misspelled_key.yaml:5: resources.web: "propertis" is not a valid '
                           'keyword inside a resource definition. Did you mean "properties"?',
    "unknown_section.yaml": 'unknown_section.yaml:5: The template section is invalid: output. '
                            'Did you mean "outputs"?',
    "cycle.yaml": "cycle.yaml:6: Circular Dependency Found: db -> cache -> web -> db",
    "unknown_dependency.yaml": 'unknown_dependency.yaml:8: resources.web.depends_on: The '
                               'specified reference "dbb" (in web) is incorrect. '
                               'Did you mean "db"?',
    "bad_default.yaml": "bad_default.yaml:3: parameters.port: Parameter 'port' is invalid: "
                        "Invalid default 70000 (70000 is out of range (min: 1, max: 65535))",
    "duplicate_key.yaml": 'duplicate_key.yaml:5: Error parsing template: duplicate key "web" '
                          "(lines 3 and 5)",
}


@pytest.mark.parametrize("name, message", sorted(BROKEN.items()))
def test_broken_examples(name, message):
    with pytest.raises(exception.HearthException) as info:
        validate_file(f"broken/{name}")
    assert str(info.value) == message.replace(name, f"broken/{name}", 1)


def test_bad_version():
    with pytest.raises(exception.InvalidTemplateVersion) as info:
        validate_file("broken/bad_version.yaml")
    assert str(info.value).endswith('Did you mean "2021-04-16"?')


def test_demo_output_shape():
    result = validate_file("basics.yaml", params={"length": "12"})
    assert list(result) == ["Description", "Parameters", "ParameterGroups", "Environment"]
    assert result["Parameters"]["length"] == {
        "Type": "Number", "Description": "Length of the random password", "NoEcho": "false",
        "Label": "Password length", "Default": 16, "Value": "12", "MinValue": 8,
        "MaxValue": 64}
    assert result["ParameterGroups"][1] == {"label": "Options", "parameters": ["with_extra"]}
    # Heat 27.0.1 shows only the user keys of the environment.
    assert result["Environment"] == {"parameters": {"length": "12"}, "parameter_defaults": {},
                                     "resource_registry": {"resources": {}},
                                     "event_sinks": []}


def test_values_are_shown_not_checked():
    # Heat 27.0.1's validate API: no conversion, constraint or missing-value check.
    template = ("heat_template_version: 2021-04-16\nparameters:\n  p: {type: string}\n"
                "  n: {type: number, constraints: [{range: {max: 3}}]}\n  q: {type: string}\n")
    result = validate_template(template, params={"n": "abc", "p": "x"})
    assert result["Parameters"]["n"] == {"Type": "Number", "Description": "", "NoEcho": "false",
                                         "Label": "n", "Value": "abc", "MaxValue": 3}
    assert "Value" not in validate_template(template, params={"n": ""})["Parameters"]["n"]
    with pytest.raises(exception.UnknownUserParameter,
                       match=r"^The Parameter \(zz\) was not defined in template\.$"):
        validate_template(template, params={"zz": "1"})


def test_environment_documents_merge_in_order():
    template = ("heat_template_version: 2021-04-16\nparameters:\n  p: {type: string}\n")
    result = validate_template(template, env_files=[
        ("a.yaml", "parameters: {p: one}"), ("b.yaml", "parameters: {p: two}")])
    assert result["Parameters"]["p"]["Value"] == "two"
    assert result["Environment"]["parameters"] == {"p": "two"}


def test_environment_file_looked_up_in_files():
    template = "heat_template_version: 2021-04-16\nparameters:\n  p: {type: string}\n"
    result = validate_template(template, env_files=["file:///e.yaml"],
                               files={"file:///e.yaml": "parameters: {p: z}"})
    assert result["Parameters"]["p"]["Value"] == "z"


def test_resource_validator_hook_gets_each_definition():
    seen = []
    validate_file("basics.yaml", resource_validator=lambda definition: seen.append(
        (definition.name, definition.type)))
    assert seen == [("password", "OS::Heat::RandomString"), ("name", "OS::Heat::Value"),
                    ("summary", "OS::Heat::Value")]


def test_resource_validator_errors_are_located():
    def refuse(definition):
        raise exception.StackValidationFailed("no", path=["resources", definition.name],
                                              line=definition.line)
    with pytest.raises(exception.StackValidationFailed) as info:
        validate_file("basics.yaml", resource_validator=refuse)
    assert str(info.value) == "basics.yaml:39: resources.password: no"


_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
_keys = st.sampled_from(["heat_template_version", "resources", "parameters", "outputs",
                         "conditions", "type", "properties", "get_param", "get_attr",
                         "get_resource", "depends_on", "value", "condition", "if", "a", "b"])
_trees = st.recursive(_scalars | st.sampled_from(["2021-04-16", "2013-05-23", "a", "b"]),
                      lambda children: st.lists(children, max_size=3)
                      | st.dictionaries(_keys, children, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_keys, _trees, max_size=5), st.sampled_from(["2021-04-16", "2016-10-14",
                                                                    "2013-05-23"]))
def test_random_templates_raise_only_hearth_errors(tree, version):
    tree = {"heat_template_version": version, **tree}
    try:
        validate_template(tree, "random.yaml")
    except exception.HearthException:
        pass
