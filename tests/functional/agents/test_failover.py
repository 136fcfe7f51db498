"""Agents with several masters (Salt's master_type = failover), as real daemons on 127.0.0.1.

The masters of a test share one key pair (``master.key`` copied from the
first master's pki directory before the others start, as Salt's
multi-master guide prescribes); the agents list them in order.
"""

import json
import shutil
import signal
import subprocess
import time

import pytest

from tests.fixtures.agents import BIN, AgentProcess, MasterProcess, start_agents, stop_all

FAST_FAILBACK = "master_failback = true\nmaster_failback_interval = 0.5\n"


def share_master_key(source, *others):
    """Give ``others`` the key pair of ``source`` (before they start)."""
    for master in others:
        master.pki_dir.mkdir(parents=True, exist_ok=True)
        for name in ("master.key", "master.key_secret"):
            shutil.copy(source.pki_dir / name, master.pki_dir / name)


@pytest.fixture
def masters(tmp_path, sqlite_template):
    """Start masters that share the first one's key pair (each its own database here)."""
    started = []

    def start(count=2, share_key=True, **options):
        made = []
        for _ in range(count):
            directory = tmp_path / f"master{len(started)}"
            directory.mkdir()
            shutil.copyfile(sqlite_template, directory / "hearth.db")
            master = MasterProcess(directory, database=f"sqlite:///{directory / 'hearth.db'}",
                                   **options)
            if made and share_key:
                share_master_key(made[0], master)
            master.start()
            started.append(master)
            made.append(master)
            master.wait_ready()
        return made

    yield start
    stop_all(started)


@pytest.fixture
def agents(tmp_path):
    """Start agents listing masters for failover (stopped after the test)."""
    started = []

    def start(listed, *ids, extra=""):
        made = start_agents(listed[0], tmp_path / "agents", ids, extra, failover=listed[1:])
        started.extend(made)
        return made

    yield start
    stop_all(started)


def answers(master, agent_id):
    """Return whether ``agent_id`` answers test.ping through ``master``."""
    return master.stackctl("run", agent_id, "test.ping", "--timeout", "1").returncode == 0


