"""Every hearth module imports on its own, as the first hearth module of a process.

A circular import can hide when the modules are always imported in the same order (the test
suite's, or the CLI's), and show only when a process starts from another module first:
``hearth-master`` from ``hearth.master.main``, a plug-in loaded by entry point, ``python -c
"import hearth.x.y"``.  So each module is imported in its own process, with no other hearth module
loaded before it.

Starting 360 interpreters costs more than the suite may spend here, so one interpreter first
imports the third-party libraries hearth uses (never a hearth module), then forks one child per
module: each child starts with an empty hearth namespace, exactly as a fresh process would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: run by a fresh interpreter: prints {"module": "traceback", ...} for every module that fails
PROBE = r"""
import importlib, json, os, sys, traceback

modules = json.loads(sys.argv[1])
parallel = 2


def third_party():
    # A throwaway child imports every hearth module and reports what else came with them.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        for name in modules:
            try:
                importlib.import_module(name)
            except BaseException:
                pass
        names = sorted(n for n in sys.modules
                       if n.split(".")[0] not in ("hearth", "__main__"))
        os.write(write, json.dumps(names).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as stream:
        names = json.loads(stream.read() or "[]")
    os.waitpid(pid, 0)
    return names


for name in third_party():
    try:
        importlib.import_module(name)
    except BaseException:
        pass
assert not [n for n in sys.modules if n == "hearth" or n.startswith("hearth.")]


def start(name):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            importlib.import_module(name)
            message = b""
        except BaseException:
            message = traceback.format_exc().encode()
        os.write(write, message)
        os._exit(0)
    os.close(write)
    return pid, read


failures, running, queue = {}, {}, list(modules)
while queue or running:
    while queue and len(running) < parallel:
        name = queue.pop(0)
        running[name] = start(name)
    name, (pid, read) = next(iter(running.items()))
    with os.fdopen(read, "rb") as stream:
        message = stream.read().decode()
    os.waitpid(pid, 0)
    del running[name]
    if message:
        failures[name] = message
print(json.dumps(failures))
"""


def _modules() -> list[str]:
    """Every importable hearth module (alembic's scripts are not modules)."""
    names = []
    for path in sorted((ROOT / "hearth").rglob("*.py")):
        relative = path.relative_to(ROOT).with_suffix("")
        if "migrations" in relative.parts and relative.name != "__init__":
            continue
        parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
        names.append(".".join(parts))
    return names


def test_every_module_imports_first_in_a_fresh_process():
    modules = _modules()
    assert "hearth.engine.service.engine" in modules and "hearth.agent.main" in modules
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(modules)], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    failures = json.loads(result.stdout.splitlines()[-1])
    assert failures == {}, "\n".join(f"{name}:\n{trace}" for name, trace in failures.items())
