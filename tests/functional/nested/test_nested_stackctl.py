"""Provider templates and nested stacks through ``stackctl`` as a subprocess.

The templates live in a directory: ``type: server.yaml`` and a
``resource_registry`` entry are read by the client next to the file that
names them (as heatclient does); the engine only sees the files map.  A
killed engine mid nested create leaves parent and child FAILED, and both
delete.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.functional.stackctl_process import kill_engine, read_until, run, start

SERVER = """
heat_template_version: 2018-08-31
parameters:
  flavor: {type: string}
  size: {type: number, default: 1}
resources:
  disk:
    type: OS::Heat::Value
    properties: {value: {list_join: ['-', [{get_param: flavor}, {get_param: OS::stack_name}]]}}
  slow:
    type: OS::Heat::TestResource
    properties: {action_wait_secs: {create: {get_param: size}}}
outputs:
  disk: {value: {get_attr: [disk, value]}}
"""

MAIN = """
heat_template_version: 2018-08-31
resources:
  web:
    type: lib/server.yaml
    properties: {flavor: small, size: 0}
  db:
    type: My::Server
    properties: {flavor: large, size: 0}
outputs:
  web_disk: {value: {get_attr: [web, disk]}}
  db_disk: {value: {get_attr: [db, resource.disk, value]}}
"""

ENV = "resource_registry:\n  My::Server: lib/server.yaml\n"


@pytest.fixture
def tree(tmp_path):
    """A directory of templates: main.yaml, env.yaml and lib/server.yaml."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "server.yaml").write_text(SERVER)
    (tmp_path / "main.yaml").write_text(MAIN)
    (tmp_path / "env.yaml").write_text(ENV)
    return tmp_path


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """Return a HEARTH_HOME the module's tests share (one local engine; stacks of their own).

    The tests that kill the engine have one of their own (hearth_home).
    """
    return tmp_path_factory.mktemp("nested-home")


def show(home, name, config=None):
    result = run(home, "stack-show", name, "--format", "json", config=config)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
def test_provider_templates_from_a_directory_create_and_delete(home, tree):
    created = run(home, "stack-create", "-f", str(tree / "main.yaml"),
                  "-e", str(tree / "env.yaml"), "app")
    assert created.returncode == 0, created.stdout + created.stderr
    assert "Stack app CREATE_COMPLETE" in created.stdout
    stack = show(home, "app")
    values = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert values["web_disk"].startswith("small-app-web-")
    assert values["db_disk"].startswith("large-app-db-")
    resources = json.loads(run(home, "resource-list", "app", "--format",
                               "json").stdout)
    types = {r["resource_name"]: r["resource_type"] for r in resources}
    assert types == {"web": f"file://{tree}/lib/server.yaml", "db": "My::Server"}

    deleted = run(home, "stack-delete", "-y", "app")
    assert "Stack app DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr


@pytest.mark.slow
def test_validate_and_create_refuse_an_unknown_property_naming_it(home, tree):
    (tree / "main.yaml").write_text(MAIN.replace("size: 0}", "size: 0, colour: red}", 1))
    for command in ("template-validate", "stack-create"):
        args = [command, "-f", str(tree / "main.yaml"), "-e", str(tree / "env.yaml")]
        result = run(home, *args, *(["bad"] if command == "stack-create" else []))
        assert result.returncode == 1
        assert "resources.web.properties: Unknown Property colour" in result.stderr, (
            result.stderr)
        assert "Traceback" not in result.stderr


def test_a_yml_type_is_an_unknown_type_not_a_template(home, tree):
    # Heat's rule, in the client and in the engine alike: only .yaml and
    # .template name templates (the engine took .yml for one the client had not sent)
    (tree / "lib" / "server.yml").write_text(SERVER)
    (tree / "main.yaml").write_text(MAIN.replace("lib/server.yaml", "lib/server.yml"))
    result = run(home, "template-validate", "-f", str(tree / "main.yaml"),
                 "-e", str(tree / "env.yaml"))
    assert result.returncode == 1
    assert "resources.web.type: The Resource Type (lib/server.yml) could not be found." in \
        result.stderr, result.stderr
    assert "files map" not in result.stderr


FED = """
heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def: {type: OS::Heat::RandomString}
  web:
    type: lib/server.yaml
    properties: {flavor: {get_attr: [group, resource.1.value]}, size: 0}
  db:
    type: My::Server
    properties: {flavor: {get_attr: [group, resource.0.value]}, size: 0}
outputs:
  web_disk: {value: {get_attr: [web, disk]}}
  db_disk: {value: {get_attr: [db, disk]}}
  names: {value: {get_attr: [group, value]}}
"""


