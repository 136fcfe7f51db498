"""Deploy over SSH for real: a test sshd, a real master, the bootstrap script, a live agent.

The node is made by libcloud's Dummy driver; its address is mapped to the
test's sshd with ``ssh_host``/``ssh_port``.  The bootstrap installs this
tree's wheel (from the uploaded wheelhouse, no index) under the session's
prefix and starts hearth-agent without systemd; the agent then answers
jobs and receives its pillar through the master.
"""

import json
import re
import subprocess

import pytest

from hearth import bus
from hearth.common import exception
from tests.fixtures.clouds import cloud_for, write_cloud_config
from tests.fixtures.sshd import kill_deployed_agents


def deploy_profile(ssh_server, machines, wheelhouse, **extra):
    return {"provider": "my-dummy", "image": "Ubuntu 9.10", "size": "Small", "deploy": True,
            "ssh_host": "127.0.0.1", "ssh_port": ssh_server.port,
            "private_key": str(ssh_server.client_key), "wheelhouse": str(wheelhouse),
            "script_args": f"-r {machines}", "wait_for_agent_timeout": 60,
            "ssh_connect_timeout": 10, "wait_for_passwd_maxtries": 2,
            "grains": {"role": "deployed"},
            "agent": {"ping_interval": 0.5, "acceptance_wait_time": 0.2,
                      "master_alive_timeout": 3}, **extra}


@pytest.fixture
def deploy_cloud(tmp_path, hearth_home, local_master, ssh_server, machines, wheelhouse):
    pillar = local_master.directory / "pillar"
    pillar.mkdir(exist_ok=True)
    (pillar / "top.sls").write_text("base:\n  '*':\n    - common\n")
    (pillar / "common.sls").write_text("motd: deployed over ssh\n")
    cloud_dir = write_cloud_config(
        tmp_path / "cloud",
        {"my-dummy": {"driver": "libcloud", "provider": "DUMMY", "key": "dummy-key-1234",
                      "master_config": str(local_master.config)}},
        {"web": deploy_profile(ssh_server, machines, wheelhouse)})
    yield cloud_for(cloud_dir, hearth_home)
    for name in ("web-", "broken-", "locked-"):
        kill_deployed_agents(machines, name)


def test_a_new_node_gets_an_agent_that_answers_and_has_its_pillar(deploy_cloud, local_master,
                                                                   machines):
    subscription = bus.subscribe("hearth/cloud/web-1/")
    try:
        node = deploy_cloud.create(deploy_cloud.profile_vm("web", "web-1"))
        events = subscription.drain()
    finally:
        subscription.close()
    assert (node["deployed"], node["agent_id"]) == (True, "web-1")
    assert node["ssh_host_key"].startswith("ssh-ed25519 SHA256:")
    kwargs = node["deploy_kwargs"]
    assert (kwargs["host"], kwargs["port"], kwargs["usernames"]) == ("127.0.0.1",
                                                                      kwargs["port"], ["root"])
    assert kwargs["login"] == "key file" and "private_key" not in kwargs
    stages = [e.tag.rsplit("/", 1)[1] for e in events]
    assert stages == ["creating", "requesting", "querying", "deploying", "created"]
    deploying = next(e.data for e in events if e.tag.endswith("/deploying"))
    assert deploying["kwargs"]["script"] == "bootstrap-hearth"
    assert "BEGIN OPENSSH" not in json.dumps([e.data for e in events])

    status = local_master.run(["web-1"], "grains.get", ["role"], target_type="list",
                              timeout=10)
    assert status.returns["web-1"]["return"] == "deployed"
    pillar = local_master.run(["web-1"], "pillar.get", ["motd"], {"unmask": True},
                              target_type="list", timeout=10)
    assert pillar.returns["web-1"]["return"] == "deployed over ssh"
    with local_master.client() as client:
        assert client.list_keys()["pending"] == []
    config = (machines / "etc" / "hearth" / "agents" / "web-1.conf").read_text()
    assert "master_finger = " in config and "secret" not in config
    assert not list(machines.glob("tmp/.hearth-*"))


def test_a_failed_install_names_the_stage_shows_the_output_and_destroys_the_node(
        deploy_cloud, tmp_path):
    vm_ = deploy_cloud.profile_vm("web", "broken-1", {"script_args": "-z"})
    with pytest.raises(exception.CloudDeployFailed) as failure:
        deploy_cloud.create(vm_)
    message = str(failure.value)
    assert message.startswith("Deploying the agent of node broken-1 failed at the install "
                              "stage: the deploy script exited with status 2")
    assert "-n            only say whether this version is installed" in message
    assert re.search(r"status 2 \(the node [0-9]+ was destroyed\)\n", message), message
    assert "broken-1" not in deploy_cloud.query()["my-dummy"]["libcloud"]


def test_a_refused_login_fails_the_login_stage_and_keep_on_failure_keeps_the_node(
        deploy_cloud, tmp_path, ssh_server):
    stranger = tmp_path / "stranger_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)],
                   check=True)
    vm_ = deploy_cloud.profile_vm("web", "locked-1", {"private_key": str(stranger),
                                                      "keep_on_failure": True})
    with pytest.raises(exception.CloudDeployFailed) as failure:
        deploy_cloud.create(vm_)
    assert str(failure.value).startswith(
        "Deploying the agent of node locked-1 failed at the login stage: could not log in "
        "after 2 tries: root@127.0.0.1:")
    assert "locked-1" in deploy_cloud.query()["my-dummy"]["libcloud"]
