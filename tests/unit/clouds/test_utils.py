"""The driver helpers: events without secrets, waiting, names, selections, conventions."""

import pytest

from hearth import bus
from hearth.clouds import utils
from hearth.common import exception


@pytest.fixture
def cloud_events():
    subscription = bus.subscribe("hearth/cloud/")
    yield subscription
    subscription.close()


def test_fire_event_hides_secrets_by_key_and_rewrites_salt_tags(cloud_events):
    utils.fire_event("event", "requesting instance", "salt/cloud/vm1/requesting", args={
        "name": "vm1", "password": "hunter22", "kwargs": {"private_key": "-----BEGIN",
                                                          "ssh_username": "root",
                                                          "auth_token": "t0k3n"}})
    event, = cloud_events.drain()
    assert event.tag == "hearth/cloud/vm1/requesting"
    assert {k: v for k, v in event.data.items() if k != "_stamp"} == {
        "name": "vm1", "password": "******", "event": "requesting instance",
        "kwargs": {"private_key": "******", "ssh_username": "root", "auth_token": "******"}}


def test_scrub_hides_known_credential_values_anywhere():
    data = {"message": "auth failed for s3cr3t-value", "ips": ["1.2.3.4"],
            "nested": [{"note": "s3cr3t-value"}], "private_ips": ["10.0.0.1"]}
    assert utils.scrub(data, ["s3cr3t-value"]) == {
        "message": "******", "ips": ["1.2.3.4"], "nested": [{"note": "******"}],
        "private_ips": ["10.0.0.1"]}


def test_filter_event_keeps_defaults_plus_configured_keys():
    data = {"name": "a", "image": "i", "size": "s", "extra": 1, "password": "x"}
    defaults = utils.EVENT_DEFAULTS["requesting"]
    assert utils.filter_event("requesting", data, defaults) == {"name": "a", "image": "i",
                                                                "size": "s"}
    opts = {"filter_events": {"requesting": {"keys": ["extra", "password"],
                                             "use_defaults": False}}}
    assert utils.filter_event("requesting", data, defaults, opts) == {"extra": 1,
                                                                      "password": "******"}


def test_cloud_event_payloads_never_carry_secrets(cloud_events):
    vm_ = {"name": "vm1", "profile": "web", "provider": "p:ec2", "driver": "p:ec2",
           "password": "pw-123456", "key": "secret-key-99", "user_data": "#!/bin/sh"}
    for stage in utils.EVENT_DEFAULTS:
        utils.cloud_event("vm1", stage, vm_, {"filter_events": {
            stage: {"keys": ["password", "key", "user_data"]}}})
    events = cloud_events.drain()
    assert [e.tag.rsplit("/", 1)[1] for e in events] == list(utils.EVENT_DEFAULTS)
    for event in events:
        text = repr(event.data)
        assert "pw-123456" not in text and "secret-key-99" not in text and "#!/bin/sh" not in text


def test_captured_events_skip_the_bus_until_released(cloud_events):
    queue = utils.capture_events("hearth/cloud/cap/")
    try:
        utils.fire_event("event", "x", "hearth/cloud/cap/creating", args={"token": "abc"})
        utils.fire_event("event", "y", "hearth/cloud/other/creating")
    finally:
        utils.release_events("hearth/cloud/cap/")
    assert [e.tag for e in queue] == ["hearth/cloud/cap/creating"]
    assert queue[0].data["token"] == "******"
    assert [e.tag for e in cloud_events.drain()] == ["hearth/cloud/other/creating"]


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def test_wait_for_ip_returns_the_first_answer_and_grows_the_interval():
    clock = FakeClock()
    answers = iter([None, None, "10.0.0.9"])
    assert utils.wait_for_ip(lambda: next(answers), timeout=100, interval=1,
                             interval_multiplier=2, sleep=clock.sleep, clock=clock) == "10.0.0.9"
    assert clock.sleeps == [1, 2]


def test_wait_for_ip_fails_after_too_many_failures_and_times_out():
    clock = FakeClock()
    with pytest.raises(exception.CloudExecutionFailure, match=r"Too many failures .* \(3 > 2\)"):
        utils.wait_for_ip(lambda: False, max_failures=2, sleep=clock.sleep, clock=clock)
    clock = FakeClock()
    with pytest.raises(exception.CloudExecutionTimeout,
                       match="Unable to get the IP address within 3 seconds"):
        utils.wait_for_ip(lambda: None, timeout=3, interval=1, sleep=clock.sleep, clock=clock)


def test_wait_for_fun_retries_until_it_stops_raising():
    clock = FakeClock()
    calls = []

    def flaky(value):
        calls.append(value)
        if len(calls) < 3:
            raise ConnectionError("not yet")
        return value

    assert utils.wait_for_fun(flaky, timeout=10, sleep=clock.sleep, clock=clock, value=5) == 5
    assert len(calls) == 3


@pytest.mark.parametrize(("ip", "public"), [("8.8.8.8", True), ("10.1.2.3", False),
                                            ("192.168.0.1", False), ("127.0.0.1", False),
                                            ("169.254.1.1", False), ("not-an-ip", False)])
def test_is_public_ip(ip, public):
    assert utils.is_public_ip(ip) is public


def test_check_name():
    utils.check_name("web-1.example", "a-zA-Z0-9.-")
    with pytest.raises(exception.CloudSystemExit) as error:
        utils.check_name("web_1", "a-zA-Z0-9.-")
    assert str(error.value) == ("web_1 contains characters not supported by this cloud "
                                "provider. Valid characters are: a-zA-Z0-9.-")


def test_list_nodes_select_projects_and_refuses_actions():
    nodes = {"a": {"id": "1", "state": "RUNNING", "size": "s"}}
    assert utils.list_nodes_select(nodes, "id, state") == {"a": {"id": "1", "state": "RUNNING"}}
    with pytest.raises(exception.CloudSystemExit,
                       match="The list_nodes_select function must be called with -f"):
        utils.list_nodes_select(nodes, ["id"], call="action")


def test_node_record_has_exactly_the_six_fields():
    assert utils.node_record(5, None, "Small", "running", ("10.0.0.1",), []) == {
        "id": "5", "image": "", "size": "Small", "state": "RUNNING",
        "private_ips": ["10.0.0.1"], "public_ips": []}


@pytest.mark.parametrize(("check", "name", "call", "message"), [
    (utils.require_action, "show_instance", "function",
     "The show_instance action must be called with -a or --action."),
    (utils.require_action, "show_instance", None,
     "The show_instance action must be called with -a or --action."),
    (utils.require_action, "destroy", "function",
     "The destroy action must be called with -d, --destroy, -a or --action."),
    (utils.require_function, "avail_images", "action",
     "The avail_images function must be called with -f or --function, or with the "
     "--list-images option"),
    (utils.require_function, "list_nodes", "action",
     "The list_nodes function must be called with -f or --function."),
])
def test_calling_conventions_use_salts_words(check, name, call, message):
    with pytest.raises(exception.CloudSystemExit) as error:
        check(name, call)
    assert str(error.value) == message


def test_destroy_accepts_no_call_and_actions_accept_action():
    utils.require_action("destroy", None)
    utils.require_action("stop", "action")
    utils.require_function("list_nodes", None)
