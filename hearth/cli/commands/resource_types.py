"""stackctl resource-type-list / -show / -template: what resource types exist.

Types are introspected by the catalog (:mod:`hearth.engine.service.catalog`,
the plug-in registry built from configuration, no stack or database needed);
with ``--url`` the API server is asked instead.
"""

from __future__ import annotations

import argparse

from hearth.cli import command, output
from hearth.cli.backend import get_backend


def _name_filter(filters: list[str] | None) -> str | None:
    values = command.parse_key_values(filters, option="--filter")
    unknown = sorted(set(values) - {"name"})
    if unknown:
        raise command.CommandError(f"--filter {unknown[0]}: only name=PATTERN is supported",
                                   exit_code=2)
    return values.get("name")


def do_resource_type_list(args: argparse.Namespace) -> int:
    """List the resource types (and with --all the plug-ins that failed to load)."""
    backend = get_backend(args)
    rows = [{**row, "status": "LOADED", "reason": ""}
            for row in backend.list_resource_types(_name_filter(args.filter),
                                                   with_description=True)]
    columns = ["resource_type"]
    if args.all:
        rows += backend.list_resource_type_failures()
        columns = ["resource_type", "status", "reason"]
    elif args.long:
        columns = ["resource_type", "description"]
    output.listing(rows, columns, args.format)
    return 0


def do_resource_type_show(args: argparse.Namespace) -> int:
    """Show one type's schema in Heat's JSON shape."""
    schema = get_backend(args).resource_schema(args.type, with_description=True)
    output.dump_structured(schema, args.format)
    return 0


def do_resource_type_template(args: argparse.Namespace) -> int:
    """Print a template whose parameters are the type's properties."""
    template = get_backend(args).generate_template(args.type, args.template_type)
    output.dump_structured(template, args.format)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the resource-type commands."""
    parser = command.add_command(subparsers, "resource-type-list", do_resource_type_list,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("--filter", action="append", metavar="name=PATTERN",
                        help="Only types whose name matches the regular expression PATTERN.")
    parser.add_argument("--all", action="store_true",
                        help="Also list plug-in modules that failed to load, with the reason.")
    parser.add_argument("--long", action="store_true",
                        help="Show each type's description too.")
    for name, handler in (("resource-type-show", do_resource_type_show),
                          ("resource-type-template", do_resource_type_template)):
        parser = command.add_command(subparsers, name, handler, formats=("yaml", "json"))
        parser.add_argument("type", metavar="TYPE", help="Resource type name.")
        if name == "resource-type-template":
            parser.add_argument("--template-type", choices=("hot", "cfn"), default="hot",
                                help="Template format (default: %(default)s).")
