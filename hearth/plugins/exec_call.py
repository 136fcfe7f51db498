"""Hearth::Exec::Call: run an execution function (``module.function``) as a resource.

Without ``target`` (or with ``local``) the call runs as a job on the
engine's own host, in a real OS thread.  With a target it is published
through hearth-master to the agents the target selects
(:mod:`hearth.plugins._remote_job`).  Either way it goes through the stack's
JobService, with the rights of the project that owns the stack: its
publisher_acl on agents, and on the engine's host only the local user (or a
project ``[api] engine_host_projects`` names); a refusal fails the resource
naming the function, the target and the project.  The resource polls for
the end and the engine's green threads keep running; a call that fails
fails the resource with the function's own words and the agents' names:
there is no silent success.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from hearth.agent.batch import batch_size
from hearth.agent.targeting import TARGET_TYPES, compile_target
from hearth.common import exception
from hearth.engine import attributes, constraints, properties, resource, support
from hearth.jobservice.caller_jobs import CallerJobs
from hearth.jobservice.request import JobRequest
from hearth.plugins import _remote_job as remote
from hearth.plugins._blocking import RUNNING, BlockingCall

LOG = logging.getLogger(__name__)

RUN_ON_ACTIONS = (resource.CREATE, resource.UPDATE)
LOCAL_TARGETS = ("local", "localhost")
POLICIES = ("fail", "ignore")
DATA_KEY = "call"
#: Resource data: the ``watch`` values (JSON) as they were at the last call.
WATCHED_KEY = "watched"


def stack_jobs(stack: Any, name: str) -> CallerJobs:
    """Return the stack's JobService (as its owner); fail clearly where there is none."""
    jobs = stack.jobs
    if jobs is None:
        raise exception.CommandExecutionError(
            f"{name}: this stack's engine has no JobService, so it runs no jobs")
    return jobs


def failure_text(job: Any) -> str:
    """Return why a finished job failed, in the function's own words."""
    if job.error:
        return job.error
    ret = job.ret
    if isinstance(ret, dict):
        detail = ret.get("comment") or ret.get("stderr") or ret.get("stdout")
        return str(detail) if detail else json.dumps(ret, default=str)
    return str(ret)


def local_record(job: Any) -> dict[str, Any]:
    """Return the attributes of a finished local job (the same shape as a remote one)."""
    ret = job.ret
    outputs = ret if isinstance(ret, dict) else {}
    return {"jid": job.jid, "return": ret, "returns": {job.id: ret},
            "retcodes": {job.id: job.retcode}, "retcode": job.retcode, "targeted": [job.id],
            "missing": {}, "stdout": outputs.get("stdout"), "stderr": outputs.get("stderr")}


@dataclass
class Call:
    """A call in progress (the cookie of handle_* / check_*): its work and its properties."""

    work: BlockingCall | remote.RemoteJob
    props: properties.Properties
    action: str


def _call_schema(description: str) -> dict[str, properties.Schema]:
    return {
        "function": properties.Schema(properties.Schema.STRING, description, required=True,
                                      update_allowed=True),
        "args": properties.Schema(properties.Schema.LIST, "Positional arguments.",
                                  default=[], update_allowed=True),
        "kwargs": properties.Schema(properties.Schema.MAP, "Keyword arguments.",
                                    default={}, update_allowed=True),
    }


def _policy(description: str) -> properties.Schema:
    return properties.Schema(properties.Schema.STRING, description, default="fail",
                             update_allowed=True,
                             constraints=[constraints.AllowedValues(list(POLICIES))])


