"""stackctl cloud-*: Salt Cloud's verbs on the configured providers and profiles.

``cloud-providers``, ``cloud-profiles``, ``cloud-nodes`` (``-Q``/``-F``/``-S``),
``cloud-create -p PROFILE NAME...`` (``-p``), ``cloud-destroy NAME... --yes``
(``-d``), ``cloud-map -m MAP`` (``-m``), ``cloud-action ACTION NAME...``
(``-a``), ``cloud-function FUNCTION PROVIDER`` (``-f``) and
``cloud-images|sizes|locations PROVIDER`` (``--list-*``).  The configuration
is read from ``[cloud] config_dir``.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from hearth import bus
from hearth.cli import command, output
from hearth.cli.command import CommandError
from hearth.cli.commands.exec_modules import split_arguments
from hearth.clouds import maps
from hearth.clouds.cloud import Cloud
from hearth.common import config

STRUCTURED = ("yaml", "json")
LISTINGS = ("table", "json", "yaml", "value")
NODE_COLUMNS = ("provider", "name", "id", "state", "image", "size", "public_ips", "private_ips")


def _cloud(args: argparse.Namespace) -> Any:
    """Return the Cloud of the configuration; refuse a ``config_dir`` that does not exist."""
    config.load(config_files=getattr(args, "config_file", None))
    directory = config.CONF.cloud.config_dir
    if not os.path.isdir(directory):
        raise CommandError(
            f"No cloud is configured: the cloud configuration directory {directory} "
            f"({config.origin('config_dir', 'cloud')}) does not exist. Write providers in "
            "its cloud.providers.d/*.conf and profiles in cloud.profiles.d/*.conf, or set "
            "[cloud] config_dir to the directory that has them.")
    return Cloud.from_conf()


def _say_if_none(found: Any, kind: str) -> None:
    """Tell on stderr that the configuration names no provider (or profile) at all."""
    if not found:

        directory = config.CONF.cloud.config_dir
        print(f"No cloud {kind} is configured in {directory} (cloud.{kind}s, "
              f"cloud.{kind}s.d/*.conf).", file=sys.stderr)


def _keywords(items: list[str]) -> tuple[list[Any], dict[str, Any]]:

    return split_arguments(items)


def _print(data: Any, fmt: str) -> None:

    output.dump_structured(data, fmt)


def _with_events(work: Callable[[], Any]) -> Any:
    """Run ``work`` while printing its cloud events to stderr as they happen."""
    subscription = bus.subscribe("hearth/cloud/")
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = error
        finally:
            subscription.close()

    thread = threading.Thread(target=run, name="cloud-work", daemon=True)
    thread.start()
    for event in subscription:
        print(f"{event.tag}: {event.data.get('event', '')}", file=sys.stderr)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


# --- handlers ----------------------------------------------------------------------

def do_providers(args: argparse.Namespace) -> int:
    """List the configured providers, and whether their driver loads (why not)."""
    cloud = _cloud(args)
    rows = []
    for reference in cloud.provider_refs:
        failure = cloud.load_failure(reference)
        rows.append({"provider": reference, "driver": reference.split(":")[1],
                     "status": "refused" if failure else "loaded",
                     "reason": str(failure) if failure else ""})
    output.listing(rows, ("provider", "driver", "status", "reason"), args.format)
    _say_if_none(rows, "provider")
    return 0


def do_profiles(args: argparse.Namespace) -> int:
    """List the profiles."""
    profiles = _cloud(args).profiles()
    _say_if_none(profiles, "profile")
    if args.format in STRUCTURED:
        _print(profiles, args.format)
        return 0
    rows = [{"profile": name, **profile} for name, profile in profiles.items()]
    output.listing(rows, ("profile", "provider", "image", "size", "location"), args.format)
    return 0


def do_nodes(args: argparse.Namespace) -> int:
    """List the nodes of every provider (all fields with --full, some with --select)."""
    kind = "list_nodes_full" if args.full else "list_nodes_select" if args.select \
        else "list_nodes"
    selection = [f.strip() for f in args.select.split(",")] if args.select else None
    answer = _cloud(args).query(kind, selection)
    if args.format in STRUCTURED:
        _print(answer, args.format)
        return 0
    rows = [{"provider": f"{alias}:{driver}", "name": name, **node}
            for alias, drivers in answer.items() for driver, nodes in drivers.items()
            for name, node in sorted(nodes.items())]
    columns = ("provider", "name", *selection) if selection else NODE_COLUMNS
    output.listing(rows, columns, args.format)
    return 0


def do_create(args: argparse.Namespace) -> int:
    """Create nodes from a profile; print each node's details (or why it was not made)."""
    cloud = _cloud(args)
    _, overrides = _keywords(args.settings or [])
    created = _with_events(lambda: cloud.run_profile(args.profile, args.names, overrides))
    _print(created, args.format)
    errors = [node["Error"] for node in created.values()
              if isinstance(node, dict) and "Error" in node]
    if errors:
        raise CommandError("; ".join(errors))
    return 0


