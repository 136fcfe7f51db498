"""The tables of stackctl's and hearth-manage's commands match their modules.

Each program imports only the module of the command it runs, and none for
``--help`` (whose list is the table's): checked in real processes.
"""

import argparse
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import hearth.cli.commands as commands
import hearth.cli.manage_commands as manage_commands
from hearth.cli import main
from hearth.cli.command_table import add_commands

BIN = Path(sys.executable).parent
#: What a quick command must not load (the engine's and the Salt side's heavy libraries).
HEAVY = ("sqlalchemy", "eventlet", "zmq", "oslo_config", "networkx", "jsonschema")


def registered_by_each_module(package):
    """Return module -> the commands and summaries its ``register`` adds."""
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        subparsers = add_commands(argparse.ArgumentParser(), package.TABLE.summaries)
        importlib.import_module(f"{package.__name__}.{info.name}").register(subparsers)
        found[info.name] = {action.dest: action.help for action in subparsers._choices_actions}
    return found


@pytest.mark.parametrize("package", [commands, manage_commands])
def test_the_table_names_every_command_of_every_module(package):
    registered = registered_by_each_module(package)
    assert {module: set(names) for module, names in registered.items()} == \
        package.TABLE.module_commands()
    helps = {name: text for names in registered.values() for name, text in names.items()}
    assert helps == package.TABLE.summaries
    assert all(text and text.endswith(".") for text in helps.values())


@pytest.mark.parametrize("argv, command", [
    (["stack-list"], "stack-list"),
    (["--config-file", "a.conf", "--url", "http://x/v1/p", "stack-show", "s"], "stack-show"),
    (["--debug", "--in-process", "template-validate", "-f", "t.yaml"], "template-validate"),
    (["--version"], None),
    ([], None),
])
def test_the_command_is_found_after_the_global_options(argv, command):
    assert main.find_command(argv) == command


#: Runs a program's script as its own process does, then lists the modules it imported.
LIST_MODULES = """
import atexit, runpy, sys
atexit.register(lambda: print(*sorted(sys.modules), sep="\\n", file=sys.stderr))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def imported(program, *args):
    """Return the modules a real ``program *args`` process imports, and its result."""
    result = subprocess.run([sys.executable, "-c", LIST_MODULES, str(BIN / program), *args],
                            capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    return set(result.stderr.split()), result


@pytest.mark.parametrize("program, args, package, loaded", [
    ("stackctl", ["--help"], commands, None),
    ("stackctl", ["--version"], commands, None),
    ("stackctl", ["stack-list", "--help"], commands, "stacks"),
    ("stackctl", ["--url", "http://127.0.0.1:1/v1/p", "pillar-top", "--help"], commands,
     "pillar"),
    ("hearth-manage", ["--help"], manage_commands, None),
    ("hearth-manage", ["token-list", "--help"], manage_commands, "tokens"),
])
def test_only_the_command_run_has_its_module_imported(program, args, package, loaded):
    names, result = imported(program, *args)
    assert result.returncode == 0, result.stderr[-2000:]
    modules = {name.rsplit(".", 1)[1] for name in names
               if name.startswith(package.__name__ + ".")}
    assert modules == ({loaded} if loaded else set())
    if loaded is None or loaded == "stacks":
        assert not {name.split(".")[0] for name in names} & set(HEAVY)
