"""Garbage given to stackctl (real processes, the local engine): a clear error, nothing lost.

Each refusal names what is wrong and where (the file and line, the stack
name with Heat's rule, the directory in the way); no "Unexpected error"; the
engine keeps serving: a good stack is created after every refusal.
"""

from __future__ import annotations

import base64
import json
import time

import pytest

from hearth.common.document_bounds import MAX_DEPTH
from tests.conftest import stop_local_engines
from tests.functional.api.test_input_bounds import LAUGHS_TEMPLATE
from tests.functional.stackctl_process import run

GOOD = "heat_template_version: 2021-04-16\nresources:\n  a: {type: OS::Heat::None}\n"
RULE = ('must contain only alphanumeric or "_-." characters, must start with alpha and must '
        "be 255 characters or less.")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("bad-input-home")
    yield home
    stop_local_engines(home)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return tmp_path_factory.mktemp("bad-input-files")


def refused(result, message: str) -> None:
    assert result.returncode == 1, result
    assert result.stderr == f"ERROR: {message}\n"


def still_serving(home, files, name: str) -> None:
    good = files / "good.yaml"
    good.write_text(GOOD)
    created = run(home, "stack-create", "-f", str(good), name)
    assert created.returncode == 0, created.stderr
    assert run(home, "stack-delete", "-y", name).returncode == 0


def test_a_bad_stack_name_is_refused(home, files):
    good = files / "good.yaml"
    good.write_text(GOOD)
    for name in ("../../x", "x" * 10_000, "1abc", "a b", "é", "a/b", "_x"):
        refused(run(home, "stack-create", "-f", str(good), name),
                f"Invalid stack name {name} {RULE}")
    listed = json.loads(run(home, "stack-list", "--format", "json").stdout)
    assert [stack["stack_name"] for stack in listed] == []
    still_serving(home, files, "after-name")


def test_a_template_that_is_not_utf8_is_named_with_its_line(home, files):
    template = files / "latin1.yaml"
    template.write_bytes("heat_template_version: 2021-04-16\ndescription: café\n"
                         .encode("latin-1"))
    for args in (["template-validate"], ["stack-create", "x"], ["--in-process",
                                                                "template-validate"]):
        refused(run(home, *args, "-f", str(template)),
                f"{template}:2: the file is not valid UTF-8 (invalid continuation byte at "
                "byte 50); save it as UTF-8")
    still_serving(home, files, "after-latin1")


def test_an_environment_or_nested_template_that_is_not_utf8_is_named(home, files):
    good = files / "good.yaml"
    good.write_text(GOOD)
    environment = files / "env-utf16.yaml"
    environment.write_bytes("parameters: {}\n".encode("utf-16"))
    refused(run(home, "template-validate", "-f", str(good), "-e", str(environment)),
            f"{environment}:1: the file is not valid UTF-8 (invalid start byte at byte 0); "
            "save it as UTF-8")
    nested = files / "nested-latin1.yaml"
    nested.write_bytes(b"heat_template_version: 2021-04-16\n# \xe9\n")
    parent = files / "parent.yaml"
    parent.write_text("heat_template_version: 2021-04-16\n"
                      f"resources:\n  n: {{type: {nested.name}}}\n")
    refused(run(home, "template-validate", "-f", str(parent)),
            f"{nested}:2: the file is not valid UTF-8 (invalid continuation byte at byte 36); "
            "save it as UTF-8")


def test_a_get_file_that_is_not_utf8_is_sent_base64_as_heatclient_does(home, files):
    blob = bytes(range(256))
    (files / "blob.bin").write_bytes(blob)
    template = files / "blob.yaml"
    template.write_text("heat_template_version: 2021-04-16\n"
                        "outputs:\n  blob: {value: {get_file: blob.bin}}\n")
    assert run(home, "stack-create", "-f", str(template), "blob").returncode == 0
    shown = run(home, "output-show", "blob", "blob", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert base64.decodebytes(json.loads(shown.stdout)["output_value"].encode()) == blob
    assert run(home, "stack-delete", "-y", "blob").returncode == 0


@pytest.mark.parametrize("mode", [[], ["--in-process"]])
def test_billion_laughs_is_refused_at_once(home, files, mode):
    template = files / "laughs.yaml"
    template.write_text(LAUGHS_TEMPLATE)
    started = time.monotonic()
    result = run(home, *mode, "template-validate", "-f", str(template))
    assert time.monotonic() - started < 20  # the stackctl and engine start-up, not 42 s
    assert result.returncode == 1
    size = result.stderr.split("Template size (", 1)[1].split()[0]
    assert int(size) > 9 ** 9 * 3
    assert result.stderr == (f"ERROR: Request limit exceeded: {template}: Template size "
                             f"({size} bytes with its YAML aliases expanded) exceeds maximum "
                             "allowed size (524288 bytes).\n")
    still_serving(home, files, "after-laughs")


@pytest.fixture(scope="module")
def small_limits(files):
    """A configuration whose size limits a few kilobytes pass."""
    config = files / "small-limits.conf"
    config.write_text("[DEFAULT]\nmax_template_size = 2000\nmax_json_body_size = 6000\n")
    return config


def over_the_limit(files, name: str, text: str) -> tuple[str, int]:
    """Write ``text`` ending in a 2,500-character value; return its path and size."""
    path = files / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"{text}{'x' * 2500}\n")
    return str(path), path.stat().st_size


