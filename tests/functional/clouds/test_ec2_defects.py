"""The ec2 driver as an AWS user meets it: stackctl cloud-* processes on moto, checked with boto3.

Each test is one defect found against moto (issue 26), answered as Salt
Cloud answers: a name is created once, a failed create leaves no instance,
a profile's region is used, a broken provider is skipped, image owners are
account ids, a failed resize leaves the instance running.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures.clouds import moto_client
from tests.fixtures.ec2 import Ec2Proxy, free_port
from tests.functional.clouds.ec2_site import Site, ec2_provider, last_error, live


@pytest.mark.slow
def test_a_name_is_created_once_on_any_provider(hearth_home, tmp_path, moto_ec2):
    site = Site(hearth_home, tmp_path, {
        "my-ec2": ec2_provider(moto_ec2["endpoint"]),
        "my-dummy": {"driver": "libcloud", "provider": "DUMMY"}}, {
        "ec2-small": {"provider": "my-ec2", "image": moto_ec2["image"], "size": "t2.micro"},
        "dummy": {"provider": "my-dummy", "image": "Ubuntu 9.10", "size": "Small"}})
    first = site.stackctl("cloud-create", "-p", "ec2-small", "shared1", "--format", "json")
    assert first.returncode == 0, first.stderr
    made, = live(moto_ec2["client"], "shared1")
    assert json.loads(first.stdout)["shared1"]["id"] == made["InstanceId"]
    for profile in ("ec2-small", "dummy"):  # as salt-cloud -p: the name is taken anywhere
        again = site.stackctl("cloud-create", "-p", profile, "shared1", "--format", "json")
        assert again.returncode == 1
        assert json.loads(again.stdout) == {
            "shared1": {"Error": "shared1 already exists under my-ec2:ec2"}}
        assert last_error(again) == "ERROR: shared1 already exists under my-ec2:ec2"
    assert [i["InstanceId"] for i in live(moto_ec2["client"], "shared1")] == [made["InstanceId"]]
    both = site.stackctl("cloud-create", "-p", "ec2-small", "shared1", "shared2", "--format",
                         "json")
    assert both.returncode == 1
    answer = json.loads(both.stdout)
    assert answer["shared1"] == {"Error": "shared1 already exists under my-ec2:ec2"}
    assert answer["shared2"]["state"] == "RUNNING"
    gone = site.stackctl("cloud-destroy", "shared1", "shared2", "--yes", "--format", "json")
    assert json.loads(gone.stdout) == {"my-ec2": {"ec2": {"shared1": True, "shared2": True}}}
    assert live(moto_ec2["client"]) == []


@pytest.mark.slow
def test_a_create_whose_wait_fails_terminates_its_instance(hearth_home, tmp_path, moto_ec2):
    # EC2 is unavailable right after RunInstances: every DescribeInstances of the new id fails
    proxy = Ec2Proxy(moto_ec2["endpoint"], lambda params: params.get("Action") ==
                     "DescribeInstances" and "InstanceId.1" in params)
    profile = {"provider": "flaky", "image": moto_ec2["image"], "size": "t2.micro"}
    site = Site(hearth_home, tmp_path, {
        "flaky": ec2_provider(proxy.url, max_attempts=1),
        "steady": ec2_provider(moto_ec2["endpoint"])},
        {"web": profile, "web-kept": {**profile, "keep_on_failure": True},
         "web-steady": {**profile, "provider": "steady"}})
    client = moto_ec2["client"]
    try:
        failed = site.stackctl("cloud-create", "-p", "web", "web-x")
        kept = site.stackctl("cloud-create", "-p", "web-kept", "web-k")
    finally:
        proxy.close()
    assert failed.returncode == 1 and proxy.failed
    terminated, = [i for r in client.describe_instances(Filters=[
        {"Name": "tag:Name", "Values": ["web-x"]}])["Reservations"] for i in r["Instances"]]
    assert terminated["State"]["Name"] in ("terminated", "shutting-down")
    assert last_error(failed) == (
        f"ERROR: web-x ({terminated['InstanceId']}): ClientError: An error occurred "
        "(Unavailable) when calling the DescribeInstances operation (reached max retries: 1): "
        "The service is unavailable (the test says so). The node was destroyed.")
    assert "hearth/cloud/web-x/destroyed" in failed.stderr
    running, = live(client, "web-k")
    assert last_error(kept).startswith(f"ERROR: web-k ({running['InstanceId']}): ")
    assert last_error(kept).endswith(
        "The node was kept (keep_on_failure): destroy it with 'stackctl cloud-destroy web-k'.")
    # the same command again, EC2 back: one instance of that name, no duplicate
    again = site.stackctl("cloud-create", "-p", "web-steady", "web-x")
    assert again.returncode == 0, again.stderr
    assert len(live(client, "web-x")) == 1
    site.stackctl("cloud-destroy", "web-x", "web-k", "--yes")
    assert live(client) == []


@pytest.mark.slow
def test_the_profiles_location_is_the_region(hearth_home, tmp_path, moto_ec2):
    europe = moto_client(moto_ec2["endpoint"], "eu-west-1")
    image = europe.register_image(Name="hearth-eu", Architecture="x86_64",
                                  RootDeviceName="/dev/sda1",
                                  VirtualizationType="hvm")["ImageId"]
    site = Site(hearth_home, tmp_path, {"my-ec2": ec2_provider(moto_ec2["endpoint"])}, {
        "eu": {"provider": "my-ec2", "image": image, "size": "t2.micro",
               "location": "eu-west-1"}})
    made = site.stackctl("cloud-create", "-p", "eu", "eu1", "--format", "json")
    assert made.returncode == 0, made.stderr
    instance, = live(europe, "eu1")
    assert live(moto_ec2["client"], "eu1") == []
    listed = json.loads(site.stackctl("cloud-nodes", "--select", "id,location",
                                      "--format", "json").stdout)
    assert listed == {"my-ec2": {"ec2": {"eu1": {"id": instance["InstanceId"],
                                                 "location": "eu-west-1"}}}}
    assert site.stackctl("cloud-action", "stop", "eu1").returncode == 0
    assert live(europe, "eu1")[0]["State"]["Name"] == "stopped"
    assert site.stackctl("cloud-destroy", "eu1", "--yes").returncode == 0
    assert live(europe) == []


MAP = """
good-web:
  - n1
  - n2
