"""What events, outputs and previews show of a resource: its values with secrets masked.

:func:`mask` hides every string holding a secret (a hidden parameter's value,
a signal token) as ``******``; :func:`event_properties` is a definition's
properties resolved now and masked, as an event records them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hearth.common.secret_mask import SECRET_MASK
from hearth.engine.template import function

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView


def mask(value: Any, secrets: Iterable[str]) -> Any:
    """Return ``value`` with every secret string (or a string holding one) as ``******``."""
    secrets = [s for s in secrets if s]
    if not secrets:
        return value
    if isinstance(value, str):
        return SECRET_MASK if any(secret in value for secret in secrets) else value
    if isinstance(value, dict):
        return {key: mask(item, secrets) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask(item, secrets) for item in value]
    return value


def event_secrets(resource: ResourceView) -> list[str]:
    """Return the values only events hide (signal tokens: ``event_secret_values()``).

    Those of the secret keepers of the resource's stack.
    """
    keepers = getattr(resource.stack, "secret_keepers", ())
    return [value for keeper in keepers
            for value in getattr(keeper, "event_secret_values", list)()]


def event_properties(resource: ResourceView, secrets: Iterable[str]) -> dict[str, Any]:
    """Return the resource's definition's properties, resolved now, secrets masked.

    Besides ``secrets``, the values only events hide (:func:`event_secrets`)
    are masked.
    """
    secrets = [*secrets, *event_secrets(resource)]
    try:
        values = function.resolve(dict(getattr(resource.t, "properties", None) or {}))
    except Exception:  # noqa: BLE001 - an unresolvable property must not stop the event
        values = {}
    shown: dict[str, Any] = mask(values, secrets)
    return shown