def test_a_provider_property_fed_by_an_attribute_is_known_only_at_create(home, tree):
    # validation takes the value as unknown until the group exists (as Heat);
    # it said "The Parameter (flavor) was not provided" from inside server.yaml
    (tree / "main.yaml").write_text(FED)
    args = ["-f", str(tree / "main.yaml"), "-e", str(tree / "env.yaml")]
    validated = run(home, "template-validate", *args)
    assert validated.returncode == 0, validated.stderr
    created = run(home, "stack-create", *args, "fed")
    assert "Stack fed CREATE_COMPLETE" in created.stdout, created.stdout + created.stderr
    values = {o["output_key"]: o["output_value"] for o in show(home, "fed")["outputs"]}
    first, second = values["names"]
    assert values["web_disk"].startswith(f"{second}-fed-web-")
    assert values["db_disk"].startswith(f"{first}-fed-db-")


def test_a_nested_template_error_names_the_file_and_the_path(home, tree):
    (tree / "lib" / "server.yaml").write_text(SERVER.replace("get_param: flavor}",
                                                             "get_param: flavour}"))
    result = run(home, "template-validate", "-f", str(tree / "main.yaml"),
                 "-e", str(tree / "env.yaml"))
    assert result.returncode == 1
    assert f"file://{tree}/lib/server.yaml" in result.stderr
    assert "resources.web.resources.disk.properties.value.list_join.1.0: The specified " \
           'reference "flavour"' in result.stderr, result.stderr


def kill_mid_nested_create(home, tree, size: int, options: str):
    """Start creating ``doomed`` (its nested 'slow' waits ``size`` s); SIGKILL it mid-create.

    Return the configuration file (``options`` in ``[DEFAULT]``).
    """
    config = tree / "hearth.conf"
    config.write_text(f"[DEFAULT]\n{options}\n")
    (tree / "main.yaml").write_text(MAIN.replace("flavor: small, size: 0",
                                                 f"flavor: small, size: {size}"))
    process = start(home, "stack-create", "-f", str(tree / "main.yaml"),
                    "-e", str(tree / "env.yaml"), "doomed", config=config)
    try:
        read_until(process, "[web]: CREATE_IN_PROGRESS")
        time.sleep(0.5)  # the nested stack's own members are acting
    finally:
        kill_engine(home, process)
    return config


def stacks_by_name(home, config):
    listed = run(home, "stack-list", "--show-nested", "--format", "json", config=config)
    return {s["stack_name"]: show(home, s["id"], config) for s in json.loads(listed.stdout)}


@pytest.mark.slow
def test_a_killed_engine_mid_nested_create_leaves_both_failed_and_deletable(hearth_home,
                                                                            tree):
    config = kill_mid_nested_create(hearth_home, tree, 30, "engine_takeover = fail")
    time.sleep(2.5)  # the default engine_life_check_timeout is 2 s
    stacks = stacks_by_name(hearth_home, config)
    web = next(name for name in stacks if name.startswith("doomed-web-"))
    for name in ("doomed", web):  # the nested stack too, though it held no lock
        assert (stacks[name]["stack_status"], stacks[name]["stack_status_reason"]) == (
            "CREATE_FAILED", "Engine went down during stack CREATE")
    deleted = run(hearth_home, "stack-delete", "-y", "doomed", config=config)
    assert "Stack doomed DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    left = run(hearth_home, "stack-list", "--show-nested", "--format", "json", config=config)
    assert json.loads(left.stdout) == []


@pytest.mark.slow
def test_the_next_engine_finishes_a_killed_nested_create(hearth_home, tree):
    config = kill_mid_nested_create(hearth_home, tree, 4, "engine_life_check_timeout = 0.5\n"
                                                          "engine_heartbeat_interval = 0.1")
    # the next command's engine takes the create over, the nested stack's with it
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        stacks = stacks_by_name(hearth_home, config)
        if all(not s["stack_status"].endswith("IN_PROGRESS") for s in stacks.values()):
            break
        time.sleep(0.3)
    assert {name: s["stack_status"] for name, s in stacks.items()} == {
        name: "CREATE_COMPLETE" for name in stacks}
    assert len(stacks) == 3  # doomed and its two nested stacks: none made twice
    web = next(name for name in stacks if name.startswith("doomed-web-"))
    events = run(hearth_home, "event-list", stacks[web]["id"], "--format", "json",
                 config=config)
    lines = [(e["resource_name"], e["resource_status"], e["resource_status_reason"])
             for e in json.loads(events.stdout)]
    assert [line for line in lines if line[0] == "slow"] == [
        ("slow", "CREATE_IN_PROGRESS", "state changed"),
        ("slow", "CREATE_IN_PROGRESS",
         "Engine went down during the action: continued by another engine"),
        ("slow", "CREATE_COMPLETE", "state changed")]
    assert ("doomed", "CREATE_COMPLETE", "Stack CREATE completed successfully") in [
        (s["stack_name"], s["stack_status"], s["stack_status_reason"])
        for s in stacks.values()]
