"""Jobs: run an execution function on agents (any target type), returns arriving live, the cache.

A job is published through the API (``POST /jobs`` with ``async``): the
project's publisher_acl decides, and a refusal is the API's error.  The
job's page then streams each agent's return as the job cache gets it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from hearth.cli.commands.exec_modules import KEYWORD, parse_value
from hearth.common import exception
from hearth.console import sse
from hearth.console.app import PREFIX, Redirect, Stream, View
from hearth.console.render import render, url_part

#: Target types, as ``stackctl run`` names them (Salt's tgt_type).
TARGET_TYPES = ("glob", "pcre", "list", "grain", "grain_pcre", "pillar", "pillar_pcre",
                "ipcidr", "compound", "nodegroup")
#: Jobs the page lists (newest first).
LISTED_JOBS = 50
#: Seconds between two reads of a running job (returns come from the master's job cache).
JOB_READ_INTERVAL = 0.5
#: Seconds a job's stream follows it at most.
FOLLOW_LIMIT = 300.0


def _arguments(view: View) -> tuple[list[Any], dict[str, Any]]:
    """Return the positional and keyword arguments, one a line, read as ``stackctl run`` does."""
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    for line in view.field("arguments").splitlines():
        line = line.strip()
        if not line:
            continue
        match = KEYWORD.match(line)
        if match:
            keywords[match.group(1)] = parse_value(match.group(2))
        else:
            positional.append(parse_value(line))
    return positional, keywords


def index(view: View, error: str | None = None) -> str:
    """GET /jobs: the job cache (the caller's jobs) and the form to run one."""
    jobs = view.calls.list_jobs(limit=LISTED_JOBS)
    return view.page("jobs.html", jobs=jobs, target_types=TARGET_TYPES, error=error,
                     target=view.field("target"), target_type=view.field("target_type", "glob"),
                     function=view.field("function"), arguments=view.field("arguments"))


def run(view: View) -> Any:
    """POST /jobs: publish the job, then show its page."""
    target_type = view.field("target_type", "glob")
    if target_type not in TARGET_TYPES:
        return index(view, f"Unknown target type {target_type!r}: one of "
                           f"{', '.join(TARGET_TYPES)}.")
    target: Any = view.field("target")
    if target_type == "list":
        target = [item.strip() for item in target.split(",") if item.strip()]
    positional, keywords = _arguments(view)
    request = {"target": target, "target_type": target_type, "function": view.field("function"),
               "args": positional, "kwargs": keywords}
    try:
        published = view.calls.publish_job(request)
    except exception.HearthException as error:
        return index(view, str(error))
    return Redirect(f"{PREFIX}/jobs/{url_part(published['jid'])}")


def normalized(job: dict[str, Any]) -> dict[str, Any]:
    """Return a job as the page shows it, from the job cache's or the master's form."""
    returns = job.get("returns") or {}
    return {"jid": job["jid"], "fun": job.get("fun") or job.get("function"),
            "args": job.get("args") or [], "kwargs": job.get("kwargs") or {},
            "target": job.get("target"), "target_type": job.get("target_type") or "glob",
            "targeted": job.get("targeted") or sorted(returns), "returns": returns,
            "missing": job.get("missing") or {},
            # the master's snapshot says whether it is done; the cache's lists who is missing
            "done": bool(job["done"]) if "done" in job else not job.get("missing")}


def show(view: View) -> str:
    """GET /jobs/{jid}: the job with each agent's return; later returns arrive live."""
    job = normalized(view.calls.show_job(view.params["jid"]))
    return view.page("job.html", job=job)


def stream(view: View) -> Stream:
    """GET /jobs/{jid}/stream: each return of the job as the cache gets it, then ``done``.

    The job is read before the stream starts, so one the session may not see
    is the API's error page, not a broken stream.
    """
    view.calls.show_job(view.params["jid"])
    return Stream(_follow(view, view.params["jid"],
                          set(view.req.get_param_as_list("seen") or ())))


def _follow(view: View, jid: str, seen: set[str]) -> Iterator[bytes]:
    wake = view.console.connector.job_wake()
    deadline = time.monotonic() + FOLLOW_LIMIT
    try:
        yield sse.retry(2000)
        while True:
            job = normalized(view.calls.show_job(jid))
            for agent_id, ret in sorted(job["returns"].items()):
                if agent_id not in seen:
                    seen.add(agent_id)
                    yield sse.event("ret", render("fragments/job_return.html",
                                                  agent_id=agent_id, ret=ret))
            if job["done"] or time.monotonic() > deadline:
                yield sse.event("done", render("fragments/job_done.html", job=job))
                return
            wake.wait(JOB_READ_INTERVAL)
    finally:
        wake.close()
