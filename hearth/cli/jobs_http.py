"""``stackctl --url ... run``: a job run through hearth-api instead of the local master.

The API publishes only what the token's project may run (its
``publisher_acl``) and answers the job once done, in the shape
:class:`~hearth.master.client.JobStatus` reads; a refusal comes back as the
API's error and is printed as any other.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from hearth.cli.backend_http import ApiError, HttpBackend


def run_over_http(args: argparse.Namespace, url: str, positional: list[Any],
                  keywords: dict[str, Any]) -> Any:
    """Run the job of ``stackctl run`` through the API at ``url``.

    Return the finished :class:`JobStatus`, or an exit code when there is
    nothing more to print (``--async``, or no agent matched).
    """
    import sys

    from hearth.cli.commands.remote import EXIT_NO_MATCH
    from hearth.master.client import JobStatus

    token = getattr(args, "token", None) or os.environ.get("HEARTH_TOKEN")
    body = {"target": args.target, "target_type": args.target_type, "function": args.function,
            "args": positional, "kwargs": keywords, "timeout": args.timeout,
            "batch": args.batch, "async": bool(getattr(args, "async"))}
    try:
        answer = HttpBackend(url, token=token).run_job(
            {key: value for key, value in body.items() if value is not None})
    except ApiError as error:
        if error.error_type != "NoAgentsMatched":
            raise
        print(f"ERROR: {error}", file=sys.stderr)
        return EXIT_NO_MATCH
    if body["async"]:
        print(f"Executed command with job ID: {answer['jid']}")
        return 0
    return JobStatus.from_snapshot(answer["job"])
