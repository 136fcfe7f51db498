"""Two masters sharing one PostgreSQL database, and the active one killed mid-job (issue 24).

Real hearth-master and hearth-agent processes on 127.0.0.1
(:mod:`tests.fixtures.master_kills`), driven through ``stackctl`` as a
user does; the kill test is a middle size of ``bench/failover_bench.py``.
The tests marked ``failover`` take 15 to 40 s each: ``make test-failover``
runs them (``.ci/run`` too), not ``make test``, which kills masters at a
small size on a pair its tests share (test_master_failover.py).
"""

import json
import signal
import subprocess
import time

import pytest

from tests.fixtures.agents import STACKCTL, MasterProcess, _environment, start_agents, stop_all
from tests.fixtures.master_kills import kill_during_batch, start_masters, wait

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

#: The tests' timings: masters notice a dead peer within 2 s, agents a dead master in 1.5 s.
PEERS = "heartbeat_interval = 0.5\npeer_timeout = 2\n"


@pytest.fixture
def pair(tmp_path, postgres_url):
    """Two masters on one database (auto_accept), and a way to start agents listing both."""
    masters = start_masters(tmp_path, postgres_url, extra=PEERS)
    started = []

    def agents(*ids, extra=""):
        made = start_agents(masters[0], tmp_path / "agents", ids, extra, failover=masters[1:])
        started.extend(made)
        return made

    yield masters, agents
    stop_all([*started, *masters])


def job_list(master):
    done = master.stackctl("job-list", "--format", "json")
    assert done.returncode == 0, done.stderr
    return {job["jid"] for job in json.loads(done.stdout)}


def job_returns(master, jid):
    """Return ``stackctl job-show JID --format json``'s returns on ``master``."""
    done = master.stackctl("job-show", jid, "--format", "json")
    assert done.returncode == 0, done.stderr
    return {agent: ret["return"] for agent, ret in json.loads(done.stdout)["returns"].items()}


@pytest.mark.failover
def test_killing_the_active_master_mid_batch_loses_no_return(pair, postgres_url):
    (first, second), agents = pair
    started = agents("k1", "k2", "k3", "k4", "k5")
    ids = [f"k{n}" for n in range(1, 6)]
    wait(lambda: first.stackctl("run", "*", "test.ping", "--timeout", "2").returncode == 0,
         60, "every agent answering the first master")
    # a job published on the first master is in the second's job-list, with its returns
    before = first.stackctl("run", "*", "test.echo", "before", "--async")
    assert before.returncode == 0, before.stderr
    before_jid = before.stdout.split()[-1]
    wait(lambda: len(json.loads(first.stackctl("job-show", before_jid, "--format", "json")
                                .stdout)["returns"]) == 5, 30, "the returns on the first")
    assert before_jid in job_list(second)
    assert job_returns(second, before_jid) == dict.fromkeys(ids, "before")

    result = kill_during_batch(first, second, started, postgres_url, batch=2)

    assert result.returned_before_kill < 5          # killed during the job
    assert result.runs == dict.fromkeys(ids, 1)     # each ran it once
    assert result.returns == dict.fromkeys(ids, "") and not result.missing
    assert result.recorded == 5                     # one row each in the job cache
    assert result.failover < 10 and result.first_job < 10
    assert f"this master takes over its 1 unfinished job(s): {result.jid}" in \
        second.log_text()
    # a job published on the second master, and the one it took over, are in the first's
    # job-list once it is back, with their returns
    after = second.stackctl("run", "*", "test.echo", "after", "--async")
    assert after.returncode == 0, after.stderr
    after_jid = after.stdout.split()[-1]
    wait(lambda: len(job_returns(second, after_jid)) == 5, 30, "the returns on the second")
    first.start()
    first.wait_ready()
    assert {before_jid, result.jid, after_jid} <= job_list(first)
    assert job_returns(first, result.jid) == dict.fromkeys(ids, "")
    assert job_returns(first, after_jid) == dict.fromkeys(ids, "after")


def test_the_masters_share_the_agents_keys(tmp_path, postgres_url):
    first, second = start_masters(tmp_path, postgres_url, extra=PEERS, auto_accept=False)
    agents = start_agents(first, tmp_path / "agents", ["shared1"], failover=[second])
    try:
        wait(lambda: "shared1" in json.loads(second.stackctl(
            "key-list", "--format", "json").stdout)["minions_pre"], 30, "a pending key")
        # accepted on the second master: the agent joins the first, where it waits
        assert second.stackctl("key-accept", "shared1", "--yes").returncode == 0
        wait(lambda: first.stackctl("run", "shared1", "test.ping",
                                    "--timeout", "1").returncode == 0, 30, "the agent joining")
        # deleted on the second master: the first cuts the agent off within a heartbeat
        assert second.stackctl("key-delete", "shared1", "--yes").returncode == 0
        wait(lambda: first.stackctl("run", "shared1", "test.ping",
                                    "--timeout", "1").returncode != 0, 10, "the agent cut off")
        wait(lambda: "shared1" in json.loads(first.stackctl(
            "key-list", "--format", "json").stdout)["minions_pre"], 30, "the key pending again")
    finally:
        stop_all([*agents, first, second])


