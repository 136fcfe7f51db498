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


def test_stack_list_of_a_current_database_loads_no_migration_nor_template_code(home):
    heavy_imports(home, "--in-process", "stack-list")  # creates and migrates the database
    loaded = heavy_imports(home, "--in-process", "stack-list")
    assert "sqlalchemy" in loaded
    assert not loaded & {"alembic", "mako", "pygments", "dns", "networkx", "jsonschema", "yaml",
                         "eventlet"}
