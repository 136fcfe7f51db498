"""stackctl run, agent-list and master-stats: jobs on agents through hearth-master (``salt``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import yaml

from hearth.cli import command, output
from hearth.cli.backend import get_backend
from hearth.cli.backend_http import ApiError
from hearth.cli.commands.exec_modules import split_arguments, trailing_options
from hearth.cli.nested import render_nested
from hearth.common import exception
from hearth.jobservice.request import JobRequest
from hearth.master.client import client_from_args

#: Exit code when nothing matched the target (Salt's ``salt`` exits 2 too).
EXIT_NO_MATCH = 2
#: Target type flags, as the ``salt`` command spells them.
TARGET_FLAGS = (("-E", "--pcre", "pcre"), ("-L", "--list", "list"), ("-G", "--grain", "grain"),
                ("-P", "--grain-pcre", "grain_pcre"), ("-I", "--pillar", "pillar"),
                ("-J", "--pillar-pcre", "pillar_pcre"), ("-S", "--ipcidr", "ipcidr"),
                ("-C", "--compound", "compound"), ("-N", "--nodegroup", "nodegroup"))
NOT_RETURNED = "Agent did not return. [{reason}]"


def _results(status: Any) -> dict[str, Any]:
    """Return ``{agent_id: return}``, silent agents as Salt words them."""
    results = {agent_id: ret.get("return") for agent_id, ret in sorted(status.returns.items())}
    for agent_id, reason in sorted(status.missing.items()):
        results[agent_id] = NOT_RETURNED.format(reason=reason)
    return results


def _print(results: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(results, indent=2, default=str))
    elif fmt == "yaml":

        print(yaml.safe_dump(results, default_flow_style=False, sort_keys=False).rstrip())
    elif fmt == "value":
        for value in results.values():
            print(value if isinstance(value, str) else json.dumps(value, default=str))
    elif fmt == "table":

        output.listing([{"agent": a, "return": r} for a, r in results.items()],
                       ("agent", "return"), "table")
    else:

        for agent_id, value in results.items():
            print(render_nested(agent_id, value))


def _exit_code(status: Any, passthrough: bool) -> int:
    codes = [int(ret.get("retcode") or 0) for ret in status.returns.values()]
    failed = [code for code in codes if code] or [
        1 for ret in status.returns.values() if not ret.get("success", True)]
    if passthrough and failed:
        return max(failed)
    return 1 if failed or status.missing else 0


def _run(args: argparse.Namespace, positional: list[Any], keywords: dict[str, Any]) -> Any:
    """Run the job (through hearth-api with ``--url``, else the user's master).

    Return its status, or an exit code when there is nothing more to print
    (``--async``, or no agent matched).
    """
    backend = get_backend(args)
    request = JobRequest(args.function, positional, keywords, args.target, args.target_type,
                         args.timeout, args.batch)
    try:
        if getattr(args, "async"):
            print(f"Executed command with job ID: {backend.publish(request).jid}")
            return 0
        return backend.run(request)
    except (exception.NoAgentsMatched, ApiError) as error:
        if isinstance(error, ApiError) and error.error_type != "NoAgentsMatched":
            raise
        print(f"ERROR: {error}", file=sys.stderr)
        return EXIT_NO_MATCH


def do_run(args: argparse.Namespace) -> int:
    """Publish a job to the targeted agents and print their returns.

    With ``--url`` (or ``$HEARTH_URL``) the job goes through hearth-api,
    which applies the project's publisher_acl; otherwise straight to the
    local master with its client key.
    """
    args = trailing_options(args, add_run_options, "stackctl run")
    positional, keywords = split_arguments(args.arguments)
    outcome = _run(args, positional, keywords)
    if isinstance(outcome, int):
        return outcome
    status = outcome
    _print(_results(status), args.format)
    code = _exit_code(status, args.retcode_passthrough)
    if status.missing:
        print(f"To look up the return data for this job later, run: stackctl job-show "
              f"{status.jid}", file=sys.stderr)
    if code:
        print("ERROR: Agents returned with non-zero exit code", file=sys.stderr)
    return code


def do_agent_list(args: argparse.Namespace) -> int:
    """List the accepted agents: connected or not, last seen, a few grains.

    With ``--url``, hearth-api's ``GET /agents``: the agents the token's
    project may target; otherwise every agent of the local master.
    """
    agents = get_backend(args).list_agents()
    if args.format in ("json", "yaml"):
        output.dump_structured(agents, args.format)
        return 0
    rows = [{"id": agent["id"], "connected": agent["connected"],
             "last_seen": agent["last_seen"] or "",
             "os": agent["grains"].get("os", ""), "host": agent["grains"].get("host", "")}
            for agent in agents]
    output.listing(rows, ("id", "connected", "last_seen", "os", "host"), args.format)
    return 0


def do_master_stats(args: argparse.Namespace) -> int:
    """Print the master's counters: uptime, agents, jobs, messages received and dropped."""
    with client_from_args(args.config_file) as client:
        stats = client.stats()
    if args.format in ("json", "yaml"):
        output.dump_structured(stats, args.format)
    else:
        output.show(_flattened(stats), args.format)
    return 0


def _flattened(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Return nested counters as ``{"a.b.c": value}``, in order."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(_flattened(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``stackctl run``, ``stackctl agent-list`` and ``stackctl master-stats``."""
    command.add_command(subparsers, "agent-list", do_agent_list,
                        formats=("table", "json", "yaml", "value"))
    command.add_command(
        subparsers, "master-stats", do_master_stats, formats=("table", "json", "yaml", "value"),
        description="Show what hearth-master counted since it started: its uptime, the "
                    "accepted and connected agents, the jobs in flight, and per socket the "
                    "messages received by type, the messages dropped by reason (too large, "
                    "too deep, not JSON, an unknown type, invalid for their type's schema) and "
                    "the messages a handler failed on.")

    parser = command.add_command(
        subparsers, "run", do_run,
        description="Publish MODULE.FUNCTION to the agents TARGET selects (a glob of agent "
                    "ids by default) through hearth-master, wait for their returns and print "
                    "them. Arguments are positional values or KEY=VALUE keywords. Agents "
                    "that do not return in time are reported and make the exit code 1.")
    add_run_options(parser)
    parser.set_defaults(target_type="glob")
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument("function", metavar="MODULE.FUNCTION")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARG | KEY=VALUE")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``stackctl run`` (also accepted after its arguments)."""
    group = parser.add_mutually_exclusive_group()
    for short, long, name in TARGET_FLAGS:
        group.add_argument(short, long, dest="target_type", action="store_const", const=name,
                           help=f"TARGET is a {name.replace('_', ' ')} expression.")
    parser.add_argument("-t", "--timeout", type=float, default=None,
                        help="Seconds to wait for returns ([master] timeout). A wait, not a "
                             "kill: agents still running the job are waited for again.")
    parser.add_argument("--async", action="store_true",
                        help="Print the job id and exit without waiting.")
    parser.add_argument("-b", "--batch", default=None, metavar="N|P%",
                        help="Run on at most N agents (or P percent) at a time.")
    parser.add_argument("--format", choices=("nested", "table", "json", "yaml", "value"),
                        default="nested", help="Output format (default: %(default)s).")
    parser.add_argument("--retcode-passthrough", action="store_true",
                        help="Exit with the agents' highest retcode instead of 0/1.")
