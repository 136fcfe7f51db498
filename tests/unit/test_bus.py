"""The event bus: matching, stamps, never-blocking publish, drops, ZeroMQ."""

import datetime
import os
import subprocess
import sys
import threading
import time

import pytest

from hearth import bus
from hearth.bus.bridge import listen


@pytest.mark.parametrize("pattern, tag, expected", [
    ("hearth/job/", "hearth/job/1/new", True),
    ("hearth/job/", "hearth/stack/1", False),
    ("", "anything", True),
    ("hearth/job/*/ret/*", "hearth/job/1/ret/m1", True),
    ("hearth/job/*/ret/*", "hearth/job/1/new", False),
    ("hearth/job/?/new", "hearth/job/1/new", True),
    ("hearth/[js]*", "hearth/stack/x", True),
])
def test_tag_matching(pattern, tag, expected):
    assert bus.tag_matches(pattern, tag) is expected


def test_literal_prefix():
    assert bus.literal_prefix("hearth/job/*/ret") == "hearth/job/"
    assert bus.literal_prefix("plain") == "plain"


def test_publish_adds_utc_stamp_and_does_not_change_data():
    hub = bus.Bus(buffer_size=10)
    subscription = hub.subscribe("a/")
    data = {"x": 1}
    hub.publish("a/b", data)
    event = subscription.get(0)
    assert event.tag == "a/b" and event.data["x"] == 1 and data == {"x": 1}
    stamp = datetime.datetime.fromisoformat(event.data["_stamp"])
    assert stamp.utcoffset() == datetime.timedelta(0)


def test_publish_without_subscribers_is_a_no_op():
    hub = bus.Bus()
    hub.publish("a", {})
    bus.publish("hearth/test/none", {"ok": True})


def test_publish_rejects_non_dict_data():
    with pytest.raises(TypeError, match=r"^event data must be a dict, not list \(tag 'a'\)$"):
        bus.Bus().publish("a", [])


def test_full_buffer_drops_oldest_counts_and_reports():
    hub = bus.Bus(buffer_size=3)
    subscription = hub.subscribe("")
    started = time.perf_counter()
    for number in range(10):
        hub.publish("t", {"n": number})
    assert time.perf_counter() - started < 0.5
    assert subscription.dropped == 7
    gap = subscription.get(0)
    assert gap.tag == "hearth/bus/dropped" and gap.data["dropped"] == 7
    assert [subscription.get(0).data["n"] for _ in range(3)] == [7, 8, 9]
    assert subscription.get(0) is None


def test_get_waits_for_a_publisher_thread_and_close_unblocks():
    hub = bus.Bus(buffer_size=5)
    subscription = hub.subscribe("x")
    threading.Timer(0.05, hub.publish, ("x/1", {})).start()
    assert subscription.get(2).tag == "x/1"
    threading.Timer(0.05, subscription.close).start()
    assert subscription.get(2) is None
    hub.publish("x/2", {})
    assert list(subscription) == []


def test_iteration_and_unsubscribe_on_close():
    hub = bus.Bus(buffer_size=5)
    subscription = hub.subscribe("x")
    hub.publish("x/1", {})
    subscription.close()
    assert [event.tag for event in subscription] == ["x/1"]
    assert hub._subscriptions == ()


def test_zmq_subscriber_process_receives_events(tmp_path):
    """A real `stackctl event-listen` in another process sees the engine's events."""
    path = str(tmp_path / "bus.sock")
    hub = bus.Bus(buffer_size=100)
    hub.serve_zmq(path)
    listener = subprocess.Popen(
        [sys.executable, "-m", "hearth.cli.main", "event-listen", "--socket", path,
         "--tag", "hearth/test/*", "--count", "2", "--timeout", "20"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "HEARTH_HOME": str(tmp_path)})
    try:
        deadline = time.monotonic() + 20
        # ZeroMQ subscribers miss what is sent before they connect: keep publishing
        while listener.poll() is None and time.monotonic() < deadline:
            hub.publish("hearth/other/x", {"skip": True})
            hub.publish("hearth/test/ping", {"n": 1})
            time.sleep(0.05)
        out, err = listener.communicate(timeout=5)
    finally:
        listener.kill()
        hub.close()
    assert listener.returncode == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    tag, payload = lines[0].split("\t")
    assert tag == "hearth/test/ping" and '"n": 1' in payload and "_stamp" in payload


def test_listen_times_out_without_events(tmp_path):
    assert list(listen(str(tmp_path / "none.sock"), "", timeout=0.05)) == []


def test_serve_zmq_is_idempotent(tmp_path):
    hub = bus.Bus(buffer_size=10)
    try:
        first = hub.serve_zmq(str(tmp_path / "b.sock"))
        assert hub.serve_zmq(str(tmp_path / "other.sock")) is first
    finally:
        hub.close()


def test_default_buffer_size_comes_from_configuration():
    subscription = bus.subscribe("zzz/")
    try:
        assert subscription.buffer_size == 10000
    finally:
        subscription.close()


def wait_until(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def test_zmq_forwarder_reads_the_bus_only_while_someone_listens(tmp_path):
    """Without a listener, publishing costs an engine nothing (no subscription)."""
    path = str(tmp_path / "idle.sock")
    hub = bus.Bus(buffer_size=100)
    hub.serve_zmq(path)
    try:
        assert hub._subscriptions == ()
        received = []
        listener = threading.Thread(target=lambda: received.extend(
            listen(path, "hearth/test/", timeout=1.0)))
        listener.start()
        assert wait_until(lambda: hub._subscriptions != ())
        hub.publish("hearth/test/one", {"n": 1})
        listener.join(timeout=10)
        assert [event.tag for event in received] == ["hearth/test/one"]
        assert wait_until(lambda: hub._subscriptions == ())  # the listener left
    finally:
        hub.close()


def test_drain_returns_the_gap_first_then_every_buffered_event():
    hub = bus.Bus(buffer_size=2)
    subscription = hub.subscribe("x")
    for index in range(3):
        hub.publish(f"x/{index}", {})
    drained = subscription.drain()
    assert [event.tag for event in drained] == [bus.GAP_TAG, "x/1", "x/2"]
    assert drained[0].data["dropped"] == 1
    assert subscription.drain() == []
