"""stackctl key-list, key-accept, key-reject, key-delete, key-finger: agent keys (salt-key).

Also ``agent-grains``: the grains the master holds true about an agent
(recorded master-side, never reported by the agent), which pillar top files
and publisher_acl targets match.  ``key-accept --grain role=db`` records
them as the key is accepted.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from hearth.cli import command, output
from hearth.cli.backend import local_jobs
from hearth.cli.commands.exec_modules import KEYWORD, parse_value

if TYPE_CHECKING:
    from hearth.master.client import MasterClient

CATEGORIES = ("accepted", "pending", "rejected", "denied")


def _client(args: argparse.Namespace) -> MasterClient:
    from hearth.master.client import client_from_args

    return client_from_args(args.config_file)


def do_key_list(args: argparse.Namespace) -> int:
    """List the agent keys by category."""
    with _client(args) as client:
        keys = client.list_keys()
    if args.format in ("json", "yaml"):
        output.dump_structured(keys, args.format)
        return 0
    rows = [{"id": agent_id, "status": category}
            for category in CATEGORIES for agent_id in keys.get(category, [])]
    output.listing(rows, ("id", "status"), args.format)
    return 0


def _confirm(args: argparse.Namespace, verb: str, what: str) -> bool:
    """Ask before acting (required on a terminal, --yes otherwise)."""
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise command.CommandError(f"key-{verb}: refusing to {verb} without --yes when stdin "
                                   "is not a terminal")
    answer = input(f"{verb.capitalize()} the key(s) of {what} [y/N]? ")
    return answer.strip().lower() in ("y", "yes")


def _act(args: argparse.Namespace, verb: str) -> int:

    pattern = "*" if getattr(args, "all", False) else args.id
    if not pattern:
        raise command.CommandError(f"key-{verb}: give an agent ID (or a glob) or --all",
                                   exit_code=2)
    if not _confirm(args, verb, "all pending agents" if pattern == "*" else pattern):
        print("Nothing done.")
        return 1
    grains = _grains(args.grain or []) if verb == "accept" else {}
    with _client(args) as client:
        if verb == "accept":
            ids = client.accept_key(pattern, include_rejected=args.include_rejected,
                                    grains=grains)
        else:
            ids = getattr(client, f"{verb}_key")(pattern)
    past = {"accept": "Accepted", "reject": "Rejected", "delete": "Deleted"}[verb]
    for agent_id in ids:
        print(f"{past} key: {agent_id}")
    return 0


def _grains(items: list[str]) -> dict[str, Any]:
    """Turn ``KEY=VALUE`` items into grains (values read as ``stackctl call`` reads them)."""
    grains = {}
    for item in items:
        match = KEYWORD.match(item)
        if not match:
            raise command.CommandError(f"{item!r} is not KEY=VALUE (a grain name, '=', its "
                                       "value)", exit_code=2)
        grains[match.group(1)] = parse_value(match.group(2))
    return grains


def do_agent_grains(args: argparse.Namespace) -> int:
    """Show, or record, the grains the master holds true about an agent."""
    service = local_jobs(args)
    changes = {**_grains(args.grains), **{key: None for key in args.unset or []}}
    if changes:
        recorded = service.record_grains(service.local_user, args.agent, changes)
    else:
        agents = {agent["id"]: agent for agent in service.list_agents(service.local_user)}
        if args.agent not in agents:
            raise command.CommandError(f"agent-grains: no accepted agent {args.agent!r}")
        recorded = agents[args.agent].get("recorded_grains") or {}
    output.show(recorded, args.format)
    return 0


def do_key_accept(args: argparse.Namespace) -> int:
    """Accept pending agent keys."""
    return _act(args, "accept")


def do_key_reject(args: argparse.Namespace) -> int:
    """Reject agent keys (connected agents are cut off)."""
    return _act(args, "reject")


def do_key_delete(args: argparse.Namespace) -> int:
    """Delete agent keys (connected agents are cut off)."""
    return _act(args, "delete")


def do_key_finger(args: argparse.Namespace) -> int:
    """Print the master's public key and fingerprint (for [agent] master_finger)."""
    with _client(args) as client:
        output.show(client.master_finger(), args.format)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the key commands."""
    command.add_command(subparsers, "key-list", do_key_list,
                        "List the agent keys: accepted, pending, rejected, denied (salt-key -L).",
                        formats=("table", "json", "yaml", "value"))
    for verb, handler, text in (
            ("accept", do_key_accept, "Accept pending agent keys (ID may be a glob; salt-key -a)."),
            ("reject", do_key_reject,
             "Reject agent keys; connected agents are cut off (salt-key -r)."),
            ("delete", do_key_delete,
             "Delete agent keys; connected agents are cut off (salt-key -d).")):
        parser = command.add_command(subparsers, f"key-{verb}", handler, text)
        parser.add_argument("id", nargs="?", metavar="ID", help="Agent id or glob.")
        parser.add_argument("--all", action="store_true",
                            help="Every key of the category acted on.")
        parser.add_argument("-y", "--yes", action="store_true",
                            help="Do not ask for confirmation.")
        if verb == "accept":
            parser.add_argument("--include-rejected", action="store_true",
                                help="Also accept matching rejected keys.")
            parser.add_argument("--grain", action="append", metavar="KEY=VALUE",
                                help="Record this grain master-side for the accepted agents "
                                     "(repeatable): pillar top files and publisher_acl "
                                     "targets match recorded grains, never the ones an "
                                     "agent reports about itself.")
    command.add_command(subparsers, "key-finger", do_key_finger,
                        "Show the master's public key and its fingerprint (salt-key -F).",
                        formats=("table", "json", "yaml", "value"))
    parser = command.add_command(
        subparsers, "agent-grains", do_agent_grains,
        "Show or record the grains the master holds true about an agent.",
        description="Without KEY=VALUE, show the agent's recorded grains; with them, record "
                    "those (over the others). Recorded grains are the master's own word "
                    "about the agent: pillar top files and publisher_acl targets match them "
                    "(with the agent's id and the nodegroups), not what the agent reports.",
        formats=("table", "json", "yaml", "value"))
    parser.add_argument("agent", metavar="AGENT", help="The agent's id.")
    parser.add_argument("grains", nargs="*", metavar="KEY=VALUE", help="Grains to record.")
    parser.add_argument("--unset", action="append", metavar="KEY",
                        help="Remove this recorded grain (repeatable).")
