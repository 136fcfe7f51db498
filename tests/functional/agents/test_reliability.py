"""Agents that stop, masters that restart, returns that wait on disk: nothing is lost."""

import json
import signal
import threading
import time

import pytest

from tests.fixtures.agents import wait_answering


@pytest.mark.slow
def test_stopped_agent_is_reported_within_the_timeout(master_dir, agents_of):
    # a long agent_timeout: the master still counts the stopped agent as connected
    master = master_dir(agent_timeout=60)
    sleeper, awake = agents_of(master, "sleeper", "awake")
    wait_answering(master, ["sleeper", "awake"], timeout=30)
    sleeper.signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        result = master.stackctl("run", "*", "test.ping", "--timeout", "1", "--format", "json")
        elapsed = time.monotonic() - started
    finally:
        sleeper.signal(signal.SIGCONT)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"awake": True,
                                         "sleeper": "Agent did not return. [No response]"}
    assert "stackctl job-show" in result.stderr
    assert elapsed < 10  # the timeout plus start-up, not Salt's extra gather_job_timeout
    # woken up, the agent runs the job and its late return reaches the job cache
    jid = result.stderr.split("job-show ")[1].split()[0]
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        shown = json.loads(master.stackctl("job-show", jid, "--format", "json").stdout)
        if not shown["missing"]:
            break
        assert shown["missing"] == {"sleeper": "No response"}
        time.sleep(0.3)
    assert {a: r["return"] for a, r in shown["returns"].items()} == {"awake": True,
                                                                     "sleeper": True}


@pytest.mark.slow
def test_the_timeout_given_to_run_is_the_jobs_not_the_masters(master_dir, agents_of):
    # the master's [master] timeout is 5 s; an agent stopped for 7 s still counts with
    # --timeout 20 (the client passed the job's timeout as its own request wait: the
    # master gave the agent up after its 5 s while stackctl went on waiting)
    master = master_dir(agent_timeout=60)
    (late,) = agents_of(master, "late1")
    wait_answering(master, ["late1"], timeout=30)
    late.signal(signal.SIGSTOP)
    timer = threading.Timer(7.0, late.signal, (signal.SIGCONT,))
    timer.start()
    try:
        started = time.monotonic()
        result = master.stackctl("run", "late1", "test.ping", "--timeout", "20",
                                 "--format", "json")
        elapsed = time.monotonic() - started
    finally:
        timer.join()
        late.signal(signal.SIGCONT)
    assert (result.returncode, json.loads(result.stdout)) == (0, {"late1": True}), result.stderr
    assert 6.5 < elapsed < 20


@pytest.mark.slow
def test_running_job_is_waited_for_past_the_timeout(master_dir, agents_of):
    master = master_dir()
    agents_of(master, "busy")
    wait_answering(master, ["busy"], timeout=30)
    result = master.stackctl("run", "busy", "test.sleep", "2", "--timeout", "0.5",
                             "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"busy": True}


@pytest.mark.slow
def test_master_restart_agents_reconnect_and_answer(master_dir, agents_of):
    master = master_dir()
    agents_of(master, "r1", "r2", "r3")
    wait_answering(master, ["r1", "r2", "r3"], timeout=30)
    assert master.stop() == 0
    master.start()
    master.wait_ready()
    wait_answering(master, ["r1", "r2", "r3"], timeout=30)
    assert "hearth-master" in master.log_text()


@pytest.mark.slow
def test_returns_made_while_the_master_is_down_arrive_later(master_dir, agents_of):
    master = master_dir()
    first, second = agents_of(master, "o1", "o2")
    wait_answering(master, ["o1", "o2"], timeout=30)
    # the job outlasts the master's stop (with a 1.5-second job, a stop slowed by a loaded
    # machine let the stopping master acknowledge a return it was to miss)
    jid = master.publish("*", "test.sleep", [5]).jid
    master.stop()
    # the jobs finish with no master: their returns wait on disk
    kept = first.root / "returns" / f"{jid}.json"
    deadline = time.monotonic() + 20
    while not kept.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert json.loads(kept.read_text())["return"] is True
    # an agent restarted meanwhile still has its return
    second.stop()
    second.start()
    master.start()
    master.wait_ready()
    deadline = time.monotonic() + 30
    shown = {}
    while time.monotonic() < deadline:
        shown = json.loads(master.stackctl("job-show", jid, "--format", "json").stdout)
        if len(shown["returns"]) == 2:
            break
        time.sleep(0.3)
    assert {a: r["return"] for a, r in shown["returns"].items()} == {"o1": True, "o2": True}
    # acknowledged returns are no longer kept
    deadline = time.monotonic() + 10
    while kept.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not kept.exists()


@pytest.mark.slow
def test_no_master_running_is_a_clear_error(master_dir):
    master = master_dir(extra="client_timeout = 1")
    master.stop()
    result = master.stackctl("run", "*", "test.ping")
    assert result.returncode == 1
    assert result.stderr == (
        f"ERROR: The master at 127.0.0.1:{master.port} did not answer within 1.0 s: is "
        "hearth-master running, with the same [master] port and pki_dir?\n")


@pytest.mark.slow
def test_a_stopping_agent_finishes_its_jobs_and_returns_them_after_restart(master_dir,
                                                                            agents_of):
    master = master_dir()
    (agent,) = agents_of(master, "drainer")
    wait_answering(master, ["drainer"], timeout=30)
    with master.client() as client:
        jid = master.publish("drainer", "test.sleep", [1]).jid
        deadline = time.monotonic() + 10
        while not client.find_job(jid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert agent.stop() == 0  # SIGTERM while the job runs
        assert (agent.root / "returns" / f"{jid}.json").exists()
        agent.start()
        status = client.wait(jid, timeout=20)
    assert status.returns == {"drainer": {"return": True, "retcode": 0, "success": True,
                                          "out": None}}
