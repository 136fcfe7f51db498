"""OS::Heat::WaitConditionHandle and OS::Heat::UpdateWaitConditionHandle.

A machine tells the stack it is ready by signalling the handle; the wait
condition (:mod:`hearth.plugins.wait_condition`) watches the handle.

Signals are kept in the handle's metadata as ``{id: {data, reason,
status}}`` (what ``resource-metadata`` shows, as Heat).  A signal body's
keys are all optional: status SUCCESS, reason "Signal N received", data
null and id N, where N is one more than the signals held; a signal with an
id already held replaces it.  Any other key, or another status, is refused
("Metadata format invalid").

``signal_transport``: ``TOKEN_SIGNAL`` (the default) gives the handle its
own token (:mod:`hearth.engine.resources.handle_tokens`), so a machine
signals with ``curl_cli`` and no user token; ``HEAT_SIGNAL`` needs a user
token at the handle's signal URL (``signal`` attribute: ``{"alarm_url"}``);
``NO_SIGNAL`` signals itself each time the condition looks.  The
transports that need other services (CFN_SIGNAL, TEMP_URL_SIGNAL,
ZAQAR_SIGNAL) are refused at validation.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, resource, support
from hearth.engine.resources import handle_tokens, signal_url, signals

LOG = logging.getLogger(__name__)

STATUSES = (STATUS_FAILURE, STATUS_SUCCESS) = ("FAILURE", "SUCCESS")
METADATA_KEYS = (DATA, REASON, STATUS, UNIQUE_ID) = ("data", "reason", "status", "id")


def _string_attribute(description: str) -> attributes.Schema:
    return attributes.Schema(description, cache_mode=attributes.Schema.CACHE_NONE,
                             type=attributes.Schema.STRING)


class WaitConditionHandle(resource.Resource):
    """Receives the signals of a wait condition (its own token authenticates them).

    A machine signals the handle with a ``POST`` of a JSON body
    ``{"status": "SUCCESS" or "FAILURE", "reason": ..., "data": ..., "id": ...}``
    to its ``endpoint`` (every key optional: status SUCCESS, reason "Signal N
    received", data null, id N); a signal with an id already held replaces
    it.  With ``signal_transport: TOKEN_SIGNAL`` (the default) the handle's
    own ``token`` authenticates the signal, so ``curl_cli`` plus
    ``--data-binary '{"status": "SUCCESS"}'`` is all a machine needs; that
    token is good for signalling this handle only.  The signals are the
    handle's metadata (``resource-metadata``).
    """

    support_status = support.SupportStatus(version="2014.2")
    keeps_secrets = True

    TRANSPORTS = (CFN_SIGNAL, TEMP_URL_SIGNAL, HEAT_SIGNAL, NO_SIGNAL, ZAQAR_SIGNAL,
                  TOKEN_SIGNAL) = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL",
                                   "ZAQAR_SIGNAL", "TOKEN_SIGNAL")
    SUPPORTED_TRANSPORTS = (TOKEN_SIGNAL, HEAT_SIGNAL, NO_SIGNAL)
    PROPERTIES = (SIGNAL_TRANSPORT,) = ("signal_transport",)
    ATTRIBUTES = (TOKEN, ENDPOINT, CURL_CLI, SIGNAL) = ("token", "endpoint", "curl_cli",
                                                       "signal")

    properties_schema = {
        SIGNAL_TRANSPORT: properties.Schema(
            properties.Schema.STRING,
            "How the client signals the wait condition. TOKEN_SIGNAL allows an HTTP POST "
            "to the handle's endpoint with the handle's own token; HEAT_SIGNAL allows "
            "resource-signal calls with a user's credentials; NO_SIGNAL puts the handle "
            "in a signalled state without waiting for any signal. CFN_SIGNAL, "
            "TEMP_URL_SIGNAL and ZAQAR_SIGNAL need services Hearth does not have.",
            default=TOKEN_SIGNAL, constraints=[constraints.AllowedValues(list(TRANSPORTS))],
            support_status=support.SupportStatus(version="6.0.0")),
    }

    attributes_schema = {
        TOKEN: _string_attribute(
            "Token which can be used for signalling the handle when signal_transport is "
            "TOKEN_SIGNAL. None for all other signal transports."),
        ENDPOINT: _string_attribute(
            "Endpoint/url which can be used for signalling the handle when "
            "signal_transport is TOKEN_SIGNAL. None for all other signal transports."),
        CURL_CLI: _string_attribute(
            "Convenience attribute: a curl command prefix which signals the handle when "
            "signal_transport is TOKEN_SIGNAL; add --data-binary '{\"status\": "
            "\"SUCCESS\"}' to signal success, or --data-binary '{\"status\": "
            "\"FAILURE\"}' to signal failure. None for all other signal transports."),
        SIGNAL: _string_attribute(
            "JSON serialized map of what a client needs to signal this handle; its "
            "contents depend on signal_transport."),
    }

    # --- life cycle ---------------------------------------------------------
    def validate(self) -> None:
        """Validate the properties; refuse the transports that need other services."""
        super().validate()
        transport = self.properties[self.SIGNAL_TRANSPORT]
        if transport not in self.SUPPORTED_TRANSPORTS:
            raise exception.StackValidationFailed(
                f"signal_transport {transport} is not supported by Hearth (it needs a "
                f"service Hearth does not have): use one of "
                f"{', '.join(self.SUPPORTED_TRANSPORTS)}.",
                error=properties.PROPERTY_ERROR,
                path=[self.name, "properties", self.SIGNAL_TRANSPORT])

    def _transport(self) -> str:
        return self.properties[self.SIGNAL_TRANSPORT]

    #: its handles change nothing outside Hearth's database (its token is resource data,
    #: written with its state): an engine taking an action over runs them again
    acts_outside = False

    def handle_create(self) -> None:
        """Name the handle; with TOKEN_SIGNAL, make its token and endpoint."""
        self.resource_id_set(self.physical_resource_name())
        if self._transport() == self.TOKEN_SIGNAL:
            self._token = handle_tokens.store(self)
            self.data_set(self.ENDPOINT, signal_url.signal_url(self))

    def handle_delete(self) -> None:
        """Forget the token: the endpoint takes no more signals from it."""
        if self.resource_id is not None:
            handle_tokens.forget(self)

    def event_secret_values(self) -> list[str]:
        """Return the token: events never show it (its attributes do)."""
        token = getattr(self, "_token", None)
        if token is None and self.db_id is not None:
            token = self.data_get().get(handle_tokens.TOKEN_KEY)
            self._token = token
        return [token] if token else []

    # --- signals ------------------------------------------------------------
    def handle_signal(self, details: Any = None) -> str:
        """Validate one signal and store it in the metadata; return what was stored."""
        written: list[dict[str, Any]] = []

        def merge(current: Any) -> dict[str, Any]:
            current = current if isinstance(current, dict) else {}
            entry = normalised(details, len(current) + 1)
            written.append(entry)
            current[str(entry.pop(UNIQUE_ID))] = entry
            return current

        self.stack.store.merge_metadata(self, merge)
        return f"status:{written[-1][STATUS]} reason:{written[-1][REASON]}"

    def held_signals(self) -> dict[str, dict[str, Any]]:
        """Return the signals held now (read from the store, never cached)."""
        held = self.stack.store.load_metadata(self)
        return held if isinstance(held, dict) else {}

    def statuses(self) -> list[str]:
        """Return the status of every signal held (NO_SIGNAL first signals itself)."""
        if self._transport() == self.NO_SIGNAL:
            signals.deliver(self, {})
        return [entry.get(STATUS) for entry in self.held_signals().values()]

    def reasons(self, status: str) -> list[str]:
        """Return the reasons of the signals held with ``status``."""
        return [str(entry.get(REASON)) for entry in self.held_signals().values()
                if entry.get(STATUS) == status]

    # --- attributes -----------------------------------------------------------
    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == self.SIGNAL:
            return json.dumps(self._signal_map())
        if self._transport() != self.TOKEN_SIGNAL:
            return None
        data = self.data_get()
        token, endpoint = data.get(handle_tokens.TOKEN_KEY), data.get(self.ENDPOINT)
        if name == self.TOKEN:
            return token
        if name == self.ENDPOINT:
            return endpoint
        if name == self.CURL_CLI and token and endpoint:
            return (f"curl -i -X POST -H 'X-Auth-Token: {token}' "
                    "-H 'Content-Type: application/json' -H 'Accept: application/json' "
                    f"{endpoint}")
        return None

    def _signal_map(self) -> dict[str, Any] | None:
        """Return the ``signal`` attribute's map (None for TOKEN_SIGNAL, as Heat)."""
        transport = self._transport()
        if transport == self.HEAT_SIGNAL:
            return {"alarm_url": signal_url.signal_url(self)}
        if transport == self.NO_SIGNAL:
            return {}
        return None


def normalised(details: Any, number: int) -> dict[str, Any]:
    """Return signal ``details`` with Heat's defaults for signal ``number``; ValueError if bad."""
    if details is None:
        details = {}
    if not isinstance(details, dict):
        raise ValueError("Metadata format invalid")
    entry = dict(details)
    entry.setdefault(REASON, f"Signal {number} received")
    entry.setdefault(DATA, None)
    entry.setdefault(UNIQUE_ID, number)
    entry.setdefault(STATUS, STATUS_SUCCESS)
    if set(entry) != set(METADATA_KEYS) or entry[STATUS] not in STATUSES:
        LOG.info("Metadata failed validation")
        raise ValueError("Metadata format invalid")
    return entry


class UpdateWaitConditionHandle(WaitConditionHandle):
    """A wait condition handle replaced by every stack update.

    A new handle (new token, no signals) comes with every update of its
    stack, so the machines must signal again: an update is complete only
    once its new configuration has been rolled out.
    """

    support_status = support.SupportStatus(version="2014.1")

    def _needs_update(self, after: Any, before: Any, after_props: properties.Properties,
                      before_props: properties.Properties, prev_resource: Any = None,
                      check_init_complete: bool = True) -> bool:
        """Always replace (a new handle, no signals)."""
        raise exception.UpdateReplace(self.name)


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::WaitConditionHandle": WaitConditionHandle,
            "OS::Heat::UpdateWaitConditionHandle": UpdateWaitConditionHandle}
