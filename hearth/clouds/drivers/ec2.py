"""The ``ec2`` driver: Amazon EC2 (and EC2-compatible endpoints) on boto3, without libcloud.

Provider configuration, with Salt's key names::

    my-ec2:
      driver: ec2
      id: AKIA...                 # the access key id  } both optional: without them,
      key: ...                    # the secret key     } boto3's credential chain
      aws_profile: prod           # or a profile of ~/.aws/config (SSO works)
      location: us-east-1         # the region (a profile may name another)
      endpoint: http://host:port  # optional: an EC2-compatible endpoint
      owner: amazon               # whose images cloud-images lists by default
      keyname: default            # defaults for profiles
      securitygroup: [default]

Profiles give ``image`` (an AMI id), ``size`` (an instance type) and the
options of :mod:`hearth.clouds.ec2_request` (block devices, IAM instance
profile, network interfaces, spot requests, EBS optimisation, termination
protection, ``create_kwargs``); credentials and regions are described in
:mod:`hearth.clouds.ec2_session`.  A node's name is its ``Name`` tag and is
unique within the provider: a create under a name some instance already
has is refused.  A create that fails after the instance was requested
(waiting for it to run) terminates it unless ``keep_on_failure`` is set
(a failed deploy too: :meth:`hearth.clouds.cloud.Cloud.create`).
``deploy`` is off by default (see :mod:`hearth.clouds.deploy`).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Mapping
from typing import Any

from hearth.clouds import config, deploy, ec2_nodes, ec2_request, ec2_session
from hearth.clouds import utils as cloud_utils
from hearth.common import exception

try:
    import boto3  # noqa: F401 - its presence is this driver's dependency

    HAS_BOTO3 = True
except ImportError:  # pragma: no cover - boto3 is a dependency of Hearth
    HAS_BOTO3 = False

LOG = logging.getLogger(__name__)
CLIENTS_LOCK = threading.Lock()

__virtualname__ = "ec2"
__opts__: dict[str, Any] = {}
__active_provider_name__: str | None = None
__utils__: dict[str, Any] = {}
__context__: dict[str, Any] = {}



def __virtual__() -> Any:
    """Load when boto3 imports and the provider's credential options make sense."""
    if not get_dependencies():
        return False, "the boto3 library is not installed"
    conf = get_configured_provider()
    if not conf:
        return False, f"the provider {_provider()} is not configured"
    problem = ec2_session.credentials_problem(conf)
    if problem:
        return False, f"the provider {_provider()} is not configured: {problem}"
    return __virtualname__


def get_configured_provider() -> Any:
    """Return the provider's configuration, or False when there is none."""
    return config.is_provider_configured(__opts__, _provider(), ())


def get_dependencies() -> bool:
    """Return whether the libraries this driver needs are installed."""
    return config.check_driver_dependencies(__virtualname__, {"boto3": HAS_BOTO3})


def _provider() -> str:
    return __active_provider_name__ or __virtualname__


def get_conn(region: str | None = None) -> Any:
    """Return the boto3 EC2 client of ``region`` (the provider's own by default).

    Clients are made once per region (a client loads EC2's large service
    model) and shared: boto3 clients are thread-safe.
    """
    conf = get_configured_provider()
    region = region or ec2_session.provider_region(conf)
    with CLIENTS_LOCK:
        clients = __context__.setdefault("ec2_clients", {})
        if region not in clients:
            clients[region] = ec2_session.client(conf, _provider(), region)
        return clients[region]


def _regions() -> list[str]:
    return ec2_session.known_regions(__opts__, _provider(), get_configured_provider())


def _value(key: str, vm_: Mapping[str, Any] | None, default: Any = None) -> Any:
    return config.get_cloud_config_value(key, vm_, __opts__, default)


# --- instances ---------------------------------------------------------------------

def _instances(region: str, filters: list[dict[str, Any]] | None = None
               ) -> list[tuple[str, dict[str, Any]]]:
    """Return ``(region, instance)`` of every live instance of ``region`` (``filters`` apply)."""
    conn = get_conn(region)
    found = []
    for page in conn.get_paginator("describe_instances").paginate(Filters=filters or []):
        for reservation in page["Reservations"]:
            found += [(region, i) for i in reservation["Instances"]
                      if i["State"]["Name"] not in ec2_nodes.GONE_STATES]
    return found


