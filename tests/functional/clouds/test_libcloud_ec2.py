"""The libcloud driver over libcloud's EC2 driver, on moto, through stackctl, checked with boto3.

moto differs from EC2 in two ways libcloud notices (docs/cloud-drivers.rst):
libcloud signs with ``signature_version: '4'``, and a proxy gives moto's
answers the namespace real EC2 sends (with its trailing slash).
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.fixtures.clouds import MOTO_CREDENTIALS
from tests.fixtures.ec2 import Ec2Proxy
from tests.functional.clouds.ec2_site import Site, live

MAP = """
lc-small:
  - lc1
"""


@pytest.fixture
def site(hearth_home, tmp_path, moto_ec2):
    proxy = Ec2Proxy(moto_ec2["endpoint"], real_namespace=True)
    port = int(proxy.url.rsplit(":", 1)[1])
    yield Site(hearth_home, tmp_path, {"aws-lc": {
        "driver": "libcloud", "provider": "EC2", "key": MOTO_CREDENTIALS["id"],
        "secret": MOTO_CREDENTIALS["key"],
        "driver_kwargs": {"host": "127.0.0.1", "port": port, "secure": False,
                          "region": "us-east-1", "signature_version": "4"}}}, {
        "lc-small": {"provider": "aws-lc", "image": moto_ec2["image"], "size": "t2.micro"}})
    proxy.close()


@pytest.mark.slow
def test_libcloud_ec2_nodes_show_and_list_as_nodes(site, tmp_path, moto_ec2):
    client = moto_ec2["client"]
    made = site.stackctl("cloud-create", "-p", "lc-small", "lc1")  # YAML, the default
    assert made.returncode == 0, made.stderr
    instance, = live(client, "lc1")
    node = yaml.safe_load(made.stdout)["lc1"]
    assert (node["id"], node["size"], node["image"]) == (
        instance["InstanceId"], "t2.micro", moto_ec2["image"])
    assert node["extra"]["network_interfaces"]  # libcloud's objects, shown as text
    shown = site.stackctl("cloud-action", "show_instance", "lc1")
    assert shown.returncode == 0, shown.stderr
    assert yaml.safe_load(shown.stdout)["aws-lc"]["libcloud"]["lc1"]["state"] == "RUNNING"
    table = site.stackctl("cloud-nodes")
    assert "| aws-lc:libcloud | lc1  | " in table.stdout and "t2.micro" in table.stdout
    assert site.stackctl("cloud-destroy", "lc1", "--yes").returncode == 0
    assert live(client, "lc1") == []
    # EC2 still lists the terminated instance: it is no node, and a map makes it again
    listed = json.loads(site.stackctl("cloud-nodes", "--format", "json").stdout)
    assert listed == {"aws-lc": {"libcloud": {}}}
    (tmp_path / "cloud.map").write_text(MAP)
    mapped = site.stackctl("cloud-map", "-m", str(tmp_path / "cloud.map"), "--format", "json")
    assert mapped.returncode == 0, mapped.stderr
    assert json.loads(mapped.stdout)["lc1"]["state"] == "RUNNING"
    assert len(live(client, "lc1")) == 1
    assert site.stackctl("cloud-destroy", "lc1", "--yes").returncode == 0
    assert live(client, "lc1") == []
