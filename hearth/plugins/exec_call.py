"""Hearth::Exec::Call: run an execution function (``module.function``) as a resource.

The call runs as a job (JID, bus events, job cache) on this engine's host,
in a real OS thread, so the engine's green threads keep running; the
resource polls for its end.  A call that raises, or (with
``fail_on_retcode``) ends with a non-zero retcode or a falsy
``result``/``success``, fails the resource with the function's own error
text: there is no silent success.
"""

from __future__ import annotations

import functools
import json
import os
import socket
from dataclasses import dataclass, field
from typing import Any

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, resource, scheduler, support

RUN_ON_ACTIONS = (resource.CREATE, resource.UPDATE)
LOCAL_TARGETS = ("local", "localhost")
DATA_KEY = "call"


@functools.lru_cache(maxsize=1)
def local_runner() -> Any:
    """Return the engine process's job runner (one loader of execution modules)."""
    from hearth.jobs import JobRunner, ProcTable
    from hearth.loader import execution_loader, opts_from_conf

    opts = opts_from_conf()
    return JobRunner(execution_loader(opts), opts.get("id") or socket.gethostname(),
                     proc=ProcTable(os.path.join(opts["cachedir"], "proc")))


def store_in_job_cache(job: Any) -> None:
    """Record a finished job in the job cache."""
    from hearth.db import job_cache
    from hearth.db.session import get_database

    job_cache.job_store(get_database(), job)


@dataclass
class PendingCall:
    """A call running on a worker thread: the cookie of handle_* / check_*."""

    function: str
    started: float
    timeout: float | None
    finished: scheduler.Event = field(default_factory=scheduler.Event)


def failure_text(job: Any) -> str:
    """Return why a finished job failed, in the function's own words."""
    if job.error:
        return job.error
    ret = job.ret
    if isinstance(ret, dict):
        detail = ret.get("comment") or ret.get("stderr") or ret.get("stdout")
        return str(detail) if detail else json.dumps(ret, default=str)
    return str(ret)


def _call_schema(description: str) -> dict[str, properties.Schema]:
    return {
        "function": properties.Schema(properties.Schema.STRING, description, required=True,
                                      update_allowed=True),
        "args": properties.Schema(properties.Schema.LIST, "Positional arguments.",
                                  default=[], update_allowed=True),
        "kwargs": properties.Schema(properties.Schema.MAP, "Keyword arguments.",
                                    default={}, update_allowed=True),
    }


