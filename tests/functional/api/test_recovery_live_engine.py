"""The periodic recovery never fails a stack whose engine is alive.

A scaling policy's signal resizes its group's nested stack while the
parent stack stays COMPLETE: that nested stack acts outside any stack
action.  hearth-api's periodic recovery (every ``engine_life_check_timeout``)
once took such a stack, IN_PROGRESS with no lock of a live engine on it or
above it, for the leftover of a dead engine and failed it ("Engine went
down during stack UPDATE"; Heat's test_asg_scale_up_max_size).
"""

from __future__ import annotations

import time

import pytest
import requests

from tests.functional.api.conftest import _start, _stop

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "group": {"type": "OS::Heat::AutoScalingGroup", "properties": {
            "min_size": 1, "max_size": 3, "desired_capacity": 1, "cooldown": 0,
            "resource": {"type": "OS::Heat::TestResource",
                         "properties": {"action_wait_secs": {"create": 2}}}}},
        "up": {"type": "OS::Heat::ScalingPolicy", "properties": {
            "adjustment_type": "change_in_capacity", "scaling_adjustment": 1,
            "auto_scaling_group_id": {"get_resource": "group"}, "cooldown": 0}},
    },
}


@pytest.fixture
def quick_recovery_server(tmp_path):
    """A hearth-api whose periodic recovery runs every 0.3 s (dead: no beat for 0.9 s)."""
    config = tmp_path / "hearth.conf"
    config.write_text("[DEFAULT]\nengine_life_check_timeout = 0.3\n"
                      "engine_heartbeat_interval = 0.1\n")
    home = tmp_path / "home"
    home.mkdir()
    server = _start(str(home), "--noauth", "--config-file", str(config))
    yield server
    _stop(server)


def settled(url: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        stack = requests.get(url, timeout=10).json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS") or time.monotonic() > deadline:
            return stack
        time.sleep(0.1)


@pytest.mark.slow
def test_recovery_leaves_a_group_resized_by_a_signal_alone(quick_recovery_server):
    url = quick_recovery_server.url("admin")
    created = requests.post(f"{url}/stacks", json={"stack_name": "scaled",
                                                   "template": TEMPLATE}, timeout=30)
    assert created.status_code == 201, created.text
    stack_url = f"{url}/stacks/scaled/{created.json()['stack']['id']}"
    assert settled(stack_url)["stack_status"] == "CREATE_COMPLETE"
    group = requests.get(f"{stack_url}/resources/group", timeout=10).json()["resource"]
    nested_url = next(link["href"] for link in group["links"] if link["rel"] == "nested")

    # the resize creates a member that takes 2 s: several recovery checks run meanwhile
    signalled = requests.post(f"{stack_url}/resources/up/signal", json={}, timeout=60)
    assert signalled.status_code == 200, signalled.text

    nested = settled(nested_url)
    assert (nested["stack_status"], nested["stack_status_reason"]) \
        == ("UPDATE_COMPLETE", "Stack UPDATE completed successfully")
    members = requests.get(f"{nested_url}/resources", timeout=10).json()["resources"]
    assert sorted(member["resource_status"] for member in members) \
        == ["CREATE_COMPLETE", "CREATE_COMPLETE"]
    events = requests.get(f"{nested_url}/events", timeout=10).json()["events"]
    assert not [e for e in events if "Engine went down" in (e["resource_status_reason"] or "")]
