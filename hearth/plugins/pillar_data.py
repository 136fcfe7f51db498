"""Hearth::Pillar::Data: an agent's pillar (or one value of it) as resource attributes.

The pillar is read through the stack's JobService, with the rights of the
project that owns the stack: reading an agent's pillar needs the right to
run ``pillar.items`` on it (the local user always has it; a project, where
its publisher_acl allows).  It is compiled by hearth-master when this host
is one of its clients ([master] pki_dir holds the client key), from what
the master holds true about the agent; else in-process with this host's
grains (or the ``grains`` property) and the ``[pillar]`` configuration,
which is the right to run on the engine's own host.  The compile runs on
an OS thread, never on the engine's green threads.  A pillar with
``_errors`` fails the resource with them unless ``ignore_errors`` (or
``[pillar] fail_on_errors = False``).

Values under ``secret_keys`` paths are hidden wherever hidden parameters
are: events, API answers, stack-show outputs; the stored copy is redacted.
"""

from __future__ import annotations

import json
from typing import Any

from hearth.common import exception
from hearth.common.config import CONF
from hearth.engine import attributes, properties, resource, support
from hearth.pillar import ERRORS_KEY
from hearth.plugins._blocking import RUNNING, BlockingCall
from hearth.plugins.exec_call import stack_jobs
from hearth.utils.data import traverse

PILLAR_DATA = "pillar"
ERRORS_DATA = "errors"


