"""Deploy without SSH: the ec2 node's user data, run the way cloud-init runs it.

The node is made on moto with ``deploy_method: cloud-init``; the test reads
the user data back from moto (as the instance's metadata service would serve
it), writes it where cloud-init keeps user scripts in a scratch root and
runs it as cloud-init does (executed directly, as root, a bare environment).
The agent enrolls with the single-use key the user data carries, answers
jobs through the master, and the key is refused when presented again.
"""

import base64
import email
import os
import re
import subprocess
import threading

import pytest

from hearth.transport import certificates, keys
from tests.fixtures.clouds import cloud_for, write_cloud_config
from tests.fixtures.sshd import kill_deployed_agents
from tests.functional.agents.test_keys_in_advance import present


@pytest.fixture
def cloud(tmp_path, hearth_home, local_master, moto_ec2, machines, wheelhouse):
    provider = {key: moto_ec2[key] for key in ("driver", "id", "key", "location", "endpoint")}
    cloud_dir = write_cloud_config(
        tmp_path / "cloud", {"my-ec2": {**provider, "master_config": str(local_master.config)}},
        {"private": {"provider": "my-ec2", "image": moto_ec2["image"], "size": "t2.micro",
                     "deploy": True, "deploy_method": "cloud-init", "enrollment_ttl": 120,
                     "tmp_dir": str(tmp_path / "scratch" / "run" / "hearth-deploy"),
                     "script_args": f"-r {machines} -f {wheelhouse}",
                     "wait_for_agent_timeout": 120, "user_data": "#!/bin/sh\necho own part\n",
                     "agent": {"ping_interval": 0.5, "acceptance_wait_time": 0.2}}})
    yield cloud_for(cloud_dir, hearth_home)
    kill_deployed_agents(machines, "inner-")


def user_data_of(client, name):
    for reservation in client.describe_instances(
            Filters=[{"Name": "tag:Name", "Values": [name]}])["Reservations"]:
        for instance in reservation["Instances"]:
            answer = client.describe_instance_attribute(InstanceId=instance["InstanceId"],
                                                        Attribute="userData")
            if answer.get("UserData", {}).get("Value"):
                return base64.b64decode(answer["UserData"]["Value"]).decode()
    return None


def run_like_cloud_init(scratch, user_data):
    """Run the user data's Hearth part as cloud-init runs a user script (its own part first)."""
    scripts = scratch / "var" / "lib" / "cloud" / "instance" / "scripts"
    scripts.mkdir(parents=True)
    archive = email.message_from_string(user_data)
    shell_parts = [part.get_payload(decode=True).decode() for part in archive.walk()
                   if part.get_content_type() == "text/x-shellscript"]
    assert len(shell_parts) == 2 and "echo own part" in shell_parts[0]
    outputs = []
    for number, part in enumerate(shell_parts, 1):
        script = scripts / f"part-{number:03d}"
        script.write_text(part)
        script.chmod(0o700)
        outputs.append(subprocess.run([str(script)], env={"PATH": os.environ["PATH"]},
                                      capture_output=True, text=True, timeout=300))
    return outputs


@pytest.mark.deploy
def test_user_data_enrolls_the_agent_once(cloud, moto_ec2, local_master, tmp_path):
    result = {}
    creating = threading.Thread(target=lambda: result.update(
        node=cloud.create(cloud.profile_vm("private", "inner-1"))))
    creating.start()
    try:
        user_data = None
        for _ in range(200):
            user_data = user_data_of(moto_ec2["client"], "inner-1")
            if user_data:
                break
            creating.join(0.1)
        assert user_data and "MIME-Version" in user_data
        own, hearth = run_like_cloud_init(tmp_path / "scratch", user_data)
        assert own.stdout == "own part\n"
        assert hearth.returncode == 0, hearth.stdout + hearth.stderr
    finally:
        creating.join(180)
    node = result["node"]
    assert (node["deployed"], node["agent_id"]) == (True, "inner-1")
    assert not (tmp_path / "scratch" / "run" / "hearth-deploy").exists()
    status = local_master.run(["inner-1"], "test.echo", ["joined"], target_type="list",
                              timeout=10)
    assert status.returns["inner-1"]["return"] == "joined"
    secret = re.search(r"enroll\.key_secret <<'HEARTH_FILE'\n(.*?)HEARTH_FILE", user_data,
                       re.S).group(1)
    text = base64.b64decode(secret).decode()
    public = re.search(r'public-key = "(.+)"', text).group(1).encode()
    secret_key = re.search(r'secret-key = "(.+)"', text).group(1).encode()
    enrollment = keys.KeyPair(public, secret_key)
    answer = present(local_master, "inner-1", enrollment, certificates.generate())
    assert answer["status"] == "denied"
    assert secret_key.decode() not in local_master.log_text()
