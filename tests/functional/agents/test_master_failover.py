"""Two masters on one PostgreSQL database, the active one killed during a batch job (issue 24).

The small size of ``bench/failover_bench.py``, in ``make test``: real
hearth-master and hearth-agent processes on 127.0.0.1, the tests' short
timings (a master silent 2 s is taken over, an agent leaves a master
silent 1.5 s), and one pair of masters with three agents shared by the
module's tests (:class:`~tests.fixtures.master_kills.MasterPair`): each
test finds the master the agents serve, kills it mid-job and starts it
again as the standby for the next.  The longer variants (SIGTERM, a
client told where the returns are, the first master back) stay in
``make test-failover`` (test_master_kill.py).
"""

import json
import signal

import pytest

from tests.fixtures.master_kills import (
    JOB,
    LEDGER,
    MasterPair,
    ledger_runs,
    recorded_returns,
    returned,
    start_client,
    wait,
)
from tests.fixtures.postgres import _empty_tables

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

#: The tests' timings: masters notice a dead peer within 2 s, agents a dead master in 1.5 s.
PEERS = "heartbeat_interval = 0.5\npeer_timeout = 2\n"
AGENTS = ("mk1", "mk2", "mk3")


@pytest.fixture(scope="module")
def pair(tmp_path_factory, postgres_shared_url):
    """Two masters on the tests' PostgreSQL database, emptied, and three agents listing both.

    The module's tests run one after the other on one worker (``--dist
    loadfile``): nothing else uses the database meanwhile.
    """
    _empty_tables(postgres_shared_url)
    made = MasterPair(tmp_path_factory.mktemp("masters"), postgres_shared_url, AGENTS,
                      extra=PEERS)
    yield made
    made.close()


def started(pair, master, command):
    """Start ``command`` (a client listing both masters); return it and its job's jid.

    Each agent's ledger is emptied first: the job appends a line to it.
    """
    for agent in pair.agents:
        (agent.directory / LEDGER).unlink(missing_ok=True)
    return start_client(master, command, pair.client_environment())


def kill_after_first_return(active, jid):
    """SIGKILL ``active`` once one agent's return of ``jid`` is in (the job half done)."""
    wait(lambda: returned(active, jid) >= 1, 30, "the first batch's return")
    assert returned(active, jid) < len(AGENTS)          # killed during the job
    active.process.send_signal(signal.SIGKILL)
    active.process.wait()


def assert_recorded_once(pair, jid):
    """Every agent's return is in the job cache once, and each agent ran the job once."""
    assert recorded_returns(pair.database, jid) == len(AGENTS)   # one row each
    assert ledger_runs(pair.agents) == dict.fromkeys(AGENTS, 1)  # each ran it once


def start_batch_job(pair, active):
    """Start `stackctl run --batch 1` of the ledger job on ``active``; return (process, jid)."""
    command, option = JOB
    return started(pair, active, pair.client_command(
        "run", "*", "cmd.run", command.format(seconds=0.6, ledger=LEDGER), option,
        "--batch", "1", "--format", "json"))


def test_stackctl_run_follows_its_batch_job_to_the_other_master(pair):
    # the active master is SIGKILLed while `stackctl run --batch 1` waits on it: the other
    # master takes the job over, the agents fail over to it with their returns, and the
    # client, which lists both masters, follows the job there and prints every return
    active, standby = pair.roles()
    client, jid = start_batch_job(pair, active)
    try:
        kill_after_first_return(active, jid)
        out, err = client.communicate(timeout=60)
        assert client.returncode == 0, (out, err)
        assert json.loads(out) == dict.fromkeys(AGENTS, "")     # every return, none missing
        assert "did not return" not in out + err and "Traceback" not in err
        assert returned(standby, jid) == len(AGENTS)
        assert_recorded_once(pair, jid)
        assert f"this master takes over its 1 unfinished job(s): {jid}" in standby.log_text()
    finally:
        if client.poll() is None:
            client.kill()
            client.communicate()
        pair.revive(active)


CALL = """
heat_template_version: 2018-08-31
resources:
  call:
    type: Hearth::Exec::Call
    properties:
      function: cmd.run
      args: ['%s']
      kwargs: {python_shell: true}
      target: "*"
      batch: "1"
outputs:
  returns: {value: {get_attr: [call, returns]}}
  missing: {value: {get_attr: [call, missing]}}
  jid: {value: {get_attr: [call, jid]}}
"""


def test_a_stacks_exec_call_follows_its_job_to_the_other_master(pair, tmp_path):
    # the same through a stack: its engine (in stackctl's process) lists both masters, and
    # the Exec::Call resource follows its job by the jid it stored
    active, _ = pair.roles()
    template = tmp_path / "call.yaml"
    command, _ = JOB
    template.write_text(CALL % command.format(seconds=0.6, ledger=LEDGER))
    client, jid = started(pair, active, pair.client_command(
        "--in-process", "stack-create", "-f", str(template), "failing-over"))
    try:
        kill_after_first_return(active, jid)
        out, err = client.communicate(timeout=90)
        assert client.returncode == 0, (out, err)
        shown = pair.stackctl("--in-process", "stack-show", "failing-over", "--format", "json")
        assert shown.returncode == 0, shown.stderr
        stack = json.loads(shown.stdout)
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        values = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
        assert values == {"returns": dict.fromkeys(AGENTS, ""), "missing": {}, "jid": jid}
        assert_recorded_once(pair, jid)
    finally:
        if client.poll() is None:
            client.kill()
            client.communicate()
        pair.revive(active)


def job_row(database, jid):
    """Return the job cache's row of ``jid``: its master, who was not connected, when done."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(database, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return connection.execute(text(
                "SELECT master_id, not_connected, finished_at FROM job WHERE jid = :jid"),
                {"jid": jid}).one()
    finally:
        engine.dispose()


def test_a_paused_master_sends_nothing_more_for_the_jobs_taken_from_it(pair):
    # SIGSTOP, not SIGKILL: the active master is taken for dead after peer_timeout and the
    # other one takes its job over and finishes it; then the first one runs again, with the
    # job still in its memory. It must find the job taken (the job cache says whose it is),
    # drop it, and neither send it to more agents nor record it as its own again
    active, standby = pair.roles()
    client, jid = start_batch_job(pair, active)
    wait(lambda: returned(active, jid) >= 1, 30, "the first batch's return")
    active.signal(signal.SIGSTOP)
    try:
        wait(lambda: job_row(pair.database, jid).finished_at is not None, 30,
             f"the other master finishing job {jid}")
        with standby.client() as other:
            taker = other.ping()["boot"]
        assert f"this master takes over its 1 unfinished job(s): {jid}" in standby.log_text()
        active.signal(signal.SIGCONT)
        wait(lambda: f"job {jid} (cmd.run) is another master's now" in active.log_text(), 20,
             "the paused master finding its job taken")
        row = job_row(pair.database, jid)
        assert (row.master_id, row.not_connected) == (taker, [])  # not recorded as its own
        assert_recorded_once(pair, jid)
        # the client waiting on the paused master followed the job to the other one
        out, err = client.communicate(timeout=60)
        assert client.returncode == 0, (out, err)
        assert json.loads(out) == dict.fromkeys(AGENTS, "")
    finally:
        active.signal(signal.SIGCONT)
        if client.poll() is None:
            client.kill()
            client.communicate()