def do_destroy(args: argparse.Namespace) -> int:
    """Destroy nodes by name (asks for --yes)."""
    if not args.yes:
        raise CommandError(f"cloud-destroy destroys {', '.join(args.names)} for good: add "
                           "--yes to confirm.", exit_code=2)
    cloud = _cloud(args)
    _print(_with_events(lambda: cloud.destroy(args.names)), args.format)
    return 0


def do_action(args: argparse.Namespace) -> int:
    """Run an action (per node) on named nodes."""
    names, kwargs = _keywords(args.items)
    if not names:

        raise CommandError(f"cloud-action {args.action}: name at least one node", exit_code=2)
    cloud = _cloud(args)
    _print(_with_events(lambda: cloud.run_action(args.action, [str(n) for n in names],
                                                 kwargs)), args.format)
    return 0


def do_function(args: argparse.Namespace) -> int:
    """Run a function (per provider) of one provider."""
    _, kwargs = _keywords(args.items)
    cloud = _cloud(args)
    alias, driver = cloud.resolve(args.provider)
    result = cloud.call_function(args.provider, args.function, kwargs)
    _print({alias: {driver: result}}, args.format)
    return 0


def do_map(args: argparse.Namespace) -> int:
    """Create the nodes of a map file that do not exist yet (or destroy them all)."""
    entries = maps.read_map(args.map)
    cloud = _cloud(args)
    if args.destroy:
        if not args.yes:
            names = ", ".join(entry.name for entry in entries)
            raise CommandError(f"cloud-map --destroy destroys {names} for good: add --yes to "
                               "confirm.", exit_code=2)
        _print(_with_events(lambda: maps.destroy_map(cloud, entries)), args.format)
        return 0
    _print(_with_events(lambda: maps.run_map(cloud, entries, args.parallel)), args.format)
    return 0


def _avail(kind: str) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        _, kwargs = _keywords(args.items)
        cloud = _cloud(args)
        alias, driver = cloud.resolve(args.provider)
        _print({alias: {driver: cloud.call_function(args.provider, f"avail_{kind}", kwargs)}},
               args.format)
        return 0
    handler.__doc__ = f"List the {kind} of a provider."
    return handler


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the cloud commands."""
    command.add_command(subparsers, "cloud-providers", do_providers,
                        formats=LISTINGS)
    command.add_command(subparsers, "cloud-profiles", do_profiles,
                        formats=LISTINGS)
    parser = command.add_command(subparsers, "cloud-nodes", do_nodes,
                                 formats=LISTINGS)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--full", action="store_true", help="Every field of every node.")
    group.add_argument("--select", metavar="FIELD[,FIELD...]",
                       help="Only these fields of every node.")
    parser = command.add_command(
        subparsers, "cloud-create", do_create,
        description="Create nodes from a cloud profile (salt-cloud -p). A name some provider "
                    "already has is not created again (its entry says which provider has "
                    "it); the other names are still made, and the command exits 1 if any "
                    "was not. A node whose create fails after it was requested is destroyed "
                    "unless the profile says keep_on_failure: true.",
        formats=STRUCTURED)
    parser.add_argument("-p", "--profile", required=True, help="The profile of the nodes.")
    parser.add_argument("names", nargs="+", metavar="NAME",
                        help="The nodes' names, unique across the providers.")
    parser.add_argument("--set", dest="settings", action="append", metavar="KEY=VALUE",
                        help="Override a profile setting (repeatable).")
    parser = command.add_command(subparsers, "cloud-destroy", do_destroy, formats=STRUCTURED)
    parser.add_argument("names", nargs="+", metavar="NAME")
    parser.add_argument("--yes", action="store_true", help="Confirm the destruction.")
    parser = command.add_command(subparsers, "cloud-action", do_action,
                                 formats=STRUCTURED)
    parser.add_argument("action", metavar="ACTION")
    parser.add_argument("items", nargs="+", metavar="NAME | KEY=VALUE")
    parser = command.add_command(subparsers, "cloud-function", do_function,
                                 formats=STRUCTURED)
    parser.add_argument("function", metavar="FUNCTION")
    parser.add_argument("provider", metavar="PROVIDER")
    parser.add_argument("items", nargs="*", metavar="KEY=VALUE")
    parser = command.add_command(subparsers, "cloud-map", do_map,
                                 formats=STRUCTURED)
    parser.add_argument("-m", "--map", required=True, metavar="FILE",
                        help="The map: profile: [name, {name: {overrides, requires}}].")
    parser.add_argument("--parallel", action="store_true",
                        help="Create the nodes of each wave at once (salt-cloud -P).")
    parser.add_argument("--destroy", action="store_true",
                        help="Destroy every node of the map instead.")
    parser.add_argument("--yes", action="store_true", help="Confirm --destroy.")
    for kind in ("images", "sizes", "locations"):
        parser = command.add_command(subparsers, f"cloud-{kind}", _avail(kind),
                                     formats=STRUCTURED)
        parser.add_argument("provider", metavar="PROVIDER")
        parser.add_argument("items", nargs="*", metavar="KEY=VALUE",
                            help=f"Arguments of the driver's avail_{kind} (for ec2 images: "
                                 "owner=amazon|self|all|<account id>).")
