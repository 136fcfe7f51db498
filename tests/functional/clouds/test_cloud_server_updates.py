"""Hearth::Cloud::Server updates through stackctl: named servers replaced, failed resizes kept.

ec2 on moto (checked with boto3) renames the old node out of the way of
its replacement; the libcloud Dummy driver, which cannot rename, destroys
it first.  A server whose resize failed keeps its running node at the next
update instead of being replaced (which on AWS loses the root disk).
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures.clouds import moto_client
from tests.functional.clouds.ec2_site import Site, ec2_provider, live

NAMED = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  size: {type: string, default: t2.micro}
resources:
  db:
    type: Hearth::Cloud::Server
    properties:
      %(where)s
      name: db1
      image: {get_param: image}
      size: {get_param: size}
outputs:
  id: {value: {get_attr: [db, id]}}
"""


def stack_ok(site: Site, *args: str) -> str:
    done = site.stackctl(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def output(site: Site, stack: str, key: str) -> str:
    shown = json.loads(stack_ok(site, "stack-show", stack, "--format", "json"))
    return {o["output_key"]: o["output_value"] for o in shown["outputs"]}[key]


@pytest.mark.slow
def test_a_named_ec2_server_is_replaced_in_its_region(hearth_home, tmp_path, moto_ec2):
    europe = moto_client(moto_ec2["endpoint"], "eu-west-1")
    first, second = (europe.register_image(Name=f"db-{n}", Architecture="x86_64",
                                           RootDeviceName="/dev/sda1",
                                           VirtualizationType="hvm")["ImageId"]
                     for n in (1, 2))
    site = Site(hearth_home, tmp_path, {"my-ec2": ec2_provider(moto_ec2["endpoint"])}, {})
    (tmp_path / "db.yaml").write_text(NAMED % {
        "where": "provider: my-ec2\n      location: eu-west-1"})
    template = str(tmp_path / "db.yaml")
    stack_ok(site, "stack-create", "-f", template, "-P", f"image={first}", "shop")
    old, = live(europe, "db1")
    assert live(moto_ec2["client"]) == []  # the server's location is the region
    assert output(site, "shop", "id") == old["InstanceId"]
    assert "UPDATE_COMPLETE" in stack_ok(site, "stack-update", "-f", template, "-P",
                                         f"image={second}", "shop")
    new, = live(europe, "db1")
    assert (new["ImageId"], output(site, "shop", "id")) == (second, new["InstanceId"])
    assert new["InstanceId"] != old["InstanceId"]
    assert europe.describe_instances(InstanceIds=[old["InstanceId"]])["Reservations"][0][
        "Instances"][0]["State"]["Name"] in ("terminated", "shutting-down")
    stack_ok(site, "stack-delete", "-y", "shop")
    assert live(europe) == []


@pytest.mark.slow
def test_a_named_server_is_replaced_where_nodes_cannot_be_renamed(hearth_home, tmp_path,
                                                                  dummy_cloud):
    site = Site(hearth_home, tmp_path, {"my-dummy": {"driver": "libcloud", "provider": "DUMMY"}},
                {"base": {"provider": "my-dummy", "size": "Small"}})
    (tmp_path / "db.yaml").write_text(NAMED % {"where": "profile: base"})
    template = str(tmp_path / "db.yaml")

    def node():
        nodes = json.loads(stack_ok(site, "cloud-nodes", "--format", "json"))
        return nodes["my-dummy"]["libcloud"]

    stack_ok(site, "stack-create", "-f", template, "-P", "image=Ubuntu 9.10", "-P",
             "size=Small", "shop")
    before = node()["db1"]
    stack_ok(site, "stack-update", "-f", template, "-P", "image=Ubuntu 9.04", "-P",
             "size=Small", "shop")
    after = node()
    assert list(after) == ["db1"] and after["db1"]["image"] == "Ubuntu 9.04"
    assert after["db1"]["id"] != before["id"]
    # a replacement that fails is rolled back: the old server is built again
    failed = site.stackctl("stack-update", "-f", template, "-P", "image=No Such Image", "-P",
                           "size=Small", "shop")
    assert "ROLLBACK_COMPLETE" in failed.stdout, failed.stdout + failed.stderr
    assert node()["db1"]["image"] == "Ubuntu 9.04"
    stack_ok(site, "stack-delete", "-y", "shop")
    assert node() == {}


@pytest.mark.slow
def test_a_server_whose_resize_failed_is_kept_by_the_next_update(hearth_home, tmp_path,
                                                                 iam_moto):
    # this account may stop and start instances but not change their type
    site = Site(hearth_home, tmp_path, {"ops": ec2_provider(
        iam_moto["endpoint"], id=iam_moto["id"], key=iam_moto["key"])}, {})
    (tmp_path / "db.yaml").write_text(NAMED % {"where": "provider: ops"})
    template = str(tmp_path / "db.yaml")
    image = f"image={iam_moto['image']}"
    stack_ok(site, "stack-create", "-f", template, "-P", image, "kept")
    instance, = live(iam_moto["client"], "db1")
    failed = site.stackctl("stack-update", "-f", template, "-P", image, "-P", "size=t2.small",
                           "--disable-rollback", "kept")
    assert "Stack kept UPDATE_FAILED" in failed.stdout, failed.stdout + failed.stderr
    assert "The instance runs again with its size t2.micro." in failed.stdout
    running, = live(iam_moto["client"], "db1")
    assert (running["InstanceId"], running["State"]["Name"], running["InstanceType"]) == (
        instance["InstanceId"], "running", "t2.micro")
    stack_ok(site, "stack-update", "-f", template, "-P", image, "kept")
    after, = live(iam_moto["client"], "db1")
    assert after["InstanceId"] == instance["InstanceId"]
    assert output(site, "kept", "id") == instance["InstanceId"]
    stack_ok(site, "stack-delete", "-y", "kept")
    assert live(iam_moto["client"]) == []
