"""The ``ec2`` driver: Amazon EC2 (and EC2-compatible endpoints) on boto3, without libcloud.

Provider configuration, with Salt's key names::

    my-ec2:
      driver: ec2
      id: AKIA...                 # the access key id
      key: ...                    # the secret access key
      location: us-east-1         # the region
      endpoint: http://host:port  # optional: an EC2-compatible endpoint
      keyname: default            # defaults for profiles
      securitygroup: [default]

Profiles give ``image`` (an AMI id), ``size`` (an instance type),
``keyname``, ``securitygroup`` (names; ``securitygroupid`` for ids),
``subnetid``, ``availability_zone``, ``tags`` (Salt's ``tag`` too) and
``user_data``.  A node's name is its ``Name`` tag.  ``deploy`` is off by
default (see :mod:`hearth.clouds.deploy`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hearth.clouds import config, deploy
from hearth.clouds import utils as cloud_utils
from hearth.common import exception

try:
    import boto3

    HAS_BOTO3 = True
except ImportError:  # pragma: no cover - boto3 is a dependency of Hearth
    HAS_BOTO3 = False

LOG = logging.getLogger(__name__)

__virtualname__ = "ec2"
__opts__: dict[str, Any] = {}
__active_provider_name__: str | None = None
__utils__: dict[str, Any] = {}
__context__: dict[str, Any] = {}

REQUIRED_KEYS = ("id", "key")
#: Instance states that no longer count as nodes.
GONE_STATES = frozenset({"terminated", "shutting-down"})


def __virtual__() -> Any:
    """Load when boto3 imports and the provider has its credentials."""
    if not get_dependencies():
        return False, "the boto3 library is not installed"
    if not get_configured_provider():
        return False, (f"the provider {__active_provider_name__ or __virtualname__} is not "
                       f"configured: it needs {', '.join(REQUIRED_KEYS)}")
    return __virtualname__


def get_configured_provider() -> Any:
    """Return the provider's configuration, or False when it lacks a required key."""
    return config.is_provider_configured(__opts__, __active_provider_name__ or __virtualname__,
                                         REQUIRED_KEYS)


def get_dependencies() -> bool:
    """Return whether the libraries this driver needs are installed."""
    return config.check_driver_dependencies(__virtualname__, {"boto3": HAS_BOTO3})


def get_conn() -> Any:
    """Return a boto3 EC2 client for the configured provider."""
    conf = get_configured_provider()
    return boto3.client("ec2", region_name=conf.get("location") or "us-east-1",
                        aws_access_key_id=conf["id"], aws_secret_access_key=conf["key"],
                        endpoint_url=conf.get("endpoint") or None)


def _provider() -> str:
    return __active_provider_name__ or __virtualname__


# --- instances ---------------------------------------------------------------------

def _tags(instance: Mapping[str, Any]) -> dict[str, str]:
    return {tag["Key"]: tag["Value"] for tag in instance.get("Tags") or ()}


def _name(instance: Mapping[str, Any]) -> str:
    return _tags(instance).get("Name") or instance["InstanceId"]


