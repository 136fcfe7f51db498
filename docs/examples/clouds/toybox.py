"""A toy cloud driver: its nodes are entries of a JSON file (the guide's example).

Written as a Salt Cloud driver is; only the import lines name Hearth.
"""
# ruff: noqa: F821 - the loader gives the driver __opts__, __utils__, __active_provider_name__

import json
import os

from hearth.clouds.salt_names import SaltCloudNotFound, SaltCloudSystemExit, config, salt

__virtualname__ = "toybox"


def __virtual__():
    """Load when the provider names its file."""
    if get_configured_provider() is False:
        return False, "the toybox provider needs a 'path'"
    return __virtualname__


def get_configured_provider():
    """Return the provider's configuration, or False."""
    return config.is_provider_configured(
        __opts__, __active_provider_name__ or __virtualname__, ("path",))


def _load():
    path = get_configured_provider()["path"]
    if not os.path.exists(path):
        return {}
    with open(path) as stream:
        return json.load(stream)


def _save(nodes):
    with open(get_configured_provider()["path"], "w") as stream:
        json.dump(nodes, stream)


def create(vm_):
    """Make node vm_['name'] (instantly running)."""
    name = vm_["name"]
    __utils__["cloud.fire_event"](
        "event", "starting create", f"salt/cloud/{name}/creating",
        args=__utils__["cloud.filter_event"]("creating", vm_, ["name", "profile", "provider"]),
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    nodes = _load()
    nodes[name] = {"id": str(len(nodes) + 1), "image": vm_.get("image"),
                   "size": vm_.get("size"), "state": "RUNNING",
                   "private_ips": ["10.0.0.1"], "public_ips": []}
    _save(nodes)
    __utils__["cloud.fire_event"](
        "event", "created instance", f"salt/cloud/{name}/created", args={"name": name},
        sock_dir=__opts__["sock_dir"], transport=__opts__["transport"])
    return nodes[name]


def destroy(name, call=None):
    """Remove node name."""
    if call == "function":
        raise SaltCloudSystemExit(
            "The destroy action must be called with -d, --destroy, -a or --action.")
    nodes = _load()
    if nodes.pop(name, None) is None:
        raise SaltCloudNotFound(f"The specified node, '{name}', could not be found.")
    _save(nodes)
    return True


def list_nodes(call=None):
    """Return the nodes, six fields each."""
    if call == "action":
        raise SaltCloudSystemExit("The list_nodes function must be called with -f or --function.")
    return _load()


def list_nodes_select(call=None):
    """Return the selected fields of the nodes."""
    return salt.utils.cloud.list_nodes_select(list_nodes(), __opts__["query.selection"], call)


def show_instance(name, call=None):
    """Return node name."""
    if call != "action":
        raise SaltCloudSystemExit("The show_instance action must be called with -a or --action.")
    nodes = _load()
    if name not in nodes:
        raise SaltCloudNotFound(f"The specified node, '{name}', could not be found.")
    return nodes[name]
