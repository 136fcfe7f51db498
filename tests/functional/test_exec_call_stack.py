"""Hearth::Exec::Call in a real stack: create, update re-run, delete hook, failure.

Driven through stackctl (embedded engine) in a subprocess; skipped while the
engine service is not available.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  text: {{type: string, default: one}}
resources:
  writer:
    type: Hearth::Exec::Call
    properties:
      function: file.append
      args: [{out}, {{get_param: text}}]
      on_delete: {{function: file.remove, args: [{out}]}}
  echo:
    type: Hearth::Exec::Call
    properties:
      function: cmd.run_all
      args: [{{list_join: [' ', [echo, {{get_param: text}}]]}}]
outputs:
  said: {{value: {{get_attr: [echo, stdout]}}}}
  jid: {{value: {{get_attr: [writer, jid]}}}}
"""

FAILING = """
heat_template_version: 2018-08-31
resources:
  broken:
    type: Hearth::Exec::Call
    properties:
      function: cmd.run_all
      args: ["sh -c 'echo no space left >&2; exit 28'"]
"""


@pytest.fixture
def stackctl(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HEARTH_HOME": str(home)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "hearth.cli.main", *args],
                              capture_output=True, text=True, env=env, timeout=120)

    probe = run("stack-list")
    if "NotImplementedError" in probe.stderr:
        pytest.skip("the engine service is not implemented yet")
    return run


def test_create_update_delete(stackctl, tmp_path):
    out = tmp_path / "out"
    template = tmp_path / "t.yaml"
    template.write_text(textwrap.dedent(TEMPLATE.format(out=out)))
    created = stackctl("stack-create", "-f", str(template), "s1")
    assert created.returncode == 0, created.stderr
    assert out.read_text() == "one\n"
    said = stackctl("output-show", "s1", "said", "--format", "json")
    assert "one" in said.stdout
    jobs = json.loads(stackctl("job-list", "--format", "json").stdout)
    assert {job["function"] for job in jobs} == {"file.append", "cmd.run_all"}

    updated = stackctl("stack-update", "-f", str(template), "-P", "text=two", "s1")
    assert updated.returncode == 0, updated.stderr
    assert out.read_text() == "one\ntwo\n"

    deleted = stackctl("stack-delete", "-y", "s1")
    assert deleted.returncode == 0, deleted.stderr
    assert not out.exists()


def test_failing_call_fails_the_stack_with_its_error(stackctl, tmp_path):
    template = tmp_path / "f.yaml"
    template.write_text(FAILING)
    created = stackctl("stack-create", "--disable-rollback", "-f", str(template), "bad")
    assert created.returncode != 0
    shown = stackctl("stack-show", "bad", "--format", "json")
    stack = json.loads(shown.stdout)
    assert stack["stack_status"] == "CREATE_FAILED"
    assert "cmd.run_all failed with retcode 28: no space left" in stack["stack_status_reason"]


WATCHING = """
heat_template_version: 2021-04-16
parameters:
  text: {{type: string, default: one}}
resources:
  write:
    type: Hearth::Exec::Call
    properties:
      function: file.write
      args: [{out}, {{get_param: text}}]
  read:
    type: Hearth::Exec::Call
    properties:
      function: file.read
      args: [{out}]
      watch: [{{get_resource: write}}]
  read_after:
    type: Hearth::Exec::Call
    depends_on: [write]
    properties:
      function: file.read
      args: [{out}]
outputs:
  read: {{value: {{get_attr: [read, return]}}}}
  read_after: {{value: {{get_attr: [read_after, return]}}}}
"""


def test_a_call_that_watches_another_is_made_again_after_it(stackctl, tmp_path):
    """As in Heat, depends_on alone never re-runs a call; watch does, as Salt's requisite."""
    out = tmp_path / "app.conf"
    template = tmp_path / "t.yaml"
    template.write_text(WATCHING.format(out=out))
    assert stackctl("stack-create", "-f", str(template), "s2").returncode == 0
    updated = stackctl("stack-update", "-f", str(template), "-P", "text=two", "s2")
    assert updated.returncode == 0, updated.stderr
    assert "[read]: UPDATE_COMPLETE" in updated.stdout
    assert "[read_after]: UPDATE" not in updated.stdout
    outputs = json.loads(stackctl("output-show", "s2", "--all", "--format", "json").stdout)
    assert outputs["read"]["output_value"] == "two\n"
    assert outputs["read_after"]["output_value"] == "one\n"   # not read again
    same = stackctl("stack-update", "-f", str(template), "-P", "text=two", "s2")
    assert "[read]: UPDATE" not in same.stdout   # nothing written again: nothing read again
