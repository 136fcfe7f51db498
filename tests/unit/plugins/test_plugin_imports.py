"""The plug-ins import neither the database nor eventlet; nested stacks' run-time half does.

``template-validate`` loads every plug-in it names and needs neither.  What a
plug-in needs while a stack acts comes from the engine (the stack's store,
recorder and ``start_thread``) or, for a nested stack, through one seam:
``StackResource.child_stacks()`` loads :mod:`hearth.engine.nested.runtime`.
Checked in a fresh interpreter (this one has loaded everything already).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("sqlalchemy", "eventlet", "zmq", "alembic")

PROBE = r"""
import importlib, json, pkgutil, sys
import hearth.plugins
heavy = set(json.loads(sys.argv[1]))

def loaded():
    return sorted(n for n in sys.modules if n.split(".")[0] in heavy)

names = [m.name for m in pkgutil.walk_packages(hearth.plugins.__path__, "hearth.plugins.")]
names += ["hearth.engine.nested.children", "hearth.engine.nested.stack_resource",
          "hearth.engine.nested.template_resource", "hearth.engine.resources.handle_tokens",
          "hearth.engine.resources.signals"]
for name in names:
    importlib.import_module(name)
plugins = loaded()
importlib.import_module("hearth.engine.nested.runtime")
print(json.dumps({"modules": names, "plugins": plugins, "runtime": loaded()}))
"""


def test_plugins_load_without_the_database_and_the_runtime_loads_both():
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert "hearth.plugins.resource_group" in found["modules"]
    assert "hearth.plugins.cloud_server" in found["modules"]
    assert found["plugins"] == []
    runtime = {name.split(".")[0] for name in found["runtime"]}
    assert {"sqlalchemy", "eventlet"} <= runtime
