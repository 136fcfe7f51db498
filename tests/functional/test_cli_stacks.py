"""stackctl end to end as a subprocess on the embedded SQLite default."""

import json
import signal

import pytest

from tests.functional import stackctl_process
from tests.functional.stackctl_process import SLOW_TEMPLATE, read_until, run, start

GOOD = """
heat_template_version: 2018-08-31
parameters:
  word: {type: string, default: hello}
resources:
  a: {type: OS::Heat::TestResource, properties: {value: {get_param: word}}}
  b: {type: OS::Heat::TestResource, depends_on: a, properties: {value: B}}
outputs:
  out: {value: {get_attr: [a, output]}, description: a value}
  bee: {value: {get_attr: [b, output]}}
"""

FAILING = """
heat_template_version: 2018-08-31
resources:
  bad: {type: OS::Heat::TestResource, properties: {fail: true}}
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """Return the module's HEARTH_HOME, the templates written beside it.

    One local engine serves the module's tests (each starts its own stacks, by names of
    its own): an engine's start is most of what a test here costs.
    """
    directory = tmp_path_factory.mktemp("cli-stacks")
    (directory / "good.yaml").write_text(GOOD)
    (directory / "bad.yaml").write_text(FAILING)
    # ten seconds: Ctrl-C comes as the slow resource starts, and a cancel lets it end
    (directory / "slow.yaml").write_text(SLOW_TEMPLATE.replace("create: 30", "create: 10"))
    state = directory / "home"
    state.mkdir()
    return state


@pytest.fixture
def created(home, request):
    """Create a stack (named after the test) from the good template; return its name, result."""
    name = request.node.name.removeprefix("test_")[:40]
    result = run(home, "stack-create", "-f", str(home.parent / "good.yaml"),
                 "-P", "word=hi", name)
    assert result.returncode == 0, result.stderr
    return name, result


def show(home, name: str) -> dict:
    """Return ``stack-show --format json`` of a stack."""
    result = run(home, "stack-show", name, "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


TYPED_PARAMETERS = {
    "hot": "heat_template_version: 2018-08-31\nparameters:\n"
           "  flag: {type: boolean, default: false}\n  n: {type: number, default: 3}\n"
           "  l: {type: comma_delimited_list, default: 'a,b'}\n"
           "  j: {type: json, default: {a: 1}}\nresources: {}\n",
    "cfn": "HeatTemplateFormatVersion: '2012-12-12'\nParameters:\n"
           "  flag: {Type: Boolean, Default: false}\n  n: {Type: Number, Default: 3}\n"
           "  l: {Type: CommaDelimitedList, Default: 'a,b'}\n"
           "  j: {Type: Json, Default: {a: 1}}\nResources: {}\n",
}


@pytest.mark.parametrize("spelling", sorted(TYPED_PARAMETERS))
def test_stack_show_gives_each_parameter_as_heat_shows_it(home, spelling):
    """Heat 27.0.1 answers these maps for the same templates and values."""
    template = home.parent / f"typed-{spelling}.yaml"
    template.write_text(TYPED_PARAMETERS[spelling])
    for name, args, flag in ((f"defaults-{spelling}", (), "False"),
                             (f"given-{spelling}", ("-P", "flag=yes"), "True")):
        result = run(home, "stack-create", "-f", str(template), *args, name)
        assert result.returncode == 0, result.stderr
        shown = show(home, name)["parameters"]
        assert {key: shown[key] for key in ("flag", "n", "l", "j")} == {
            "flag": flag, "n": "3", "l": "a,b", "j": '{"a": 1}'}


def test_create_streams_one_line_per_state_change(created):
    name, result = created
    lines = result.stdout.splitlines()
    tails = [line.split(" ", 2)[2] for line in lines[:-1]]
    assert tails == [
        f"[{name}]: CREATE_IN_PROGRESS  Stack CREATE started",
        "[a]: CREATE_IN_PROGRESS  state changed", "[a]: CREATE_COMPLETE  state changed",
        "[b]: CREATE_IN_PROGRESS  state changed", "[b]: CREATE_COMPLETE  state changed",
        f"[{name}]: CREATE_COMPLETE  Stack CREATE completed successfully"]
    assert lines[-1] == f"Stack {name} CREATE_COMPLETE"


def test_failing_create_exits_1_with_the_resource_reason(home):
    result = run(home, "stack-create", "-f", str(home.parent / "bad.yaml"),
                 "--disable-rollback", "f")
    assert result.returncode == 1
    assert "[bad]: CREATE_FAILED  ValueError: resources.bad: Test Resource failed bad" in (
        result.stdout)
    assert ("Resource CREATE failed: ValueError: resources.bad: Test Resource failed bad"
            in result.stdout + result.stderr)
    assert show(home, "f")["stack_status"] == "CREATE_FAILED"


def test_stack_show_json_is_heats_stack_object(home, created):
    name, _ = created
    stack = show(home, name)
    assert {"id", "stack_name", "stack_status", "stack_status_reason", "parameters",
            "outputs", "creation_time", "updated_time", "disable_rollback",
            "timeout_mins", "description"} <= set(stack)
    assert (stack["stack_name"], stack["stack_status"]) == (name, "CREATE_COMPLETE")
    assert stack["parameters"]["word"] == "hi"
    assert stack["parameters"]["OS::stack_name"] == name
    assert sorted(stack["outputs"], key=lambda o: o["output_key"]) == [
        {"output_key": "bee", "output_value": "B", "description": "No description given"},
        {"output_key": "out", "output_value": "hi", "description": "a value"}]


def test_list_outputs_resources_and_events(home, created):
    name, result = created
    listed = run(home, "stack-list")
    assert f"| {name} " in listed.stdout and "CREATE_COMPLETE" in listed.stdout
    outputs = run(home, "output-show", name, "--all")   # a table, one row per output, as Heat
    assert outputs.returncode == 0
    rows = [[cell.strip() for cell in line.split("|")[1:-1]]
            for line in outputs.stdout.splitlines() if line.startswith("|")]
    assert rows[0] == ["Field", "Value"]
    assert sorted((field, value) for field, value in rows[1:] if field) == [
        ("bee", "{"), ("out", "{")]
    assert '"output_value": "hi"' in outputs.stdout
    as_json = json.loads(run(home, "output-show", name, "--all", "--format", "json").stdout)
    assert as_json == {
        "bee": {"output_key": "bee", "output_value": "B", "description": "No description given"},
        "out": {"output_key": "out", "output_value": "hi", "description": "a value"}}
    resources = run(home, "resource-list", name)
    assert [line.split("|")[1].strip() for line in resources.stdout.splitlines()
            if "OS::Heat::TestResource" in line] == ["a", "b"]
    resource = run(home, "resource-show", name, "a")
    assert "| required_by" in resource.stdout and "output: hi" in resource.stdout
    events = run(home, "event-list", name)
    assert events.stdout.splitlines() == result.stdout.splitlines()[:-1]


def test_delete_needs_yes_without_a_terminal(home, created):
    name, _ = created
    refused = run(home, "stack-delete", name)
    assert refused.returncode == 1
    assert ("stack-delete: refusing to delete without -y when stdin is not a terminal"
            in refused.stderr)
    deleted = run(home, "stack-delete", "-y", name)
    assert deleted.returncode == 0
    assert deleted.stdout.splitlines()[-1] == f"Stack {name} DELETE_COMPLETE"
    assert f"| {name} " not in run(home, "stack-list").stdout


def test_ctrl_c_during_create_never_leaves_it_in_progress(home):
    process = start(home, "stack-create", "-f", str(home.parent / "slow.yaml"), "slow")
    try:
        read_until(process, "[slow]: CREATE_IN_PROGRESS")
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode != 0
    assert show(home, "slow")["stack_status"] in ("ROLLBACK_COMPLETE", "CREATE_FAILED")


def test_stackctl_process_helper_reports_an_early_end(home):
    process = start(home, "stack-show", "nothing")
    with pytest.raises(AssertionError) as error:
        stackctl_process.read_until(process, "never")
    assert "stackctl ended before 'never'" in str(error.value)
    process.wait()
