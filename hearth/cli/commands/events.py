"""stackctl event-list: a stack's (or one resource's) events, optionally followed live."""

from __future__ import annotations

import argparse

from hearth.cli import output

COLUMNS = ("resource_name", "id", "resource_status_reason", "event_time", "resource_status")


def do_event_list(args: argparse.Namespace) -> int:
    """List events in time order; with --follow keep printing new ones."""
    from hearth.cli.backend import get_backend
    from hearth.cli.progress import follow_events, format_event_line
    backend = get_backend(args)
    events = backend.list_events(args.name, resource_name=args.resource, sort_dir="asc")
    if args.follow:
        for event in events:
            print(format_event_line(event), flush=True)
        marker = events[-1]["id"] if events else None
        try:
            follow_events(backend, args.name, marker)
        except KeyboardInterrupt:
            return 0
    if args.format == "log":
        for event in events:
            print(format_event_line(event))
    else:
        output.listing(events, COLUMNS, args.format)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the event commands."""
    from hearth.cli import command
    parser = command.add_command(subparsers, "event-list", do_event_list,
                                 "List a stack's events.",
                                 formats=("log", *output.ALL_FORMATS))
    parser.add_argument("-r", "--resource", metavar="RESOURCE",
                        help="Only the events of this resource.")
    parser.add_argument("--follow", action="store_true",
                        help="Keep printing new events until Ctrl-C.")
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