def _everywhere(filters: list[dict[str, Any]] | None = None) -> list[tuple[str, dict[str, Any]]]:
    return [item for region in _regions() for item in _instances(region, filters)]


def _named(name: str) -> list[tuple[str, dict[str, Any]]]:
    """Return every live instance called ``name`` (its Name tag, or its id)."""
    found = _everywhere([{"Name": "tag:Name", "Values": [name]}])
    if not found and name.startswith("i-"):
        found = _everywhere([{"Name": "instance-id", "Values": [name]}])
    return found


def _one(name: str) -> tuple[str, dict[str, Any]]:
    """Return ``(region, instance)`` of node ``name``; raise when none or several match."""
    found = _named(name)
    if not found:
        raise exception.CloudNodeNotFound(name, _provider())
    if len(found) > 1:
        ids = ", ".join(f"{i['InstanceId']} ({region})" for region, i in found)
        raise exception.CloudSystemExit(
            f"{len(found)} instances of {_provider()} are named {name}: {ids}. Name one by "
            "its instance id.")
    return found[0]


# --- create and destroy ------------------------------------------------------------

def _poll(vm_: Mapping[str, Any], option: str, timeout: float, interval: float,
          callback: Any, *args: Any) -> Any:
    """Poll ``callback(*args)`` with the node's ``<option>_timeout``/``_interval``/... (Salt's)."""
    return cloud_utils.wait_for_ip(
        callback, update_args=args, timeout=_value(f"{option}_timeout", vm_, timeout),
        interval=_value(f"{option}_interval", vm_, interval),
        interval_multiplier=_value(f"{option}_interval_multiplier", vm_, 1))


def _wait(conn: Any, vm_: Mapping[str, Any], instance_id: str, wanted: str) -> dict[str, Any]:
    return _poll(vm_, "wait_for_ip", 300, 0.5, ec2_nodes.state_is, conn, instance_id, wanted)


def _refuse_taken(name: str) -> None:
    """Raise CloudNodeExists when an instance of the provider already has ``name``."""
    if _named(name):
        raise exception.CloudNodeExists(name, _provider())


