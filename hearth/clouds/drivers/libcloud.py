"""The ``libcloud`` driver: any apache-libcloud compute provider, one generic driver.

Provider configuration (``cloud.providers.d/*.conf``)::

    my-openstack:
      driver: libcloud
      provider: OPENSTACK          # a name of libcloud's Provider (EC2, GCE, ...)
      key: demo                    # the first credential (user, access key id...)
      secret: s3cr3t               # the second credential, when the provider has one
      driver_kwargs: {ex_force_auth_url: "http://keystone:5000", ...}

``provider: DUMMY`` uses libcloud's Dummy driver kept in a JSON file
(:mod:`hearth.clouds.libcloud_dummy`; ``state_file`` and ``boot_seconds``
are optional).  Profiles give ``image``, ``size`` and ``location`` by id or
name, and ``tags`` (sent as ``ex_metadata``) and ``user_data`` (sent as
``ex_userdata``) where the provider takes them.  ``deploy`` is off by
default (see :mod:`hearth.clouds.deploy`).
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Mapping
from typing import Any

from hearth.clouds import config, deploy
from hearth.clouds import utils as cloud_utils
from hearth.common import exception

try:
    from libcloud.compute.base import NodeDriver
    from libcloud.compute.providers import Provider, get_driver

    from hearth.clouds.libcloud_dummy import PersistentDummyNodeDriver

    HAS_LIBCLOUD = True
except ImportError:  # pragma: no cover - libcloud is a dependency of Hearth
    HAS_LIBCLOUD = False

LOG = logging.getLogger(__name__)

__virtualname__ = "libcloud"
__opts__: dict[str, Any] = {}
__active_provider_name__: str | None = None
__utils__: dict[str, Any] = {}
__context__: dict[str, Any] = {}

REQUIRED_KEYS = ("provider",)


def __virtual__() -> Any:
    """Load when libcloud imports and the provider names a known libcloud provider."""
    if not get_dependencies():
        return False, "the apache-libcloud library is not installed"
    conf = get_configured_provider()
    if not conf:
        return False, (f"the provider {__active_provider_name__ or __virtualname__} is not "
                       f"configured: it needs {', '.join(REQUIRED_KEYS)}")
    name = str(conf["provider"]).upper()
    if not hasattr(Provider, name):
        known = [n for n in dir(Provider) if n.isupper()]
        return False, (f"'{conf['provider']}' is not a libcloud compute provider."
                       f"{exception.did_you_mean(name, known)}")
    return __virtualname__


def get_configured_provider() -> Any:
    """Return the provider's configuration, or False when it lacks a required key."""
    return config.is_provider_configured(__opts__, __active_provider_name__ or __virtualname__,
                                         REQUIRED_KEYS)


def get_dependencies() -> bool:
    """Return whether the libraries this driver needs are installed."""
    return config.check_driver_dependencies(__virtualname__, {"libcloud": HAS_LIBCLOUD})


def _alias() -> str:
    return (__active_provider_name__ or __virtualname__).partition(":")[0]


def get_conn() -> Any:
    """Return a libcloud NodeDriver for the configured provider."""
    conf = get_configured_provider()
    name = str(conf["provider"]).upper()
    if name == "DUMMY":
        state_file = conf.get("state_file") or os.path.join(
            __opts__.get("state_path") or ".", "cloud", f"libcloud-dummy-{_alias()}.json")
        return PersistentDummyNodeDriver(0, state_file=state_file,
                                         boot_seconds=float(conf.get("boot_seconds") or 0))
    credentials = [conf[key] for key in ("key", "secret") if conf.get(key) is not None]
    return get_driver(getattr(Provider, name))(*credentials, **dict(conf.get("driver_kwargs")
                                                                   or {}))


# --- lookups -------------------------------------------------------------------

def _find(kind: str, wanted: Any, candidates: list[Any]) -> Any:
    """Return the image/size/location whose id or name is ``wanted``."""
    for candidate in candidates:
        if str(wanted) in (str(candidate.id), str(candidate.name)):
            return candidate
    names = ", ".join(sorted(str(c.name) for c in candidates))
    raise exception.CloudSystemExit(f"The specified {kind}, '{wanted}', could not be found "
                                    f"(available: {names}).")


def get_image(conn: Any, vm_: Mapping[str, Any]) -> Any:
    """Return the libcloud image ``vm_`` names (by id where the provider looks one up)."""
    wanted = config.get_cloud_config_value("image", vm_, __opts__)
    if type(conn).get_image is not _base_method("get_image"):
        try:  # one image by id, not the provider's whole catalogue (EC2: thousands)
            return conn.get_image(str(wanted))
        except Exception:  # noqa: BLE001 - any answer but an image: look for it by name
            LOG.debug("image %s is not an id of %s", wanted, conn.name, exc_info=True)
    return _find("image", wanted, conn.list_images())


