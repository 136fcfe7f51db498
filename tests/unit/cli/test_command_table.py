"""The table of which module registers which stackctl command matches the modules."""

import argparse
import importlib
import pkgutil

import pytest

import hearth.cli.commands as package
from hearth.cli import main


def registered_by_each_module():
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"{package.__name__}.{info.name}").register(subparsers)
        found[info.name] = tuple(subparsers.choices)
    return found


def test_the_table_names_every_command_of_every_module():
    assert registered_by_each_module() == package.MODULE_COMMANDS


@pytest.mark.parametrize("argv, command", [
    (["stack-list"], "stack-list"),
    (["--config-file", "a.conf", "--url", "http://x/v1/p", "stack-show", "s"], "stack-show"),
    (["--debug", "--in-process", "template-validate", "-f", "t.yaml"], "template-validate"),
    (["--version"], None),
    ([], None),
])
def test_the_command_is_found_after_the_global_options(argv, command):
    assert main.find_command(argv) == command


def test_a_parser_built_for_one_command_parses_it_as_the_full_one():
    argv = ["--config-file", "a.conf", "stack-create", "-f", "t.yaml", "-P", "k=v", "s1"]
    one = vars(main.build_parser("stack-create").parse_args(argv))
    every = vars(main.build_parser().parse_args(argv))
    assert one == every


def test_every_command_is_in_exactly_one_help_group():
    grouped = [name for _, names in package.COMMAND_GROUPS for name in names]
    assert sorted(grouped) == sorted(package.COMMAND_MODULES)