def create(vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Run instance ``vm_['name']``, wait until it runs, deploy if asked; return its details."""
    name = vm_["name"]
    cloud_utils.check_name(name, "a-zA-Z0-9._ -")
    region = str(_value("location", vm_) or ec2_session.provider_region(
        get_configured_provider()))
    cloud_utils.cloud_event(name, "creating", {**vm_, "provider": _provider()}, __opts__,
                            "starting create")
    image = _value("image", vm_)
    if not image:
        raise exception.CloudSystemExit(f"{name}: an ec2 node needs an image (AMI id)")
    conn = get_conn(region)
    request = ec2_request.build(vm_, lambda key, default=None: _value(key, vm_, default),
                                ec2_nodes.image(conn, str(image)))
    _refuse_taken(name)
    ec2_session.record_region(__opts__, _provider(), region)
    cloud_utils.cloud_event(name, "requesting", {
        "name": name, "image": request.spec["ImageId"], "size": request.spec["InstanceType"],
        "location": region}, __opts__)
    instance_id, spot_id = request.launch(
        conn, functools.partial(_poll, vm_, "wait_for_spot", 600, 1))
    cloud_utils.cloud_event(name, "querying", {"instance_id": instance_id}, __opts__)
    instance = cloud_utils.finish_or_destroy(
        name, instance_id, lambda: _wait(conn, vm_, instance_id, "running"),
        lambda: _terminate(conn, name, instance_id, spot_id,
                           unprotect=bool(request.termination_protection)),
        cloud_utils.keep_on_failure(vm_, __opts__))
    node = {**ec2_nodes.describe(region, instance), "spot_request_id": spot_id}
    node.update(deploy.bootstrap(vm_, __opts__, node=node))
    cloud_utils.cloud_event(name, "created", {**vm_, "provider": _provider(),
                                              "instance_id": instance_id}, __opts__,
                            "created instance")
    return node


def _terminate(conn: Any, name: str, instance_id: str, spot_id: str | None = None,
               unprotect: bool = False) -> None:
    """Terminate ``instance_id`` (and cancel its spot request), with the destroy events.

    ``unprotect`` first lifts the termination protection (a failed create's own node).
    """
    cloud_utils.cloud_event(name, "destroying", {"name": name, "instance_id": instance_id},
                            __opts__, "destroying instance")
    if unprotect:
        conn.modify_instance_attribute(InstanceId=instance_id,
                                       DisableApiTermination={"Value": False})
    conn.terminate_instances(InstanceIds=[instance_id])
    if spot_id:
        conn.cancel_spot_instance_requests(SpotInstanceRequestIds=[spot_id])
    cloud_utils.cloud_event(name, "destroyed", {"name": name, "instance_id": instance_id},
                            __opts__, "destroyed instance")


def destroy(name: str, call: str | None = None) -> bool:
    """Terminate instance ``name`` (refused while its termination protection is on)."""
    cloud_utils.require_action("destroy", call)
    region, instance = _one(name)
    conn = get_conn(region)
    if ec2_nodes.protected(conn, instance["InstanceId"]):
        raise exception.CloudSystemExit(
            f"The instance {name} ({instance['InstanceId']}) is protected from being "
            f"destroyed. Disable the protection first: stackctl cloud-action "
            f"disable_term_protect {name}")
    _terminate(conn, name, instance["InstanceId"], ec2_nodes.spot_request_of(conn, instance))
    return True



# --- queries -----------------------------------------------------------------------

def list_nodes(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return ``{name: {id, image, size, state, private_ips, public_ips}}``."""
    cloud_utils.require_function("list_nodes", call)
    return cloud_utils.basic_nodes(list_nodes_full("function"))


def list_nodes_full(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return every instance of every region the provider uses, with every field.

    Instances share a name only when made outside Hearth; the second one is
    listed under its instance id.
    """
    cloud_utils.require_function("list_nodes_full", call)
    nodes: dict[str, dict[str, Any]] = {}
    for region, instance in _everywhere():
        name = ec2_nodes.name(instance)
        key = instance["InstanceId"] if name in nodes else name
        nodes[key] = ec2_nodes.describe(region, instance)
    return nodes


def list_nodes_select(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the fields of ``query.selection`` of every instance."""
    return cloud_utils.list_nodes_select(list_nodes_full("function"),
                                         __opts__.get("query.selection"), call)


def show_instance(name: str, call: str | None = None) -> dict[str, Any]:
    """Return every field of instance ``name``."""
    cloud_utils.require_action("show_instance", call)
    return ec2_nodes.describe(*_one(name))


def avail_images(kwargs: Mapping[str, Any] | None = None,
                 call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the AMIs of ``owner`` (the provider's ``owner``, else ``amazon``, as Salt).

    ``owner`` is ``amazon``, ``self``, an account id, several of them
    comma-separated, or ``all``.
    """
    cloud_utils.require_function("avail_images", call)
    owners = ec2_nodes.owners((kwargs or {}).get("owner"), get_configured_provider().get("owner"))
    request = {} if owners is None else {"Owners": owners}
    images = get_conn().describe_images(**request)["Images"]
    return {item["ImageId"]: ec2_nodes.image_record(item)
            for item in sorted(images, key=lambda item: item["ImageId"])}


def avail_sizes(kwargs: Mapping[str, Any] | None = None,
                call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the instance types (only those of ``sizes=a,b`` when given)."""
    cloud_utils.require_function("avail_sizes", call)
    wanted = (kwargs or {}).get("sizes")
    names = wanted.split(",") if isinstance(wanted, str) else wanted
    request = {"InstanceTypes": [str(n).strip() for n in names]} if names else {}
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


def script(vm_: Mapping[str, Any]) -> str:
    """Return the deploy script of ``vm_`` rendered (empty when it names none)."""
    return deploy.render_script(vm_, __opts__)


# --- actions -----------------------------------------------------------------------

#: action -> (boto3 method, state it ends in).
ACTIONS = {"start": ("start_instances", "running"), "stop": ("stop_instances", "stopped"),
           "reboot": ("reboot_instances", "running")}


def _instance_action(action: str, name: str, call: str | None) -> dict[str, Any]:
    cloud_utils.require_action(action, call)
    region, instance = _one(name)
    conn = get_conn(region)
    method, state = ACTIONS[action]
    cloud_utils.cloud_event(name, cloud_utils.ACTION_STAGES[action],
                            {"name": name, "instance_id": instance["InstanceId"]}, __opts__)
    getattr(conn, method)(InstanceIds=[instance["InstanceId"]])
    _wait(conn, {"name": name}, instance["InstanceId"], state)
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
    """Change instance ``name``'s type to ``kwargs['size']`` (stopped meanwhile if it runs).

    An unknown type is refused before anything stops.  When the change
    fails once the instance is stopped, the instance is started again with
    its old type and the error says so: a failed resize never leaves a
    running node stopped.
    """
    cloud_utils.require_action("resize", call)
    size = str((kwargs or {}).get("size") or "")
    if not size:
        raise exception.CloudSystemExit("resize needs size=<instance type>")
    region, instance = _one(name)
    conn = get_conn(region)
    instance_id, old = instance["InstanceId"], instance.get("InstanceType")
    avail_sizes({"sizes": size}, "function")  # InvalidInstanceType before any stop
    running = instance["State"]["Name"] == "running"
    if running:
        conn.stop_instances(InstanceIds=[instance_id])
        _wait(conn, {"name": name}, instance_id, "stopped")
    try:
        conn.modify_instance_attribute(InstanceId=instance_id, InstanceType={"Value": size})
    except Exception as error:
        if not running:
            raise
        conn.start_instances(InstanceIds=[instance_id])
        _wait(conn, {"name": name}, instance_id, "running")
        raise exception.CloudExecutionFailure(
            f"Resizing {name} ({instance_id}) to {size} failed: {type(error).__name__}: "
            f"{error}. The instance runs again with its size {old}.") from error
    if running:
        conn.start_instances(InstanceIds=[instance_id])
        _wait(conn, {"name": name}, instance_id, "running")
    return {"name": name, "size": size, "success": True}


def rename(name: str, kwargs: Mapping[str, Any] | None = None,
           call: str | None = None) -> dict[str, Any]:
    """Give instance ``name`` the name ``kwargs['newname']`` (its Name tag)."""
    cloud_utils.require_action("rename", call)
    new = str((kwargs or {}).get("newname") or "")
    if not new:
        raise exception.CloudSystemExit("rename needs newname=<name>")
    cloud_utils.check_name(new, "a-zA-Z0-9._ -")
    region, instance = _one(name)
    _refuse_taken(new)
    get_conn(region).create_tags(Resources=[instance["InstanceId"]],
                                 Tags=[{"Key": "Name", "Value": new}])
    return {"name": new, "old_name": name, "success": True}


def _set_protection(name: str, call: str | None, action: str, value: bool | None
                    ) -> dict[str, Any]:
    cloud_utils.require_action(action, call)
    region, instance = _one(name)
    conn = get_conn(region)
    if value is not None:
        conn.modify_instance_attribute(InstanceId=instance["InstanceId"],
                                       DisableApiTermination={"Value": value})
    return {name: {"termination_protection": ec2_nodes.protected(conn, instance["InstanceId"])}}


def show_term_protect(name: str, call: str | None = None) -> dict[str, Any]:
    """Show whether instance ``name`` is protected from termination."""
    return _set_protection(name, call, "show_term_protect", None)


def enable_term_protect(name: str, call: str | None = None) -> dict[str, Any]:
    """Protect instance ``name`` from termination."""
    return _set_protection(name, call, "enable_term_protect", True)


def disable_term_protect(name: str, call: str | None = None) -> dict[str, Any]:
    """Let instance ``name`` be terminated again."""
    return _set_protection(name, call, "disable_term_protect", False)


def capabilities(call: str | None = None) -> list[str]:
    """Return the optional actions this driver supports (Hearth's addition)."""
    cloud_utils.require_function("capabilities", call)
    return ["rename", "resize", "start", "stop"]