"""


@pytest.mark.slow
def test_a_broken_provider_is_skipped_and_logged(hearth_home, tmp_path, moto_ec2, iam_moto):
    dead = f"http://127.0.0.1:{free_port()}"
    site = Site(hearth_home, tmp_path, {
        "good": ec2_provider(moto_ec2["endpoint"]),
        "badcreds": ec2_provider(iam_moto["endpoint"], id="AKIANOSUCHKEY", key="wrong"),
        "dead": ec2_provider(dead, max_attempts=1)}, {
        "good-web": {"provider": "good", "image": moto_ec2["image"], "size": "t2.micro"}})
    made = site.stackctl("cloud-create", "-p", "good-web", "n1")
    assert made.returncode == 0, made.stderr
    nodes = site.stackctl("cloud-nodes", "--format", "json")
    assert nodes.returncode == 0, nodes.stderr
    assert list(json.loads(nodes.stdout)) == ["good"]
    assert list(json.loads(nodes.stdout)["good"]["ec2"]) == ["n1"]
    assert "cloud provider badcreds:ec2 skipped: badcreds:ec2 list_nodes failed: ClientError: " \
           "An error occurred (AuthFailure)" in nodes.stderr
    assert f'cloud provider dead:ec2 skipped: dead:ec2 list_nodes failed: ' \
           f'EndpointConnectionError: Could not connect to the endpoint URL: "{dead}/"' \
           in nodes.stderr
    (tmp_path / "cloud.map").write_text(MAP)
    mapped = site.stackctl("cloud-map", "-m", str(tmp_path / "cloud.map"), "--format", "json")
    assert mapped.returncode == 0, mapped.stderr
    assert json.loads(mapped.stdout)["n1"] == {"exists": True}
    assert [i["InstanceId"] for i in live(moto_ec2["client"], "n2")] == [
        json.loads(mapped.stdout)["n2"]["id"]]
    gone = site.stackctl("cloud-destroy", "n1", "n2", "--yes", "--format", "json")
    assert gone.returncode == 0, gone.stderr
    assert json.loads(gone.stdout) == {"good": {"ec2": {"n1": True, "n2": True}}}
    assert live(moto_ec2["client"]) == []


def test_images_are_amazons_by_default_and_owners_are_account_ids(hearth_home, tmp_path,
                                                                   moto_ec2):
    client = moto_ec2["client"]
    site = Site(hearth_home, tmp_path, {
        "my-ec2": ec2_provider(moto_ec2["endpoint"]),
        "mine": ec2_provider(moto_ec2["endpoint"], owner="self")}, {})

    def images(*args):
        done = site.stackctl("cloud-images", *args, "--format", "json")
        assert done.returncode == 0, done.stderr
        alias = args[0]
        return json.loads(done.stdout)[alias]["ec2"]

    canonical = images("my-ec2", "owner=099720109477")
    expected = client.describe_images(Owners=["099720109477"])["Images"]
    assert expected and sorted(canonical) == sorted(i["ImageId"] for i in expected)
    assert {image["owner"] for image in canonical.values()} == {"099720109477"}
    amazon = images("my-ec2")  # a fresh account has no image of its own: Amazon's are listed
    assert sorted(amazon) == sorted(
        i["ImageId"] for i in client.describe_images(Owners=["amazon"])["Images"])
    assert moto_ec2["image"] not in amazon
    assert list(images("mine")) == [moto_ec2["image"]]
    assert list(images("my-ec2", "owner=self")) == [moto_ec2["image"]]


@pytest.mark.slow
def test_a_failed_resize_starts_the_instance_again(hearth_home, tmp_path, iam_moto):
    # this account may stop and start instances but not change their type
    site = Site(hearth_home, tmp_path, {"ops": ec2_provider(
        iam_moto["endpoint"], id=iam_moto["id"], key=iam_moto["key"])}, {
        "small": {"provider": "ops", "image": iam_moto["image"], "size": "t2.micro"}})
    assert site.stackctl("cloud-create", "-p", "small", "rs1").returncode == 0
    instance, = live(iam_moto["client"], "rs1")
    refused = site.stackctl("cloud-action", "resize", "rs1", "size=no.such-type")
    assert last_error(refused) == (
        "ERROR: ops:ec2 resize failed: ClientError: An error occurred (InvalidInstanceType) "
        "when calling the DescribeInstanceTypes operation: The following supplied instance "
        "types do not exist: [no.such-type]")
    resized = site.stackctl("cloud-action", "resize", "rs1", "size=t2.small")
    assert resized.returncode == 1
    assert last_error(resized) == (
        f"ERROR: Resizing rs1 ({instance['InstanceId']}) to t2.small failed: ClientError: An "
        "error occurred (AccessDenied) when calling the ModifyInstanceAttribute operation: "
        "User: arn:aws:iam::123456789012:user/ops is not authorized to perform: "
        "ec2:ModifyInstanceAttribute. The instance runs again with its size t2.micro.")
    after, = live(iam_moto["client"], "rs1")
    assert (after["State"]["Name"], after["InstanceType"]) == ("running", "t2.micro")
    site.stackctl("cloud-destroy", "rs1", "--yes")
    assert live(iam_moto["client"], "rs1") == []
