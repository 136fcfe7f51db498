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

# The first file that sets a parameter fixes its merge strategy (Heat 27.0.1).
MERGED_ENVS = {
    "a.yaml": "parameter_merge_strategies: {names: merge}\nparameters: {names: {a: 1}}\n",
    "b.yaml": "parameter_merge_strategies: {names: merge}\nparameters: {names: {b: 2}}\n",
}


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


def test_environment_files_merge_by_their_strategies(service):
    template = {"heat_template_version": "2021-04-16",
                "parameters": {"names": {"type": "json"}},
                "outputs": {"names": {"value": {"get_param": "names"}}}}
    created = service.create_stack(CTX, "merged", template, files=MERGED_ENVS,
                                   environment_files=["a.yaml", "b.yaml"])
    service.wait(CTX, created["id"])
    assert service.show_output(CTX, created["id"], "names")["output_value"] == {"a": 1, "b": 2}


LIST_ENVS = {
    "a.yaml": "parameter_merge_strategies: {hosts: merge}\nparameters: {hosts: web1}\n",
    "b.yaml": "parameter_merge_strategies: {hosts: merge}\nparameters: {hosts: web2}\n",
}


def test_merging_follows_the_templates_parameter_types(service):
    """Two comma_delimited_list strings merge into one list, not one string (as Heat)."""
    template = {"heat_template_version": "2021-04-16",
                "parameters": {"hosts": {"type": "comma_delimited_list"}},
                "outputs": {"hosts": {"value": {"get_param": "hosts"}}}}
    created = service.create_stack(CTX, "listed", template, files=LIST_ENVS,
                                   environment_files=["a.yaml", "b.yaml"])
    service.wait(CTX, created["id"])
    assert service.show_output(CTX, created["id"], "hosts")["output_value"] == ["web1", "web2"]
    validated = service.validate_template(CTX, template, files=LIST_ENVS,
                                          environment_files=["a.yaml", "b.yaml"])
    assert validated["Environment"]["parameters"] == {"hosts": "web1,web2"}


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
