"""The ec2 launch request built from a node's options (Salt's names, boto3's request)."""

import base64

import pytest

from hearth.clouds import ec2_request
from hearth.common import exception

IMAGE = {"ImageId": "ami-1", "RootDeviceName": "/dev/xvda"}


def build(**options):
    vm_ = {"name": "web-1", "size": "t3.small", **options}
    return ec2_request.build(vm_, lambda key, default=None: vm_.get(key, default), IMAGE)


def test_plain_options_and_tags():
    request = build(keyname="k", securitygroup="web", securitygroupid=["sg-1"],
                    availability_zone="eu-west-1a", iam_profile="arn:aws:iam::1:ip/x",
                    ebs_optimized=True, tags={"team": "ops"}, tag={"old": 1},
                    termination_protection=True)
    launch = request.run_instances("token-1")
    assert launch == {
        "ImageId": "ami-1", "InstanceType": "t3.small", "KeyName": "k", "EbsOptimized": True,
        "SecurityGroups": ["web"], "SecurityGroupIds": ["sg-1"],
        "Placement": {"AvailabilityZone": "eu-west-1a"},
        "IamInstanceProfile": {"Arn": "arn:aws:iam::1:ip/x"}, "MinCount": 1, "MaxCount": 1,
        "ClientToken": "token-1", "DisableApiTermination": True,
        "TagSpecifications": [{"ResourceType": "instance", "Tags": [
            {"Key": "old", "Value": "1"}, {"Key": "team", "Value": "ops"},
            {"Key": "Name", "Value": "web-1"}]}]}


def test_block_devices_fold_salts_spelling_and_the_root_volume_options():
    request = build(block_device_mappings=[{"DeviceName": "/dev/sdb", "Ebs.VolumeSize": 9,
                                            "Ebs": {"VolumeType": "gp3"}}],
                    root_volume_size=40, del_root_vol_on_destroy=True,
                    del_all_vols_on_destroy=True)
    assert request.spec["BlockDeviceMappings"] == [
        {"DeviceName": "/dev/xvda", "Ebs": {"VolumeSize": 40, "DeleteOnTermination": True}},
        {"DeviceName": "/dev/sdb", "Ebs": {"VolumeSize": 9, "VolumeType": "gp3",
                                           "DeleteOnTermination": True}}]


def test_the_subnet_and_groups_move_onto_the_first_interface():
    request = build(subnetid="subnet-1", securitygroupid="sg-1", associate_public_ip=True,
                    network_interfaces=[{"DeviceIndex": 1, "SubnetId": "subnet-2"},
                                        {"DeviceIndex": 0, "delete_interface_on_terminate": True,
                                         "SecurityGroupId": "sg-2"}])
    assert "SubnetId" not in request.spec and "SecurityGroupIds" not in request.spec
    assert request.spec["NetworkInterfaces"] == [
        {"DeviceIndex": 1, "SubnetId": "subnet-2"},
        {"DeviceIndex": 0, "DeleteOnTermination": True, "Groups": ["sg-2"],
         "AssociatePublicIpAddress": True, "SubnetId": "subnet-1"}]


def test_a_spot_request_carries_encoded_user_data_and_create_kwargs_merge_last():
    request = build(spot_config={"spot_price": 0.05, "type": "persistent"},
                    user_data="#!/bin/sh\necho hi\n",
                    create_kwargs={"LaunchSpecification": {"Monitoring": {"Enabled": True}}})
    spot = request.spot_request("token-2")
    assert (spot["SpotPrice"], spot["Type"], spot["InstanceCount"]) == ("0.05", "persistent", 1)
    assert base64.b64decode(spot["LaunchSpecification"]["UserData"]) == b"#!/bin/sh\necho hi\n"
    assert spot["LaunchSpecification"]["Monitoring"] == {"Enabled": True}
    assert spot["TagSpecifications"][0]["ResourceType"] == "spot-instances-request"
    assert build(user_data="x").run_instances("t")["UserData"] == "x"


@pytest.mark.parametrize(("options", "message"), [
    ({"size": None}, "option 'size' is missing: name an instance type (t3.micro...)"),
    ({"root_volume_size": "big"}, "option 'root_volume_size' must be a whole number, not 'big'"),
    ({"block_device_mappings": {"DeviceName": "x"}},
     "option 'block_device_mappings' must be a list, not {'DeviceName': 'x'}"),
    ({"network_interfaces": ["eth0"]},
     "option 'network_interfaces' must list mappings, not 'eth0'"),
    ({"iam_profile": ["a"]}, "option 'iam_profile' must be a string, not ['a']"),
    ({"userdata_file": "/nonexistent/user-data"},
     "option 'userdata_file' cannot be read: No such file or directory"),
])
def test_wrong_options_are_named(options, message):
    with pytest.raises(exception.CloudConfigError) as error:
        build(**options)
    assert str(error.value) == f"ec2 node web-1: {message}"
