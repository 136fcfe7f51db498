"""stackctl commands keeping and moving stacks: snapshots, restore, abandon, adopt.

heatclient's names and output: ``stack-snapshot`` prints the snapshot as
JSON (here once the stack's SNAPSHOT has ended, so its final status shows),
``snapshot-list`` a table of id, name, action, status, status_reason and
creation_time, ``snapshot-show`` the ``{"snapshot": ...}`` JSON,
``snapshot-delete`` heatclient's acceptance line, ``stack-abandon`` the
stack's data as JSON (or into ``-O FILE``).  ``stack-restore`` and
``stack-adopt`` run to their end as every stackctl action does.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from hearth.cli import command, output, progress_display
from hearth.cli.commands import stacks
from hearth.common import exception
from hearth.engine.template.parser import parse

if TYPE_CHECKING:
    from hearth.cli.backend import Backend

SNAPSHOT_COLUMNS = ("id", "name", "action", "status", "status_reason", "creation_time")


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _identity(backend: Backend, name: str) -> str:
    return stacks.full_identity(backend.identify_stack(name))


def do_stack_snapshot(args: argparse.Namespace) -> int:
    """Snapshot a stack, wait for the stack's SNAPSHOT, print the snapshot."""
    backend = stacks._backend(args)
    identity = _identity(backend, args.id)
    snapshot = backend.stack_snapshot(identity, args.name)
    backend.wait(identity)
    backend.settle(identity)
    snapshot = backend.show_snapshot(identity, snapshot["id"])
    print(_dump(snapshot))
    if snapshot["status"] == "COMPLETE":
        return 0
    command.print_error(snapshot.get("status_reason") or snapshot["status"])
    return 1


def do_snapshot_list(args: argparse.Namespace) -> int:
    """List a stack's snapshots."""
    snapshots = stacks._backend(args).list_snapshots(args.id)
    output.listing(snapshots, SNAPSHOT_COLUMNS, args.format)
    return 0


def do_snapshot_show(args: argparse.Namespace) -> int:
    """Show one snapshot of a stack."""
    print(_dump({"snapshot": stacks._backend(args).show_snapshot(args.id, args.snapshot)}))
    return 0


def do_snapshot_delete(args: argparse.Namespace) -> int:
    """Delete a snapshot (asks on a terminal unless -y)."""
    if not args.yes and sys.stdin.isatty():
        answer = input("Are you sure you want to delete the snapshot of this stack [Y/N]?")
        if not answer.strip().lower().startswith("y"):
            return 0
    stacks._backend(args).delete_snapshot(args.id, args.snapshot)
    print(f"Request to delete the snapshot {args.snapshot} of the stack {args.id} "
          "has been accepted.")
    return 0


def do_stack_restore(args: argparse.Namespace) -> int:
    """Restore a stack to a snapshot and follow the RESTORE to its end."""
    backend = stacks._backend(args)
    identity = _identity(backend, args.id)
    return stacks.run_action(backend, identity,
                             lambda: backend.stack_restore(identity, args.snapshot), "RESTORE",
                             display=stacks._display(args))


def do_stack_abandon(args: argparse.Namespace) -> int:
    """Abandon a stack: forget it, keep its resources, print its adoptable data."""
    data = _dump(stacks._backend(args).abandon_stack(args.id))
    if args.output_file is None:
        print(data)
        return 0
    try:
        with open(args.output_file, "w", encoding="utf-8") as handle:
            handle.write(data)
    except OSError as error:
        print(data)
        raise command.CommandError(f"Cannot write {args.output_file}: {error.strerror}")
    return 0


def _adopt_data(path: str) -> Any:
    text = command.read_text_file(path)
    if not text.strip():
        raise command.CommandError("Invalid adopt-file, no data!")
    try:
        return parse(text, path)
    except exception.HearthException as error:
        raise command.CommandError(f"Invalid adopt-file {path}: {error}") from None


def do_stack_adopt(args: argparse.Namespace) -> int:
    """Adopt a stack from abandon data and follow the ADOPT to its end."""
    data = _adopt_data(args.adopt_file)
    backend = stacks._backend(args)
    request = stacks.template_request(args)
    files = {**(data.get("files") or {}), **request.pop("files", {})}
    return stacks.run_action(backend, None, lambda: backend.adopt_stack(
        args.name, data, params=command.parse_key_values(args.parameter), files=files,
        disable_rollback=not args.enable_rollback, timeout_mins=args.timeout, **request),
        "ADOPT", template_file=getattr(args, "template_file", None), display=stacks._display(args),
        request=dict(request, files=files))


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the snapshot, restore, abandon and adopt commands."""
    parser = command.add_command(subparsers, "stack-snapshot", do_stack_snapshot)
    parser.add_argument("-n", "--name", metavar="NAME",
                        help="If specified, the name given to the snapshot.")
    parser.add_argument("id", metavar="STACK", help="Name or ID of stack to snapshot.")

    parser = command.add_command(subparsers, "snapshot-list", do_snapshot_list,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("id", metavar="STACK",
                        help="Name or ID of the stack containing the snapshots.")

    for name, handler in (("snapshot-show", do_snapshot_show),
                          ("snapshot-delete", do_snapshot_delete),
                          ("stack-restore", do_stack_restore)):
        parser = command.add_command(subparsers, name, handler)
        parser.add_argument("id", metavar="STACK",
                            help="Name or ID of the stack containing the snapshot.")
        parser.add_argument("snapshot", metavar="SNAPSHOT", help="The ID of the snapshot.")
        if name == "snapshot-delete":
            parser.add_argument("-y", "--yes", action="store_true",
                                help="Skip yes/no prompt (assume yes).")
        if name == "stack-restore":
            progress_display.add_display_arguments(parser)

    parser = command.add_command(subparsers, "stack-abandon", do_stack_abandon)
    parser.add_argument("-O", "--output-file", metavar="FILE",
                        help="Write the abandon data into FILE instead of printing it.")
    parser.add_argument("id", metavar="STACK", help="Name or ID of stack to abandon.")

    parser = command.add_command(subparsers, "stack-adopt", do_stack_adopt)
    parser.add_argument("-a", "--adopt-file", required=True, metavar="FILE",
                        help="Path to adopt stack data file.")
    parser.add_argument("-e", "--environment-file", action="append", metavar="ENV",
                        help="Environment file (repeatable, later ones win).")
    parser.add_argument("-t", "--timeout", type=int, metavar="MIN",
                        help="Stack creation timeout in minutes.")
    parser.add_argument("-r", "--enable-rollback", action="store_true",
                        help="Enable rollback on adopt failure.")
    parser.add_argument("-P", "--parameter", action="append", metavar="KEY=VALUE",
                        help="Parameter value (repeatable, or 'K1=V1;K2=V2').")
    progress_display.add_display_arguments(parser)
    parser.add_argument("name", metavar="STACK_NAME", help="Name of the stack to adopt.")
