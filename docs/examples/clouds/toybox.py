"""A toy cloud driver: its nodes are entries of a JSON file (the guide's example).

Written as a Salt Cloud driver is; only the imports name Hearth.
"""

import json
import os

from hearth.clouds import config
from hearth.clouds import utils as cloud_utils
from hearth.common.exception import CloudNodeNotFound

__virtualname__ = "toybox"
__opts__ = {}
__active_provider_name__ = None


def __virtual__():
    """Load when the provider names its file."""
    if not get_configured_provider():
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
    cloud_utils.fire_event("event", "starting create", f"salt/cloud/{name}/creating",
                           args={"name": name, "profile": vm_.get("profile")})
    nodes = _load()
    nodes[name] = cloud_utils.node_record(len(nodes) + 1, vm_.get("image"), vm_.get("size"),
                                          "running", ["10.0.0.1"], [])
    _save(nodes)
    cloud_utils.fire_event("event", "created instance", f"salt/cloud/{name}/created",
                           args={"name": name})
    return nodes[name]


def destroy(name, call=None):
    """Remove node name."""
    cloud_utils.require_action("destroy", call)
    nodes = _load()
    if nodes.pop(name, None) is None:
        raise CloudNodeNotFound(name)
    _save(nodes)
    return True


def list_nodes(call=None):
    """Return the nodes, six fields each."""
    cloud_utils.require_function("list_nodes", call)
    return _load()


def show_instance(name, call=None):
    """Return node name."""
    cloud_utils.require_action("show_instance", call)
    nodes = _load()
    if name not in nodes:
        raise CloudNodeNotFound(name)
    return nodes[name]
