"""A cloud driver written to Salt Cloud's driver guide, as Salt's own drivers are.

Its nodes are entries of a JSON file (the provider's ``path``).  Only the
import lines differ from a driver for Salt (each says what it replaces):
the rest calls ``__utils__["cloud.*"]`` with ``__opts__["sock_dir"]`` and
``__opts__["transport"]``, ``salt.utils.cloud`` and ``salt.config`` as
Salt's in-tree drivers do.
"""
# ruff: noqa: F821, I001 - the loader injects the dunders; one import line per Salt import

import logging
import time

from hearth.clouds.salt_names import config  # import salt.config as config
from hearth.clouds.salt_names import salt  # import salt.utils.cloud, salt.utils.files, json
from hearth.clouds.salt_names import (  # from salt.exceptions import (...)
    SaltCloudExecutionFailure,
    SaltCloudExecutionTimeout,
    SaltCloudNotFound,
    SaltCloudSystemExit,
)

log = logging.getLogger(__name__)

__virtualname__ = "saltbox"


def __virtual__():
    """Load when the provider is configured."""
    if get_configured_provider() is False:
        return False
    return __virtualname__


def _get_active_provider_name():
    try:
        return __active_provider_name__.value()
    except AttributeError:
        return __active_provider_name__


def get_configured_provider():
    """Return the first configured provider, or False."""
    return config.is_provider_configured(
        __opts__, _get_active_provider_name() or __virtualname__, ("path",))


def _load():
    path = get_configured_provider()["path"]
    try:
        with salt.utils.files.fopen(path, "r") as stream:
            return salt.utils.json.loads(stream.read())
    except OSError:
        return {}


def _save(nodes):
    with salt.utils.files.fopen(get_configured_provider()["path"], "w") as stream:
        stream.write(salt.utils.json.dumps(nodes))


def avail_images(call=None):
    """Return the images."""
    if call == "action":
        raise SaltCloudSystemExit(
            "The avail_images function must be called with -f or --function, or with the "
            "--list-images option")
    return {"pebble": {"id": "pebble"}, "rock": {"id": "rock"}}


def avail_sizes(call=None):
    """Return the sizes."""
    if call == "action":
        raise SaltCloudSystemExit(
            "The avail_sizes function must be called with -f or --function, or with the "
            "--list-sizes option")
    return {"tiny": {"id": "tiny"}}


def list_nodes(call=None):
    """Return the nodes with the six fields."""
    if call == "action":
        raise SaltCloudSystemExit("The list_nodes function must be called with -f or --function.")
    fields = ("id", "image", "size", "state", "private_ips", "public_ips")
    return {name: {key: node[key] for key in fields}
            for name, node in list_nodes_full("function").items()}


def list_nodes_full(call=None):
    """Return the nodes with every field."""
    if call == "action":
        raise SaltCloudSystemExit(
            "The list_nodes_full function must be called with -f or --function.")
    nodes = _load()
    __utils__["cloud.cache_node_list"](nodes, _get_active_provider_name().split(":")[0],
                                       __opts__)
    return nodes


def list_nodes_select(call=None):
    """Return the selected fields of the nodes."""
    return salt.utils.cloud.list_nodes_select(
        list_nodes_full("function"), __opts__["query.selection"], call)


def show_instance(name, call=None):
    """Show one node."""
    if call != "action":
        raise SaltCloudSystemExit("The show_instance action must be called with -a or --action.")
    nodes = _load()
    if name not in nodes:
        raise SaltCloudNotFound(f"The specified node, '{name}', could not be found.")
    __utils__["cloud.cache_node"](nodes[name], _get_active_provider_name(), __opts__)
    return nodes[name]


def _query_node_data(name):
    nodes = _load()
    node = nodes.get(name)
    if node is None:
        return False
    if node["state"] != "running":
        node["state"] = "running"  # this cloud boots on the second look
        _save(nodes)
        return None
    return node


