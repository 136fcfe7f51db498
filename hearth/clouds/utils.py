"""Helpers cloud drivers use, mirroring ``salt.utils.cloud``.

A driver written for Salt Cloud reaches these as ``__utils__["cloud.<name>"]``
(the loader packs :func:`hearth.clouds.salt_names.utils_for`) or imports this
module in place of ``salt.utils.cloud`` (see :mod:`hearth.clouds.salt_names`).
Everything that leaves a driver for the bus goes through :func:`scrub`:
passwords, keys and tokens never reach an event.
"""

from __future__ import annotations

import collections
import inspect
import ipaddress
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hearth import bus
from hearth.clouds import config
from hearth.common import exception
from hearth.common.secret_mask import SECRET_MASK

LOG = logging.getLogger(__name__)

#: What a secret is shown as.

#: Parts of a key name that mark its value as a secret (compared in lower case).
SECRET_KEY_WORDS = ("password", "passwd", "secret", "token", "private_key", "priv_key",
                    "key_material", "ssh_key", "api_key", "apikey", "access_key",
                    "credential")

#: Key names that are secrets on their own (libcloud's and Salt's ec2 ``key``).
SECRET_KEY_NAMES = frozenset({"key", "pem", "keyfile", "user_data"})

#: The payload keys of each stage kept by :func:`filter_event` by default.
EVENT_DEFAULTS: dict[str, tuple[str, ...]] = {
    "creating": ("name", "profile", "provider", "driver"),
    "requesting": ("name", "image", "size", "location"),
    "querying": ("instance_id",),
    "waiting_for_ssh": ("ip_address",),
    "deploying": ("name", "host", "kwargs"),
    "created": ("name", "profile", "provider", "driver", "instance_id"),
    "destroying": ("name", "instance_id"),
    "destroyed": ("name", "instance_id"),
    "rebooting": ("name", "instance_id"),
    "starting": ("name", "instance_id"),
    "stopping": ("name", "instance_id"),
}

#: The event stage fired by each node action.
ACTION_STAGES = {"reboot": "rebooting", "start": "starting", "stop": "stopping"}

#: The six fields of a ``list_nodes`` entry, exactly.
NODE_FIELDS = ("id", "image", "size", "state", "private_ips", "public_ips")


