"""A job published through the JobService and followed from the engine's green threads.

:class:`RemoteJob` publishes through the stack's JobService (as the stack's
owner: the service resolves the target and applies the owner's
publisher_acl) on a worker thread, and then asks for the job's status, one
short request at a time, each on a worker thread of its own (the service
opens a fresh master client per request, so nothing is kept between
polls).  ``poll`` never blocks: it answers None until the master reports
the job done, so a cancelled or deleted stack simply stops polling and
leaves nothing waiting behind.

The master decides when a job is done (Salt's meaning of ``timeout``: agents
that have not returned by then, and are not still running it, are reported
missing, ``No response`` or ``Not connected``).  :func:`agent_failures`
applies the resource's policy to the final status, and :func:`job_record`
turns it into the resource's attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hearth.common import exception
from hearth.engine.resource import now
from hearth.jobservice.caller_jobs import CallerJobs
from hearth.jobservice.request import JobRequest
from hearth.plugins._blocking import RUNNING, BlockingCall

#: Seconds between two status requests while a job runs.
POLL_DELAY = 0.2
#: Seconds the master may stay unreachable during a job before the resource fails.
UNREACHABLE_GRACE = 30.0
#: How much of an agent's return a failure message quotes.
QUOTE_LENGTH = 200


class RemoteJob:
    """One published job, followed until the master reports it done."""

    def __init__(self, stack: Any, jobs: CallerJobs, request: JobRequest,
                 published: Callable[[str, list[str]], None] | None = None,
                 jid: str | None = None, targeted: list[str] | None = None) -> None:
        """Publish ``request``; or, given the ``jid`` of a job published before, follow it.

        ``published(jid, targeted)`` is called once the master gave the job its id.
        """
        self.stack = stack
        self.jobs = jobs
        self.request = request
        self.jid = jid
        self.targeted: list[str] = list(targeted or [])
        self._published = published
        self._unreachable_since: float | None = None
        if jid is None:
            self._step = BlockingCall.start(stack, f"publishing {request.function}", None,
                                            jobs.publish, request)
        else:
            self._ask_status()

    def _ask_status(self) -> None:
        self._step = BlockingCall.start(self.stack, f"the status of job {self.jid}", None,
                                        self.jobs.job_status, self.jid)

    def poll(self) -> Any:
        """Return the job's final status once done, else None (raise what failed the job)."""
        try:
            value = self._step.poll(self.stack)
        except exception.MasterUnreachable:
            if self.jid is None:
                raise
            self._wait_for_master()
            return None
        if value is RUNNING:
            return None
        self._unreachable_since = None
        if self.jid is None:
            self.jid, self.targeted = value.jid, list(value.targeted)
            if self._published is not None:
                self._published(self.jid, self.targeted)
        elif value.done:
            return value
        self._ask_status()
        return None

    def _wait_for_master(self) -> None:
        """Ask again later, unless the master has been unreachable for too long."""
        clock = now(self.stack)
        if self._unreachable_since is None:
            self._unreachable_since = clock
        elif clock - self._unreachable_since >= UNREACHABLE_GRACE:
            raise exception.CommandExecutionError(
                f"{self.request.function} (job {self.jid}): the master stopped answering for "
                f"{UNREACHABLE_GRACE:g} seconds")
        self._ask_status()


def agent_failed(agent_return: Mapping[str, Any]) -> bool:
    """Return whether one agent's return is a failure (``success`` false or a retcode)."""
    return agent_return.get("success") is False or bool(agent_return.get("retcode"))


def agent_failures(status: Any, on_agent_failure: str, on_no_return: str) -> list[str]:
    """Return one line per agent that fails the resource under the given policy."""
    lines = []
    if on_agent_failure == "fail":
        for agent, agent_return in sorted(status.returns.items()):
            if agent_failed(agent_return):
                text = str(agent_return.get("return"))
                if len(text) > QUOTE_LENGTH:
                    text = text[:QUOTE_LENGTH] + "..."
                lines.append(f"{agent} failed with retcode {agent_return.get('retcode')}: "
                             f"{text}")
    if on_no_return == "fail":
        lines.extend(f"{agent} did not return [{reason}]"
                     for agent, reason in sorted(status.missing.items()))
    return lines


def failure_message(status: Any, lines: list[str]) -> str:
    """Return the resource's failure reason: the job, then one clause per failing agent."""
    return (f"{status.fun} (job {status.jid}) failed on {len(lines)} of "
            f"{len(status.targeted)} targeted agents: {'; '.join(lines)}")


def job_record(status: Any) -> dict[str, Any]:
    """Return the attributes of a finished remote job (see ExecCall's attributes)."""
    returns = {agent: r.get("return") for agent, r in sorted(status.returns.items())}
    retcodes = {agent: int(r.get("retcode") or 0) for agent, r in sorted(status.returns.items())}
    retcode = max(retcodes.values(), default=0) or (1 if status.missing else 0)
    single = next(iter(returns.values())) if len(returns) == 1 else None
    outputs = single if isinstance(single, dict) else {}
    return {"jid": status.jid, "return": returns, "returns": returns, "retcodes": retcodes,
            "retcode": retcode, "targeted": list(status.targeted),
            "missing": dict(status.missing), "stdout": outputs.get("stdout"),
            "stderr": outputs.get("stderr")}