def get_size(conn: Any, vm_: Mapping[str, Any]) -> Any:
    """Return the libcloud size ``vm_`` names."""
    return _find("size", config.get_cloud_config_value("size", vm_, __opts__),
                 conn.list_sizes())


def get_location(conn: Any, vm_: Mapping[str, Any]) -> Any:
    """Return the libcloud location ``vm_`` names, or None when it names none."""
    wanted = config.get_cloud_config_value("location", vm_, __opts__)
    return None if wanted is None else _find("location", wanted, conn.list_locations())


def _live_nodes(conn: Any) -> list[Any]:
    """Return the provider's nodes but the terminated ones (EC2 lists those for an hour)."""
    return [node for node in conn.list_nodes() if str(node.state).lower() != "terminated"]


def _node_by_name(conn: Any, name: str) -> Any:
    for node in _live_nodes(conn):
        if node.name == name:
            return node
    raise exception.CloudNodeNotFound(name, __active_provider_name__ or __virtualname__)


#: Where providers whose nodes carry no size or image object keep them in ``extra``.
EXTRA_SIZE_KEYS = ("instance_type", "flavorId", "machineType", "size")
EXTRA_IMAGE_KEYS = ("image_id", "imageId", "image")


def _from_extra(value: Any, extra: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    """Return the name of ``value`` (a libcloud object), else the first of ``keys`` in extra."""
    name = getattr(value, "name", value)
    if name not in (None, ""):
        return name
    return next((extra[key] for key in keys if extra.get(key) not in (None, "")), None)


def _describe(node: Any) -> dict[str, Any]:
    """Return every field of a node in plain types, secrets hidden."""
    extra = dict(node.extra or {})
    record = cloud_utils.node_record(node.id, _from_extra(node.image, extra, EXTRA_IMAGE_KEYS),
                                     _from_extra(node.size, extra, EXTRA_SIZE_KEYS),
                                     node.state, node.private_ips, node.public_ips)
    return cloud_utils.scrub(cloud_utils.simple_types({
        **record, "name": node.name, "extra": extra,
        "image_id": getattr(node.image, "id", None) or extra.get("image_id"),
        "size_id": getattr(node.size, "id", None) or extra.get("instance_type")}))


# --- create and destroy ------------------------------------------------------------

def _create_kwargs(conn: Any, vm_: Mapping[str, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"name": vm_["name"], "image": get_image(conn, vm_),
                              "size": get_size(conn, vm_)}
    location = get_location(conn, vm_)
    if location is not None:
        kwargs["location"] = location
    accepted = inspect.signature(conn.create_node).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in accepted.values())
    extras = {"ex_metadata": config.get_cloud_config_value("tags", vm_, __opts__),
              "ex_userdata": config.get_cloud_config_value("user_data", vm_, __opts__)}
    for key, value in extras.items():
        if value and (key in accepted or takes_any):
            kwargs[key] = value
    kwargs.update(config.get_cloud_config_value("create_kwargs", vm_, __opts__) or {})
    return kwargs


def _running(conn: Any, name: str) -> Any:
    """Return the node once it runs, None before (a wait_for_ip callback)."""
    try:
        node = _node_by_name(conn, name)
    except exception.CloudNodeNotFound:
        return False
    return node if str(node.state).lower() == "running" else None


def create(vm_: Mapping[str, Any]) -> dict[str, Any]:
    """Create node ``vm_['name']``, wait until it runs, deploy if asked; return its details."""
    name = vm_["name"]
    cloud_utils.check_name(name, "a-zA-Z0-9._-")
    provider = __active_provider_name__ or __virtualname__
    cloud_utils.cloud_event(name, "creating", {**vm_, "provider": provider}, __opts__,
                            "starting create")
    conn = get_conn()
    kwargs = _create_kwargs(conn, vm_)
    cloud_utils.cloud_event(name, "requesting", {
        "name": name, "image": kwargs["image"].name, "size": kwargs["size"].name,
        "location": getattr(kwargs.get("location"), "name", None)}, __opts__)
    node = conn.create_node(**kwargs)
    cloud_utils.cloud_event(name, "querying", {"instance_id": node.id}, __opts__)
    created = node
    node = cloud_utils.finish_or_destroy(
        name, str(node.id), lambda: cloud_utils.wait_for_ip(
            _running, update_args=(conn, name),
            timeout=config.get_cloud_config_value("wait_for_ip_timeout", vm_, __opts__, 300),
            interval=config.get_cloud_config_value("wait_for_ip_interval", vm_, __opts__,
                                                   0.5)),
        lambda: _destroy_node(conn, name, created),
        cloud_utils.keep_on_failure(vm_, __opts__))
    deployed = deploy.bootstrap(vm_, __opts__, node=_describe(node))
    cloud_utils.cloud_event(name, "created", {**vm_, "provider": provider,
                                              "instance_id": node.id}, __opts__,
                            "created instance")
    return {**_describe(node), **deployed}


def destroy(name: str, call: str | None = None) -> bool:
    """Destroy node ``name``."""
    cloud_utils.require_action("destroy", call)
    conn = get_conn()
    _destroy_node(conn, name, _node_by_name(conn, name))
    return True


def _destroy_node(conn: Any, name: str, node: Any) -> None:
    """Destroy ``node``, with the destroy events."""
    cloud_utils.cloud_event(name, "destroying", {"name": name, "instance_id": node.id},
                            __opts__, "destroying instance")
    conn.destroy_node(node)
    cloud_utils.cloud_event(name, "destroyed", {"name": name, "instance_id": node.id},
                            __opts__, "destroyed instance")


# --- queries -----------------------------------------------------------------------

def list_nodes(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return ``{name: {id, image, size, state, private_ips, public_ips}}``."""
    cloud_utils.require_function("list_nodes", call)
    return cloud_utils.basic_nodes(list_nodes_full("function"))


def list_nodes_full(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return every node with every field the provider gives."""
    cloud_utils.require_function("list_nodes_full", call)
    return {node.name: _describe(node) for node in _live_nodes(get_conn())}


def list_nodes_select(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the fields of ``query.selection`` of every node."""
    return cloud_utils.list_nodes_select(list_nodes_full("function"),
                                         __opts__.get("query.selection"), call)


def show_instance(name: str, call: str | None = None) -> dict[str, Any]:
    """Return every field of node ``name``."""
    cloud_utils.require_action("show_instance", call)
    return _describe(_node_by_name(get_conn(), name))


def _listing(items: list[Any], fields: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    return cloud_utils.simple_types({
        str(item.name): {field: getattr(item, field, None) for field in fields}
        for item in items})


def avail_images(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the provider's images by name."""
    cloud_utils.require_function("avail_images", call)
    return _listing(get_conn().list_images(), ("id", "name", "extra"))


def avail_sizes(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the provider's sizes by name."""
    cloud_utils.require_function("avail_sizes", call)
    return _listing(get_conn().list_sizes(), ("id", "name", "ram", "disk", "bandwidth",
                                              "price"))


def avail_locations(call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return the provider's locations by name."""
    cloud_utils.require_function("avail_locations", call)
    return _listing(get_conn().list_locations(), ("id", "name", "country"))


# --- actions -----------------------------------------------------------------------

def _node_action(action: str, name: str, call: str | None, method: str) -> dict[str, Any]:
    cloud_utils.require_action(action, call)
    conn = get_conn()
    node = _node_by_name(conn, name)
    if not hasattr(conn, method):
        raise exception.CloudSystemExit(f"The {conn.name} libcloud provider cannot {action} "
                                        "nodes.")
    cloud_utils.cloud_event(name, cloud_utils.ACTION_STAGES[action],
                            {"name": name, "instance_id": node.id}, __opts__)
    try:
        getattr(conn, method)(node)
    except NotImplementedError as error:
        raise exception.CloudSystemExit(f"The {conn.name} libcloud provider cannot {action} "
                                        "nodes.") from error
    return {"name": name, "action": action, "success": True}


def reboot(name: str, call: str | None = None) -> dict[str, Any]:
    """Reboot node ``name``."""
    return _node_action("reboot", name, call, "reboot_node")


def start(name: str, call: str | None = None) -> dict[str, Any]:
    """Start the stopped node ``name``."""
    return _node_action("start", name, call, "start_node")


def stop(name: str, call: str | None = None) -> dict[str, Any]:
    """Stop node ``name``."""
    return _node_action("stop", name, call, "stop_node")


def resize(name: str, kwargs: Mapping[str, Any] | None = None,
           call: str | None = None) -> dict[str, Any]:
    """Give node ``name`` the size ``kwargs['size']`` in place (providers with ex_resize)."""
    cloud_utils.require_action("resize", call)
    wanted = (kwargs or {}).get("size")
    if not wanted:
        raise exception.CloudSystemExit("resize needs size=<size name or id>")
    conn = get_conn()
    if not hasattr(conn, "ex_resize"):
        raise exception.CloudSystemExit(f"The {conn.name} libcloud provider cannot resize "
                                        "nodes.")
    node = _node_by_name(conn, name)
    conn.ex_resize(node, _find("size", wanted, conn.list_sizes()))
    return {"name": name, "size": str(wanted), "success": True}


def capabilities(call: str | None = None) -> list[str]:
    """Return the optional actions this provider supports (Hearth's addition)."""
    cloud_utils.require_function("capabilities", call)
    conn = get_conn()
    names = {"resize": "ex_resize", "start": "start_node", "stop": "stop_node"}
    return sorted(action for action, method in names.items()
                  if getattr(type(conn), method, None) is not None
                  and getattr(type(conn), method) is not _base_method(method))


def _base_method(method: str) -> Any:
    return getattr(NodeDriver, method, None)


def script(vm_: Mapping[str, Any]) -> str:
    """Return the deploy script of ``vm_`` rendered (empty when it names none)."""
    return deploy.render_script(vm_, __opts__)
