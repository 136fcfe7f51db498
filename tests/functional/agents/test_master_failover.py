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

import signal

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


def batch_job(pair, master, seconds=0.6):
    """Publish ``stackctl run '*' cmd.run JOB --batch 1 --async`` on ``master``; return its jid.

    The job appends a line to each agent's ledger, so a job run twice shows.
    """
    for agent in pair.agents:
        (agent.directory / LEDGER).unlink(missing_ok=True)
    command, option = JOB
    done = master.stackctl("run", "*", "cmd.run", command.format(seconds=seconds, ledger=LEDGER),
                           option, "--batch", "1", "--async")
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[-1]


def test_killing_the_active_master_mid_batch_loses_no_return(pair):
    active, standby = pair.roles()
    jid = batch_job(pair, active)
    wait(lambda: returned(active, jid) >= 1, 30, "the first batch's return")
    assert returned(active, jid) < len(AGENTS)          # killed during the job
    active.process.send_signal(signal.SIGKILL)
    active.process.wait()
    try:
        # the other master takes the job over and the agents bring it their returns
        wait(lambda: returned(standby, jid) == len(AGENTS), 30,
             f"every return of job {jid} on the other master")
        assert recorded_returns(pair.database, jid) == len(AGENTS)   # one row each
        assert ledger_runs(pair.agents) == dict.fromkeys(AGENTS, 1)  # each ran it once
        assert f"this master takes over its 1 unfinished job(s): {jid}" in standby.log_text()
    finally:
        pair.revive(active)
