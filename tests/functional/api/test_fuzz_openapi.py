"""Schemathesis against the OpenAPI document a real hearth-api serves: never a 5xx.

The ``st`` command runs the fuzzing phase (every operation, positive and
negative data) and the stateful phase (it follows the document's OpenAPI
links from list and create answers to the operations needing a stack, a
resource, an event or an output) against a server of this module's own on
127.0.0.1.  Bounded by ``--max-examples`` and a fixed seed, so a run is
repeatable and takes well under a minute; every refusal must carry Heat's
error body.  Widen it by hand with ``HEARTH_FUZZ_EXAMPLES`` (and add
``coverage`` to ``HEARTH_FUZZ_PHASES``) when hunting.
"""

from __future__ import annotations

import base64
import glob
import json
import os
import re
import subprocess
import sys

import pytest
import requests

from tests.functional.api.conftest import _start, _stop, create_token, wait_status
from tests.functional.api.schemathesis_hooks import VALID_TEMPLATE

PROJECT = "fuzz"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
CONFIG = ('headers = { X-Auth-Token = "${HEARTH_FUZZ_TOKEN}" }\n\n'
          f'[parameters]\n"path.tenant_id" = "{PROJECT}"\n\n'
          # the stateful phase's own bound: longer scenarios, more of them, so that the
          # links reach the operations below a live stack (snapshots, signal, outputs...)
          f'[phases.stateful]\nmax-steps = {int(os.environ.get("HEARTH_FUZZ_STEPS", "12"))}\n\n'
          '[phases.stateful.generation]\n'
          f'max-examples = {int(os.environ.get("HEARTH_FUZZ_SCENARIOS", "40"))}\n')
HEAT_ERROR_KEYS = {"code", "title", "explanation", "error"}


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    """A hearth-api of its own, with a token and three complete stacks to be found."""
    server = _start(str(tmp_path_factory.mktemp("hearth-fuzz")))
    token = create_token(server.env, PROJECT)
    session = requests.Session()
    session.headers["X-Auth-Token"] = token
    locations = []
    for index in range(3):
        response = session.post(f"{server.url(PROJECT)}/stacks",
                                json={"stack_name": f"seed{index}", "template": VALID_TEMPLATE})
        assert response.status_code == 201, response.text
        locations.append(response.headers["Location"])
    for location in locations:
        stack = wait_status(lambda url=location: session.get(url).json()["stack"])
        assert stack["stack_status"] == "CREATE_COMPLETE"
    yield server, token
    _stop(server)


def _interactions(report_dir):
    for path in glob.glob(os.path.join(report_dir, "*.ndjson")):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                ((kind, event),) = json.loads(line).items()
                if kind == "ScenarioFinished":
                    for interaction in (event["recorder"].get("interactions") or {}).values():
                        yield event.get("phase"), interaction


def _body(response):
    content = response.get("content")
    if isinstance(content, dict) and "$base64" in content:
        content = base64.b64decode(content["$base64"]).decode("utf-8", "replace")
    return content


LIVE = re.compile(r"/stacks/(seed\d|fuzzed\d+)/[0-9a-f-]{36}(/|$)")


def _route(interaction):
    """Return ``METHOD /stacks/{name}/{id}/...`` of a request on a live stack, else None."""
    request = interaction["request"]
    path = request["uri"].split("?")[0].split(f"/v1/{PROJECT}", 1)[-1]
    if not LIVE.search(path):
        return None
    return request["method"] + " " + LIVE.sub("/stacks/{name}/{id}/", path)


@pytest.mark.slow
def test_schemathesis_finds_no_server_error(fuzz_server, tmp_path):
    server, token = fuzz_server
    (tmp_path / "schemathesis.toml").write_text(CONFIG)
    reports = tmp_path / "reports"
    env = {**os.environ, "HEARTH_FUZZ_TOKEN": token,
           "SCHEMATHESIS_HOOKS": "tests.functional.api.schemathesis_hooks",
           "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    command = [os.path.join(os.path.dirname(sys.executable), "st"),
               "--config-file", str(tmp_path / "schemathesis.toml"), "run",
               f"{server.root}/v1/openapi.json", "--checks", "not_a_server_error",
               "--phases", os.environ.get("HEARTH_FUZZ_PHASES", "fuzzing,stateful"),
               # 10: with the snapshot operations (73 in all) 6 stateful examples of
               # seed 10 never reach a live stack through a link; 10 do (about 75 s)
               "--max-examples", os.environ.get("HEARTH_FUZZ_EXAMPLES", "10"),
               "--seed", "10", "--workers", "1", "--generation-database", "none",
               "--request-timeout", "30", "--no-color",
               "--report", "ndjson", "--report-dir", str(reports)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    seen = list(_interactions(str(reports)))
    statuses = [interaction["response"]["status_code"] for _, interaction in seen
                if interaction.get("response")]
    assert statuses and max(statuses) < 500
    for _, interaction in seen:
        response = interaction.get("response") or {}
        if response.get("status_code", 0) >= 400:
            body = json.loads(_body(response))
            assert set(body) == HEAT_ERROR_KEYS and body["code"] == response["status_code"]
            assert set(body["error"]) == {"type", "message", "traceback"}
    # the stateful phase followed links to real stacks: 200s on canonical stack URLs
    stateful = [(_route(interaction), (interaction.get("response") or {}).get("status_code"))
                for phase, interaction in seen if phase == "stateful"]
    followed = sorted({route for route, status in stateful if route and status == 200})
    assert followed, "the stateful phase never reached a live stack through a link"
    # and reached composition's operations below a live stack (snapshots, resources/signal)
    reached = {(route.split()[1].split("/") + [""])[4] for route, _ in stateful if route}
    assert {"snapshots", "resources"} <= reached, reached
