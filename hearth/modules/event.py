"""Fire events: on this process's bus, or on the master's bus from an agent (Salt's ``event``)."""

from __future__ import annotations

from typing import Any

from hearth import bus
from hearth.common import exception


def _channel() -> Any:
    channel = __opts__.get("agent_channel")  # noqa: F821 - injected by the loader
    if channel is None:
        raise exception.CommandExecutionError(
            "no master to send the event to: event.send and event.fire_master work on "
            "agents (hearth-agent), not in stackctl call --local")
    return channel


def send(tag: str, data: dict[str, Any] | None = None, with_grains: bool | list = False,
         with_pillar: bool | list = False, **kwargs: Any) -> bool:
    """Send an event with ``tag`` to the master's bus; return True.

    ``with_grains`` / ``with_pillar`` add all grains or pillar (True) or the
    listed keys; other keyword arguments are added to the data.
    """
    payload = dict(data or {})
    payload.update({key: value for key, value in kwargs.items() if not key.startswith("__")})
    for wanted, source, name in ((with_grains, __grains__, "grains"),  # noqa: F821
                                 (with_pillar, __pillar__, "pillar")):  # noqa: F821
        if wanted:
            keys = wanted if isinstance(wanted, list) else list(source)
            payload[name] = {key: source.get(key) for key in keys}
    _channel().fire_event(tag, payload)
    return True


def fire_master(data: dict[str, Any], tag: str) -> bool:
    """Fire ``data`` under ``tag`` on the master's bus; return True."""
    _channel().fire_event(tag, dict(data or {}))
    return True


def fire(data: dict[str, Any], tag: str) -> bool:
    """Fire ``data`` under ``tag`` on this process's own bus; return True."""
    bus.publish(tag, dict(data or {}))
    return True