def leaf_values(value: Any) -> list[str]:
    """Return every non-empty leaf under ``value`` as text."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaf_values(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaf_values(item)]
    return [] if value in (None, "") or isinstance(value, bool) else [str(value)]


class PillarData(resource.Resource):
    """The pillar of an agent, or the value at ``path``, as the ``data`` attribute.

    ``agent`` is an agent id (often ``{get_attr: [server, agent_id]}``);
    ``refresh`` recompiles on every update (otherwise only when ``agent``,
    ``pillarenv`` or ``grains`` change); check recompiles and reports
    ``_errors``; suspend and resume do nothing.
    """

    support_status = support.SupportStatus(version="2026.1")
    keeps_secrets = True

    PROPERTIES = (AGENT, PATH, REFRESH, SECRET_KEYS, IGNORE_ERRORS, PILLARENV, GRAINS,
                  TIMEOUT) = ("agent", "path", "refresh", "secret_keys", "ignore_errors",
                              "pillarenv", "grains", "timeout")
    ATTRIBUTES = (DATA, ERRORS) = ("data", "errors")

    properties_schema = {
        AGENT: properties.Schema(properties.Schema.STRING, "The agent id.", required=True,
                                 update_allowed=True),
        PATH: properties.Schema(properties.Schema.STRING,
                                "Only the value at this a:b:c path.", update_allowed=True),
        REFRESH: properties.Schema(properties.Schema.BOOLEAN,
                                   "Recompile the pillar on every update.", default=True,
                                   update_allowed=True),
        SECRET_KEYS: properties.Schema(
            properties.Schema.LIST, "Pillar paths (a:b:c) whose values are secret: hidden "
            "in events, API answers and stack-show like hidden parameters.", default=[],
            update_allowed=True),
        IGNORE_ERRORS: properties.Schema(
            properties.Schema.BOOLEAN, "Keep a pillar whose compile reported _errors (they "
            "are in the errors attribute) instead of failing.", default=False,
            update_allowed=True),
        PILLARENV: properties.Schema(properties.Schema.STRING,
                                     "Only this pillar environment (local compiles).",
                                     update_allowed=True),
        GRAINS: properties.Schema(properties.Schema.MAP, "The agent's grains for a local "
                                  "compile (default: this host's).", update_allowed=True),
        TIMEOUT: properties.Schema(properties.Schema.NUMBER,
                                   "Seconds the compile may take.", default=60,
                                   update_allowed=True),
    }

    attributes_schema = {
        DATA: attributes.Schema("The pillar (without _errors), or the value at path."),
        ERRORS: attributes.Schema("The errors of the last compile.", attributes.Schema.LIST),
    }

    _secret_cache: list[str] | None = None

    # --- compiling ----------------------------------------------------------
    def _start(self, props: properties.Properties) -> BlockingCall:
        grains = props[self.GRAINS]
        jobs = stack_jobs(self.stack, self.name)
        return BlockingCall.start(self.stack, f"compiling the pillar of {props[self.AGENT]}",
                                  props[self.TIMEOUT], jobs.agent_pillar, props[self.AGENT],
                                  props[self.PILLARENV], dict(grains) if grains else None)

    def _finish(self, call: BlockingCall | None) -> bool:
        if call is None:
            return True
        pillar = call.poll(self.stack)
        if pillar is RUNNING:
            return False
        errors = [str(e) for e in pillar.pop(ERRORS_KEY, None) or []]
        self._secret_cache = None
        self.data_set(PILLAR_DATA, json.dumps(pillar, default=str), redact=True)
        self.data_set(ERRORS_DATA, json.dumps(errors))
        if self.resource_id is None:
            self.resource_id_set(self.properties[self.AGENT])
        self._check_errors(errors)
        return True

    def _check_errors(self, errors: list[str]) -> None:
        fail = not self.properties[self.IGNORE_ERRORS] and CONF.pillar.fail_on_errors
        if errors and fail:
            raise exception.PillarHasErrors(self.properties[self.AGENT], errors)

    # --- the plug-in contract ------------------------------------------------
    def handle_create(self) -> BlockingCall:
        """Start compiling the agent's pillar."""
        return self._start(self.properties)

    def check_create_complete(self, call: BlockingCall | None) -> bool:
        """Store the pillar once compiled; fail on its errors."""
        return self._finish(call)

    def handle_create_continue(self) -> BlockingCall:
        """Compile the pillar again for a create another engine began (it only reads)."""
        return self.handle_create()

    def _needs_update(self, after: Any, before: Any, after_props: properties.Properties,
                      before_props: properties.Properties, prev_resource: Any = None,
                      check_init_complete: bool = True) -> bool:
        """Update on every stack update while ``refresh`` is on (the pillar may have changed)."""
        changed = super()._needs_update(after, before, after_props, before_props,
                                        prev_resource, check_init_complete)
        return changed or bool(after_props[self.REFRESH])

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> Any:
        """Take the new properties; recompile when refresh is on or the source changed."""
        self.properties = self.make_properties(json_snippet)
        self._secret_cache = None
        changed = {self.AGENT, self.PILLARENV, self.GRAINS} & set(prop_diff or {})
        if self.properties[self.REFRESH] or changed:
            return self._start(self.properties)
        return None

    def handle_update_continue(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> Any:
        """Take the update another engine began again (compiling only reads)."""
        return self.handle_update(json_snippet, tmpl_diff, prop_diff)

    def check_update_complete(self, call: BlockingCall | None) -> bool:
        """Wait for the recompile, if one was started."""
        return self._finish(call)

    def handle_check(self) -> BlockingCall:
        """Recompile, to report the pillar's current errors."""
        return self._start(self.properties)

    def check_check_complete(self, call: BlockingCall | None) -> bool:
        """Fail with the pillar's errors, if any."""
        return self._finish(call)

    def handle_suspend(self) -> None:
        """Nothing to suspend."""

    def handle_resume(self) -> None:
        """Nothing to resume."""

    # --- reading ------------------------------------------------------------
    def _stored(self, key: str, default: Any) -> Any:
        text = self.data_get().get(key)
        return json.loads(text) if text else default

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.ERRORS:
            return self._stored(ERRORS_DATA, [])
        if name == self.DATA:
            pillar = self._stored(PILLAR_DATA, {})
            path = self.properties[self.PATH]
            return traverse(pillar, path, None) if path else pillar
        return None

    def secret_values(self) -> list[str]:
        """Return the values under the ``secret_keys`` paths of the stored pillar."""
        if self._secret_cache is None:
            paths = self.properties[self.SECRET_KEYS] or []
            pillar = self._stored(PILLAR_DATA, {}) if paths else {}
            self._secret_cache = [value for path in paths
                                  for value in leaf_values(traverse(pillar, path, None))]
        return self._secret_cache


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"Hearth::Pillar::Data": PillarData}
