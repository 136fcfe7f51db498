"""What a stackctl process loads: quick commands must not pay for the engine (issue 10).

Not timed (bench/cli_bench.py times whole processes); this pins the imports
that made ``--version``, ``template-validate`` and ``stack-list`` slow, as
reported by ``python -X importtime`` of a real stackctl process.
"""

import re
import subprocess
import sys

import pytest

from tests.functional.stackctl_process import environment

HEAVY = {"alembic", "dns", "eventlet", "jsonschema", "networkx", "sqlalchemy", "yaml", "zmq",
         "falcon", "requests", "mako", "pygments", "oslo_config"}
IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*([A-Za-z_0-9]+)", re.M)

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::None}
  b: {type: OS::Heat::None, depends_on: a}
"""

#: a resource of every built-in type whose validation runs without a configured cloud
EVERY_KIND = """heat_template_version: 2018-08-31
resources:
  none: {type: OS::Heat::None}
  value: {type: OS::Heat::Value, properties: {value: 1}}
  random: {type: OS::Heat::RandomString}
  test: {type: OS::Heat::TestResource}
  delay: {type: OS::Heat::Delay}
  group:
    type: OS::Heat::ResourceGroup
    properties: {count: 2, resource_def: {type: OS::Heat::None}}
  chain:
    type: OS::Heat::ResourceChain
    properties: {resources: [OS::Heat::None, OS::Heat::None]}
  scaling:
    type: OS::Heat::AutoScalingGroup
    properties: {min_size: 1, max_size: 3, resource: {type: OS::Heat::None}}
  policy:
    type: OS::Heat::ScalingPolicy
    properties: {auto_scaling_group_id: {get_resource: scaling}, scaling_adjustment: 1,
                 adjustment_type: change_in_capacity}
  nested:
    type: OS::Heat::Stack
    properties:
      template: |
        heat_template_version: 2018-08-31
        resources: {n: {type: OS::Heat::None}}
  handle: {type: OS::Heat::WaitConditionHandle}
  update_handle: {type: OS::Heat::UpdateWaitConditionHandle}
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, timeout: 60}
  call: {type: Hearth::Exec::Call, properties: {function: test.ping}}
  pillar: {type: Hearth::Pillar::Data, properties: {agent: web1}}
"""


def heavy_imports(home, *args: str) -> set[str]:
    """Run stackctl ``args`` under ``-X importtime``; return the heavy packages it loaded."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "hearth.cli.main", *args],
                            env=environment(home), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return HEAVY & set(IMPORTED.findall(result.stderr))


@pytest.fixture
def home(tmp_path):
    state = tmp_path / "home"
    state.mkdir()
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "every.yaml").write_text(EVERY_KIND)
    return state


def test_version_loads_nothing_heavy(home):
    assert heavy_imports(home, "--version") == set()


def test_quick_commands_of_the_local_engine_load_nothing_heavy(home):
    # the local engine (started by the first command) does the work: stackctl is a client
    heavy_imports(home, "stack-list")
    assert heavy_imports(home, "stack-list") == set()
    # yaml prints the result (YAML is template-validate's output format)
    assert heavy_imports(home, "template-validate", "-f", str(home.parent / "t.yaml")) <= {"yaml"}


def test_template_validate_needs_no_database(home):
    loaded = heavy_imports(home, "--in-process", "template-validate", "-f",
                           str(home.parent / "t.yaml"))
    # networkx (the dependency graph) and jsonschema (the structure checks) are
    # validation's own work; the database and the green runtime are not
    assert not loaded & {"sqlalchemy", "alembic", "zmq", "dns", "eventlet"}


def test_template_validate_of_groups_nested_stacks_and_waits_needs_no_database(home):
    # their plug-ins reach the database and the green threads only when a stack acts
    # (StackResource.child_stacks(), the stack's recorder, store and start_thread)
    loaded = heavy_imports(home, "--in-process", "template-validate", "-f",
                           str(home.parent / "every.yaml"))
    assert not loaded & {"sqlalchemy", "alembic", "zmq", "dns", "eventlet"}


def test_stack_list_of_a_current_database_loads_no_migration_nor_template_code(home):
    heavy_imports(home, "--in-process", "stack-list")  # creates and migrates the database
    loaded = heavy_imports(home, "--in-process", "stack-list")
    assert "sqlalchemy" in loaded
    assert not loaded & {"alembic", "mako", "pygments", "dns", "networkx", "jsonschema", "yaml",
                         "eventlet"}
