"""stackctl resource-type-list / -show / -template: what resource types exist.

Types are introspected from the plug-in registry of this process (no stack
or database is needed); with ``--url`` the API server is asked instead.
"""

from __future__ import annotations

import argparse
from typing import Any

from hearth.cli import command, output


class _LocalTypes:
    """Answer the introspection calls from this process's plug-in registry."""

    def __init__(self) -> None:
        from hearth.engine.registry.types import default_registry
        self.registry = default_registry()

    def list_resource_types(self, type_name: str | None = None,
                            with_description: bool = False) -> list[Any]:
        from hearth.engine.registry import introspection as resource_types
        return resource_types.list_types(self.registry, type_name, with_description)

    def list_resource_type_failures(self) -> list[dict[str, str]]:
        from hearth.engine.registry import introspection as resource_types
        return list(resource_types.load_failures(self.registry))

    def resource_schema(self, type_name: str, with_description: bool = False) -> dict[str, Any]:
        from hearth.engine.registry import introspection as resource_types
        return resource_types.resource_schema(self.registry.get_class(type_name), type_name,
                                              with_description)

    def generate_template(self, type_name: str, template_type: str = "hot") -> dict[str, Any]:
        from hearth.engine.registry import introspection as resource_types
        return resource_types.generate_template(self.registry.get_class(type_name),
                                                type_name, template_type)


def _types_backend(args: argparse.Namespace) -> Any:
    from hearth.cli.backend import backend_url, get_backend
    from hearth.common import config
    if backend_url(args):
        return get_backend(args)
    config.load(config_files=getattr(args, "config_file", None))
    return _LocalTypes()


def _name_filter(filters: list[str] | None) -> str | None:
    values = command.parse_key_values(filters, option="--filter")
    unknown = sorted(set(values) - {"name"})
    if unknown:
        raise command.CommandError(f"--filter {unknown[0]}: only name=PATTERN is supported",
                                   exit_code=2)
    return values.get("name")


def do_resource_type_list(args: argparse.Namespace) -> int:
    """List the resource types (and with --all the plug-ins that failed to load)."""
    backend = _types_backend(args)
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
    schema = _types_backend(args).resource_schema(args.type, with_description=True)
    output.dump_structured(schema, args.format)
    return 0


def do_resource_type_template(args: argparse.Namespace) -> int:
    """Print a template whose parameters are the type's properties."""
    template = _types_backend(args).generate_template(args.type, args.template_type)
    output.dump_structured(template, args.format)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the resource-type commands."""
    parser = command.add_command(subparsers, "resource-type-list", do_resource_type_list,
                                 "List the available resource types.",
                                 formats=output.ALL_FORMATS)
    parser.add_argument("--filter", action="append", metavar="name=PATTERN",
                        help="Only types whose name matches the regular expression PATTERN.")
    parser.add_argument("--all", action="store_true",
                        help="Also list plug-in modules that failed to load, with the reason.")
    parser.add_argument("--long", action="store_true",
                        help="Show each type's description too.")
    for name, handler, help_text in (
            ("resource-type-show", do_resource_type_show,
             "Show a resource type's properties, attributes and support status."),
            ("resource-type-template", do_resource_type_template,
             "Generate a template wrapping a resource type.")):
        parser = command.add_command(subparsers, name, handler, help_text,
                                     formats=("yaml", "json"))
        parser.add_argument("type", metavar="TYPE", help="Resource type name.")
        if name == "resource-type-template":
            parser.add_argument("--template-type", choices=("hot", "cfn"), default="hot",
                                help="Template format (default: %(default)s).")