class ExecCall(resource.Resource):
    """Run an execution function when the resource is created or updated.

    ``function`` is ``module.function`` as ``stackctl call`` takes it, with
    ``args`` and ``kwargs``.  ``on_delete`` names another call made when
    the resource is deleted.  The attributes expose the job's return,
    retcode and JID, and stdout/stderr when the function returns them.
    """

    support_status = support.SupportStatus(version="2026.1")

    PROPERTIES = (FUNCTION, ARGS, KWARGS, TARGET, RUN_ON, ON_DELETE, TIMEOUT,
                  FAIL_ON_RETCODE) = ("function", "args", "kwargs", "target", "run_on",
                                      "on_delete", "timeout", "fail_on_retcode")
    ATTRIBUTES = (RETURN, RETCODE, JID, STDOUT, STDERR) = (
        "return", "retcode", "jid", "stdout", "stderr")

    properties_schema = {
        **_call_schema("The execution function to call, as module.function."),
        TARGET: properties.Schema(
            properties.Schema.STRING, "The host that runs the call (default: the engine's "
            "own host; remote agents are not available yet).", update_allowed=True),
        RUN_ON: properties.Schema(
            properties.Schema.LIST, "Actions on which the function is called.",
            default=list(RUN_ON_ACTIONS), update_allowed=True,
            constraints=[constraints.AllowedValues(list(RUN_ON_ACTIONS))]),
        ON_DELETE: properties.Schema(
            properties.Schema.MAP, "A call made when the resource is deleted.",
            schema=_call_schema("The function to call on delete."), update_allowed=True),
        TIMEOUT: properties.Schema(
            properties.Schema.NUMBER, "Seconds the call may take before the resource fails.",
            update_allowed=True, constraints=[constraints.Range(min=0)]),
        FAIL_ON_RETCODE: properties.Schema(
            properties.Schema.BOOLEAN, "Fail the resource when the call's retcode is not 0.",
            default=True, update_allowed=True),
    }

    attributes_schema = {
        RETURN: attributes.Schema("What the function returned."),
        RETCODE: attributes.Schema("The job's retcode (0 on success).",
                                   attributes.Schema.INTEGER),
        JID: attributes.Schema("The job id of the last call.", attributes.Schema.STRING),
        STDOUT: attributes.Schema("Standard output, when the function returns it.",
                                  attributes.Schema.STRING),
        STDERR: attributes.Schema("Standard error, when the function returns it.",
                                  attributes.Schema.STRING),
    }

    #: builds the job runner (a seam for tests).
    runner_factory = staticmethod(local_runner)
    #: records a finished job (a seam for tests).
    store_job = staticmethod(store_in_job_cache)

    # --- starting and finishing a call -------------------------------------

    def _check_target(self, props: properties.Properties, runner: Any) -> None:
        target = props[self.TARGET]
        if target and target not in (*LOCAL_TARGETS, runner.minion_id, socket.gethostname()):
            raise exception.NotSupported(
                feature=f"Running {props[self.FUNCTION]} on target {target!r} "
                        "(remote agents)")

    def _start(self, call: dict[str, Any], props: properties.Properties) -> PendingCall:
        runner = self.runner_factory()
        self._check_target(props, runner)
        function = call[self.FUNCTION]
        runner.loader.function(function)  # a missing or refused function fails here, at once
        pending = PendingCall(function, resource.now(self.stack), props[self.TIMEOUT])
        scheduler.spawn(self._execute, runner, call, pending, props[self.TARGET])
        return pending

    def _execute(self, runner: Any, call: dict[str, Any], pending: PendingCall,
             target: str | None) -> None:
        try:
            job = scheduler.run_blocking(runner.run, call[self.FUNCTION],
                                         list(call.get(self.ARGS) or ()),
                                         dict(call.get(self.KWARGS) or {}), target=target)
            self.store_job(job)
        except Exception as error:  # noqa: BLE001 - handed to the polling green thread
            pending.finished.send((None, error))
        else:
            pending.finished.send((job, None))

    def _finish(self, pending: PendingCall | None, fail_on_retcode: bool) -> bool:
        if pending is None:
            return True
        if not pending.finished.ready():
            elapsed = resource.now(self.stack) - pending.started
            if pending.timeout is not None and elapsed >= pending.timeout:
                raise exception.CommandExecutionError(
                    f"{pending.function} timed out after {pending.timeout:g} seconds")
            return False
        job, error = pending.finished.wait()
        if error is not None:
            raise error
        self._record(job)
        if job.error or (fail_on_retcode and job.retcode):
            raise exception.CommandExecutionError(
                f"{job.fun} failed with retcode {job.retcode}: {failure_text(job)}")
        return True

    def _record(self, job: Any) -> None:
        ret = job.ret
        outputs = ret if isinstance(ret, dict) else {}
        self.resource_id_set(job.jid)
        self.data_set(DATA_KEY, json.dumps({
            self.JID: job.jid, self.RETCODE: job.retcode, self.RETURN: ret,
            self.STDOUT: outputs.get("stdout"), self.STDERR: outputs.get("stderr")},
            default=str))

    def _call_of(self, props: properties.Properties) -> dict[str, Any]:
        return {key: props[key] for key in (self.FUNCTION, self.ARGS, self.KWARGS)}

    # --- the plug-in contract ----------------------------------------------

    def handle_create(self) -> PendingCall | None:
        """Start the call when CREATE is in run_on."""
        if resource.CREATE not in self.properties[self.RUN_ON]:
            return None
        return self._start(self._call_of(self.properties), self.properties)

    def check_create_complete(self, pending: PendingCall | None) -> bool:
        """Return whether the call ended; raise its failure."""
        return self._finish(pending, self.properties[self.FAIL_ON_RETCODE])

    def handle_update(self, json_snippet: Any, tmpl_diff: Any,
                      prop_diff: Any) -> tuple[PendingCall | None, bool]:
        """Call again with the new properties when UPDATE is in run_on."""
        after = self.make_properties(json_snippet)
        if resource.UPDATE not in after[self.RUN_ON]:
            return None, True
        return self._start(self._call_of(after), after), after[self.FAIL_ON_RETCODE]

    def check_update_complete(self, cookie: tuple[PendingCall | None, bool]) -> bool:
        """Return whether the update's call ended; raise its failure."""
        return self._finish(*cookie)

    def handle_delete(self) -> PendingCall | None:
        """Make the on_delete call, if any."""
        call = self.properties[self.ON_DELETE]
        if not call:
            return None
        return self._start(call, self.properties)

    def check_delete_complete(self, pending: PendingCall | None) -> bool:
        """Return whether the on_delete call ended; raise its failure."""
        return self._finish(pending, self.properties[self.FAIL_ON_RETCODE])

    def _resolve_attribute(self, name: str) -> Any:
        stored = self.data_get().get(DATA_KEY)
        if not stored:
            return None
        return (json.loads(stored) if isinstance(stored, str) else stored).get(name)


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"Hearth::Exec::Call": ExecCall}