def basic_nodes(full: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return ``list_nodes`` from ``list_nodes_full``: each node's six NODE_FIELDS only."""
    return {name: {key: node[key] for key in NODE_FIELDS} for name, node in full.items()}


#: The types a driver's answer may hold as they are (anything else becomes its text).
SIMPLE_TYPES = (str, int, float, bool, type(None))


def simple_types(value: Any) -> Any:
    """Return ``value`` in plain types: mappings, lists and scalars (others as text).

    SDK objects (libcloud's network interfaces, boto3's datetimes...) become
    their text, so every answer can be shown as YAML or JSON, as Salt's
    ``simple_types_filter`` does for query results.
    """
    if isinstance(value, Mapping):
        return {key if isinstance(key, SIMPLE_TYPES) else str(key): simple_types(item)
                for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [simple_types(item) for item in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, SIMPLE_TYPES) else str(value)


def is_secret_key(name: Any) -> bool:
    """Return whether a payload key's name says its value is a secret."""
    lowered = str(name).lower()
    return lowered in SECRET_KEY_NAMES or any(word in lowered for word in SECRET_KEY_WORDS)


def scrub(value: Any, secret_values: Iterable[str] = ()) -> Any:
    """Return ``value`` with every secret hidden.

    A value is hidden when its key names a secret (:func:`is_secret_key`)
    or when it contains one of ``secret_values`` (credentials the caller
    knows, such as the provider's).
    """
    known = tuple(str(s) for s in secret_values if s and len(str(s)) >= 4)
    return _scrub(value, known)


def _scrub(value: Any, known: tuple[str, ...]) -> Any:
    if isinstance(value, Mapping):
        return {key: SECRET_MASK if is_secret_key(key) and item not in (None, "")
                else _scrub(item, known) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(item, known) for item in value]
    if isinstance(value, str) and any(secret in value for secret in known):
        return SECRET_MASK
    return value


def event_tag(tag: str) -> str:
    """Return the Hearth tag of a cloud event (``salt/cloud/...`` becomes ``hearth/cloud/...``)."""
    return "hearth/" + tag[len("salt/"):] if tag.startswith("salt/") else tag


#: Tag prefix -> the queue its events go to instead of the bus (see :func:`capture_events`).
_CAPTURES: dict[str, collections.deque] = {}


def capture_events(prefix: str) -> collections.deque:
    """Send events whose tag starts with ``prefix`` to the returned queue, not the bus.

    A driver running on a worker thread must not touch the bus of a
    green-threaded engine; the engine side drains the queue and publishes
    (:func:`release_events` ends the capture).
    """
    queue: collections.deque = collections.deque()
    _CAPTURES[prefix] = queue
    return queue


def release_events(prefix: str) -> None:
    """End the capture of ``prefix`` (events go to the bus again)."""
    _CAPTURES.pop(prefix, None)


def fire_event(key: str, msg: Any, tag: str, sock_dir: Any = None, args: Mapping | None = None,
               transport: Any = None) -> None:
    """Publish ``args`` plus ``{key: msg}`` under ``tag`` on the bus, secrets hidden.

    ``sock_dir`` and ``transport`` are accepted for Salt drivers and unused:
    the process's bus carries the event (or a capture queue takes it).
    """
    data = dict(args or {})
    data[key] = msg
    tag = event_tag(tag)
    data = scrub(data)
    for prefix, queue in list(_CAPTURES.items()):
        if tag.startswith(prefix):
            queue.append(bus.Event(tag, data))
            return
    bus.publish(tag, data)


def filter_event(tag: str, data: Mapping[str, Any], defaults: Iterable[str],
                 opts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return the part of ``data`` an event of stage ``tag`` may carry.

    The ``defaults`` keys are kept, plus those named by the ``filter_events``
    option (``{<stage>: {keys: [...], use_defaults: true}}``), as Salt's.
    """
    settings = ((opts or {}).get("filter_events") or {}).get(tag) or {}
    keys = list(defaults) if settings.get("use_defaults", True) else []
    keys += list(settings.get("keys") or ())
    return scrub({key: data[key] for key in keys if key in data})


def cloud_event(name: str, stage: str, data: Mapping[str, Any],
                opts: Mapping[str, Any] | None = None, message: str | None = None) -> None:
    """Fire the ``hearth/cloud/<name>/<stage>`` event with the filtered ``data``."""
    payload = filter_event(stage, data, EVENT_DEFAULTS.get(stage, ()), opts)
    fire_event("event", message or f"{stage} instance", f"hearth/cloud/{name}/{stage}",
               args=payload)


def is_public_ip(ip: str) -> bool:
    """Return whether ``ip`` is routable on the internet (not private, loopback, link-local)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return not (address.is_private or address.is_loopback or address.is_link_local
                or address.is_reserved or address.is_multicast or address.is_unspecified)


def wait_for_ip(update_callback: Callable[..., Any], update_args: Iterable[Any] = (),
                update_kwargs: Mapping[str, Any] | None = None, timeout: float = 300,
                interval: float = 5, interval_multiplier: float = 1, max_failures: int = 10,
                sleep: Callable[[float], None] = time.sleep,
                clock: Callable[[], float] = time.monotonic) -> Any:
    """Poll ``update_callback`` until it returns a value, as Salt's ``wait_for_ip``.

    ``None`` means not yet; ``False`` counts a failure (more than
    ``max_failures`` raises :class:`CloudExecutionFailure`); anything else is
    returned.  Past ``timeout`` seconds :class:`CloudExecutionTimeout` is
    raised.  The interval grows by ``interval_multiplier`` after each poll.
    """
    deadline = clock() + timeout
    failures = 0
    while True:
        answer = update_callback(*update_args, **dict(update_kwargs or {}))
        if answer is False:
            failures += 1
            if failures > max_failures:
                raise exception.CloudExecutionFailure(
                    f"Too many failures occurred while waiting for the IP address "
                    f"({failures} > {max_failures}).")
        elif answer is not None:
            return answer
        if clock() >= deadline:
            raise exception.CloudExecutionTimeout(
                f"Unable to get the IP address within {timeout:g} seconds.")
        sleep(min(interval, max(0.0, deadline - clock())))
        interval *= interval_multiplier


#: Errors a failed create keeps the class of (each takes one message).
MESSAGE_ERRORS = (exception.CloudExecutionTimeout, exception.CloudExecutionFailure,
                  exception.CloudSystemExit, exception.CloudConfigError)


def keep_on_failure(vm_: Mapping[str, Any], opts: Mapping[str, Any]) -> bool:
    """Return whether a node whose create failed is kept (``keep_on_failure``) for inspection."""
    return config.is_true(config.get_cloud_config_value("keep_on_failure", vm_, opts, False))


def finish_or_destroy(name: str, node_id: str, finish: Callable[[], Any],
                      destroy: Callable[[], Any], keep: bool = False) -> Any:
    """Return ``finish()`` (the wait after a node was requested), or clean up.

    When ``finish`` fails the node is destroyed, as Salt's drivers do when
    the wait fails, so that no orphan is left running and a retry makes no
    duplicate; with ``keep`` (:func:`keep_on_failure`) it is left for
    inspection.  The error raised names the node, its id and what became of
    it, and keeps the class of the original error when it is a cloud error.
    """
    try:
        return finish()
    except Exception as error:
        LOG.debug("cloud node %s (%s) failed after its request", name, node_id, exc_info=True)
        if keep:
            outcome = (f"The node was kept (keep_on_failure): destroy it with 'stackctl "
                       f"cloud-destroy {name}'.")
        else:
            try:
                destroy()
                outcome = "The node was destroyed."
            except Exception as cleanup:  # noqa: BLE001 - reported with the first error
                LOG.debug("cloud node %s: destroy after failure failed", name, exc_info=True)
                outcome = (f"Destroying it failed too ({type(cleanup).__name__}: {cleanup}): "
                           f"destroy it with 'stackctl cloud-destroy {node_id}'.")
        kind = type(error) if type(error) in MESSAGE_ERRORS else exception.CloudExecutionFailure
        text = str(error) if isinstance(error, exception.HearthException) \
            else f"{type(error).__name__}: {error}"
        raise kind(f"{name} ({node_id}): {text.rstrip('.')}. {outcome}") from error


def wait_for_fun(fun: Callable[..., Any], timeout: float = 900,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> Any:
    """Call ``fun(**kwargs)`` until it stops raising; return its result.

    The last error is re-raised after ``timeout`` seconds.
    """
    deadline = clock() + timeout
    while True:
        try:
            return fun(**kwargs)
        except Exception:
            if clock() >= deadline:
                raise
            LOG.debug("waiting for %s", getattr(fun, "__name__", fun), exc_info=True)
            sleep(1)


def check_name(name: str, safe_chars: str) -> None:
    """Raise :class:`CloudSystemExit` when ``name`` has a character outside ``safe_chars``.

    ``safe_chars`` is a regular-expression character-class body such as
    ``a-zA-Z0-9-.``.
    """
    invalid = re.compile(f"[^{safe_chars}]")
    if invalid.search(name):
        raise exception.CloudSystemExit(
            f"{name} contains characters not supported by this cloud provider. "
            f"Valid characters are: {safe_chars}")


def list_nodes_select(nodes: Mapping[str, Mapping[str, Any]], selection: Any,
                      call: str | None = None) -> dict[str, dict[str, Any]]:
    """Return each node's fields named in ``selection`` (a list or a comma-separated string)."""
    if call == "action":
        raise exception.CloudSystemExit(function_only_message("list_nodes_select"))
    if not selection:
        raise exception.CloudSystemExit("query.selection not found in the cloud options: "
                                        "name the fields to select.")
    fields = [f.strip() for f in selection.split(",")] if isinstance(selection, str) \
        else list(selection)
    return {name: {field: node[field] for field in fields if field in node}
            for name, node in nodes.items()}


def node_record(node_id: Any, image: Any, size: Any, state: Any, private_ips: Iterable[str],
                public_ips: Iterable[str]) -> dict[str, Any]:
    """Return one ``list_nodes`` entry: exactly the six fields, ips as lists, the rest strings."""
    def text(value: Any) -> str:
        return "" if value is None else str(value)
    return {"id": text(node_id), "image": text(image), "size": text(size),
            "state": text(state).upper(), "private_ips": list(private_ips or ()),
            "public_ips": list(public_ips or ())}


# --- the calling conventions -------------------------------------------------

def action_only_message(name: str) -> str:
    """Return Salt's words for an action called as a function."""
    if name == "destroy":
        return "The destroy action must be called with -d, --destroy, -a or --action."
    return f"The {name} action must be called with -a or --action."


def function_only_message(name: str) -> str:
    """Return Salt's words for a function called as an action."""
    listing = {"avail_images": "--list-images", "avail_sizes": "--list-sizes",
               "avail_locations": "--list-locations"}.get(name)
    if listing:
        return (f"The {name} function must be called with -f or --function, or with the "
                f"{listing} option")
    return f"The {name} function must be called with -f or --function."


def require_action(name: str, call: str | None) -> None:
    """Raise :class:`CloudSystemExit` unless ``call`` is ``action`` (``destroy`` takes None too)."""
    if call == "function" or (call != "action" and name != "destroy"):
        raise exception.CloudSystemExit(action_only_message(name))


def require_function(name: str, call: str | None) -> None:
    """Raise :class:`CloudSystemExit` when a provider function is called as an action."""
    if call == "action":
        raise exception.CloudSystemExit(function_only_message(name))


def takes_argument(function: Callable[..., Any], name: str) -> bool:
    """Return whether ``function`` accepts an argument called ``name``."""
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


# --- the rest of salt.utils.cloud: the node cache and the deploy helpers ---------

from hearth.clouds.cachedir import (  # noqa: E402 - re-exported as salt.utils.cloud's
    cache_node,
    cache_node_list,
    cachedir_index_add,
    cachedir_index_del,
    delete_minion_cachedir,
)
from hearth.clouds.salt_deploy import (  # noqa: E402 - re-exported as salt.utils.cloud's
    get_salt_interface,
    minion_config,
    os_script,
    remove_sshkey,
    salt_config_to_yaml,
    userdata_template,
    wait_for_port,
)

__all__ = [
    "NODE_FIELDS", "action_only_message", "basic_nodes", "cache_node",
    "cache_node_list", "cachedir_index_add", "cachedir_index_del", "capture_events",
    "check_name", "cloud_event", "delete_minion_cachedir", "event_tag", "filter_event",
    "finish_or_destroy", "fire_event", "function_only_message", "get_salt_interface",
    "is_public_ip", "is_secret_key", "keep_on_failure", "list_nodes_select", "minion_config",
    "node_record", "os_script", "release_events", "remove_sshkey", "require_action",
    "require_function", "salt_config_to_yaml", "scrub", "simple_types", "takes_argument",
    "userdata_template", "wait_for_fun", "wait_for_ip", "wait_for_port",
]
