"""The launch request of an ``ec2`` node, built from its options (Salt's ec2 names).

Options of a profile (or provider, or server) and what they become::

    image, size                  ImageId, InstanceType
    keyname                      KeyName
    securitygroup                SecurityGroups (names)
    securitygroupid              SecurityGroupIds
    subnetid                     SubnetId
    availability_zone            Placement.AvailabilityZone
    placementgroup, tenancy      Placement.GroupName, Placement.Tenancy
    iam_profile                  IamInstanceProfile (an ARN, else a name)
    ebs_optimized                EbsOptimized
    termination_protection       DisableApiTermination
    block_device_mappings        BlockDeviceMappings (boto3's nesting, or Salt's
                                 ``Ebs.VolumeSize`` spelling)
    root_volume_size, root_volume_type, del_root_vol_on_destroy
                                 the image's root device mapping
    network_interfaces           NetworkInterfaces (``SecurityGroupId`` and
                                 ``delete_interface_on_terminate`` as Salt spells them)
    associate_public_ip          a public address on the first interface
    user_data (userdata, userdata_file)   UserData
    tags (tag)                   the instance's tags, ``Name`` = the node's name
    spot_config                  {spot_price, type}: a spot request instead
    create_kwargs                merged last into the API call (RunInstances, or
                                 RequestSpotInstances for spot nodes)

A wrong option is a :class:`CloudConfigError` naming the node and the option.
"""

from __future__ import annotations

import base64
import copy
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.clouds import config, ec2_nodes
from hearth.common import exception

Lookup = Callable[..., Any]

#: option -> (request key, expected type) of the options copied as they are.
PLAIN_OPTIONS: dict[str, tuple[str, type]] = {
    "keyname": ("KeyName", str),
    "subnetid": ("SubnetId", str),
    "ebs_optimized": ("EbsOptimized", bool),
}
#: option -> key under Placement.
PLACEMENT_OPTIONS = {"availability_zone": "AvailabilityZone", "placementgroup": "GroupName",
                     "tenancy": "Tenancy"}
#: The keys of one network interface, with Salt's spellings mapped to boto3's.
INTERFACE_KEYS = {
    "DeviceIndex": "DeviceIndex", "SubnetId": "SubnetId", "Description": "Description",
    "AssociatePublicIpAddress": "AssociatePublicIpAddress",
    "PrivateIpAddress": "PrivateIpAddress", "PrivateIpAddresses": "PrivateIpAddresses",
    "SecondaryPrivateIpAddressCount": "SecondaryPrivateIpAddressCount",
    "NetworkInterfaceId": "NetworkInterfaceId", "Ipv6AddressCount": "Ipv6AddressCount",
    "DeleteOnTermination": "DeleteOnTermination",
    "delete_interface_on_terminate": "DeleteOnTermination",
    "SecurityGroupId": "Groups", "Groups": "Groups",
}
#: The keys of one block device mapping, and of its Ebs part.
DEVICE_KEYS = frozenset({"DeviceName", "VirtualName", "NoDevice", "Ebs"})
EBS_KEYS = frozenset({"VolumeSize", "VolumeType", "SnapshotId", "DeleteOnTermination", "Iops",
                      "Throughput", "Encrypted", "KmsKeyId"})


