"""A stack of three local servers (real hearth-agent processes) through stackctl.

A Hearth::Exec::Call targets the first server's agent by ``get_attr``.

Created, suspended, resumed, updated (new grains: every server replaced,
the new one created first) and deleted; afterwards no agent process, node
directory or accepted key is left behind.
"""

import json

import pytest

from tests.fixtures.clouds import agent_processes, hearth_conf, kill_agents, write_cloud_config
from tests.functional.stackctl_process import run

PLAIN_TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  role: {type: string, default: web}
resources:
  role_of_s0:
    type: Hearth::Exec::Call
    properties:
      function: grains.get
      args: [role]
      target: {get_attr: [s0, agent_id]}
""" + "".join(f"""  s{i}:
    type: Hearth::Cloud::Server
    properties:
      profile: agent
      agent: {{grains: {{role: {{get_param: role}}}}}}
""" for i in range(3)) + """
outputs:
  agent_ids: {value: [{get_attr: [s0, agent_id]}, {get_attr: [s1, agent_id]},
                      {get_attr: [s2, agent_id]}]}
  role_of_s0: {value: {get_attr: [role_of_s0, return]}}
"""


@pytest.fixture
def local_stack(hearth_home, tmp_path, local_master):
    cloud_dir = write_cloud_config(
        tmp_path / "cloud",
        {"here": {"driver": "local", "master_config": str(local_master.config)}},
        {"agent": {"provider": "here"}})
    config = hearth_conf(tmp_path / "hearth.conf", cloud_dir,
                         f"[master]\ninterface = 127.0.0.1\nport = {local_master.port}\n"
                         f"auth_port = {local_master.auth_port}\n"
                         f"pki_dir = {local_master.pki_dir}\n")
    (tmp_path / "servers.yaml").write_text(PLAIN_TEMPLATE)

    def stackctl(*args):
        args = [str(tmp_path / "servers.yaml") if a == "TEMPLATE" else a for a in args]
        done = run(hearth_home, *args, config=config, timeout=180)
        assert "Traceback" not in done.stderr, done.stderr
        return done
    yield stackctl
    kill_agents(tmp_path, hearth_home)


def roles(master, agent_ids):
    status = master.run(sorted(agent_ids), "grains.get", ["role"], target_type="list",
                        timeout=5)
    return {agent: ret.get("return") for agent, ret in status.returns.items()}


def outputs(stackctl):
    shown = json.loads(stackctl("stack-show", "three", "--format", "json").stdout)
    return {o["output_key"]: o["output_value"] for o in shown["outputs"]}


def agent_ids(stackctl):
    return outputs(stackctl)["agent_ids"]


@pytest.mark.slow
def test_three_local_servers_life_cycle(local_stack, local_master, hearth_home):
    created = local_stack("stack-create", "-f", "TEMPLATE", "three")
    assert "Stack three CREATE_COMPLETE" in created.stdout, created.stdout + created.stderr
    first = agent_ids(local_stack)
    assert len(set(first)) == 3 and all(a.startswith("three-s") for a in first)
    assert roles(local_master, first) == dict.fromkeys(first, "web")
    assert len(agent_processes(hearth_home)) == 3
    # template -> server -> agent -> execution module: the call ran on the new agent
    assert outputs(local_stack)["role_of_s0"] == {first[0]: "web"}

    assert "Stack three SUSPEND_COMPLETE" in local_stack("stack-suspend", "three").stdout
    assert agent_processes(hearth_home) == []
    assert "Stack three RESUME_COMPLETE" in local_stack("stack-resume", "three").stdout
    assert roles(local_master, first) == dict.fromkeys(first, "web")

    updated = local_stack("stack-update", "-f", "TEMPLATE", "-P", "role=db", "three")
    assert "Stack three UPDATE_COMPLETE" in updated.stdout, updated.stdout + updated.stderr
    second = agent_ids(local_stack)
    assert not set(second) & set(first)
    assert roles(local_master, second) == dict.fromkeys(second, "db")
    assert outputs(local_stack)["role_of_s0"] == {second[0]: "db"}
    assert len(agent_processes(hearth_home)) == 3
    with local_master.client() as client:
        assert sorted(client.list_keys()["accepted"]) == sorted(second)

    deleted = local_stack("stack-delete", "-y", "three")
    assert "Stack three DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    assert agent_processes(hearth_home) == []
    assert not [p for p in (hearth_home / "cloud" / "local" / "here").iterdir()]
    with local_master.client() as client:
        assert client.list_keys()["accepted"] == []
