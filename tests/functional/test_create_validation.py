"""A stack is validated in full before anything is stored or created."""

import pytest

from hearth.common import exception
from hearth.engine.template.parser import parse
from tests.fixtures.engine import CTX

BAD_PROPERTY = """heat_template_version: 2021-04-16
resources:
  word:
    type: OS::Heat::RandomString
    properties:
      lenght: 8
"""

BAD_TYPE = """heat_template_version: 2021-04-16
resources:
  ok:
    type: OS::Heat::None
  odd:
    type: OS::Heat::Nonne
"""

@pytest.mark.parametrize("text, message", [
    (BAD_PROPERTY, 'template:6: Property error: resources.word.properties: '
                   'Unknown Property lenght. Did you mean "length"?'),
    (BAD_TYPE, 'template:6: resources.odd.type: The Resource Type (OS::Heat::Nonne) could '
               'not be found. Did you mean "OS::Heat::None"?'),
])
def test_invalid_resources_are_refused_before_the_stack_exists(service, text, message):
    with pytest.raises(exception.StackValidationFailed) as failure:
        service.create_stack(CTX, "refused", parse(text, "t.yaml"))
    assert str(failure.value).startswith(message)
    assert service.list_stacks(CTX) == []


def merge_envs(name, first, second):
    """Return two environment files that both give parameter ``name`` with ``merge``."""
    return {file: f"parameter_merge_strategies: {{{name}: merge}}\n"
                  f"parameters: {{{name}: {value}}}\n"
            for file, value in (("a.yaml", first), ("b.yaml", second))}


# The first file that sets a parameter fixes its merge strategy (Heat 27.0.1); values
# combine by the template's parameter type: two comma_delimited_list strings give one
# list, not one string, and validate shows the merged string (as Heat).
@pytest.mark.parametrize("name, kind, first, second, created_value, validated_value", [
    ("names", "json", "{a: 1}", "{b: 2}", {"a": 1, "b": 2}, {"a": 1, "b": 2}),
    ("hosts", "comma_delimited_list", "web1", "web2", ["web1", "web2"], "web1,web2"),
])
def test_environment_files_merge_by_strategy_and_parameter_type(
        service, name, kind, first, second, created_value, validated_value):
    template = {"heat_template_version": "2021-04-16",
                "parameters": {name: {"type": kind}},
                "outputs": {name: {"value": {"get_param": name}}}}
    envs = merge_envs(name, first, second)
    created = service.create_stack(CTX, "merged", template, files=envs,
                                    environment_files=["a.yaml", "b.yaml"])
    service.wait(CTX, created["id"])
    assert service.show_output(CTX, created["id"], name)["output_value"] == created_value
    validated = service.catalog.validate_template(CTX, template, files=envs,
                                                  environment_files=["a.yaml", "b.yaml"])
    assert validated["Environment"]["parameters"] == {name: validated_value}


def test_stackctl_names_the_template_file_in_create_errors(hearth_home, tmp_path):
    import os
    import subprocess
    import sys
    template = tmp_path / "broken.yaml"
    template.write_text(BAD_PROPERTY)
    result = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "stackctl"), "stack-create", "-f",
         str(template), "refused"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "HEARTH_HOME": str(hearth_home)})
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"ERROR: {template}:6: Property error: resources.word.properties: "
        'Unknown Property lenght. Did you mean "length"?')


INVALID_ONCE_RESOLVED = """heat_template_version: 2018-08-31
resources:
  other: {type: OS::Heat::TestResource, properties: {value: abc}}
  rand: {type: OS::Heat::RandomString, properties: {length: {get_attr: [other, output]}}}
"""


def test_a_property_a_get_attr_makes_invalid_fails_its_resource(hearth_home, tmp_path):
    """As Heat 27.0.1: the resource's create starts (its properties stored), then fails."""
    import json

    from tests.functional import stackctl_process
    template = tmp_path / "late.yaml"
    template.write_text(INVALID_ONCE_RESOLVED)
    created = stackctl_process.run(hearth_home, "stack-create", "--disable-rollback", "-f",
                                   str(template), "late")
    assert created.returncode == 1
    error = "Property error: rand.properties.length: Value 'abc' is not an integer"
    assert created.stderr.startswith("ERROR: Resource CREATE failed: StackValidationFailed: "
                                     "resources.rand: ")
    assert created.stderr.strip().endswith(error)
    events = json.loads(stackctl_process.run(hearth_home, "event-list", "late", "--format",
                                             "json").stdout)
    rand = [(e["resource_status"], e["resource_status_reason"]) for e in events
            if e["resource_name"] == "rand"]
    assert [status for status, _ in rand] == ["CREATE_IN_PROGRESS", "CREATE_FAILED"]
    assert rand[1][1].startswith("StackValidationFailed: resources.rand: ")
    assert rand[1][1].endswith(error)
