"""stackctl event-list: a stack's (or one resource's) events, optionally followed live.

With ``--nested-depth N`` the events of the nested stacks down to N levels
are listed among the stack's own, in time order, each naming its stack
(``stack_name`` column; in the log format the resource's path from the
stack asked, ``parent_resource.resource``), as ``heat event-list -n N``.
``--limit``/``--marker`` page across all of them, as Heat's API does.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from hearth.cli import command, output
from hearth.cli.backend import get_backend
from hearth.cli.progress import follow_events, format_event_line

if TYPE_CHECKING:
    from hearth.cli.backend import Backend

COLUMNS = ("resource_name", "id", "resource_status_reason", "event_time", "resource_status")


def _nested_names(backend: Backend, args: argparse.Namespace,
                  events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the events with ``resource_name`` as its path from the stack asked.

    A nested stack's path is that of the resource holding it (read from the
    nested resource listing); the nested stack's own events show that path.
    """
    resources = backend.list_resources(args.name, nested_depth=args.nested_depth)
    path_of_stack: dict[str, str] = {}
    for resource in resources:
        nested = resource.get("nested_stack_id")
        if nested:
            prefix = path_of_stack.get(resource.get("stack_id") or "", "")
            path_of_stack[nested] = f"{prefix}{resource['resource_name']}."
    named = []
    for event in events:
        path = path_of_stack.get(event.get("stack_id") or "", "")
        if path and event.get("physical_resource_id") == event.get("stack_id"):
            name = path[:-1]
        else:
            name = path + (event.get("resource_name") or "")
        named.append(dict(event, resource_name=name))
    return named


def do_event_list(args: argparse.Namespace) -> int:
    """List events in time order; with --follow keep printing new ones."""
    if args.nested_depth and args.resource:
        raise command.CommandError("--nested-depth cannot be specified with --resource",
                                   exit_code=2)
    backend = get_backend(args)
    events = backend.list_events(args.name, resource_name=args.resource, sort_dir="asc",
                                 nested_depth=args.nested_depth, limit=args.limit,
                                 marker=args.marker)
    if args.nested_depth and args.format == "log":
        events = _nested_names(backend, args, events)
    if args.follow:
        for event in events:
            print(format_event_line(event), flush=True)
        marker = events[-1]["id"] if events else None
        rename = ((lambda page: _nested_names(backend, args, page))
                  if args.nested_depth else None)
        try:
            follow_events(backend, args.name, marker, nested_depth=args.nested_depth,
                          rename=rename)
        except KeyboardInterrupt:
            return 0
    if args.format == "log":
        for event in events:
            print(format_event_line(event))
    else:
        columns = COLUMNS + (("stack_name",) if args.nested_depth else ())
        output.listing(events, columns, args.format)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the event commands."""
    parser = command.add_command(subparsers, "event-list", do_event_list,
                                 formats=("log", *output.ALL_FORMATS))
    parser.add_argument("-r", "--resource", metavar="RESOURCE",
                        help="Only the events of this resource.")
    parser.add_argument("-n", "--nested-depth", type=command.non_negative_int, default=0,
                        metavar="N",
                        help="Also list the events of nested stacks down to depth N.")
    parser.add_argument("-l", "--limit", type=command.non_negative_int, metavar="N",
                        help="List at most N events.")
    parser.add_argument("-m", "--marker", metavar="ID",
                        help="Only the events after the event with this id.")
    parser.add_argument("--follow", action="store_true",
                        help="Keep printing new events until Ctrl-C.")
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
