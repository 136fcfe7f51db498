"""stackctl --url gives the same output as embedded mode."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.functional.api.conftest import TEMPLATE

STACKCTL = os.path.join(os.path.dirname(sys.executable), "stackctl")


def _stackctl(env: dict, *args: str) -> str:
    result = subprocess.run([STACKCTL, *args], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def local_home(tmp_path_factory):
    """Return the HEARTH_HOME of the module's local-engine and in-process modes (one engine)."""
    return str(tmp_path_factory.mktemp("cli-http-local"))


@pytest.fixture
def template_file(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def _normalise(text: str, stack_id: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "<time>",
                  text.replace(stack_id, "<id>"))


def test_show_list_outputs_match_embedded_mode(noauth_server, template_file, local_home):
    http_env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")}
    local_env = {**os.environ, "HEARTH_HOME": local_home}
    local_env.pop("HEARTH_URL", None)
    outputs = {}
    for mode, env in (("http", http_env), ("embedded", local_env)):
        _stackctl(env, "stack-create", "-f", template_file, "-P", "p=same", "same")
        stack_id = json.loads(_stackctl(env, "stack-show", "same", "--format", "json"))["id"]
        shown = _stackctl(env, "output-show", "same", "out1", "--format", "json")
        listed = _stackctl(env, "stack-list", "--format", "value")
        outputs[mode] = [_normalise(text, stack_id) for text in (shown, listed)]
    assert outputs["http"] == outputs["embedded"]


@pytest.mark.parametrize("command", [
    ("template-version-list",),
    ("template-function-list", "2021-04-16", "--with-condition-functions"),
])
def test_template_listings_go_through_the_api(noauth_server, local_home, command):
    http_env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")}
    local_env = {**os.environ, "HEARTH_HOME": local_home}
    local_env.pop("HEARTH_URL", None)
    over_http = json.loads(_stackctl(http_env, *command, "--format", "json"))
    assert over_http == json.loads(_stackctl(local_env, *command, "--format", "json"))
    # A URL nobody serves fails: the command really asked the API.
    unreachable = {**local_env, "HEARTH_URL": "http://127.0.0.1:9/v1/admin"}
    result = subprocess.run([STACKCTL, *command], env=unreachable, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr


def _modes(noauth_server, local_home) -> dict[str, dict]:
    """Return the environments of the three modes: --url, the local engine, in-process."""
    local_env = {**os.environ, "HEARTH_HOME": local_home}
    local_env.pop("HEARTH_URL", None)
    return {"http": {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")},
            "local": local_env, "in-process": {**local_env, "HEARTH_IN_PROCESS": "1"}}


def test_an_unknown_template_version_is_refused_in_heats_words_in_every_mode(
        noauth_server, local_home):
    for mode, env in _modes(noauth_server, local_home).items():
        result = subprocess.run([STACKCTL, "template-function-list", "stein"], env=env,
                                capture_output=True, text=True, timeout=120)
        assert (mode, result.returncode, result.stderr) == (
            mode, 1, "ERROR: Template with version stein not found\n")


GRAPHED = """
heat_template_version: 2021-04-16
parameters:
  size: {type: number, default: 1}
resources:
  db: {type: OS::Heat::RandomString}
  web:
    type: OS::Heat::Value
    properties: {value: {get_attr: [db, value]}}
"""


def test_a_template_graph_is_drawn_by_the_engine_the_same_in_every_mode(
        noauth_server, local_home, tmp_path):
    template = tmp_path / "shop.yaml"
    template.write_text(GRAPHED)
    broken = tmp_path / "broken.yaml"
    broken.write_text(GRAPHED.replace("get_attr: [db, value]", "get_attr: [nothere, value]"))
    drawn, refusals = {}, {}
    for mode, env in _modes(noauth_server, local_home).items():
        drawn[mode] = _stackctl(env, "stack-graph", "-f", str(template), "-P", "size=3")
        result = subprocess.run([STACKCTL, "stack-graph", "-f", str(broken)], env=env,
                                capture_output=True, text=True, timeout=120)
        refusals[mode] = (result.returncode, result.stderr)
    assert 'digraph "shop"' in drawn["http"] and '"web" -> "db"' in drawn["http"]
    assert drawn["local"] == drawn["http"] == drawn["in-process"]
    code, message = refusals["http"]
    assert code == 1 and message.startswith(f"ERROR: {broken}:") and "nothere" in message
    assert refusals["local"] == refusals["http"] == refusals["in-process"]


DISABLED_OUTPUT = """
heat_template_version: 2016-10-14
conditions:
  never: false
outputs:
  shown: {value: here}
  hidden_by_condition: {value: there, condition: never, description: "not in use"}
"""


def test_an_output_whose_condition_is_false_is_listed_and_shown_null(noauth_server, tmp_path):
    env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")}
    path = tmp_path / "cond.yaml"
    path.write_text(DISABLED_OUTPUT)
    _stackctl(env, "stack-create", "-f", str(path), "cond-out")
    shown = json.loads(_stackctl(env, "output-show", "cond-out", "hidden_by_condition",
                                 "--format", "json"))
    assert shown["output_key"] == "hidden_by_condition"
    assert shown["output_value"] is None
    assert shown["description"] == "not in use"
    listed = json.loads(_stackctl(env, "output-list", "cond-out", "--format", "json"))
    assert [item["output_key"] for item in listed] == ["shown", "hidden_by_condition"]
    stack = json.loads(_stackctl(env, "stack-show", "cond-out", "--format", "json"))
    values = {item["output_key"]: item["output_value"] for item in stack["outputs"]}
    assert values == {"shown": "here", "hidden_by_condition": None}


def test_plug_in_load_failures_are_the_local_engines_only(noauth_server):
    http_env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")}
    result = subprocess.run([STACKCTL, "resource-type-list", "--all"], env=http_env,
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (
        1, "ERROR: Listing the plug-ins that failed to load (--all) over --url is not "
           "supported.\n")


def test_an_api_nobody_serves_is_one_clear_error(tmp_path):
    import socket

    with socket.socket() as probe:   # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1/demo"
    env = {**os.environ, "HEARTH_HOME": str(tmp_path)}
    result = subprocess.run([STACKCTL, "--url", url, "--token", "t", "stack-list"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr == (f"ERROR: Cannot reach the API at {url}: connection refused. Is "
                             "hearth-api running there (--url, $HEARTH_URL)?\n")