def wait_for(condition, timeout=30.0, what="it"):
    """Wait until ``condition()`` holds; return the seconds it took."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.1)
    return time.monotonic() - started


def kill(master):
    """SIGKILL a master and reap it."""
    master.process.send_signal(signal.SIGKILL)
    master.process.wait()


@pytest.mark.slow
def test_an_agent_fails_over_to_the_next_master_and_back(masters, agents):
    first, second = masters(2)
    agent, = agents([first, second], "fo1", extra=FAST_FAILBACK)
    wait_for(lambda: answers(first, "fo1"), what="fo1 answering on the first master")
    assert not answers(second, "fo1")       # one master at a time: the first of the list

    kill(first)
    # master_alive_timeout 1.5 s (the tests' timings) plus the reconnect
    assert wait_for(lambda: answers(second, "fo1"), what="the failover") < 10
    log = agent.log_text()
    assert f"master 127.0.0.1:{first.port} went silent; moving to the master " \
           f"127.0.0.1:{second.port}" in log

    first.start()                            # back: the agent fails back to it
    first.wait_ready()
    wait_for(lambda: answers(first, "fo1"), what="the failback")
    assert f"agent fo1 goes back to its first master 127.0.0.1:{first.port}" in agent.log_text()
    assert not answers(second, "fo1")


@pytest.mark.slow
def test_without_failback_an_agent_stays_on_the_master_it_moved_to(masters, agents):
    first, second = masters(2)
    agents([first, second], "stay1")
    wait_for(lambda: answers(first, "stay1"), what="stay1 answering")
    kill(first)
    wait_for(lambda: answers(second, "stay1"), what="the failover")
    first.start()
    first.wait_ready()
    time.sleep(2)
    assert answers(second, "stay1") and not answers(first, "stay1")


@pytest.mark.slow
def test_a_master_with_another_key_is_left_for_the_next(masters, agents):
    # the agent knows the masters' fingerprint; the first master has a key of its own
    impostor, = masters(1)
    real, = masters(1)
    from hearth.transport import certificates, keys

    finger = keys.fingerprint(certificates.load_public(str(real.pki_dir / "master.key")))
    agent, = agents([impostor, real], "picky1", extra=f"master_finger = {finger}\n")
    wait_for(lambda: answers(real, "picky1"), what="picky1 answering on the real master")
    log = agent.log_text()
    assert f"Refusing to connect to the master at 127.0.0.1:{impostor.auth_port}" in log
    assert "It is left for the other masters." in log
    assert agent.process.poll() is None


def agent_with(tmp_path, master, agent_id, masters_line, extra=""):
    """Return an agent (not started) whose ``[agent] master`` line is ``masters_line``."""
    agent = AgentProcess(tmp_path / agent_id, agent_id, master, extra=extra)
    text = agent.config.read_text().replace("master = 127.0.0.1\n", f"{masters_line}\n")
    agent.config.write_text(text)
    return agent


@pytest.mark.slow
def test_a_master_name_that_does_not_resolve_is_skipped(masters, tmp_path):
    master, = masters(1)
    agent = agent_with(tmp_path, master, "dns1", "master = no-such-master.invalid:1:2, "
                       f"127.0.0.1:{master.port}:{master.auth_port}\nmaster_type = failover")
    agent.start()
    try:
        wait_for(lambda: answers(master, "dns1"), what="dns1 answering")
        assert "master no-such-master.invalid:1: its host name does not resolve (" in \
            agent.log_text()
    finally:
        agent.stop()


def test_an_agent_whose_only_master_does_not_resolve_stops_saying_so(tmp_path):
    master = MasterProcess(tmp_path / "absent")           # never started: only its ports
    agent = agent_with(tmp_path, master, "dns2", "master = no-such-master.invalid",
                       extra="retry_dns = 0.2\nretry_dns_count = 1\n")
    agent.start()
    try:
        assert agent.process.wait(30) == 1
    finally:
        agent.stop()
    log = agent.log_text()
    # the first lookup, then one retry (retry_dns_count), then the agent stops
    assert log.count(f"master no-such-master.invalid:{master.port}: its host name does not "
                     "resolve") == 1
    assert log.count("retrying in 0.2 s") == 1
    assert "hearth-agent stops: agent dns2 cannot run: The master's host name " \
           "no-such-master.invalid does not resolve (" in log


def test_a_job_sent_twice_runs_once(tmp_path):
    # a master that took over another's jobs may send one again: the agent runs it once
    from hearth import jobs
    from tests.functional.agents.test_protocol_fuzz import FakeMaster

    fake = FakeMaster()
    agent = AgentProcess(tmp_path / "twice", "twice1", fake)
    agent.start()
    try:
        fake.accept([])
        ledger = tmp_path / "ledger"
        jid = jobs.gen_jid()
        job = json.dumps({"cmd": "job", "jid": jid, "fun": "file.append",
                          "arg": [str(ledger), "ran"], "kwarg": {}, "tgt": "twice1",
                          "tgt_type": "glob"}).encode()
        fake.send(job)
        assert fake.pump(lambda m: m.get("cmd") == "ret", timeout=15)["jid"] == jid
        fake.pump(timeout=1)                  # the job's thread is done, its return acked
        fake.send(job)
        fake.pump(timeout=2)
        assert ledger.read_text() == "ran\n"
        assert f"job {jid} was sent again; it ran already (its return was acknowledged)" \
            in agent.log_text()
    finally:
        stop_all([agent])
        fake.close()


@pytest.mark.parametrize("lines, message", [
    ("master = m1, m2\n", "hearth-agent: [agent] master names 2 masters but master_type is "
                          "'str': set master_type = failover"),
    ("master = m1:70000\n", "hearth-agent: [agent] master: 'm1:70000': '70000' is not a port"),
    ("master = m1\nmaster_type = hot\n", "hearth-agent: "),
])
def test_a_bad_master_list_is_refused_at_start(tmp_path, lines, message):
    config = tmp_path / "agent.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n[agent]\nid = bad1\n{lines}")
    done = subprocess.run([str(BIN / "hearth-agent"), "--config-file", str(config),
                           "--foreground"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(message), done.stderr
    assert "Traceback" not in done.stderr
