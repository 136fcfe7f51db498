"""stackctl hook-poll and hook-clear: breakpoints set in the environment, as heatclient.

A resource paused at a hook has an event "<ACTION> paused until Hook
<hook> is cleared" and no later "Hook <hook> is cleared" since its stack's
action started; ``hook-poll`` lists those (the stack must be IN_PROGRESS:
the hook type follows from its action).  ``hook-clear`` signals
``{"unset_hook": <hook>}`` to each named resource; a name may be a path
into nested stacks (``nested/inner/res``) with shell wildcards in any part.
"""

from __future__ import annotations

import argparse
import fnmatch
from typing import Any

from hearth.cli import command, output
from hearth.cli.backend import Backend, get_backend
from hearth.common import exception

COLUMNS = ("resource_name", "id", "resource_status_reason", "resource_status", "event_time")
#: stack action -> the hook its resources may pause at.
HOOK_OF_ACTION = {"CREATE": "pre-create", "UPDATE": "pre-update", "DELETE": "pre-delete"}


def _backend(args: argparse.Namespace) -> Backend:
    return get_backend(args)


def hook_type_of(backend: Backend, stack_identity: str) -> tuple[dict[str, Any], str]:
    """Return (the stack, the hook its current action pauses at); the stack must be acting."""
    stack = backend.show_stack(stack_identity, resolve_outputs=False)
    status = stack["stack_status"]
    if not status.endswith("_IN_PROGRESS"):
        raise command.CommandError(f"Stack status {status} not IN_PROGRESS")
    action = status[: -len("_IN_PROGRESS")]
    if action not in HOOK_OF_ACTION:
        raise command.CommandError(f"Unexpected stack status {status}, only create, update "
                                   "and delete supported")
    return stack, HOOK_OF_ACTION[action]


def pending_hook_events(events: list[dict[str, Any]], stack_name: str, action: str,
                        hook: str) -> list[dict[str, Any]]:
    """Return the hook events still pending among ``events`` (oldest first)."""
    starts = [i for i, event in enumerate(events)
              if event.get("resource_status_reason") == f"Stack {action} started"
              and event.get("stack_name", stack_name) == stack_name]
    paused = f"{action} paused until Hook {hook} is cleared"
    cleared = f"Hook {hook} is cleared"
    pending: dict[tuple[Any, Any], dict[str, Any]] = {}
    for event in events[starts[-1] if starts else 0:]:
        key = (event.get("stack_name"), event.get("resource_name"))
        reason = event.get("resource_status_reason")
        if reason == paused:
            pending[key] = event
        elif reason == cleared:
            pending.pop(key, None)
    return list(pending.values())


def do_hook_poll(args: argparse.Namespace) -> int:
    """List resources with a pending hook."""
    backend = _backend(args)
    stack, hook = hook_type_of(backend, args.name)
    events = backend.list_events(args.name, sort_dir="asc", nested_depth=args.nested_depth)
    for event in events:
        event.setdefault("stack_name", stack["stack_name"])
    action = stack["stack_status"].split("_", 1)[0]
    rows = pending_hook_events(events, stack["stack_name"], action, hook)
    columns = COLUMNS + (("stack_name",) if args.nested_depth else ())
    output.listing(rows, columns, args.format)
    return 0


def clear_matching(backend: Backend, stack_identity: str, stack_patterns: list[str],
                   resource_pattern: str, hook: str) -> int:
    """Clear ``hook`` on the resources matching the pattern path; return how many."""
    cleared = 0
    for resource in backend.list_resources(stack_identity):
        name = resource["resource_name"]
        if stack_patterns:
            if fnmatch.fnmatchcase(name, stack_patterns[0]) and resource.get(
                    "physical_resource_id"):
                cleared += clear_matching(backend, resource["physical_resource_id"],
                                          stack_patterns[1:], resource_pattern, hook)
        elif fnmatch.fnmatchcase(name, resource_pattern):
            backend.resource_signal(stack_identity, name, {"unset_hook": hook})
            cleared += 1
    return cleared


def do_hook_clear(args: argparse.Namespace) -> int:
    """Clear hooks on resources of a stack (paths reach into nested stacks)."""
    backend = _backend(args)
    chosen = [hook for hook, flag in (("pre-create", args.pre_create),
                                      ("pre-update", args.pre_update),
                                      ("pre-delete", args.pre_delete)) if flag]
    hook = chosen[0] if chosen else hook_type_of(backend, args.name)[1]
    for path in args.hook:
        parts = [part for part in path.split("/") if part]
        if not parts:
            raise command.CommandError(f"Invalid resource path {path!r}", exit_code=2)
        if not clear_matching(backend, args.name, parts[:-1], parts[-1], hook):
            raise exception.ResourceNotFound(resource_name=path, stack_name=args.name,
                                             entity="Resource", name=path)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add hook-poll and hook-clear."""
    parser = command.add_command(subparsers, "hook-poll", do_hook_poll,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("-n", "--nested-depth", type=int, default=0, metavar="DEPTH",
                        help="Depth of nested stacks from which to display hooks.")
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
    parser = command.add_command(subparsers, "hook-clear", do_hook_clear)
    for flag in ("pre-create", "pre-update", "pre-delete"):
        parser.add_argument(f"--{flag}", action="store_true",
                            help=f"Clear the {flag} hooks (default: the hook of the "
                                 "stack's current action).")
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
    parser.add_argument("hook", metavar="RESOURCE", nargs="+",
                        help="Resources whose hook to clear; nested_stack/res reaches into "
                             "nested stacks; wildcards match several.")