class ExecCall(resource.Resource):
    """Run an execution function when the resource is created or updated.

    ``function`` is ``module.function`` as ``stackctl call`` takes it, with
    ``args`` and ``kwargs``.  Without ``target`` (or with ``local``) it runs
    on the engine's host; otherwise ``target`` and ``target_type`` select
    agents as ``stackctl run`` does (Salt's target types) and the call is a
    job published through hearth-master, optionally in batches.  ``pillar``
    is Salt's per-call override: it reaches the function as its ``pillar=``
    keyword, as ``stackctl run ... pillar=...`` sends it, so functions that
    compile pillar (``pillar.items``...) merge it over the host's pillar for
    this call only.  ``timeout`` is, as in Salt, how long to wait for agents
    to return (locally: how long the call may take).

    As any Heat resource, a call is updated, and so made again, only when
    its properties change; ``depends_on`` orders it but never makes it run
    again.  ``watch`` is Salt's watch requisite in those terms: values that
    only decide when to call again, typically ``{get_resource: CALL}`` (a
    call's id is its last job id), so that reading a file follows each new
    writing of it.

    By default the resource fails when any agent's call fails
    (``on_agent_failure``) or an agent does not return in time
    (``on_no_return``), naming them; ``ignore`` completes the resource and
    leaves the outcome in the attributes.  ``on_delete`` names another call
    made, on the same target, when the resource is deleted; when no agent
    matches any more there is nothing to undo and the delete completes.

    Suspend and resume do nothing: a call is neither undone nor repeated.
    Check asks the master whether every agent the last call targeted is
    still connected (a local call always passes).  Cancelling or deleting
    the stack while a call runs stops waiting for it; agents finish what
    they started.
    """

    support_status = support.SupportStatus(version="2026.1")

    PROPERTIES = (FUNCTION, ARGS, KWARGS, TARGET, TARGET_TYPE, RUN_ON, ON_DELETE, TIMEOUT,
                  BATCH, PILLAR, FAIL_ON_RETCODE, ON_AGENT_FAILURE, ON_NO_RETURN, WATCH) = (
        "function", "args", "kwargs", "target", "target_type", "run_on", "on_delete",
        "timeout", "batch", "pillar", "fail_on_retcode", "on_agent_failure", "on_no_return",
        "watch")
    ATTRIBUTES = (RETURN, RETCODE, JID, STDOUT, STDERR, RETURNS, RETCODES, TARGETED,
                  MISSING) = ("return", "retcode", "jid", "stdout", "stderr", "returns",
                              "retcodes", "targeted", "missing")

    properties_schema = {
        **_call_schema("The execution function to call, as module.function."),
        TARGET: properties.Schema(
            properties.Schema.STRING, "Which agents run the call, a target expression of "
            "target_type (e.g. 'web*', or an agent id from {get_attr: [server, agent_id]}); "
            "absent or 'local': the engine's own host.", update_allowed=True),
        TARGET_TYPE: properties.Schema(
            properties.Schema.STRING, "How target selects agents (Salt's target types; a "
            "list target is comma-separated).", default="glob", update_allowed=True,
            constraints=[constraints.AllowedValues(list(TARGET_TYPES))]),
        RUN_ON: properties.Schema(
            properties.Schema.LIST, "Actions on which the function is called.",
            default=list(RUN_ON_ACTIONS), update_allowed=True,
            constraints=[constraints.AllowedValues(list(RUN_ON_ACTIONS))]),
        ON_DELETE: properties.Schema(
            properties.Schema.MAP, "A call made (on the same target) when the resource is "
            "deleted.", schema=_call_schema("The function to call on delete."),
            update_allowed=True),
        TIMEOUT: properties.Schema(
            properties.Schema.NUMBER, "Seconds to wait for agents to return (the master's "
            "timeout when absent); for a local call, seconds it may take.",
            update_allowed=True, constraints=[constraints.Range(min=0)]),
        BATCH: properties.Schema(
            properties.Schema.STRING, "Run on this many agents at a time: N, or P% of the "
            "targeted agents.", update_allowed=True),
        PILLAR: properties.Schema(
            properties.Schema.MAP, "Pillar data merged over the host's pillar for this call "
            "only (Salt's pillar= keyword, given to the function).", update_allowed=True),
        FAIL_ON_RETCODE: properties.Schema(
            properties.Schema.BOOLEAN, "Fail the resource when the call's retcode is not 0 "
            "(false: a retcode alone fails nothing, locally or on agents).",
            default=True, update_allowed=True),
        ON_AGENT_FAILURE: _policy(
            "When an agent's call fails (or the local call raises): 'fail' the resource, "
            "naming the agents, or 'ignore' it (the attributes keep each outcome)."),
        ON_NO_RETURN: _policy(
            "When a targeted agent does not return within timeout ('No response', 'Not "
            "connected'): 'fail' the resource, naming the agents, or 'ignore' it; also "
            "decides whether check fails when a targeted agent is disconnected."),
        WATCH: properties.Schema(
            properties.Schema.LIST, "What this call follows, as Salt's watch requisite: "
            "when a stack update changes one of these values, the call is made again "
            "(with run_on: UPDATE). Give it another call's {get_resource: CALL}, its job id, "
            "to call again each time that one ran again. The function does not get them.",
            default=[], update_allowed=True),
    }

    attributes_schema = {
        RETURN: attributes.Schema("What the function returned ({agent: return} for a "
                                  "remote call)."),
        RETCODE: attributes.Schema("The job's retcode: 0 on success, else the highest agent "
                                   "retcode (1 when only returns are missing).",
                                   attributes.Schema.INTEGER),
        JID: attributes.Schema("The job id of the last call.", attributes.Schema.STRING),
        STDOUT: attributes.Schema("Standard output, when one host ran the call and the "
                                  "function returns it.", attributes.Schema.STRING),
        STDERR: attributes.Schema("Standard error, when one host ran the call and the "
                                  "function returns it.", attributes.Schema.STRING),
        RETURNS: attributes.Schema("Each host's return, by agent id.", attributes.Schema.MAP),
        RETCODES: attributes.Schema("Each host's retcode, by agent id.", attributes.Schema.MAP),
        TARGETED: attributes.Schema("The agent ids the last call targeted.",
                                    attributes.Schema.LIST),
        MISSING: attributes.Schema("Targeted agents that did not return, with the reason "
                                   "('No response' or 'Not connected').",
                                   attributes.Schema.MAP),
    }

    # --- validation ----------------------------------------------------------

    def validate(self) -> None:
        """Check the properties, the target expression's syntax and the batch size."""
        super().validate()
        checks = ((self.BATCH, self._check_batch), (self.TARGET, self._check_target))
        for key, check in checks:
            try:
                check(self.properties)
            except exception.BadRequest as error:
                raise exception.StackValidationFailed(
                    str(error), error="Property error",
                    path=[self.name, "properties", key]) from None

    def _check_batch(self, props: properties.Properties) -> None:
        if props[self.BATCH] is not None:
            batch_size(props[self.BATCH], 1)

    def _check_target(self, props: properties.Properties) -> None:
        """Compile the target once (nodegroups are the master's: it checks those)."""
        target, target_type = props[self.TARGET], props[self.TARGET_TYPE]
        if self._is_local(props) or not target or target_type == "nodegroup" or "N@" in target:
            return  # unresolved yet, or the master's nodegroups: checked when published
        compile_target(target, target_type)

    # --- starting and finishing a call -------------------------------------

    def _is_local(self, props: properties.Properties) -> bool:
        """Return whether the call runs on the engine's host (no target, or 'local').

        A target the template gives through a function counts as remote even
        while it is unresolved (validation) or empty: an empty agent id is an
        error, never a reason to run on the engine's host.
        """
        if props.data.get(self.TARGET) is None:
            return True
        return props[self.TARGET] in LOCAL_TARGETS

    def _start(self, call: dict[str, Any], props: properties.Properties, action: str,
               published: dict[str, Any] | None = None) -> Call:
        """Make the call: publish it (or, given ``published``, follow the job it was)."""
        if action != resource.DELETE:
            self.data_set(WATCHED_KEY, _watched_text(props[self.WATCH]))
        function, args = call[self.FUNCTION], list(call.get(self.ARGS) or ())
        kwargs = dict(call.get(self.KWARGS) or {})
        jobs = stack_jobs(self.stack, self.name)
        if not self._is_local(props):
            if not props[self.TARGET]:
                raise exception.InvalidTarget(props[self.TARGET], props[self.TARGET_TYPE],
                                              "the target is empty")
            request = JobRequest(function, args, kwargs, props[self.TARGET],
                                 props[self.TARGET_TYPE], props[self.TIMEOUT],
                                 props[self.BATCH], dict(props[self.PILLAR] or {}) or None)
            known = published or {}
            return Call(remote.RemoteJob(
                self.stack, jobs, request, self._published, known.get(self.JID),
                known.get(self.TARGETED)), props, action)
        if published is not None:
            raise exception.ActionNotContinuable(
                f"the call of {function} on the engine's host ended with the engine that "
                "made it; what it did is not known", action)
        if props[self.PILLAR]:
            kwargs["pillar"] = dict(props[self.PILLAR])
        jobs.check_engine_host(function)  # refused, or a missing function: fails here, at once
        work = BlockingCall.start(self.stack, function, props[self.TIMEOUT],
                                  jobs.run_on_engine_host, function, args, kwargs,
                                  props[self.TARGET], False)  # recorded below, on this thread
        return Call(work, props, action)

    def _finish(self, call: Call | None) -> bool | float:
        if call is None:
            return True
        if isinstance(call.work, remote.RemoteJob):
            return self._finish_remote(call)
        job = call.work.poll(self.stack)
        if job is RUNNING:
            return False
        stack_jobs(self.stack, self.name).record_local_job(job)
        self._record(local_record(job))
        props = call.props
        failed = job.error or (props[self.FAIL_ON_RETCODE] and job.retcode)
        if failed and props[self.ON_AGENT_FAILURE] == "fail":
            raise exception.CommandExecutionError(
                f"{job.fun} failed with retcode {job.retcode}: {failure_text(job)}")
        return True

    def _finish_remote(self, call: Call) -> bool | float:
        try:
            status = call.work.poll()
        except exception.NoAgentsMatched:
            if call.action != resource.DELETE:
                raise
            LOG.info("%s: no agent matches %r any more; nothing to undo", self.name,
                     call.props[self.TARGET])
            return True
        if status is None:
            return remote.POLL_DELAY
        self._record(remote.job_record(status))
        props = call.props
        agent_policy = props[self.ON_AGENT_FAILURE] if props[self.FAIL_ON_RETCODE] else "ignore"
        lines = remote.agent_failures(status, agent_policy, props[self.ON_NO_RETURN])
        if lines:
            raise exception.CommandExecutionError(remote.failure_message(status, lines))
        return True

    def _published(self, jid: str, targeted: list[str]) -> None:
        """Store the job's id as soon as the master gave it (an engine taking over follows it)."""
        self.progress_set({self.JID: jid, self.TARGETED: targeted})

    def _continue(self, call: dict[str, Any] | None, props: properties.Properties,
                  action: str) -> Call | None:
        """Follow the job of a call another engine made, known by its stored id.

        A call on agents whose job id was stored is followed to its end
        (never published again); one on the engine's host, or one whose id
        the dead engine never stored (it died publishing), cannot be: the
        resource fails, saying so, rather than run the call twice.
        """
        if not call:
            return None
        progress = self.progress()
        if progress is None and self._is_local(props):
            progress = {}  # (a local call stores no job id: what it did died with the engine)
        if progress is None:
            raise exception.ActionNotContinuable(
                f"the call of {call[self.FUNCTION]} may have been published before the engine "
                "went down, and no job id was stored to follow it", action)
        return self._start(call, props, action, progress)

    def _record(self, record: dict[str, Any]) -> None:
        self.resource_id_set(record["jid"])
        self.data_set(DATA_KEY, json.dumps(record, default=str))

    def _recorded(self) -> dict[str, Any]:
        stored = self.data_get().get(DATA_KEY)
        if not stored:
            return {}
        return json.loads(stored) if isinstance(stored, str) else stored

    def _call_of(self, props: properties.Properties) -> dict[str, Any]:
        return {key: props[key] for key in (self.FUNCTION, self.ARGS, self.KWARGS)}

    # --- the plug-in contract ----------------------------------------------

    def handle_create(self) -> Call | None:
        """Start the call when CREATE is in run_on."""
        if resource.CREATE not in self.properties[self.RUN_ON]:
            return None
        return self._start(self._call_of(self.properties), self.properties, resource.CREATE)

    def check_create_complete(self, call: Call | None) -> bool | float:
        """Return whether the call ended (a number: poll again after it); raise its failure."""
        return self._finish(call)

    def handle_create_continue(self) -> Call | None:
        """Follow the job of the create's call another engine made (docs/plugin-guide.rst)."""
        if resource.CREATE not in self.properties[self.RUN_ON]:
            return None
        return self._continue(self._call_of(self.properties), self.properties, resource.CREATE)

    def _needs_update(self, after: Any, before: Any, after_props: properties.Properties,
                      before_props: properties.Properties, prev_resource: Any = None,
                      check_init_complete: bool = True) -> bool:
        """Return whether to update: the definition changed, or a watched value did.

        A watched value (``{get_resource: CALL}``, an attribute) resolves to
        what it is now in both definitions; what it was is recorded at each call.
        """
        if super()._needs_update(after, before, after_props, before_props, prev_resource,
                                 check_init_complete):
            return True
        recorded = self.data_get().get(WATCHED_KEY)
        return recorded is not None and recorded != _watched_text(after_props[self.WATCH])

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> Call | None:
        """Call again with the new properties when UPDATE is in run_on."""
        after = self.make_properties(json_snippet)
        if resource.UPDATE not in after[self.RUN_ON]:
            return None
        return self._start(self._call_of(after), after, resource.UPDATE)

    def check_update_complete(self, call: Call | None) -> bool | float:
        """Return whether the update's call ended; raise its failure."""
        return self._finish(call)

    def handle_update_continue(self, json_snippet: Any, tmpl_diff: Any,
                               prop_diff: Any) -> Call | None:
        """Follow the job of the update's call another engine made."""
        after = self.make_properties(json_snippet)
        if resource.UPDATE not in after[self.RUN_ON]:
            return None
        return self._continue(self._call_of(after), after, resource.UPDATE)

    def handle_delete(self) -> Call | None:
        """Make the on_delete call, if any."""
        call = self.properties[self.ON_DELETE]
        if not call:
            return None
        return self._start(call, self.properties, resource.DELETE)

    def check_delete_complete(self, call: Call | None) -> bool | float:
        """Return whether the on_delete call ended; raise its failure."""
        return self._finish(call)

    def handle_delete_continue(self) -> Call | None:
        """Follow the job of the on_delete call another engine made."""
        return self._continue(self.properties[self.ON_DELETE], self.properties,
                              resource.DELETE)

    def handle_check(self) -> BlockingCall | None:
        """Ask the master which agents are connected (nothing to ask for a local call)."""
        if self._is_local(self.properties) or not self._recorded().get(self.TARGETED):
            return None
        return BlockingCall.start(self.stack, "listing the master's agents", None,
                                  stack_jobs(self.stack, self.name).list_agents)

    def check_check_complete(self, listing: BlockingCall | None) -> bool | float:
        """Fail (unless on_no_return is ignore) when a targeted agent is not connected."""
        if listing is None:
            return True
        agents = listing.poll(self.stack)
        if agents is RUNNING:
            return remote.POLL_DELAY
        if self.properties[self.ON_NO_RETURN] != "fail":
            return True
        listed = {agent["id"]: bool(agent.get("connected")) for agent in agents}
        record = self._recorded()
        targeted = record[self.TARGETED]
        problems = []
        unlisted = [agent for agent in targeted if agent not in listed]
        if unlisted:
            problems.append("no longer among the agents this stack's project may target "
                            f"(key deleted, or publisher_acl narrowed): {', '.join(unlisted)}")
        gone = [agent for agent in targeted if agent in listed and not listed[agent]]
        if gone:
            problems.append(f"not connected: {', '.join(gone)}")
        if problems:
            raise exception.CommandExecutionError(
                f"agents targeted by job {record[self.JID]} are {'; '.join(problems)}")
        return True

    def _resolve_attribute(self, name: str) -> Any:
        return self._recorded().get(name)


def _watched_text(values: Any) -> str:
    """Return ``watch`` values as comparable text."""
    return json.dumps(values, sort_keys=True, default=str)


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"Hearth::Exec::Call": ExecCall}
