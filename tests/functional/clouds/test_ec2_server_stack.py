"""Hearth::Cloud::Server on the ec2 driver against a real moto server, through stackctl."""

import json

import pytest

from tests.fixtures.clouds import hearth_conf, write_cloud_config
from tests.functional.stackctl_process import run

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  size: {type: string, default: t2.micro}
  image: {type: string}
resources:
  web:
    type: Hearth::Cloud::Server
    properties:
      provider: my-ec2
      image: {get_param: image}
      size: {get_param: size}
      tags: {role: web}
outputs:
  id: {value: {get_attr: [web, id]}}
  private_ip: {value: {get_attr: [web, private_ips, 0]}}
"""


@pytest.mark.slow
def test_ec2_server_created_resized_in_place_suspended_resumed_deleted(hearth_home, tmp_path,
                                                                        moto_ec2):
    provider = {key: moto_ec2[key] for key in ("driver", "id", "key", "location", "endpoint")}
    cloud_dir = write_cloud_config(tmp_path / "cloud", {"my-ec2": provider})
    config = hearth_conf(tmp_path / "hearth.conf", cloud_dir)
    (tmp_path / "web.yaml").write_text(TEMPLATE)
    client = moto_ec2["client"]

    def stackctl(*args):
        done = run(hearth_home, *args, config=config, timeout=120)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def instances():
        return [i for r in client.describe_instances()["Reservations"] for i in r["Instances"]
                if i["State"]["Name"] != "terminated"]

    image = f"image={moto_ec2['image']}"
    created = stackctl("stack-create", "-f", str(tmp_path / "web.yaml"), "-P", image, "shop")
    assert "Stack shop CREATE_COMPLETE" in created.stdout, created.stdout + created.stderr
    instance, = instances()
    tags = {t["Key"]: t["Value"] for t in instance["Tags"]}
    assert tags["role"] == "web" and tags["Name"].startswith("shop-web-")
    shown = json.loads(stackctl("stack-show", "shop", "--format", "json").stdout)
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs == {"id": instance["InstanceId"],
                       "private_ip": instance["PrivateIpAddress"]}

    resized = stackctl("stack-update", "-f", str(tmp_path / "web.yaml"), "-P", image,
                       "-P", "size=t2.small", "shop")
    assert "Stack shop UPDATE_COMPLETE" in resized.stdout, resized.stdout + resized.stderr
    after, = instances()
    assert (after["InstanceId"], after["InstanceType"]) == (instance["InstanceId"], "t2.small")

    assert "Stack shop SUSPEND_COMPLETE" in stackctl("stack-suspend", "shop").stdout
    assert instances()[0]["State"]["Name"] == "stopped"
    assert "Stack shop RESUME_COMPLETE" in stackctl("stack-resume", "shop").stdout
    assert instances()[0]["State"]["Name"] == "running"

    deleted = stackctl("stack-delete", "-y", "shop")
    assert "Stack shop DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    assert instances() == []
    assert moto_ec2["key"] not in created.stdout + resized.stdout + deleted.stdout
