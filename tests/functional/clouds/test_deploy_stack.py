"""Issue 26's "done when": servers on real drivers whose agents join the master, via stackctl.

Two ``Hearth::Cloud::Server`` (the ``ec2`` driver on moto, then the
``libcloud`` Dummy driver) deploy over SSH to the test's sshd (their
addresses mapped to it with ``ssh_host``/``ssh_port``), and a
``Hearth::Exec::Call`` targets both agents by their ``agent_id``.  The
stack is created (the call runs on both), updated (the call runs again
with new arguments; on libcloud the size change replaces both servers,
deploying two new agents) and deleted (nodes gone, keys deleted).
"""

import json

import pytest

from tests.fixtures.clouds import hearth_conf, write_cloud_config
from tests.fixtures.sshd import kill_deployed_agents
from tests.functional.stackctl_process import run

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  word: {type: string, default: first}
  size: {type: string}
resources:
  echo:
    type: Hearth::Exec::Call
    properties:
      function: test.echo
      args: [{get_param: word}]
      target: {list_join: [',', [{get_attr: [s0, agent_id]}, {get_attr: [s1, agent_id]}]]}
      target_type: list
  s0:
    type: Hearth::Cloud::Server
    properties: {profile: deployed, size: {get_param: size}}
  s1:
    type: Hearth::Cloud::Server
    properties: {profile: deployed, size: {get_param: size}}
outputs:
  agents: {value: [{get_attr: [s0, agent_id]}, {get_attr: [s1, agent_id]}]}
  echo: {value: {get_attr: [echo, return]}}
"""


def deploy_options(ssh_server, machines, wheelhouse):
    """Deploy to the test's sshd; wheels from a directory the "machine" reaches (no upload)."""
    return {"deploy": True, "ssh_host": "127.0.0.1", "ssh_port": ssh_server.port,
            "private_key": str(ssh_server.client_key),
            "script_args": f"-r {machines} -f {wheelhouse}", "wait_for_agent_timeout": 90,
            "ssh_connect_timeout": 10,
            "agent": {"ping_interval": 0.5, "acceptance_wait_time": 0.2,
                      "master_alive_timeout": 3}}


DRIVERS = {
    "ec2": lambda moto: ({"driver": "ec2", "location": "us-east-1",
                          **{k: moto[k] for k in ("id", "key", "endpoint")}},
                         {"image": moto["image"]}, ("t2.micro", "t2.small")),
    "libcloud": lambda moto: ({"driver": "libcloud", "provider": "DUMMY",
                               "key": "dummy-key-1234"},
                              {"image": "Ubuntu 9.10"}, ("Small", "Medium")),
}


@pytest.fixture(params=sorted(DRIVERS))
def deploy_stack(request, hearth_home, tmp_path, local_master, ssh_server, machines,
                 wheelhouse, moto_ec2):
    provider, profile, sizes = DRIVERS[request.param](moto_ec2)
    provider["master_config"] = str(local_master.config)
    cloud_dir = write_cloud_config(
        tmp_path / "cloud", {"site": provider},
        {"deployed": {"provider": "site", **profile,
                      **deploy_options(ssh_server, machines, wheelhouse)}})
    config = hearth_conf(tmp_path / "hearth.conf", cloud_dir,
                         f"[master]\ninterface = 127.0.0.1\nport = {local_master.port}\n"
                         f"auth_port = {local_master.auth_port}\n"
                         f"pki_dir = {local_master.pki_dir}\n")
    (tmp_path / "pair.yaml").write_text(TEMPLATE)
    stack = f"{request.param}-pair"

    def stackctl(*args):
        args = [str(tmp_path / "pair.yaml") if a == "TEMPLATE" else a for a in args]
        done = run(hearth_home, *args, config=config, timeout=300)
        assert "Traceback" not in done.stderr, done.stderr
        return done
    yield stackctl, sizes, stack
    kill_deployed_agents(machines, f"{stack}-")


def outputs(stackctl, stack):
    shown = json.loads(stackctl("stack-show", stack, "--format", "json").stdout)
    return {o["output_key"]: o["output_value"] for o in shown["outputs"]}


@pytest.mark.deploy
def test_two_deployed_servers_and_a_call_on_both(deploy_stack, local_master):
    stackctl, (small, large), stack = deploy_stack
    created = stackctl("stack-create", "-f", "TEMPLATE", "-P", f"size={small}", stack)
    assert f"Stack {stack} CREATE_COMPLETE" in created.stdout, created.stdout + created.stderr
    first = outputs(stackctl, stack)
    agents = first["agents"]
    assert len(set(agents)) == 2 and all(a.startswith(f"{stack}-s") for a in agents)
    assert first["echo"] == dict.fromkeys(agents, "first")
    with local_master.client() as client:
        assert set(agents) <= set(client.list_keys()["accepted"])
    shown = json.loads(stackctl("resource-show", stack, "s0", "--format", "json").stdout)
    assert "deploy_kwargs" in json.dumps(shown)

    updated = stackctl("stack-update", "-f", "TEMPLATE", "-P", f"size={large}", "-P",
                       "word=second", stack)
    assert f"Stack {stack} UPDATE_COMPLETE" in updated.stdout, updated.stdout + updated.stderr
    second = outputs(stackctl, stack)
    assert second["echo"] == dict.fromkeys(second["agents"], "second")

    deleted = stackctl("stack-delete", "-y", stack)
    assert f"Stack {stack} DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    with local_master.client() as client:
        assert not set(agents + second["agents"]) & set(client.list_keys()["accepted"])
