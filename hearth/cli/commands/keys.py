"""stackctl key-list, key-accept, key-reject, key-delete, key-finger: agent keys (salt-key).

Each is an operation of the API's table (:mod:`hearth.api.operations`),
served by the key service (:class:`hearth.jobservice.keys.KeyService`):
without ``--url`` through this host's hearth-master with its client key
(every right, as ``salt-key`` as root), with ``--url`` through hearth-api,
where the token's project needs a ``'@wheel'`` grant of its publisher_acl.
Categories are Salt's: ``--format json`` prints what ``salt-key -L --out
json`` prints, the table Salt's titles (Accepted, Denied, Unaccepted,
Rejected).

Also ``agent-grains``: the grains the master holds true about an agent
(recorded master-side, never reported by the agent), which pillar top files
and publisher_acl targets match.  ``key-accept --grain role=db`` records
them as the key is accepted.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hearth.cli import command, output
from hearth.cli.backend import get_backend
from hearth.cli.backend_embedded import local_jobs
from hearth.cli.commands.exec_modules import KEYWORD, parse_value
from hearth.jobservice.keys import CATEGORY_TITLES


def _rows(listing: dict[str, Any]) -> list[dict[str, Any]]:
    """Return one row per key (or per key's fingerprint), in salt-key's category order."""
    rows = []
    for category, entries in listing.items():
        status = CATEGORY_TITLES.get(category, category.capitalize())
        for agent_id in entries:
            row = {"id": agent_id, "status": status}
            if isinstance(entries, dict):
                row["fingerprint"] = entries[agent_id]
            rows.append(row)
    return rows


#: ``key-list --status``: what salt-key -l takes (a word or its start) -> Salt's categories.
STATUSES = {"accepted": ("minions",), "unaccepted": ("minions_pre",),
            "pre": ("minions_pre",), "pending": ("minions_pre",),
            "rejected": ("minions_rejected",), "denied": ("minions_denied",),
            "all": tuple(CATEGORY_TITLES)}


def _status(text: str) -> tuple[str, ...]:
    """Return the categories ``key-list --status`` names (salt-key -l's words, or a start)."""
    found = {categories for word, categories in STATUSES.items()
             if text and word.startswith(text.lower())}
    if len(found) != 1:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not one of accepted (acc), unaccepted (un, pre), rejected (rej), "
            "denied (den) or all")
    return found.pop()


def do_key_list(args: argparse.Namespace) -> int:
    """List the agent keys by category (those of ``--status`` only)."""
    keys = get_backend(args).list_keys()
    keys = {category: ids for category, ids in keys.items() if category in args.status}
    if args.format in ("json", "yaml"):
        output.dump_structured(keys, args.format)
        return 0
    output.listing(_rows(keys), ("id", "status"), args.format)
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
    backend = get_backend(args)
    if verb == "accept":
        ids = backend.accept_keys(pattern, include_rejected=args.include_rejected,
                                  grains=grains or None)
    elif verb == "reject":
        ids = backend.reject_keys(pattern)
    else:
        ids = backend.delete_keys(pattern)
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
    """Print the master's key fingerprint, or those of agent keys (salt-key -F, -f)."""
    if args.id and args.all:
        raise command.CommandError("key-finger: give an agent ID (or a glob) or --all, not "
                                   "both", exit_code=2)
    backend = get_backend(args)
    if not args.id and not args.all:
        output.show(backend.master_finger(), args.format)
        return 0
    fingers = backend.key_fingers("*" if args.all else args.id)
    if args.format in ("json", "yaml"):
        output.dump_structured(fingers, args.format)
        return 0
    output.listing(_rows(fingers), ("id", "status", "fingerprint"), args.format)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the key commands."""
    parser = command.add_command(subparsers, "key-list", do_key_list,
                                 formats=("table", "json", "yaml", "value"))
    parser.add_argument("-l", "--status", type=_status, default=STATUSES["all"],
                        metavar="STATUS",
                        help="Only the keys of this category, as salt-key -l: accepted "
                             "(acc), unaccepted (un, pre), rejected (rej), denied (den) or "
                             "all (the default).")
    for verb, handler in (("accept", do_key_accept), ("reject", do_key_reject),
                          ("delete", do_key_delete)):
        parser = command.add_command(subparsers, f"key-{verb}", handler)
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
    parser = command.add_command(
        subparsers, "key-finger", do_key_finger,
        description="Without ID, the master's public key and its fingerprint (what agents "
                    "pin as [agent] master_finger). With ID (an agent id or a glob), the "
                    "fingerprint of each matching agent key by category; with --all, of "
                    "every key, the master's own under 'local' (salt-key -F).",
        formats=("table", "json", "yaml", "value"))
    parser.add_argument("id", nargs="?", metavar="ID", help="Agent id or glob.")
    parser.add_argument("--all", action="store_true",
                        help="Every key's fingerprint, the master's too.")
    parser = command.add_command(
        subparsers, "agent-grains", do_agent_grains,
        description="Without KEY=VALUE, show the agent's recorded grains; with them, record "
                    "those (over the others). Recorded grains are the master's own word "
                    "about the agent: pillar top files and publisher_acl targets match them "
                    "(with the agent's id and the nodegroups), not what the agent reports.",
        formats=("table", "json", "yaml", "value"))
    parser.add_argument("agent", metavar="AGENT", help="The agent's id.")
    parser.add_argument("grains", nargs="*", metavar="KEY=VALUE", help="Grains to record.")
    parser.add_argument("--unset", action="append", metavar="KEY",
                        help="Remove this recorded grain (repeatable).")
