"""stackctl resource commands: resource-list, resource-show, resource-metadata, resource-signal."""

from __future__ import annotations

import argparse
import json
from typing import Any

from hearth.cli import command, output
from hearth.cli.backend import Backend, get_backend

LIST_COLUMNS = ("resource_name", "physical_resource_id", "resource_type", "resource_status",
                "updated_time")
SHOW_FIELDS = ("resource_name", "logical_resource_id", "physical_resource_id",
               "resource_type", "resource_status", "resource_status_reason", "creation_time",
               "updated_time", "required_by", "description", "attributes")


def _backend(args: argparse.Namespace) -> Backend:
    return get_backend(args)


def do_resource_list(args: argparse.Namespace) -> int:
    """List a stack's resources (nested ones down to --nested-depth)."""
    rows = _backend(args).list_resources(args.name, nested_depth=args.nested_depth,
                                         with_detail=args.with_detail)
    columns = LIST_COLUMNS + (("stack_name",) if args.nested_depth or args.with_detail else ())
    if args.with_detail and args.format in ("json", "yaml"):
        columns += ("description", "attributes")
    output.listing(rows, columns, args.format)
    return 0


def do_resource_show(args: argparse.Namespace) -> int:
    """Show one resource with its attributes."""
    resource = _backend(args).show_resource(args.name, args.resource)
    output.show(resource, args.format, fields=[f for f in SHOW_FIELDS if f in resource])
    return 0


def do_resource_metadata(args: argparse.Namespace) -> int:
    """Print a resource's metadata."""
    output.dump_structured(_backend(args).resource_metadata(args.name, args.resource), "json")
    return 0


def signal_details(data: str | None, data_file: str | None) -> dict[str, Any] | None:
    """Return the signal details of ``-D JSON`` or ``-f FILE`` (a JSON object), as heatclient."""
    if data and data_file:
        raise command.CommandError("Can only specify one of data and data-file", exit_code=2)
    if data_file:
        try:
            data = command.read_text_file(data_file)
        except command.CommandError as exc:
            raise command.CommandError(str(exc), exit_code=2) from None
    if not data:
        return None
    try:
        details = json.loads(data)
    except ValueError as exc:
        raise command.CommandError(f"Data should be in JSON format: {exc}", exit_code=2)
    if not isinstance(details, dict):
        raise command.CommandError("Data should be a JSON dict", exit_code=2)
    return details


def do_resource_signal(args: argparse.Namespace) -> int:
    """Send a signal (JSON details) to a resource."""
    details = signal_details(args.data, args.data_file)
    _backend(args).resource_signal(args.name, args.resource, details)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the resource commands."""
    parser = command.add_command(subparsers, "resource-list", do_resource_list,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("-n", "--nested-depth", type=command.non_negative_int, default=0,
                        metavar="N",
                        help="Also list resources of nested stacks down to depth N.")
    parser.add_argument("--with-detail", action="store_true",
                        help="Add the stack_name column (and, in JSON or YAML, each "
                             "resource's description and attributes).")
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
    for name, handler, formats in (
            ("resource-show", do_resource_show, output.ALL_FORMATS),
            ("resource-metadata", do_resource_metadata, None),
            ("resource-signal", do_resource_signal, None)):
        parser = command.add_command(subparsers, name, handler, formats=formats)
        parser.add_argument("name", metavar="NAME", help="Stack name or id.")
        parser.add_argument("resource", metavar="RESOURCE", help="Resource name.")
        if handler is do_resource_signal:
            parser.add_argument("-D", "--data", metavar="JSON",
                                help="JSON data to send to the signal handler.")
            parser.add_argument("-f", "--data-file", metavar="FILE",
                                help="File containing JSON data to send to the signal "
                                     "handler.")
