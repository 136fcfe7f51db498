"""A NUL character in what the API would store, sent to a real hearth-api on PostgreSQL.

PostgreSQL's text cannot hold U+0000 (its driver raised a ValueError: a
500).  Each answer is now a 400 naming what holds it; what Hearth keeps as
JSON (a template's texts) still round-trips; a text the engine builds from
a user's value fails the resource with that reason instead of the driver's.
"""

from __future__ import annotations

import time

import pytest
import requests

from tests.functional.api.conftest import _manage, _start, _stop

pytestmark = pytest.mark.postgres

PROJECT = "nul"
WAIT = {"heat_template_version": "2021-04-16", "resources": {
    "h": {"type": "OS::Heat::WaitConditionHandle"},
    "w": {"type": "OS::Heat::WaitCondition",
          "properties": {"handle": {"get_resource": "h"}, "timeout": 120}}}}
NUL_MESSAGE = "it may not contain a NUL character (U+0000)."


@pytest.fixture(scope="module")
def api(postgres_shared_url, tmp_path_factory):
    """hearth-api on the session's PostgreSQL database; yields (base URL, session)."""
    directory = tmp_path_factory.mktemp("nul-api")
    conf = directory / "api.conf"
    conf.write_text(f"[database]\nconnection = {postgres_shared_url}\n")
    server = _start(str(directory), "--config-file", str(conf))
    try:
        session = requests.Session()
        session.headers["X-Auth-Token"] = _manage(
            server.env, "--config-file", str(conf), "token-create", "--project", PROJECT,
            "--format", "value")
        yield server.url(PROJECT), session
    finally:
        _stop(server)


def settled(api, path, wanted):
    """Return the stack at ``path`` once its status ends with ``wanted``."""
    base, session = api
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        stack = session.get(base + path).json()["stack"]
        if stack["stack_status"].endswith(wanted):
            return stack
        time.sleep(0.2)
    raise AssertionError(f"{path}: {stack['stack_status']} {stack['stack_status_reason']}")


def stack_of(api, name, template, wanted="COMPLETE"):
    """Create a stack; return its (name/id path, body) once it reached ``wanted``."""
    base, session = api
    created = session.post(f"{base}/stacks", json={"stack_name": name, "template": template})
    assert created.status_code == 201, created.text
    path = f"/stacks/{name}/{created.json()['stack']['id']}"
    return path, settled(api, path, wanted)


def assert_refused(answer, message):
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["message"] == message
    assert answer.json()["error"]["type"] in ("TextWithNul", "BadRequest")


def test_names_ids_and_filters_with_a_nul_are_400s_naming_them(api):
    base, session = api
    path, _ = stack_of(api, "named", {"heat_template_version": "2021-04-16",
                                      "resources": {"a": {"type": "OS::Heat::None"}}})
    for url, where in (
            ("/stacks/a%00b", "path segment 'stack_name'"),
            ("/stacks?name=a%00b", "query parameter 'name'"),
            ("/stacks?tags_any=x%00", "query parameter 'tags_any'"),
            (f"{path}/resources/a%00", "path segment 'resource_name'"),
            (f"{path}/events?resource_name=a%00", "query parameter 'resource_name'"),
            (f"{path}/outputs/o%00", "path segment 'output_key'"),
            (f"{path}/snapshots/s%00", "path segment 'snapshot_id'"),
            ("/resource_types/OS::Heat::None%00", "path segment 'type_name'")):
        assert_refused(session.get(base + url), f"Invalid {where}: {NUL_MESSAGE}")
    assert session.get(base + path).status_code == 200


def test_texts_stored_from_a_request_body_are_400s_naming_them(api):
    base, session = api
    path, _ = stack_of(api, "bodies", {"heat_template_version": "2021-04-16",
                                       "resources": {"a": {"type": "OS::Heat::None"}}})
    assert_refused(session.post(f"{base}{path}/snapshots", json={"name": "s\x00"}),
                   f"Invalid snapshot name: {NUL_MESSAGE}")
    assert_refused(session.patch(f"{base}{path}/resources/a",
                                 json={"mark_unhealthy": True,
                                       "resource_status_reason": "broken\x00"}),
                   f"Invalid resource_status_reason: {NUL_MESSAGE}")
    assert_refused(session.post(f"{base}/jobs", json={"target": "web\x00*",
                                                      "function": "test.ping"}),
                   f"Invalid target: {NUL_MESSAGE}")
    assert_refused(session.post(f"{base}/jobs", json={"target": ["web1", "\x00"],
                                                      "function": "test.ping"}),
                   f"Invalid target: {NUL_MESSAGE}")
    assert_refused(session.post(f"{base}/jobs", json={"target": "*",
                                                      "function": "test.ping\x00"}),
                   f"Invalid function: {NUL_MESSAGE}")
    # without the NUL both are stored
    assert session.post(f"{base}{path}/snapshots", json={"name": "s"}).status_code == 200
    marked = session.patch(f"{base}{path}/resources/a",
                           json={"mark_unhealthy": True, "resource_status_reason": "broken"})
    assert marked.status_code == 200, marked.text


def test_a_signal_with_a_nul_is_refused_whole_and_a_good_one_still_counts(api):
    base, session = api
    path, _ = stack_of(api, "waiting", WAIT, wanted="IN_PROGRESS")
    signal = f"{base}{path}/resources/h/signal"
    for details in ({"status": "SUCCESS", "reason": "done\x00"}, {"data": {"k\x00": 1}}):
        assert_refused(session.post(signal, json=details),
                       f"Invalid signal data for resource h: {NUL_MESSAGE}")
    assert session.post(signal, json={"status": "SUCCESS", "reason": "done",
                                      "data": "ok"}).status_code == 200
    assert settled(api, path, "_COMPLETE")["stack_status"] == "CREATE_COMPLETE"
    events = session.get(f"{base}{path}/events").json()["events"]
    assert "Signal: status:SUCCESS reason:done" in [e["resource_status_reason"]
                                                    for e in events]


def test_a_template_text_with_a_nul_round_trips_and_a_built_text_fails_its_resource(api):
    base, session = api
    template = {"heat_template_version": "2021-04-16", "description": "a\x00b",
                "resources": {"t": {"type": "OS::Heat::TestResource",
                                    "properties": {"value": "x\x00y"}}}}
    path, stack = stack_of(api, "builds", template, wanted="FAILED")
    assert session.get(f"{base}{path}/template").json()["description"] == "a\x00b"
    # the resource's value is stored as a text the engine writes: it fails, with the reason
    assert stack["stack_status_reason"] == (
        "Resource CREATE failed: TextWithNul: resources.t: Invalid text to store: "
        f"{NUL_MESSAGE}")