def too_large(path: str, size: int) -> str:
    return (f"Request limit exceeded: {path}: Template size ({size} bytes) exceeds maximum "
            "allowed size (2000 bytes).")


@pytest.mark.parametrize("mode", [[], ["--in-process"]])
def test_a_template_or_environment_too_large_is_named(home, files, small_limits, mode):
    big, size = over_the_limit(files, "big.yaml", f"{GOOD}description: ")
    for command in (["template-validate", "-f", big], ["stack-create", "-f", big, "big"]):
        refused(run(home, *mode, *command, config=small_limits), too_large(big, size))
    # a provider template is sent as stackctl rewrote it (its size is that text's)
    nested, _ = over_the_limit(files, "sub/nested.yaml", f"{GOOD}description: ")
    uses = files / "uses.yaml"
    uses.write_text("heat_template_version: 2021-04-16\nresources:\n"
                    "  n: {type: sub/nested.yaml}\n")
    result = run(home, *mode, "stack-create", "-f", str(uses), "nest", config=small_limits)
    assert result.returncode == 1, result.stdout
    assert result.stderr.startswith(f"ERROR: Request limit exceeded: {nested}: Template size (")
    assert result.stderr.endswith(") exceeds maximum allowed size (2000 bytes).\n")
    env, size = over_the_limit(files, "env.yaml", "parameter_defaults:\n  p: ")
    (files / "good.yaml").write_text(GOOD)
    refused(run(home, *mode, "stack-create", "-f", str(files / "good.yaml"), "-e", env, "env",
                config=small_limits), too_large(env, size))
    listed = json.loads(run(home, *mode, "stack-list", "--format", "json",
                            config=small_limits).stdout)
    assert listed == []
    still_serving(home, files, "after-too-large")


def test_a_request_too_large_names_its_largest_files(home, files, small_limits):
    data = files / "data.txt"
    data.write_text("y" * 7000)
    uses = files / "uses-data.yaml"
    uses.write_text("heat_template_version: 2021-04-16\nresources:\n"
                    "  v: {type: OS::Heat::Value, properties: {value: {get_file: data.txt}}}\n")
    result = run(home, "stack-create", "-f", str(uses), "data", config=small_limits)
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR: Request limit exceeded: JSON body size (")
    assert result.stderr.split(") exceeds", 1)[1].startswith(
        f" maximum allowed size (6000 bytes); the largest files sent: {data} (7000 bytes), "
        f"{uses} (")
    still_serving(home, files, "after-large-request")


def test_a_template_nested_too_deeply_is_refused_with_its_line(home, files):
    template = files / "deep.yaml"
    template.write_text("heat_template_version: 2021-04-16\nresources:\n  v:\n"
                        "    type: OS::Heat::Value\n    properties:\n"
                        f"      value: {'[' * 300}{']' * 300}\n")
    refused(run(home, "template-validate", "-f", str(template)),
            f"{template}:6: Error parsing template: the document is nested too deeply (more "
            f"than {MAX_DEPTH} levels of maps and lists)")
    deep_json = files / "deep.json"
    deep_json.write_text('{"heat_template_version": "2021-04-16", "description": '
                         + "[" * 5000 + "]" * 5000 + "}")
    refused(run(home, "template-validate", "-f", str(deep_json)),
            f"{deep_json}: Error parsing template: the document is nested too deeply (more "
            f"than {MAX_DEPTH} levels of maps and lists)")


def test_a_file_where_the_runtime_directory_should_be_is_named(home, files, monkeypatch):
    blocker = files / "runtime-file"
    blocker.write_text("not a directory")
    for runtime, message in (
            (blocker, f"{blocker} is a file, not a directory"),
            (blocker / "below", f"{blocker} is a file, not a directory")):
        monkeypatch.setenv("HEARTH_RUNTIME_DIR", str(runtime))
        refused(run(home, "stack-list"),
                f"Cannot use {runtime} as the local engine's runtime directory: {message}; "
                "move it away or set HEARTH_RUNTIME_DIR")


def test_a_file_where_the_state_directory_should_be_is_named(files):
    blocker = files / "home-file"
    blocker.write_text("not a directory")
    refused(run(blocker, "stack-list"),
            f"Cannot use {blocker} as the state directory: {blocker} is a file, not a "
            "directory")
    refused(run(blocker, "--in-process", "stack-list"),
            f"Cannot use {blocker} as the database's directory: {blocker} is a file, not a "
            "directory")


def test_a_file_where_the_state_directory_should_be_is_named_by_call(files):
    blocker = files / "call-home-file"
    blocker.write_text("not a directory")
    refused(run(blocker, "call", "test.ping"),
            f"Cannot use {blocker / 'cache' / 'proc'} as the directory of running jobs: "
            f"{blocker} is a file, not a directory")


def test_key_finger_given_an_id_and_all_says_which_one(home):
    result = run(home, "key-finger", "web1", "--all")
    assert result.returncode == 2
    assert result.stderr == "ERROR: key-finger: give an agent ID (or a glob) or --all, not both\n"


@pytest.mark.parametrize("command", [["agent-grains", "web1"], ["master-stats"]])
def test_a_master_command_given_url_says_it_has_no_url_form(home, command):
    # they talk to hearth-master with its client key; --url asked the local master anyway
    result = run(home, "--url", "http://127.0.0.1:1/v1/p", *command)
    assert result.returncode == 2
    assert result.stderr == (f"ERROR: {command[0]} talks to hearth-master with its client "
                             "key, on the master's host: it has no --url form.\n")
