"""The package installs the ordinary way: a wheel of this tree runs Hearth's whole life cycle.

``make`` installs Hearth editable, which reads every file from the tree, so a
file the wheel leaves out (the migrations were) goes unnoticed.  This test
builds the wheel from a copy of the tree (``pip wheel``, no build isolation:
nothing downloaded) and installs it into a fresh virtualenv that borrows its
dependencies from the test's own environment (a path entry, so the editable
install's import hook there is never loaded), then checks that:

- the new environment imports Hearth from the wheel, not from the tree;
- every file of the package in the tree is in the wheel (schemas, the OpenAPI
  document, alembic's files and migrations, the deploy script);
- ``hearth-manage db-sync``, ``stackctl`` (template-validate, stack-create,
  stack-list, stack-show, output-show, stack-delete on the local engine) and
  ``hearth-api`` (a stack created over HTTP) work from the installed wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest
import requests

from tests.conftest import stop_local_engines
from tests.functional.api.conftest import TEMPLATE

REPOSITORY = Path(__file__).resolve().parents[2]
#: What building the wheel needs from the tree.
BUILD_FILES = ("setup.cfg", "setup.py", "pyproject.toml", "README.rst")


def _run(*command: str, env: dict | None = None, cwd: Path | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd,
                            timeout=timeout, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, (command, result.stdout[-3000:], result.stderr[-3000:])
    return result


def _package_files(root: Path) -> set[str]:
    """Return the package's files under ``root`` (relative, '/'-separated), caches aside."""
    return {path.relative_to(root).as_posix() for path in (root / "hearth").rglob("*")
            if path.is_file() and "__pycache__" not in path.parts
            and path.suffix not in (".pyc", ".pyo")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build the wheel of a copy of the tree (the tree itself is left as it is)."""
    source = tmp_path_factory.mktemp("wheel-source")
    for name in BUILD_FILES:
        shutil.copy2(REPOSITORY / name, source / name)
    shutil.copytree(REPOSITORY / "hearth", source / "hearth",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(source))
    (built,) = out.glob("hearth-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """Return a fresh virtualenv with the wheel installed and this environment's dependencies."""
    venv = tmp_path_factory.mktemp("wheel-venv")
    _run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    python = venv / "bin" / "python"
    purelib = Path(_run(str(python), "-c", "import sysconfig; "
                        "print(sysconfig.get_paths()['purelib'])").stdout.strip())
    # the dependencies: a plain path entry (the .pth files there, among them the
    # editable install's import hook, are not processed)
    (purelib / "zz-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", "--no-index", str(wheel))
    return venv


def test_the_wheel_holds_every_file_of_the_package(wheel):
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if name.startswith("hearth/")}
    missing = sorted(_package_files(REPOSITORY) - shipped)
    assert missing == [], f"files of the package left out of the wheel: {missing}"
    assert "hearth/db/migrations/versions/0001_initial_schema.py" in shipped


def test_the_environment_imports_hearth_from_the_wheel(installed, tmp_path):
    shown = _run(str(installed / "bin" / "python"), "-c",
                 "import hearth, sys, importlib.metadata as m; print(hearth.__file__); "
                 "print(m.distribution('hearth').read_text('direct_url.json')); "
                 "print('\\n'.join(sys.path))", cwd=tmp_path).stdout.splitlines()
    assert shown[0].startswith(str(installed)), shown
    assert "archive_info" in json.loads(shown[1])  # installed from the wheel, not a directory
    # the only place on the path holding a hearth package is the new environment
    holding = [entry for entry in shown[2:] if (tmp_path / entry / "hearth").is_dir()]
    assert holding == [str(Path(shown[0]).parents[1])], shown


@pytest.fixture
def wheel_env(installed, tmp_path) -> dict:
    """Return the environment of commands run from the installed wheel, on their own home."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("HEARTH_URL", "HEARTH_TOKEN", "HEARTH_CONFIG", "PYTHONPATH")}
    home = tmp_path / "home"
    home.mkdir()
    env.update(HEARTH_HOME=str(home), PATH=f"{installed / 'bin'}:{env.get('PATH', '')}")
    yield env
    stop_local_engines(home)


def test_stackctl_life_cycle_from_the_wheel(installed, wheel_env, tmp_path):
    stackctl = str(installed / "bin" / "stackctl")
    template = tmp_path / "value.yaml"
    template.write_text(TEMPLATE)

    def stackctl_run(*args: str) -> str:
        return _run(stackctl, *args, env=wheel_env, cwd=tmp_path).stdout

    stackctl_run("template-validate", "-f", str(template))
    stackctl_run("stack-create", "-f", str(template), "-P", "p=from-wheel", "wheel")
    assert "wheel" in stackctl_run("stack-list")
    shown = json.loads(stackctl_run("stack-show", "wheel", "--format", "json"))
    assert shown["stack_status"] == "CREATE_COMPLETE"
    output = json.loads(stackctl_run("output-show", "wheel", "out1", "--format", "json"))
    assert output["output_value"] == "from-wheel"
    stackctl_run("stack-delete", "-y", "wheel")
    assert "wheel" not in stackctl_run("stack-list")


def test_db_sync_and_hearth_api_from_the_wheel(installed, wheel_env, tmp_path):
    bin_dir = installed / "bin"
    database = tmp_path / "server.db"
    config = tmp_path / "hearth.conf"
    config.write_text(f"[database]\nconnection = sqlite:///{database}\nauto_migrate = false\n")
    wheel_env["HEARTH_CONFIG"] = str(config)
    synced = _run(str(bin_dir / "hearth-manage"), "db-sync", env=wheel_env, cwd=tmp_path)
    assert database.exists(), synced.stderr
    api = subprocess.Popen([str(bin_dir / "hearth-api"), "--host", "127.0.0.1", "--port", "0",
                            "--noauth"], env=wheel_env, cwd=tmp_path, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = api.stdout.readline()
        assert "listening on" in line, (line, api.stderr.read() if api.poll() else "")
        base = line.split("listening on ", 1)[1].split()[0] + "/v1/wheel"
        created = requests.post(f"{base}/stacks", timeout=30, json={
            "stack_name": "over-http", "template": TEMPLATE})
        assert created.status_code == 201, created.text
        deadline = time.monotonic() + 30
        while True:
            stack = requests.get(f"{base}/stacks/over-http", timeout=30).json()["stack"]
            if stack["stack_status"] != "CREATE_IN_PROGRESS" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert stack["stack_status"] == "CREATE_COMPLETE"
    finally:
        api.terminate()
        api.wait(timeout=30)
