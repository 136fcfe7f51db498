"""No message kills hearth-master: raw peers send what an attacker would (issue 20, 1, 3, 4).

A real master (its messages bounded to 64 KiB) and a real agent; the
attackers are raw ZeroMQ peers with their own CURVE keys: one that only
reaches the auth port, one that was accepted.  After each attack the
master must still serve the real agent, and the attack must show in its
counters and, once, in its log with the peer's name.
"""

import threading
import time

import psutil
import pytest

from tests.fixtures.agents import MasterProcess, start_agents, stop_all, wait_answering
from tests.fixtures.raw_peer import RawPeer

LIMIT = 65536


@pytest.fixture(scope="module")
def fleet(tmp_path_factory, sqlite_template):
    """A master that reads at most 64 KiB per message, and one real agent."""
    import shutil

    base = tmp_path_factory.mktemp("hostile")
    (base / "master").mkdir()
    shutil.copyfile(sqlite_template, base / "master" / "hearth.db")
    master = MasterProcess(base / "master", database=f"sqlite:///{base / 'master' / 'hearth.db'}",
                           extra=f"max_message_size = {LIMIT}\n")
    master.start()
    agents = []
    try:
        master.wait_ready()
        agents = start_agents(master, base, ["real1"])
        wait_answering(master, ["real1"])
        yield master, agents[0]
    finally:
        stop_all([*agents, master])


def assert_serving(master):
    """The master is alive and its real agent still answers test.ping."""
    assert master.process.poll() is None, master.log_text()[-3000:]
    status = master.run("real1", "test.ping", timeout=10)
    assert status.returns["real1"]["return"] is True


def dropped(master, channel):
    with master.client() as client:
        return client.stats()["messages"]["dropped"].get(channel, {})


def test_a_deeply_nested_frame_on_the_auth_port_is_dropped(fleet):
    master, _ = fleet
    before = dropped(master, "auth").get("too-deep", 0)
    with RawPeer(master) as attacker:
        socket = attacker.auth_socket()
        for frame in (b"[" * 1000 + b"]" * 1000, b'{"id": ' + b"[" * 2000 + b"]" * 2000 + b"}",
                      b'{"id": "x", "y": ' + b"[" * 70 + b"]" * 70 + b"}"):
            socket.send(frame)
        time.sleep(0.5)
        assert_serving(master)
        assert dropped(master, "auth").get("too-deep", 0) == before + 3
        key = attacker.keys.public.decode()
        # logged once with the peer's key; the two next ones at debug level only
        assert master.log_text().count(f"dropped a message from the key {key}") == 1


HOSTILE = [
    ({"cmd": "ret", "jid": "20260101000000000000", "return": True, "retcode": "abc",
      "success": True}, 'ret: retcode: "abc" is not of type "integer"'),
    ({"cmd": "ping", "running": [[1]]}, 'ping: running/0: [1] is not of type "string"'),
    ({"cmd": "hello", "grains": ["a"]}, 'hello: grains: ["a"] is not of type "object"'),
    ({"cmd": "event", "tag": {"a": 1}}, 'event: tag: {"a":1} is not of type "string"'),
    ({"cmd": "req", "rid": "x", "op": "pillar"}, 'req: rid: "x" is not of type "integer"'),
    ({"cmd": "req", "rid": 1, "op": "module_get"},
     'req: (message): "name" is a required property'),
    ({"cmd": "ret", "jid": "../../etc/passwd", "return": 1, "retcode": 0, "success": True},
     'ret: jid: "../../etc/passwd" does not match'),
    ({"cmd": "no-such"}, "cmd 'no-such' is none of event, hello, ping, req, ret"),
]


@pytest.mark.parametrize("number", range(len(HOSTILE)))
def test_an_accepted_agent_cannot_kill_the_master(fleet, number):
    master, _ = fleet
    message, reason = HOSTILE[number]
    before = sum(dropped(master, "agent").values())
    with RawPeer(master, f"hostile{number}") as attacker:
        attacker.join()
        attacker.send(message)
        attacker.send(b"\xff\xfe not json")
        attacker.send(b"[1, 2]")
        time.sleep(0.3)
        assert_serving(master)
    assert sum(dropped(master, "agent").values()) == before + 3
    log = master.log_text()
    assert (f"dropped a message from agent hostile{number} on the job port (agent messages): "
            f"{reason}") in log
    assert log.count(f"from agent hostile{number} ") == 1
    assert "Traceback" not in log


def test_a_frame_over_the_auth_limit_is_refused_unread(fleet):
    """Issue 20, 4: a 400 MB frame took the master from 58 MB to 1.7 GB."""
    master, _ = fleet
    process = psutil.Process(master.process.pid)
    before = process.memory_info().rss
    peak = [before]
    watching = threading.Event()

    def watch():
        while not watching.is_set():
            peak[0] = max(peak[0], process.memory_info().rss)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with RawPeer(master) as attacker:
            attacker.auth_socket().send(b"x" * (100 << 20))
            time.sleep(1.5)
    finally:
        watching.set()
        watcher.join()
    assert peak[0] - before < 40 << 20, f"the master grew by {(peak[0] - before) >> 20} MiB"
    assert_serving(master)


def test_an_accepted_agent_over_the_limit_is_disconnected_unread(fleet):
    master, _ = fleet
    process = psutil.Process(master.process.pid)
    before = process.memory_info().rss
    with RawPeer(master, "big-agent") as attacker:
        attacker.join()
        attacker.send(b'{"cmd": "event", "tag": "big", "data": "' + b"x" * (20 << 20) + b'"}')
        time.sleep(1)
        assert_serving(master)
    assert process.memory_info().rss - before < 40 << 20


def test_a_return_too_large_for_the_master_becomes_an_error_return(fleet):
    master, _ = fleet
    status = master.run("real1", "cmd.run", [f"printf '%0{LIMIT * 2}d' 0"], timeout=10)
    ret = status.returns["real1"]
    assert ret["retcode"] == 1 and ret["success"] is False
    assert ret["return"].startswith("The return was not sent: it is ")
    assert f"more than the master's max_message_size ({LIMIT} bytes)" in ret["return"]
    assert_serving(master)


def test_a_bad_client_request_is_answered_with_the_reason(fleet):
    from hearth.common import exception

    master, _ = fleet
    with master.client() as client:
        with pytest.raises(exception.MasterRequestFailed, match="publish: target"):
            client._request("publish", target={"a": 1}, fun="test.ping", targeted=["real1"])
        with pytest.raises(exception.MasterRequestFailed, match="op 'nope' is none of"):
            client._request("nope")
        assert client.ping()["boot"]


def test_the_operator_sees_the_counters_in_master_stats(fleet):
    import json

    master, _ = fleet
    with RawPeer(master, "counted") as attacker:
        attacker.join()
        attacker.send({"cmd": "ping", "running": "not a list"})
        attacker.send(b"[" * 100 + b"]" * 100)
        attacker.send({"cmd": "ping", "running": [], "dropped": 3})  # what it dropped itself
        time.sleep(0.3)
        done = master.stackctl("master-stats", "--format", "json")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert stats["messages"]["dropped"]["agent"]["invalid"] >= 1
    assert stats["messages"]["dropped"]["agent"]["not-object"] >= 1
    assert stats["messages"]["received"]["agent"]["hello"] >= 2
    assert stats["agents"]["connected"] >= 1 and stats["uptime"] > 0
    assert stats["agents_dropping"] == {"counted": 3}
    table = master.stackctl("master-stats").stdout
    assert "| messages.dropped.agent.invalid " in table
