"""``stackctl --help`` lists the commands by subject, and a typo gets a "did you mean".

Run as the user runs it: stackctl as a subprocess (none of these reaches an engine).
"""

from __future__ import annotations

import re
import subprocess

import pytest

from hearth.cli.commands import COMMAND_MODULES
from tests.functional.stackctl_process import STACKCTL

GROUPS = ["Stacks", "Resources, events and outputs", "Templates and resource types",
          "Agents, keys and jobs", "Clouds", "Pillar", "The local engine"]


def stackctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([STACKCTL, *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin",
                                                         "COLUMNS": "100"})


def help_groups(text: str) -> dict[str, list[str]]:
    """Return {group title: its command names, in the order shown} of stackctl --help."""
    groups: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if any(line.startswith(title) for title in GROUPS):
            current = line.rstrip(":")
            groups[current] = []
        elif current and (found := re.match(r"^  ([a-z][a-z-]+)(\s|$)", line)):
            groups[current].append(found.group(1))
    return groups


def test_help_lists_every_command_once_by_subject_sorted_in_each_group():
    result = stackctl("--help")
    assert result.returncode == 0, result.stderr
    groups = help_groups(result.stdout)
    titles = list(groups)
    assert [next(g for g in GROUPS if title.startswith(g)) for title in titles] == GROUPS
    for title, names in groups.items():
        assert names == sorted(names), title
    every = [name for names in groups.values() for name in names]
    assert len(every) == len(set(every)) == len(COMMAND_MODULES)
    stacks = groups[titles[0]]
    assert "stack-create" in stacks and "stack-list" in stacks
    agents = next(title for title in titles if title.startswith("Agents"))
    assert all(word in agents for word in ("salt", "salt-key", "salt-call"))
    assert "key-list" in groups[agents] and "run" in groups[agents]
    clouds = next(title for title in titles if title.startswith("Clouds"))
    assert "salt-cloud" in clouds and all(name.startswith("cloud-") for name in groups[clouds])
    assert "event-list" in groups["Resources, events and outputs"]


def test_the_key_commands_name_salt_key():
    listed = stackctl("--help").stdout
    for command, flag in (("key-list", "-L"), ("key-accept", "-a"), ("key-reject", "-r"),
                          ("key-delete", "-d"), ("key-finger", "-F")):
        line = re.search(rf"^  {command} .*(?:\n {{20,}}.*)*", listed, re.M).group(0)
        assert f"salt-key {flag}" in " ".join(line.split()), line
        assert f"salt-key {flag}" in " ".join(stackctl(command, "--help").stdout.split())


def test_a_mistyped_command_names_the_closest_one_as_git_does():
    result = stackctl("stack-craete", "-f", "t.yaml", "s")
    assert result.returncode == 2
    assert result.stderr == ("stackctl: 'stack-craete' is not a stackctl command. See "
                             "'stackctl --help'.\n\nThe most similar command is\n"
                             "\tstack-create\n")
    assert "cloud-providers" not in result.stderr   # no dump of every command


def test_a_prefix_names_every_command_it_starts():
    result = stackctl("key")
    assert result.returncode == 2
    assert "The most similar commands are\n\tkey-accept\n\tkey-delete\n\tkey-finger\n" \
           "\tkey-list\n\tkey-reject\n" in result.stderr


def test_nothing_close_names_nothing():
    result = stackctl("zzzzzz")
    assert result.returncode == 2
    assert result.stderr == ("stackctl: 'zzzzzz' is not a stackctl command. See "
                             "'stackctl --help'.\n")


@pytest.mark.parametrize("args, message", [
    (("stack-list", "--formt", "json"),
     "stackctl stack-list: error: unknown option '--formt'; did you mean '--format'?"),
    (("stack-list", "--format", "tabel"),
     "stackctl stack-list: error: argument --format: invalid choice: 'tabel'; did you "
     "mean 'table'? (choose from 'table', 'json', 'yaml', 'value')"),
    (("stack-list", "--debug"),
     "stackctl stack-list: error: '--debug' is an option of stackctl itself: give it "
     "before the command (stackctl --debug ... stack-list ...)"),
    (("call", "test.ping", "--formt", "json"),   # options may follow a call's arguments
     "stackctl call: error: unknown option '--formt'; did you mean '--format'?"),
    (("call", "test.ping", "--format", "jsno"),
     "stackctl call: error: argument --format: invalid choice: 'jsno'; did you mean 'json'? "
     "(choose from 'nested', 'json', 'yaml', 'txt')"),
    (("--formt", "json", "stack-list"),
     "stackctl: error: unknown option '--formt' (a command's own options come after the "
     "command)"),
])
def test_a_mistyped_option_or_choice_names_the_closest_one(args, message):
    result = stackctl(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: stackctl")
    assert result.stderr.rstrip().splitlines()[-1] == message