def test_a_master_with_another_key_pair_refuses_to_share_the_database(tmp_path, postgres_url):
    first, = start_masters(tmp_path, postgres_url, count=1, extra=PEERS)
    stranger = MasterProcess(tmp_path / "stranger", database=postgres_url,
                             extra=f"key_store = database\n{PEERS}")
    try:
        stranger.start()
        assert stranger.process.wait(60) == 1
        log = stranger.log_text()
        assert f"hearth-master cannot start: the master at 127.0.0.1:{first.port}" in log
        assert "shares this database with another key pair" in log
        assert "copy master.key and master.key_secret" in log
    finally:
        stop_all([stranger, first])


@pytest.mark.failover
def test_a_stopped_master_hands_its_jobs_over_at_once(pair, postgres_url):
    (first, second), agents = pair
    started = agents("s1", "s2", "s3")
    wait(lambda: first.stackctl("run", "*", "test.ping", "--timeout", "2").returncode == 0,
         60, "every agent answering the first master")
    done = first.stackctl("run", "*", "test.sleep", "1", "--batch", "1", "--async")
    jid = done.stdout.split()[-1]
    time.sleep(0.5)
    assert first.stop() == 0                  # SIGTERM: no peer_timeout to wait for
    wait(lambda: f"this master takes over its 1 unfinished job(s): {jid}" in
         second.log_text(), 5, "the takeover")
    wait(lambda: len(json.loads(second.stackctl("job-show", jid, "--format", "json").stdout)
                     ["returns"]) == 3, 60, "every return")
    assert "has not beaten" not in second.log_text()
    assert started


def jobs_of(master, function):
    """Return the jids of ``function`` jobs ``master`` lists (its client; [] if it is down)."""
    try:
        with master.client(timeout=5) as client:
            return [job["jid"] for job in client.list_jobs() if job["function"] == function]
    except Exception:  # noqa: BLE001 - not answering
        return []


@pytest.mark.failover
def test_a_client_waiting_on_a_killed_master_is_told_where_the_returns_are(pair):
    (first, second), agents = pair
    agents("w1", "w2")
    wait(lambda: first.stackctl("run", "*", "test.ping", "--timeout", "2").returncode == 0,
         60, "every agent answering the first master")
    client = subprocess.Popen(
        [STACKCTL, "--config-file", str(first.config), "run", "*", "cmd.run",
         "sleep 4; echo late", "python_shell=True", "--timeout", "3"],
        env=_environment(first.directory), text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    wait(lambda: jobs_of(second, "cmd.run"), 30, "the job in the shared job cache")
    [jid] = jobs_of(second, "cmd.run")
    first.process.send_signal(signal.SIGKILL)
    out, err = client.communicate(timeout=90)
    assert client.returncode == 1, (out, err)
    assert f"stopped answering while job {jid} ran" in err
    assert f"'stackctl job-show {jid}' shows them" in err and "Traceback" not in err
    # as told: the other master has the returns, each once
    wait(lambda: len(job_returns(second, jid)) == 2, 60, "both returns on the second master")
    assert job_returns(second, jid) == {"w1": "late", "w2": "late"}


def peer_pillar(master):
    """Return how ``master`` compares its pillar with its peer's (``stackctl master-stats``)."""
    done = master.stackctl("master-stats", "--format", "json")
    assert done.returncode == 0, done.stderr
    return [peer.get("pillar") for peer in json.loads(done.stdout)["masters"]
            if not peer["self"]]


def test_a_master_whose_pillar_differs_from_its_peers_is_reported(tmp_path, postgres_url):
    # each master's pillar_roots is the pillar/ folder beside its configuration file
    masters = start_masters(tmp_path, postgres_url,
                            extra=f"{PEERS}\n[pillar]\npillar_roots = base=pillar\n")
    try:
        for master in masters:
            (master.directory / "pillar").mkdir(exist_ok=True)
            (master.directory / "pillar" / "top.sls").write_text("base:\n  '*': [common]\n")
            (master.directory / "pillar" / "common.sls").write_text("ntp: pool.example\n")
        first, second = masters
        wait(lambda: peer_pillar(first) == ["same"], 30, "the same pillar")
        (second.directory / "pillar" / "common.sls").write_text("ntp: other.example\n")
        wait(lambda: peer_pillar(first) == ["differs"], 30, "the pillar differing")
        assert peer_pillar(second) == ["differs"]
        assert (f"the master at 127.0.0.1:{second.port} (host ") in first.log_text()
        assert "compiles pillar from another configuration than this one" in first.log_text()
    finally:
        stop_all(masters)
