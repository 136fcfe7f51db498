"""EC2's answers read for the ``ec2`` driver: node records, states awaited, images, owners.

Pure functions of boto3's responses (and a client where they poll), so the
driver module keeps only Salt Cloud's functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.clouds import utils as cloud_utils
from hearth.common import exception

try:  # the ec2 driver's dependency: its __virtual__ says when it is missing
    from botocore.exceptions import ClientError
except ImportError:  # pragma: no cover - boto3 is a dependency of Hearth's [cloud] extra
    pass

#: Instance states that no longer count as nodes.
GONE_STATES = frozenset({"terminated", "shutting-down"})
#: Owner of the images listed when neither the call nor the provider names one (Salt's).
DEFAULT_OWNER = "amazon"


def tags(instance: Mapping[str, Any]) -> dict[str, str]:
    """Return an instance's tags as a mapping."""
    return {tag["Key"]: tag["Value"] for tag in instance.get("Tags") or ()}


def name(instance: Mapping[str, Any]) -> str:
    """Return an instance's node name: its Name tag, else its id."""
    return tags(instance).get("Name") or instance["InstanceId"]


def _ips(instance: Mapping[str, Any], key: str) -> list[str]:
    return [instance[key]] if instance.get(key) else []


def describe(region: str, instance: Mapping[str, Any]) -> dict[str, Any]:
    """Return the node record of an instance: the six list_nodes fields and the details."""
    record = cloud_utils.node_record(instance["InstanceId"], instance.get("ImageId"),
                                     instance.get("InstanceType"), instance["State"]["Name"],
                                     _ips(instance, "PrivateIpAddress"),
                                     _ips(instance, "PublicIpAddress"))
    placement = instance.get("Placement") or {}
    return cloud_utils.scrub({
        **record, "name": name(instance), "location": region, "tags": tags(instance),
        "key_name": instance.get("KeyName"),
        "security_groups": [g["GroupName"] for g in instance.get("SecurityGroups") or ()],
        "availability_zone": placement.get("AvailabilityZone"),
        "private_dns_name": instance.get("PrivateDnsName"),
        "public_dns_name": instance.get("PublicDnsName"),
        "subnet_id": instance.get("SubnetId"), "vpc_id": instance.get("VpcId"),
        "ebs_optimized": instance.get("EbsOptimized"),
        "iam_instance_profile": (instance.get("IamInstanceProfile") or {}).get("Arn"),
        "spot_request_id": instance.get("SpotInstanceRequestId"),
        "root_device_name": instance.get("RootDeviceName"),
        "block_devices": {d["DeviceName"]: (d.get("Ebs") or {}).get("VolumeId")
                          for d in instance.get("BlockDeviceMappings") or ()},
        "launch_time": str(instance.get("LaunchTime") or "")})


def state_is(conn: Any, instance_id: str, wanted: str) -> Any:
    """Return the instance once in state ``wanted``, None before (a wait_for_ip callback).

    An instance that ends (terminated by EC2: capacity, a bad image...) while
    another state is awaited fails at once, with EC2's reason.
    """
    found = conn.describe_instances(InstanceIds=[instance_id])["Reservations"]
    instance = found[0]["Instances"][0] if found else None
    if instance is None:
        return False
    state = instance["State"]["Name"]
    if wanted not in GONE_STATES and state in GONE_STATES:
        reason = (instance.get("StateReason") or {}).get("Message") or "no reason given"
        raise exception.CloudExecutionFailure(f"The instance {instance_id} is {state}: "
                                              f"{reason}")
    return instance if state == wanted else None


def spot_instance(conn: Any, request_id: str) -> Any:
    """Return the spot request's instance id once it has one (a wait_for_ip callback)."""
    found = conn.describe_spot_instance_requests(SpotInstanceRequestIds=[request_id])
    spot = found["SpotInstanceRequests"][0]
    if spot.get("InstanceId"):
        return spot["InstanceId"]
    if spot["State"] in ("cancelled", "failed", "closed"):
        reason = (spot.get("Status") or {}).get("Message") or "no reason given"
        raise exception.CloudExecutionFailure(f"The spot request {request_id} is "
                                              f"{spot['State']}: {reason}")
    return None


def image(conn: Any, image_id: str) -> dict[str, Any]:
    """Return the AMI ``image_id``; raise a clear error when the region has none such."""
    try:
        found = conn.describe_images(ImageIds=[image_id])["Images"]
    except ClientError as error:
        if not error.response.get("Error", {}).get("Code", "").startswith("InvalidAMIID"):
            raise
        found = []
    if not found:
        raise exception.CloudSystemExit(f"The specified image, '{image_id}', could not be "
                                        f"found in {conn.meta.region_name}.")
    return found[0]


def owners(requested: Any, configured: Any) -> list[str] | None:
    """Return the image owners to list (None for every owner).

    ``requested`` (the call's ``owner``) wins over ``configured`` (the
    provider's), else Amazon's images (Salt's default).  A value is
    ``amazon``, ``self``, an account id, several comma-separated, or ``all``;
    an account id that was read as a number gets its leading zeros back
    (account ids have 12 digits).
    """
    owner = requested if requested is not None else configured
    values = owner if isinstance(owner, (list, tuple)) else str(owner or DEFAULT_OWNER).split(",")
    result = [str(v).zfill(12) if isinstance(v, int) and not isinstance(v, bool)
              else str(v).strip() for v in values]
    return None if "all" in result else result


def image_record(item: Mapping[str, Any]) -> dict[str, Any]:
    """Return the avail_images entry of an AMI."""
    return {"id": item["ImageId"], "name": item.get("Name"), "owner": item.get("OwnerId"),
            "architecture": item.get("Architecture"), "state": item.get("State")}


def spot_request_of(conn: Any, instance: Mapping[str, Any]) -> str | None:
    """Return the id of the spot request that made ``instance`` (None for on-demand ones)."""
    if instance.get("SpotInstanceRequestId") or instance.get("InstanceLifecycle") != "spot":
        return instance.get("SpotInstanceRequestId")
    found = conn.describe_spot_instance_requests(Filters=[
        {"Name": "instance-id", "Values": [instance["InstanceId"]]}])["SpotInstanceRequests"]
    return found[0]["SpotInstanceRequestId"] if found else None


def protected(conn: Any, instance_id: str) -> bool:
    """Return whether the instance's termination protection is on."""
    answer = conn.describe_instance_attribute(InstanceId=instance_id,
                                              Attribute="disableApiTermination")
    return bool((answer.get("DisableApiTermination") or {}).get("Value"))