def _instances(conn: Any, filters: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Return every instance not terminated (or terminating)."""
    found = []
    for page in conn.get_paginator("describe_instances").paginate(Filters=filters or []):
        for reservation in page["Reservations"]:
            found += [i for i in reservation["Instances"] if i["State"]["Name"] not in GONE_STATES]
    return found


def _instance_by_name(conn: Any, name: str) -> dict[str, Any]:
    for instance in _instances(conn, [{"Name": "tag:Name", "Values": [name]}]):
        return instance
    if name.startswith("i-"):
        for instance in _instances(conn, [{"Name": "instance-id", "Values": [name]}]):
            return instance
    raise exception.CloudNodeNotFound(name, _provider())


def _ips(instance: Mapping[str, Any], key: str) -> list[str]:
    return [instance[key]] if instance.get(key) else []


def _describe(instance: Mapping[str, Any]) -> dict[str, Any]:
    record = cloud_utils.node_record(instance["InstanceId"], instance.get("ImageId"),
                                     instance.get("InstanceType"), instance["State"]["Name"],
                                     _ips(instance, "PrivateIpAddress"),
                                     _ips(instance, "PublicIpAddress"))
    return cloud_utils.scrub({
        **record, "name": _name(instance), "tags": _tags(instance),
        "key_name": instance.get("KeyName"),
        "security_groups": [g["GroupName"] for g in instance.get("SecurityGroups") or ()],
        "availability_zone": (instance.get("Placement") or {}).get("AvailabilityZone"),
        "private_dns_name": instance.get("PrivateDnsName"),
        "public_dns_name": instance.get("PublicDnsName"),
        "subnet_id": instance.get("SubnetId"), "vpc_id": instance.get("VpcId"),
        "launch_time": str(instance.get("LaunchTime") or "")})


# --- create and destroy ------------------------------------------------------------

def _as_list(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def _request(vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Return the run_instances arguments of ``vm_``."""
    def value(key: str, default: Any = None) -> Any:
        return config.get_cloud_config_value(key, vm_, __opts__, default)

    image, size = value("image"), value("size")
    if not image or not size:
        raise exception.CloudSystemExit(f"{vm_['name']}: an ec2 node needs an image (AMI id) "
                                        "and a size (instance type)")
    tags = {**(value("tag") or {}), **(value("tags") or {}), "Name": vm_["name"]}
    request: dict[str, Any] = {
        "ImageId": str(image), "InstanceType": str(size), "MinCount": 1, "MaxCount": 1,
        "TagSpecifications": [{"ResourceType": "instance", "Tags": [
            {"Key": str(k), "Value": str(v)} for k, v in tags.items()]}]}
    optional = {"KeyName": value("keyname"), "SubnetId": value("subnetid"),
                "UserData": value("user_data"),
                "SecurityGroups": _as_list(value("securitygroup")),
                "SecurityGroupIds": _as_list(value("securitygroupid"))}
    request.update({key: item for key, item in optional.items() if item})
    if value("availability_zone"):
        request["Placement"] = {"AvailabilityZone": value("availability_zone")}
    return request


def _check_image(conn: Any, image: str) -> None:
    """Raise a clear error when the AMI ``image`` does not exist."""
    from botocore.exceptions import ClientError

    try:
        found = conn.describe_images(ImageIds=[image])["Images"]
    except ClientError as error:
        if not error.response.get("Error", {}).get("Code", "").startswith("InvalidAMIID"):
            raise
        found = []
    if not found:
        raise exception.CloudSystemExit(f"The specified image, '{image}', could not be found.")


def _state_is(conn: Any, instance_id: str, wanted: str) -> Any:
    """Return the instance once in state ``wanted``, None before (a wait_for_ip callback)."""
    found = conn.describe_instances(InstanceIds=[instance_id])["Reservations"]
    instance = found[0]["Instances"][0] if found else None
    if instance is None:
        return False
    return instance if instance["State"]["Name"] == wanted else None


def _wait(conn: Any, vm_: Mapping[str, Any], instance_id: str, wanted: str) -> dict[str, Any]:
    return cloud_utils.wait_for_ip(
        _state_is, update_args=(conn, instance_id, wanted),
        timeout=config.get_cloud_config_value("wait_for_ip_timeout", vm_, __opts__, 300),
        interval=config.get_cloud_config_value("wait_for_ip_interval", vm_, __opts__, 0.5))


def create(vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Run instance ``vm_['name']``, wait until it runs, deploy if asked; return its details."""
    name = vm_["name"]
    cloud_utils.check_name(name, "a-zA-Z0-9._ -")
    cloud_utils.cloud_event(name, "creating", {**vm_, "provider": _provider()}, __opts__,
                            "starting create")
    request = _request(vm_)
    cloud_utils.cloud_event(name, "requesting", {
        "name": name, "image": request["ImageId"], "size": request["InstanceType"],
        "location": (request.get("Placement") or {}).get("AvailabilityZone")}, __opts__)
    conn = get_conn()
    _check_image(conn, request["ImageId"])
    instance_id = conn.run_instances(**request)["Instances"][0]["InstanceId"]
    cloud_utils.cloud_event(name, "querying", {"instance_id": instance_id}, __opts__)
    instance = _wait(conn, vm_, instance_id, "running")
    deployed = deploy.bootstrap(vm_, __opts__, node=_describe(instance))
    cloud_utils.cloud_event(name, "created", {**vm_, "provider": _provider(),
                                              "instance_id": instance_id}, __opts__,
                            "created instance")
    return {**_describe(instance), **deployed}


def destroy(name: str, call: str | None = None) -> bool:
    """Terminate instance ``name``."""
    cloud_utils.require_action("destroy", call)
    conn = get_conn()
    instance_id = _instance_by_name(conn, name)["InstanceId"]
    cloud_utils.cloud_event(name, "destroying", {"name": name, "instance_id": instance_id},
                            __opts__, "destroying instance")
    conn.terminate_instances(InstanceIds=[instance_id])
    cloud_utils.cloud_event(name, "destroyed", {"name": name, "instance_id": instance_id},
                            __opts__, "destroyed instance")
    return True


# --- queries -----------------------------------------------------------------------

def list_nodes(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return ``{name: {id, image, size, state, private_ips, public_ips}}``."""
    cloud_utils.require_function("list_nodes", call)
    return cloud_utils.basic_nodes(list_nodes_full("function"))


def list_nodes_full(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return every instance with every field."""
    cloud_utils.require_function("list_nodes_full", call)
    return {_name(instance): _describe(instance) for instance in _instances(get_conn())}


def list_nodes_select(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the fields of ``query.selection`` of every instance."""
    return cloud_utils.list_nodes_select(list_nodes_full("function"),
                                         __opts__.get("query.selection"), call)


def show_instance(name: str, call: str | None = None) -> dict[str, Any]:
    """Return every field of instance ``name``."""
    cloud_utils.require_action("show_instance", call)
    return _describe(_instance_by_name(get_conn(), name))


def avail_images(kwargs: Mapping[str, Any] | None = None,
                 call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the AMIs of ``owner`` (default: this account's own, ``owner=all`` for every one)."""
    cloud_utils.require_function("avail_images", call)
    owner = (kwargs or {}).get("owner", "self")
    request = {} if owner == "all" else {"Owners": _as_list(owner)}
    images = get_conn().describe_images(**request)["Images"]
    return {image["ImageId"]: {"id": image["ImageId"], "name": image.get("Name"),
                               "architecture": image.get("Architecture"),
                               "state": image.get("State")} for image in images}


def avail_sizes(kwargs: Mapping[str, Any] | None = None,
                call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the instance types (only those of ``sizes=a,b`` when given)."""
    cloud_utils.require_function("avail_sizes", call)
    wanted = (kwargs or {}).get("sizes")
    request = {"InstanceTypes": _as_list(wanted.split(",") if isinstance(wanted, str)
                                         else wanted)} if wanted else {}
    sizes = {}
    for page in get_conn().get_paginator("describe_instance_types").paginate(**request):
        for item in page["InstanceTypes"]:
            sizes[item["InstanceType"]] = {
                "id": item["InstanceType"],
                "vcpus": (item.get("VCpuInfo") or {}).get("DefaultVCpus"),
                "ram": (item.get("MemoryInfo") or {}).get("SizeInMiB")}
    return dict(sorted(sizes.items()))


def avail_locations(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the regions."""
    cloud_utils.require_function("avail_locations", call)
    regions = get_conn().describe_regions()["Regions"]
    return {r["RegionName"]: {"name": r["RegionName"], "endpoint": r.get("Endpoint")}
            for r in regions}


# --- actions -----------------------------------------------------------------------

#: action -> (boto3 method, state it ends in).
ACTIONS = {"start": ("start_instances", "running"), "stop": ("stop_instances", "stopped"),
           "reboot": ("reboot_instances", "running")}


def _instance_action(action: str, name: str, call: str | None) -> dict[str, Any]:
    cloud_utils.require_action(action, call)
    conn = get_conn()
    instance_id = _instance_by_name(conn, name)["InstanceId"]
    method, state = ACTIONS[action]
    cloud_utils.cloud_event(name, cloud_utils.ACTION_STAGES[action],
                            {"name": name, "instance_id": instance_id}, __opts__)
    getattr(conn, method)(InstanceIds=[instance_id])
    _wait(conn, {"name": name}, instance_id, state)
    return {"name": name, "action": action, "state": state.upper(), "success": True}


def start(name: str, call: str | None = None) -> dict[str, Any]:
    """Start the stopped instance ``name`` and wait until it runs."""
    return _instance_action("start", name, call)


def stop(name: str, call: str | None = None) -> dict[str, Any]:
    """Stop instance ``name`` and wait until it is stopped."""
    return _instance_action("stop", name, call)


def reboot(name: str, call: str | None = None) -> dict[str, Any]:
    """Reboot instance ``name``."""
    return _instance_action("reboot", name, call)


def resize(name: str, kwargs: Mapping[str, Any] | None = None,
           call: str | None = None) -> dict[str, Any]:
    """Change instance ``name``'s type to ``kwargs['size']`` (stopped meanwhile if it runs)."""
    cloud_utils.require_action("resize", call)
    size = (kwargs or {}).get("size")
    if not size:
        raise exception.CloudSystemExit("resize needs size=<instance type>")
    conn = get_conn()
    instance = _instance_by_name(conn, name)
    running = instance["State"]["Name"] == "running"
    if running:
        conn.stop_instances(InstanceIds=[instance["InstanceId"]])
        _wait(conn, {"name": name}, instance["InstanceId"], "stopped")
    conn.modify_instance_attribute(InstanceId=instance["InstanceId"],
                                   InstanceType={"Value": str(size)})
    if running:
        conn.start_instances(InstanceIds=[instance["InstanceId"]])
        _wait(conn, {"name": name}, instance["InstanceId"], "running")
    return {"name": name, "size": str(size), "success": True}


def capabilities(call: str | None = None) -> list[str]:
    """Return the optional actions this driver supports (Hearth's addition)."""
    cloud_utils.require_function("capabilities", call)
    return ["resize", "start", "stop"]


def script(vm_: Mapping[str, Any]) -> str:
    """Return the deploy script of ``vm_`` rendered (empty when it names none)."""
    return deploy.render_script(vm_, __opts__)
