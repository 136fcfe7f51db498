"""What an AWS user expects of the ec2 driver, through stackctl cloud-* on moto, checked with boto3.

The credential chain when ``id``/``key`` are absent, the launch options
(block devices and the root volume, IAM instance profile, network
interfaces and a public address, EBS optimisation, termination protection,
``create_kwargs``) and spot requests.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures.ec2 import Ec2Proxy, boto_client
from tests.functional.clouds.ec2_site import Site, ec2_provider, last_error, live


@pytest.fixture
def network(moto_ec2):
    """Return a subnet, a security group of its VPC and an IAM instance profile on moto."""
    client = moto_ec2["client"]
    vpc = client.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    subnet = client.create_subnet(VpcId=vpc, CidrBlock="10.9.1.0/24")["Subnet"]["SubnetId"]
    group = client.create_security_group(GroupName=f"app-{vpc}", Description="app",
                                         VpcId=vpc)["GroupId"]
    iam = boto_client("iam", moto_ec2["endpoint"], moto_ec2["id"], moto_ec2["key"])
    profile = f"app-role-{vpc}"
    iam.create_instance_profile(InstanceProfileName=profile)
    return {"subnet": subnet, "group": group, "profile": profile}


@pytest.mark.slow
def test_launch_options_reach_ec2(hearth_home, tmp_path, moto_ec2, network):
    proxy = Ec2Proxy(moto_ec2["endpoint"])  # records what Hearth sends
    site = Site(hearth_home, tmp_path, {"my-ec2": ec2_provider(proxy.url)}, {"app": {
        "provider": "my-ec2", "image": moto_ec2["image"], "size": "t2.micro",
        "iam_profile": network["profile"], "ebs_optimized": True,
        "termination_protection": True,
        "root_volume_size": 33, "root_volume_type": "gp3", "del_root_vol_on_destroy": True,
        "block_device_mappings": [{"DeviceName": "/dev/sdb", "Ebs.VolumeSize": 120,
                                   "Ebs.VolumeType": "st1", "Ebs.DeleteOnTermination": True}],
        "network_interfaces": [{"DeviceIndex": 0, "SubnetId": network["subnet"],
                                "SecurityGroupId": network["group"],
                                "AssociatePublicIpAddress": True}],
        "create_kwargs": {"Monitoring": {"Enabled": True},
                          "InstanceInitiatedShutdownBehavior": "terminate"}}})
    client = moto_ec2["client"]
    try:
        made = site.stackctl("cloud-create", "-p", "app", "app1", "--format", "json")
        assert made.returncode == 0, made.stderr
        instance, = live(client, "app1")
        assert instance["SubnetId"] == network["subnet"] and instance["PublicIpAddress"]
        interface, = instance["NetworkInterfaces"]
        assert [g["GroupId"] for g in interface["Groups"]] == [network["group"]]
        assert instance["EbsOptimized"] is True
        assert instance["IamInstanceProfile"]["Arn"].endswith(f"/{network['profile']}")
        assert instance["Monitoring"] == {"State": "enabled"}
        volumes = {v["Attachments"][0]["Device"]: v for v in client.describe_volumes(
            Filters=[{"Name": "attachment.instance-id",
                      "Values": [instance["InstanceId"]]}])["Volumes"]}
        assert {device: (v["Size"], v["VolumeType"]) for device, v in volumes.items()} == {
            "/dev/sda1": (33, "gp3"), "/dev/sdb": (120, "st1")}
        devices = {d["DeviceName"]: d["Ebs"] for d in instance["BlockDeviceMappings"]}
        assert devices["/dev/sda1"]["DeleteOnTermination"] is True
        assert devices["/dev/sdb"]["DeleteOnTermination"] is True
        behaviour = client.describe_instance_attribute(
            InstanceId=instance["InstanceId"], Attribute="instanceInitiatedShutdownBehavior")
        assert behaviour["InstanceInitiatedShutdownBehavior"] == {"Value": "terminate"}
        # moto does not keep DisableApiTermination from RunInstances: the request shows it
        run, = [r for r in proxy.requests if r.get("Action") == "RunInstances"]
        assert run["DisableApiTermination"] == "true"
        shown = json.loads(site.stackctl("cloud-action", "show_instance", "app1", "--format",
                                         "json").stdout)["my-ec2"]["ec2"]["app1"]
        assert (shown["ebs_optimized"], shown["subnet_id"]) == (True, network["subnet"])
        assert shown["block_devices"] == {d: v["VolumeId"] for d, v in volumes.items()}
        # termination protection, as Salt's actions
        assert site.stackctl("cloud-action", "enable_term_protect", "app1").returncode == 0
        refused = site.stackctl("cloud-destroy", "app1", "--yes")
        assert last_error(refused) == (
            f"ERROR: The instance app1 ({instance['InstanceId']}) is protected from being "
            "destroyed. Disable the protection first: stackctl cloud-action "
            "disable_term_protect app1")
        assert live(client, "app1")
        assert site.stackctl("cloud-action", "disable_term_protect", "app1").returncode == 0
        assert site.stackctl("cloud-destroy", "app1", "--yes").returncode == 0
        assert live(client, "app1") == []
    finally:
        proxy.close()


@pytest.mark.parametrize(("option", "value", "message"), [
    ("ebs_optimized", "yes", "ec2 node bad1: option 'ebs_optimized' must be true or false, "
                             "not 'yes'"),
    ("network_interfaces", [{"DeviceIndex": 0, "SubnetID": "s"}],
     "ec2 node bad1: option 'network_interfaces' has an unknown key 'SubnetID'. Did you mean "
     "\"SubnetId\"?"),
    ("block_device_mappings", [{"DeviceName": "/dev/sdb", "Ebs.VolumeSise": 3}],
     "ec2 node bad1: option 'block_device_mappings' has an unknown key 'VolumeSise'. Did you "
     "mean \"VolumeSize\"?"),
    ("spot_config", {"type": "one-time"}, "ec2 node bad1: option 'spot_config' needs a "
                                          "spot_price"),
])
def test_a_wrong_option_is_named_and_nothing_is_made(hearth_home, tmp_path, moto_ec2, option,
                                                     value, message):
    site = Site(hearth_home, tmp_path, {"my-ec2": ec2_provider(moto_ec2["endpoint"])}, {
        "bad": {"provider": "my-ec2", "image": moto_ec2["image"], "size": "t2.micro",
                option: value}})
    done = site.stackctl("cloud-create", "-p", "bad", "bad1")
    assert (done.returncode, last_error(done)) == (1, f"ERROR: {message}")
    assert live(moto_ec2["client"], "bad1") == []


@pytest.mark.slow
def test_a_spot_node_is_requested_tagged_and_its_request_cancelled(hearth_home, tmp_path,
                                                                    moto_ec2):
    site = Site(hearth_home, tmp_path, {"my-ec2": ec2_provider(moto_ec2["endpoint"])}, {
        "cheap": {"provider": "my-ec2", "image": moto_ec2["image"], "size": "t2.micro",
                  "spot_config": {"spot_price": "0.05"}, "tags": {"team": "ops"}}})
    made = site.stackctl("cloud-create", "-p", "cheap", "spot1", "--format", "json")
    assert made.returncode == 0, made.stderr
    client = moto_ec2["client"]
    instance, = live(client, "spot1")
    assert {"Key": "team", "Value": "ops"} in instance["Tags"]
    request, = [r for r in client.describe_spot_instance_requests()["SpotInstanceRequests"]
                if r.get("InstanceId") == instance["InstanceId"]]
    assert request["SpotPrice"].startswith("0.05")
    assert json.loads(made.stdout)["spot1"]["spot_request_id"] == \
        request["SpotInstanceRequestId"]
    assert site.stackctl("cloud-destroy", "spot1", "--yes").returncode == 0
    assert live(client, "spot1") == []
    after = client.describe_spot_instance_requests(
        SpotInstanceRequestIds=[request["SpotInstanceRequestId"]])["SpotInstanceRequests"]
    assert [r["State"] for r in after] in ([], ["cancelled"])  # moto forgets cancelled ones


@pytest.mark.slow
def test_without_id_and_key_the_credential_chain_is_used(hearth_home, tmp_path, monkeypatch,
                                                          iam_moto):
    """moto checks the credentials here: only the IAM user's keys get in."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "aws-credentials").write_text(
        f"[deploy]\naws_access_key_id = {iam_moto['id']}\n"
        f"aws_secret_access_key = {iam_moto['key']}\n")
    (tmp_path / "aws-config").write_text("")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    chain = {key: value for key, value in ec2_provider(iam_moto["endpoint"]).items()
             if key not in ("id", "key")}
    site = Site(hearth_home, tmp_path, {
        "by-profile": {**chain, "aws_profile": "deploy"},
        "by-chain": chain,
        "role": {**chain, "id": "use-instance-role-credentials",
                 "key": "use-instance-role-credentials"}}, {
        "p": {"provider": "by-profile", "image": iam_moto["image"], "size": "t2.micro"},
        "c": {"provider": "by-chain", "image": iam_moto["image"], "size": "t2.micro"}})
    assert site.stackctl("cloud-create", "-p", "p", "cred1").returncode == 0
    assert live(iam_moto["client"], "cred1")
    nothing = site.stackctl("cloud-create", "-p", "c", "cred2")
    assert last_error(nothing) == (
        "ERROR: cloud provider by-chain:ec2: no AWS credentials found: set 'id' and 'key', or "
        "'aws_profile', or configure boto3's chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, "
        "~/.aws/credentials, SSO, an instance role).")
    monkeypatch.setenv("AWS_PROFILE", "deploy")  # boto3's own chain now finds them
    assert site.stackctl("cloud-create", "-p", "c", "cred2").returncode == 0
    nodes = json.loads(site.stackctl("cloud-nodes", "--format", "json").stdout)
    assert sorted(nodes["role"]["ec2"]) == ["cred1", "cred2"]  # Salt's instance-role words
    assert site.stackctl("cloud-destroy", "cred1", "cred2", "--yes").returncode == 0
    assert live(iam_moto["client"], "cred1") == live(iam_moto["client"], "cred2") == []
