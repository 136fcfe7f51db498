"""Pillar isolation rests on what the master holds true, not on what an agent says.

A real master (keys accepted by hand) whose pillar top file gives the db
secrets to ``role:db`` by grain, and two real agents that both report
``role: db`` in their hello: ``db1``, whose grain the operator recorded when
accepting its key (``stackctl key-accept db1 --grain role=db``), and
``liar``, accepted without.  Only db1 gets the secrets (issue 20, finding 5),
through every way a pillar is read: the agent's own pillar, ``stackctl
pillar-show`` through the master, and the ``file_tree`` nodegroups.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.fixtures.agents import MasterProcess, run_json, start_agents, stop_all, wait_answering

pytestmark = pytest.mark.slow

SECRET = "s3cret-db-password"


@pytest.fixture(scope="module")
def site(tmp_path_factory, sqlite_template):
    """A master with grain-targeted pillar and two agents claiming role db."""
    import shutil

    base = tmp_path_factory.mktemp("trusted-grains")
    (base / "master").mkdir()
    shutil.copyfile(sqlite_template, base / "master" / "hearth.db")
    pillar = base / "master" / "pillar"
    (pillar / "tree" / "nodegroups" / "dbs" / "db").mkdir(parents=True)
    (pillar / "tree" / "nodegroups" / "dbs" / "db" / "replica_key").write_text("k3y-from-tree")
    (pillar / "top.sls").write_text("base:\n  '*':\n    - common\n"
                                    "  'role:db':\n    - match: grain\n    - secrets\n")
    (pillar / "common.sls").write_text("role_seen: {{ grains.get('role', 'none') }}\n")
    (pillar / "secrets.sls").write_text(f"db_password: {SECRET}\n")
    (base / "master" / "pillar.yaml").write_text(
        "nodegroups:\n  dbs: G@role:db\n"
        f"ext_pillar:\n  - file_tree:\n      root_dir: {pillar / 'tree'}\n")
    master = MasterProcess(base / "master", auto_accept=False,
                           database=f"sqlite:///{base / 'master' / 'hearth.db'}",
                           extra=f"[pillar]\npillar_roots = base={pillar}\n"
                                 f"config_file = {base / 'master' / 'pillar.yaml'}\n")
    master.start()
    agents = []
    try:
        master.wait_ready()
        for agent_id in ("db1", "liar"):
            root = base / agent_id / "root"
            root.mkdir(parents=True)
            (root / "grains.json").write_text(json.dumps({"role": "db"}))
        agents = start_agents(master, base, ["db1", "liar"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            pending = json.loads(master.stackctl("key-list", "--format", "json").stdout)
            if {"db1", "liar"} <= set(pending["minions_pre"]):
                break
            time.sleep(0.2)
        accepted = master.stackctl("key-accept", "db1", "--grain", "role=db", "--yes")
        assert accepted.returncode == 0, accepted.stderr
        assert master.stackctl("key-accept", "liar", "--yes").returncode == 0
        wait_answering(master, ["db1", "liar"])
        yield master
    finally:
        stop_all([*agents, master])


def pillar_through_master(master, agent_id):
    shown = master.stackctl("pillar-show", agent_id, "--unmask", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)[agent_id]


def test_an_agent_claiming_role_db_gets_no_db_pillar(site):
    code, items = run_json(site, "-L", "db1,liar", "pillar.items", "unmask=True")
    assert code == 0
    assert items["db1"]["db_password"] == SECRET
    assert "db_password" not in items["liar"] and SECRET not in json.dumps(items["liar"])
    # the pillar files see the recorded grains too, never the agent's claim
    assert (items["db1"]["role_seen"], items["liar"]["role_seen"]) == ("db", "none")


def test_pillar_show_through_the_master_and_file_tree_nodegroups_agree(site):
    db1, liar = pillar_through_master(site, "db1"), pillar_through_master(site, "liar")
    assert db1["db_password"] == SECRET and db1["db"] == {"replica_key": "k3y-from-tree"}
    assert "db_password" not in liar and "db" not in liar


def test_the_agents_own_claim_still_targets_jobs(site):
    # -G matches what agents report, as in Salt: a grain chooses who gets a job
    code, grains = run_json(site, "-G", "role:db", "grains.get", "role")
    assert code == 0 and grains == {"db1": "db", "liar": "db"}


def test_recorded_grains_are_shown_changed_and_followed(site):
    shown = site.stackctl("agent-grains", "liar", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {}
    recorded = site.stackctl("agent-grains", "liar", "role=db", "tier=2", "--format", "json")
    assert json.loads(recorded.stdout) == {"role": "db", "tier": 2}
    assert pillar_through_master(site, "liar")["db_password"] == SECRET
    removed = site.stackctl("agent-grains", "liar", "--unset", "role", "--format", "json")
    assert json.loads(removed.stdout) == {"tier": 2}
    assert "db_password" not in pillar_through_master(site, "liar")
    unknown = site.stackctl("agent-grains", "nobody-here")
    assert unknown.returncode == 1
    assert "agent-grains: no accepted agent 'nobody-here'" in unknown.stderr
