"""Hearth::Pillar::Data in stacks created through stackctl (local compiles, no master)."""

from __future__ import annotations

import json

import pytest

from tests.functional import stackctl_process

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  agent: {type: string, default: db1}
resources:
  pillar:
    type: Hearth::Pillar::Data
    properties:
      agent: {get_param: agent}
      grains: {role: db}
      secret_keys: ["db:password"]
  port:
    type: Hearth::Pillar::Data
    properties:
      agent: {get_param: agent}
      grains: {role: db}
      path: db:port
  uses_password:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [pillar, data, db, password]}
outputs:
  db: {value: {get_attr: [pillar, data, db]}}
  port: {value: {get_attr: [port, data]}}
  errors: {value: {get_attr: [pillar, errors]}}
  password_user: {value: {get_attr: [uses_password, value]}}
"""

pytestmark = pytest.mark.slow


def stackctl(site, *args):
    done = stackctl_process.run(site.home, *args, config=site.config, timeout=180)
    return done


@pytest.fixture
def template(tmp_path):
    path = tmp_path / "pillar_stack.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def outputs(site, name):
    shown = json.loads(stackctl(site, "stack-show", name, "--format", "json").stdout)
    return shown["stack_status"], {o["output_key"]: o.get("output_value")
                                   for o in shown["outputs"]}


def test_data_flows_and_secrets_stay_hidden(pillar_site, template):
    created = stackctl(pillar_site, "stack-create", "-f", template, "s1")
    assert created.returncode == 0, created.stderr
    status, values = outputs(pillar_site, "s1")
    assert status == "CREATE_COMPLETE"
    assert values == {"db": {"host": "db.internal", "password": "******", "port": 5432,
                             "replicas": 2},
                      "port": 5432, "errors": [], "password_user": "******"}
    events = stackctl(pillar_site, "event-list", "s1", "--format", "json")
    shown = stackctl(pillar_site, "resource-show", "s1", "pillar", "--format", "json")
    user = stackctl(pillar_site, "resource-show", "s1", "uses_password", "--format", "json")
    for text in (created.stdout, events.stdout, shown.stdout, user.stdout):
        assert "s3cret-db" not in text
    assert json.loads(shown.stdout)["attributes"]["data"]["db"]["host"] == "db.internal"

    # Update with refresh (the default): the new file content comes in.
    pillar_site.write("database.sls", "db:\n  replicas: 3\n")
    updated = stackctl(pillar_site, "stack-update", "-f", template, "s1")
    assert updated.returncode == 0, updated.stderr
    assert outputs(pillar_site, "s1")[1]["db"]["replicas"] == 3
    for action, state in (("stack-suspend", "SUSPEND_COMPLETE"),
                          ("stack-resume", "RESUME_COMPLETE")):
        done = stackctl(pillar_site, action, "s1")
        assert done.returncode == 0 and state in done.stdout, done.stdout + done.stderr

    # Check recompiles and reports the pillar's errors.
    pillar_site.write("database.sls", "db: [broken\n")
    checked = stackctl(pillar_site, "stack-check", "s1")
    assert checked.returncode != 0
    assert "CHECK_FAILED" in checked.stdout
    assert "The pillar of db1 has errors: Rendering SLS 'database'" in checked.stdout


def test_errors_fail_the_resource_unless_ignored(pillar_site, template, tmp_path):
    pillar_site.write("database.sls", "db: {{ missing_variable }}\n")
    failed = stackctl(pillar_site, "stack-create", "-f", template, "bad")
    assert failed.returncode != 0
    assert "CREATE_FAILED" in failed.stdout
    assert ("The pillar of db1 has errors: Rendering SLS 'database' "
            f"({pillar_site.roots}/database.sls) failed: Jinja error: 'missing_variable' is "
            "undefined") in failed.stdout + failed.stderr
    lenient = tmp_path / "lenient.yaml"
    lenient.write_text(TEMPLATE.replace("      grains: {role: db}\n", "      grains: {role: db}\n"
                                                                    "      ignore_errors: true\n"))
    created = stackctl(pillar_site, "stack-create", "-f", str(lenient), "lenient")
    assert created.returncode == 0, created.stdout + created.stderr
    errors = outputs(pillar_site, "lenient")[1]["errors"]
    assert len(errors) == 1 and "Rendering SLS 'database'" in errors[0]
