"""A fleet of 200 simulated agents and one real agent on one master (issue 24, small size).

The simulated agents (``tests/fixtures/fleet.py``) speak the real protocol
with their own accepted keys; ``make bench-fleet`` runs the same at 1,000
and 5,000.  Checked here through the user's path: ``stackctl run '*'`` sees
every agent, and after a master restart the first job reaches every agent,
with no agent authenticating again (their connections come back by
themselves, spread by the reconnect policy).
"""

import json
import time

import pytest

from hearth.transport import certificates
from tests.fixtures import fleet
from tests.fixtures.agents import wait_answering

SIMULATED = 200


@pytest.fixture
def fleet_master(master_dir, agents_of, tmp_path):
    """A master with 200 simulated agents and one real agent, all answering."""
    master = master_dir(auto_accept=True)
    pairs = fleet.make_keys(f"sim{number:03d}" for number in range(SIMULATED))
    fleet.preaccept(master.pki_dir, pairs)
    public = certificates.load_public(str(master.pki_dir / "master.key")).decode()
    swarm = fleet.FleetProcess(tmp_path / "fleet", pairs, [fleet.MasterEndpoint(
        "127.0.0.1", master.port, master.auth_port, public)], timings="fast")
    swarm.start()
    try:
        agents_of(master, "real1")
        swarm.wait_connected(timeout=120)
        wait_answering(master, ["real1"], timeout=60)
        yield master, swarm
    finally:
        swarm.stop()


def run_everywhere(master):
    """Return the exit code and returns of ``stackctl run '*' test.ping --format json``."""
    result = master.stackctl("run", "*", "test.ping", "--format", "json", "--timeout", "20")
    return result.returncode, json.loads(result.stdout or "{}"), result.stderr


@pytest.mark.slow
def test_run_reaches_every_agent_and_a_restart_loses_none(fleet_master):
    master, swarm = fleet_master
    everyone = {"real1", *(f"sim{number:03d}" for number in range(SIMULATED))}
    code, returns, stderr = run_everywhere(master)
    assert (code, set(returns), stderr) == (0, everyone, "")
    assert all(value is True for value in returns.values())
    before = swarm.wait_status(lambda status: status["returns"] == SIMULATED)
    assert before["auths"] == SIMULATED and before["jobs"] == SIMULATED

    master.stop()
    started = time.monotonic()
    master.start()
    master.wait_ready()
    # the first job after the restart waits for the agents coming back and reaches all
    published = master.publish("*", "test.ping", timeout=20)
    with master.client(timeout=30) as client:
        status = client.wait(published.jid, 30)
    assert set(published.targeted) == everyone
    assert sorted(agent for agent, ret in status.returns.items()
                  if ret["return"] is True) == sorted(everyone), status.missing
    assert time.monotonic() - started < 30
    # nobody authenticated again: ZeroMQ restored each connection; each agent said
    # hello to the new master once and fetched its pillar again
    after = swarm.wait_status(lambda status: status["returns"] == 2 * SIMULATED
                              and status["kept_returns"] == 0
                              and status["pillars"] == 2 * SIMULATED)
    assert after["auths"] == SIMULATED and after["connects"] == SIMULATED
    assert after["welcomes"] == 2 * SIMULATED
    code, returns, stderr = run_everywhere(master)
    assert (code, set(returns), stderr) == (0, everyone, "")