@dataclass
class LaunchRequest:
    """What to ask EC2 for: the launch specification and what goes around it."""

    name: str
    spec: dict[str, Any]
    tags: dict[str, str]
    termination_protection: bool | None = None
    spot: dict[str, Any] | None = None
    create_kwargs: dict[str, Any] = field(default_factory=dict)

    def tag_list(self) -> list[dict[str, str]]:
        """Return the tags in EC2's list form."""
        return [{"Key": key, "Value": value} for key, value in self.tags.items()]

    def run_instances(self, client_token: str) -> dict[str, Any]:
        """Return the RunInstances arguments."""
        request = {**copy.deepcopy(self.spec), "MinCount": 1, "MaxCount": 1,
                   "ClientToken": client_token,
                   "TagSpecifications": [{"ResourceType": "instance", "Tags": self.tag_list()}]}
        if isinstance(request.get("UserData"), bytes):
            request["UserData"] = request["UserData"].decode()
        if self.termination_protection is not None:
            request["DisableApiTermination"] = self.termination_protection
        return config.merge(request, self.create_kwargs)

    def launch(self, conn: Any, wait: Callable[..., Any]) -> tuple[str, str | None]:
        """Run the instance (or request it on the spot market); return its id and spot request.

        ``wait(callback, *args)`` polls a spot request until it has its
        instance (a ``wait_for_ip`` with the node's spot timeouts); a spot
        instance is tagged (and protected) once it exists.  Every request
        carries a new client token: botocore's retries never make a second
        instance.
        """
        token = uuid.uuid4().hex
        if self.spot is None:
            made = conn.run_instances(**self.run_instances(token))
            return made["Instances"][0]["InstanceId"], None
        spot = conn.request_spot_instances(**self.spot_request(token))
        request_id = spot["SpotInstanceRequests"][0]["SpotInstanceRequestId"]
        try:
            instance_id = wait(ec2_nodes.spot_instance, conn, request_id)
        except Exception:
            conn.cancel_spot_instance_requests(SpotInstanceRequestIds=[request_id])
            raise
        conn.create_tags(Resources=[instance_id], Tags=self.tag_list())
        if self.termination_protection is not None:
            conn.modify_instance_attribute(InstanceId=instance_id, DisableApiTermination={
                "Value": self.termination_protection})
        return instance_id, request_id

    def spot_request(self, client_token: str) -> dict[str, Any]:
        """Return the RequestSpotInstances arguments (one instance)."""
        spec = copy.deepcopy(self.spec)
        if spec.get("UserData") is not None:  # boto3 encodes it for RunInstances only
            raw = spec["UserData"]
            spec["UserData"] = base64.b64encode(
                raw if isinstance(raw, bytes) else str(raw).encode()).decode()
        spot = self.spot or {}
        request = {"SpotPrice": str(spot["spot_price"]), "InstanceCount": 1,
                   "Type": str(spot.get("type") or "one-time"), "ClientToken": client_token,
                   "LaunchSpecification": spec,
                   "TagSpecifications": [{"ResourceType": "spot-instances-request",
                                          "Tags": self.tag_list()}]}
        return config.merge(request, self.create_kwargs)


class _Options:
    """Read one node's options, with errors naming the node and the option."""

    def __init__(self, name: str, lookup: Lookup) -> None:
        self.name = name
        self.lookup = lookup

    def error(self, option: str, problem: str) -> exception.CloudConfigError:
        return exception.CloudConfigError(f"ec2 node {self.name}: option '{option}' {problem}")

    def get(self, option: str, kind: type | None = None, default: Any = None) -> Any:
        value = self.lookup(option, default)
        if value is None or kind is None:
            return value
        if kind is bool and not isinstance(value, bool):
            raise self.error(option, f"must be true or false, not {value!r}")
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.error(option, f"must be a whole number, not {value!r}")
        if kind is str and isinstance(value, (dict, list)):
            raise self.error(option, f"must be a string, not {value!r}")
        if kind in (dict, list) and not isinstance(value, kind):
            raise self.error(option, f"must be a {'mapping' if kind is dict else 'list'}, "
                                     f"not {value!r}")
        return str(value) if kind is str else value

    def names(self, option: str) -> list[str]:
        value = self.lookup(option)
        if value in (None, ""):
            return []
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]

    def unknown(self, option: str, given: Mapping[str, Any], known: Any) -> None:
        for key in given:
            if key not in known:
                raise self.error(option, f"has an unknown key '{key}'."
                                         f"{exception.did_you_mean(key, known)}")


def build(vm_: Mapping[str, Any], lookup: Lookup, image: Mapping[str, Any]) -> LaunchRequest:
    """Return the launch request of node ``vm_``.

    ``lookup(option, default)`` reads an option (vm_ over profile over
    provider); ``image`` is the AMI as DescribeImages returns it (its root
    device name places the root volume options).
    """
    options = _Options(vm_["name"], lookup)
    size = options.get("size", str)
    if not size:
        raise options.error("size", "is missing: name an instance type (t3.micro...)")
    spec: dict[str, Any] = {"ImageId": image["ImageId"], "InstanceType": size}
    for option, (key, kind) in PLAIN_OPTIONS.items():
        value = options.get(option, kind)
        if value not in (None, ""):
            spec[key] = value
    groups = {"SecurityGroups": options.names("securitygroup"),
              "SecurityGroupIds": options.names("securitygroupid")}
    spec.update({key: value for key, value in groups.items() if value})
    placement = {key: options.get(option, str) for option, key in PLACEMENT_OPTIONS.items()
                 if options.get(option) not in (None, "")}
    if placement:
        spec["Placement"] = placement
    profile = options.get("iam_profile", str)
    if profile:
        spec["IamInstanceProfile"] = ({"Arn": profile} if profile.startswith("arn:")
                                      else {"Name": profile})
    user_data = _user_data(options)
    if user_data is not None:
        spec["UserData"] = user_data
    devices = _block_devices(options, image)
    if devices:
        spec["BlockDeviceMappings"] = devices
    _network_interfaces(options, spec)
    tags = {**(options.get("tag", dict) or {}), **(options.get("tags", dict) or {})}
    spot = options.get("spot_config", dict)
    if spot is not None and spot.get("spot_price") in (None, ""):
        raise options.error("spot_config", "needs a spot_price")
    return LaunchRequest(
        vm_["name"], spec, {**{str(k): str(v) for k, v in tags.items()}, "Name": vm_["name"]},
        options.get("termination_protection", bool), spot,
        dict(options.get("create_kwargs", dict) or {}))