def create(vm_):
    """Create a node, as Salt's drivers do."""
    try:
        if vm_["profile"] and config.is_profile_configured(
                __opts__, _get_active_provider_name() or "saltbox", vm_["profile"],
                vm_=vm_) is False:
            return False
    except AttributeError:
        pass

    __utils__["cloud.fire_event"](
        "event", "starting create", "salt/cloud/{}/creating".format(vm_["name"]),
        args=__utils__["cloud.filter_event"]("creating", vm_,
                                             ["name", "profile", "provider", "driver"]),
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    log.info("Creating Cloud VM %s", vm_["name"])
    kwargs = {"name": vm_["name"],
              "image": config.get_cloud_config_value("image", vm_, __opts__),
              "size": config.get_cloud_config_value("size", vm_, __opts__)}
    if kwargs["image"] not in avail_images("function"):
        raise SaltCloudNotFound("The specified image, '{}', could not be found.".format(
            kwargs["image"]))
    __utils__["cloud.fire_event"](
        "event", "requesting instance", "salt/cloud/{}/requesting".format(vm_["name"]),
        args={"kwargs": __utils__["cloud.filter_event"]("requesting", kwargs, list(kwargs))},
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    nodes = _load()
    nodes[vm_["name"]] = {
        "id": str(int(time.time() * 1000)), "image": kwargs["image"], "size": kwargs["size"],
        "state": "pending", "private_ips": ["10.1.0.7"], "public_ips": ["192.0.2.7"],
        "name": vm_["name"]}
    _save(nodes)

    try:
        data = salt.utils.cloud.wait_for_ip(
            _query_node_data, update_args=(vm_["name"],),
            timeout=config.get_cloud_config_value("wait_for_ip_timeout", vm_, __opts__,
                                                  default=10 * 60),
            interval=config.get_cloud_config_value("wait_for_ip_interval", vm_, __opts__,
                                                   default=0.1))
    except (SaltCloudExecutionTimeout, SaltCloudExecutionFailure) as exc:
        try:
            destroy(vm_["name"])
        except SaltCloudSystemExit:
            pass
        finally:
            raise SaltCloudSystemExit(str(exc))

    vm_["ssh_host"] = data["public_ips"][0]
    ret = __utils__["cloud.bootstrap"](vm_, __opts__)
    ret.update(data)
    __utils__["cloud.cachedir_index_add"](vm_["name"], vm_["profile"], "saltbox", vm_["driver"])
    __utils__["cloud.fire_event"](
        "event", "created instance", "salt/cloud/{}/created".format(vm_["name"]),
        args=__utils__["cloud.filter_event"]("created", vm_,
                                             ["name", "profile", "provider", "driver"]),
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    return ret


def destroy(name, call=None):
    """Destroy a node."""
    if call == "function":
        raise SaltCloudSystemExit(
            "The destroy action must be called with -d, --destroy, -a or --action.")
    __utils__["cloud.fire_event"](
        "event", "destroying instance", f"salt/cloud/{name}/destroying", args={"name": name},
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    nodes = _load()
    if nodes.pop(name, None) is None:
        raise SaltCloudNotFound(f"The specified node, '{name}', could not be found.")
    _save(nodes)
    __utils__["cloud.fire_event"](
        "event", "destroyed instance", f"salt/cloud/{name}/destroyed", args={"name": name},
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    if __opts__.get("update_cachedir", False) is True:
        __utils__["cloud.delete_minion_cachedir"](
            name, _get_active_provider_name().split(":")[0], __opts__)
    __utils__["cloud.cachedir_index_del"](name)
    return True


def reboot(name, call=None):
    """Reboot a node."""
    if call != "action":
        raise SaltCloudSystemExit("The reboot action must be called with -a or --action.")
    show_instance(name, call="action")
    __utils__["cloud.fire_event"](
        "event", "rebooting instance", f"salt/cloud/{name}/rebooting", args={"name": name},
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    return {"Rebooting": name}


def script(vm_):
    """Return the deploy script of the node."""
    return salt.utils.cloud.os_script(
        config.get_cloud_config_value("script", vm_, __opts__), vm_, __opts__,
        salt.utils.cloud.salt_config_to_yaml(salt.utils.cloud.minion_config(__opts__, vm_)))
