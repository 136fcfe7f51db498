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
import subprocess

import pytest

from tests.fixtures.master_kills import (
    JOB,
    LEDGER,
    MasterPair,
    ledger_runs,
    recorded_returns,
    returned,
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


def newest_job(master, function):
    """Return the jid of the newest ``function`` job in the shared job cache (None: none)."""
    try:
        with master.client(timeout=5) as client:
            jids = [job["jid"] for job in client.list_jobs() if job["function"] == function]
    except Exception:  # noqa: BLE001 - not answering
        return None
    return max(jids, default=None)


def started(pair, master, command):
    """Start ``command`` (a client listing both masters); return it and its job's jid.

    The job is the first ``cmd.run`` published after this call, found in
    the job cache through ``master``.
    """
    for agent in pair.agents:
        (agent.directory / LEDGER).unlink(missing_ok=True)
    before = newest_job(master, "cmd.run")
    client = subprocess.Popen(command, env=pair.client_environment(), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL)
    jids = []
    try:
        wait(lambda: jids.append(newest_job(master, "cmd.run")) or jids[-1] not in (None, before),
             60, "the job in the job cache")
    except AssertionError:
        client.kill()
        raise AssertionError(client.communicate()) from None
    return client, jids[-1]


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


def test_stackctl_run_follows_its_batch_job_to_the_other_master(pair):
    # the active master is SIGKILLed while `stackctl run --batch 1` waits on it: the other
    # master takes the job over, the agents fail over to it with their returns, and the
    # client, which lists both masters, follows the job there and prints every return
    active, standby = pair.roles()
    command, option = JOB
    client, jid = started(pair, active, pair.client_command(
        "run", "*", "cmd.run", command.format(seconds=0.6, ledger=LEDGER), option,
        "--batch", "1", "--format", "json"))
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
