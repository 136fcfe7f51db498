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


@pytest.fixture
def template_file(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def _normalise(text: str, stack_id: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "<time>",
                  text.replace(stack_id, "<id>"))


def test_show_list_outputs_match_embedded_mode(noauth_server, template_file, tmp_path):
    http_env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")}
    local_env = {**os.environ, "HEARTH_HOME": str(tmp_path / "embedded")}
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
def test_template_listings_go_through_the_api(noauth_server, tmp_path, command):
    http_env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")}
    local_env = {**os.environ, "HEARTH_HOME": str(tmp_path / "embedded")}
    local_env.pop("HEARTH_URL", None)
    over_http = json.loads(_stackctl(http_env, *command, "--format", "json"))
    assert over_http == json.loads(_stackctl(local_env, *command, "--format", "json"))
    # A URL nobody serves fails: the command really asked the API.
    unreachable = {**local_env, "HEARTH_URL": "http://127.0.0.1:9/v1/admin"}
    result = subprocess.run([STACKCTL, *command], env=unreachable, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr


def test_an_unknown_template_version_is_the_same_not_found_locally_and_over_http(
        noauth_server, tmp_path):
    # one answer (the engine service's Catalog): stackctl read the version
    # table itself without --url and refused "stein" with another message
    local_env = {**os.environ, "HEARTH_HOME": str(tmp_path / "embedded")}
    local_env.pop("HEARTH_URL", None)
    http_env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("admin")}
    answers = [subprocess.run([STACKCTL, "template-function-list", "stein"], env=env,
                              capture_output=True, text=True, timeout=60)
               for env in (local_env, http_env)]
    assert [(result.returncode, result.stderr) for result in answers] == [
        (1, "ERROR: Template with version stein not found\n")] * 2


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
