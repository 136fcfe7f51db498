"""stackctl stack commands: create, list, show, update, delete, actions, template-show.

Actions (create, update, delete, suspend, resume, check, cancel-update) run
to their end, streaming one line per state change (:mod:`hearth.cli.progress`),
and print the final status.  The exit code is 0 only when the action
completed; otherwise the stack's status reason (naming the failing resource)
is printed and the exit code is 1.  Ctrl-C cancels the action cleanly.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from hearth.cli import command, output, oversized, progress_display, template_files
from hearth.cli.backend import Backend, get_backend
from hearth.cli.progress import ProgressPrinter, format_event_line, last_event_id
from hearth.common import exception

STACK_FIELDS = ("id", "stack_name", "description", "creation_time", "updated_time",
                "stack_status", "stack_status_reason", "parameters", "outputs",
                "disable_rollback", "timeout_mins", "tags", "parent")
LIST_COLUMNS = ("id", "stack_name", "stack_status", "creation_time", "updated_time")

#: stackctl command -> (EngineService stack_action, action name in the final status).
SIMPLE_ACTIONS = {
    "stack-suspend": ("suspend", "SUSPEND"),
    "stack-resume": ("resume", "RESUME"),
    "stack-check": ("check", "CHECK"),
    "stack-cancel-update": ("cancel_update", "ROLLBACK"),
}


def _backend(args: argparse.Namespace) -> Backend:
    return get_backend(args)




def template_request(args: argparse.Namespace) -> dict[str, Any]:
    """Return the template, files and environment arguments of a create or update.

    Files the template and environments refer to are gathered client-side
    (as heatclient does) by :mod:`hearth.cli.template_files`; without a
    template (an update of the existing one) only the environments are read.
    """
    request: dict[str, Any] = {}
    env_paths = list(getattr(args, "environment_file", None) or [])
    if getattr(args, "template_file", None):
        return dict(template_files.gather(args.template_file, env_paths))
    if env_paths:
        files = request.setdefault("files", {})
        for path in env_paths:
            name = "file://" + os.path.abspath(path)
            files[name] = command.read_text_file(path)
        request["environment_files"] = ["file://" + os.path.abspath(p) for p in env_paths]
    return request


def run_action(backend: Backend, stack_identity: str | None, start: Callable[[], Any],
               action: str, cancel_action: str = "cancel_without_rollback",
               template_file: str | None = None, display: Any = None,
               template: Any = None, request: Mapping[str, Any] | None = None) -> int:
    """Start an action, stream its events, print the final status; return the exit code.

    ``display`` (:class:`hearth.cli.progress_display.DisplayOptions`) adds
    colour, the live summary line or quiet; None prints plain lines.

    A validation error that names no file is located in ``template_file``
    (``template``: its parsed form, whose lines locate an error that came
    without one): the engine sees only the template's data, the CLI knows
    where it came from; so is a size refusal of the ``request`` sent
    (:mod:`hearth.cli.oversized`).
    Should following end by an exception (a second Ctrl-C, a bug), the
    backend is closed first: an in-process engine cancels the action
    cleanly instead of dying with it and leaving the stack IN_PROGRESS.
    """
    marker = last_event_id(backend, stack_identity) if stack_identity else None
    try:
        with oversized.naming_files(template_file, request or {}):
            started = start()
    except exception.StackValidationFailed as exc:
        raise exc.located(template_file, document=template) from None
    if started and started.get("id"):
        stack_identity = full_identity(started)
    assert stack_identity is not None
    printer = ProgressPrinter(backend, stack_identity, marker)
    printer.display = progress_display.make_display(backend, stack_identity, display,
                                                    format_event_line)
    try:
        stack = printer.follow(on_interrupt=lambda: backend.stack_action(stack_identity,
                                                                         cancel_action))
    except BaseException:
        backend.close()
        raise
    backend.settle(stack_identity)
    printer.write(f"Stack {stack['stack_name']} {stack['stack_status']}")
    if stack["stack_status"] == f"{action}_COMPLETE":
        return 0
    command.print_error(stack.get("stack_status_reason") or stack["stack_status"])
    return 1


def full_identity(stack: dict[str, Any]) -> str:
    """Return ``name/id`` of a stack: every later call finds it without a lookup by name."""
    return f"{stack['stack_name']}/{stack['id']}" if stack.get("stack_name") else stack["id"]


def add_template_arguments(parser: argparse.ArgumentParser, required: bool) -> None:
    """Add -f/-e/-P/--timeout/--disable-rollback/--tags, shared by create and update."""
    command.add_template_file_arguments(parser, required)
    parser.add_argument("--timeout", type=int, metavar="MIN",
                        help="Stack action timeout in minutes.")
    parser.add_argument("--disable-rollback", action="store_true", default=None,
                        help="Keep what was created when the action fails (no rollback).")
    parser.add_argument("--tags", metavar="T1,T2", help="Comma separated stack tags.")


def _tags(args: argparse.Namespace) -> list[str] | None:
    return [tag for tag in args.tags.split(",") if tag] if args.tags else None


def _display(args: argparse.Namespace) -> Any:
    """Return the progress display options of an action command (see progress_display)."""
    return progress_display.display_options(args, sys.stdout)


def do_stack_create(args: argparse.Namespace) -> int:
    """Create a stack and follow it to the end."""
    backend = _backend(args)
    request = template_request(args)
    params = command.parse_key_values(args.parameter)
    disable_rollback = bool(args.disable_rollback)
    template = request.pop("template")
    return run_action(backend, None, lambda: backend.create_stack(
        args.name, template, params=params,
        disable_rollback=disable_rollback, timeout_mins=args.timeout, tags=_tags(args),
        **request), "CREATE", template_file=args.template_file, display=_display(args),
        template=template, request=dict(request, template=template))


def do_stack_update(args: argparse.Namespace) -> int:
    """Update a stack (or preview the update with --dry-run)."""
    if not args.template_file and not args.existing:
        raise command.CommandError("stack-update needs -f FILE or --existing", exit_code=2)
    backend = _backend(args)
    request = template_request(args)
    fields = dict(request, params=command.parse_key_values(args.parameter),
                  existing=args.existing, clear_parameters=args.clear_parameter or None,
                  timeout_mins=args.timeout, tags=_tags(args))
    if args.disable_rollback is not None:
        fields["disable_rollback"] = args.disable_rollback
    if args.dry_run:
        with oversized.naming_files(args.template_file, request):
            changes = backend.preview_update_stack(args.name, **fields)["resource_changes"]
        rows = [{"change": kind, "resource_name": item.get("resource_name"),
                 "resource_type": item.get("resource_type")}
                for kind, items in changes.items() for item in items]
        output.listing(rows, ("change", "resource_name", "resource_type"), args.format)
        return 0
    return run_action(backend, args.name, lambda: backend.update_stack(args.name, **fields),
                      "UPDATE", cancel_action="cancel_update",
                      template_file=args.template_file, display=_display(args),
                      template=request.get("template"), request=request)


def do_stack_delete(args: argparse.Namespace) -> int:
    """Delete stacks after confirmation (required on a terminal, -y otherwise)."""
    if not args.yes:
        if not sys.stdin.isatty():
            raise command.CommandError(
                "stack-delete: refusing to delete without -y when stdin is not a terminal")
        answer = input(f"Are you sure you want to delete stack(s) {', '.join(args.name)} "
                       "[y/N]? ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Not deleted.")
            return 1
    backend = _backend(args)
    code = 0
    for name in args.name:
        stack_id = full_identity(backend.identify_stack(name))
        code |= run_action(backend, stack_id, functools.partial(backend.delete_stack, stack_id),
                           "DELETE", display=_display(args))
    return code


def make_simple_action(action: str, final_action: str) -> command.Handler:
    """Return the handler of a stack action command (suspend, resume, check, cancel)."""
    def handler(args: argparse.Namespace) -> int:
        backend = _backend(args)
        stack_id = full_identity(backend.identify_stack(args.name))
        return run_action(backend, stack_id,
                          lambda: backend.stack_action(stack_id, action), final_action,
                          display=_display(args))
    return handler


def do_stack_list(args: argparse.Namespace) -> int:
    """List stacks."""
    stacks = _backend(args).list_stacks(show_deleted=args.show_deleted,
                                        show_nested=args.show_nested)
    output.listing(stacks, LIST_COLUMNS + (("parent",) if args.show_nested else ()),
                   args.format)
    return 0


def do_stack_show(args: argparse.Namespace) -> int:
    """Show one stack (Heat's stack object with --format json)."""
    stack = _backend(args).show_stack(args.name)
    output.show(stack, args.format, fields=[f for f in STACK_FIELDS if f in stack])
    return 0


def do_template_show(args: argparse.Namespace) -> int:
    """Print a stack's template."""
    template = _backend(args).get_template(args.name)
    output.dump_structured(template, args.format)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the stack commands."""
    parser = command.add_command(subparsers, "stack-create", do_stack_create)
    add_template_arguments(parser, required=True)
    progress_display.add_display_arguments(parser)
    parser.add_argument("name", metavar="NAME", help="Name of the new stack.")

    parser = command.add_command(subparsers, "stack-update", do_stack_update,
                                 formats=output.ALL_FORMATS)
    add_template_arguments(parser, required=False)
    parser.add_argument("--existing", action="store_true",
                        help="PATCH: keep the current template, files and parameters unless "
                             "given.")
    parser.add_argument("--clear-parameter", action="append", metavar="KEY",
                        help="Reset a parameter to its default (repeatable).")
    parser.add_argument("--dry-run", action="store_true",
                        help="Only show what would change.")
    progress_display.add_display_arguments(parser)
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")

    parser = command.add_command(subparsers, "stack-delete", do_stack_delete)
    parser.add_argument("-y", "--yes", action="store_true", help="Do not ask for confirmation.")
    progress_display.add_display_arguments(parser)
    parser.add_argument("name", metavar="NAME", nargs="+", help="Stack name or id.")

    for name, (action, final) in SIMPLE_ACTIONS.items():
        parser = command.add_command(subparsers, name, make_simple_action(action, final))
        progress_display.add_display_arguments(parser)
        parser.add_argument("name", metavar="NAME", help="Stack name or id.")

    parser = command.add_command(subparsers, "stack-list", do_stack_list,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("--show-deleted", action="store_true", help="Include deleted stacks.")
    parser.add_argument("--show-nested", action="store_true",
                        help="Include nested stacks (with their parent stack's id).")

    parser = command.add_command(subparsers, "stack-show", do_stack_show,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")

    parser = command.add_command(subparsers, "template-show", do_template_show,
                                 formats=("yaml", "json"))
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