def _user_data(options: _Options) -> str | None:
    """Return the node's user data: user_data or userdata, else userdata_file's text."""
    text = options.get("user_data", str)
    text = options.get("userdata", str) if text is None else text
    path = options.get("userdata_file", str)
    if text is None and path:
        try:
            with open(path, encoding="utf-8") as stream:
                text = stream.read()
        except OSError as error:
            raise options.error("userdata_file", f"cannot be read: {error.strerror}") \
                from error
    return text


def _block_devices(options: _Options, image: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the block device mappings, the root volume options applied."""
    devices = [_block_device(options, item)
               for item in options.get("block_device_mappings", list) or ()]
    root = {"VolumeSize": options.get("root_volume_size", int),
            "VolumeType": options.get("root_volume_type", str),
            "DeleteOnTermination": options.get("del_root_vol_on_destroy", bool)}
    root = {key: value for key, value in root.items() if value is not None}
    if root:
        name = image.get("RootDeviceName")
        if not name:
            raise options.error("root_volume_size", f"cannot apply: the image "
                                                    f"{image['ImageId']} names no root device")
        mapping = next((d for d in devices if d.get("DeviceName") == name), None)
        if mapping is None:
            mapping = {"DeviceName": name}
            devices.insert(0, mapping)
        mapping["Ebs"] = {**root, **mapping.get("Ebs", {})}
    if options.get("del_all_vols_on_destroy", bool):
        for device in devices:
            if "Ebs" in device:
                device["Ebs"].setdefault("DeleteOnTermination", True)
    return devices


def _block_device(options: _Options, item: Any) -> dict[str, Any]:
    """Return one mapping in boto3's nesting (Salt's ``Ebs.VolumeSize`` keys folded in)."""
    if not isinstance(item, Mapping):
        raise options.error("block_device_mappings", f"must list mappings, not {item!r}")
    device: dict[str, Any] = {}
    for key, value in item.items():
        head, _, rest = str(key).partition(".")
        if rest:
            device.setdefault(head, {})[rest] = value
        elif isinstance(value, Mapping):
            device.setdefault(head, {}).update(value)
        else:
            device[head] = value
    options.unknown("block_device_mappings", device, DEVICE_KEYS)
    options.unknown("block_device_mappings", device.get("Ebs") or {}, EBS_KEYS)
    return device


def _network_interfaces(options: _Options, spec: dict[str, Any]) -> None:
    """Put the network interfaces in ``spec`` (the subnet and groups move onto the first)."""
    interfaces = [_interface(options, item)
                  for item in options.get("network_interfaces", list) or ()]
    public = options.get("associate_public_ip", bool)
    if public is not None and not interfaces:
        interfaces = [{"DeviceIndex": 0}]
    if not interfaces:
        return
    first = min(interfaces, key=lambda item: item.get("DeviceIndex", 0))
    if public is not None:
        first.setdefault("AssociatePublicIpAddress", public)
    if "SubnetId" in spec:
        first.setdefault("SubnetId", spec.pop("SubnetId"))
    if "SecurityGroupIds" in spec:
        first.setdefault("Groups", spec.pop("SecurityGroupIds"))
    spec["NetworkInterfaces"] = interfaces


def _interface(options: _Options, item: Any) -> dict[str, Any]:
    """Return one interface in boto3's spelling."""
    if not isinstance(item, Mapping):
        raise options.error("network_interfaces", f"must list mappings, not {item!r}")
    options.unknown("network_interfaces", item, INTERFACE_KEYS)
    interface = {INTERFACE_KEYS[key]: value for key, value in item.items()}
    if "Groups" in interface and not isinstance(interface["Groups"], list):
        interface["Groups"] = [str(interface["Groups"])]
    interface.setdefault("DeviceIndex", 0)
    return interface
