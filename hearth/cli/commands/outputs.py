"""stackctl output commands: output-list and output-show."""

from __future__ import annotations

import argparse
import json
from typing import Any

from hearth.cli import command, output
from hearth.cli.backend import Backend, get_backend


def _backend(args: argparse.Namespace) -> Backend:
    return get_backend(args)


def do_output_list(args: argparse.Namespace) -> int:
    """List a stack's output keys and descriptions."""
    rows = _backend(args).list_outputs(args.name)
    output.listing(rows, ("output_key", "description"), args.format)
    return 0


def do_output_show(args: argparse.Namespace) -> int:
    """Show one output's value (or every output with --all); exit 1 on an output error."""
    backend = _backend(args)
    if args.all and args.key:
        raise command.CommandError("output-show takes KEY or --all, not both", exit_code=2)
    if args.all:
        outputs = backend.show_stack(args.name).get("outputs") or []
    elif args.key:
        outputs = [backend.show_output(args.name, args.key)]
    else:
        raise command.CommandError("output-show needs KEY or --all", exit_code=2)
    failed = [item for item in outputs if item.get("output_error")]
    if args.format == "value":
        for item in outputs:
            value = item.get("output_value")
            print(value if isinstance(value, str) else json.dumps(value))
    elif args.all:
        _show_every_output(outputs, args.format)
    else:
        output.show(outputs[0], args.format)
    for item in failed:
        command.print_error(f"Output {item['output_key']}: {item['output_error']}")
    return 1 if failed else 0


def _show_every_output(outputs: list[dict[str, Any]], fmt: str) -> None:
    """Print every output as Heat's ``output show --all``: one field per output key.

    The table's value of each field is the output (key, value, description,
    error) as indented JSON; JSON and YAML give the same as a mapping.
    """
    by_key = {item["output_key"]: item for item in outputs}
    if fmt in ("json", "yaml"):
        output.dump_structured(by_key, fmt)
        return
    output.show({key: json.dumps(item, indent=2, ensure_ascii=False, default=str)
                 for key, item in by_key.items()}, "table")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the output commands."""
    parser = command.add_command(subparsers, "output-list", do_output_list,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
    parser = command.add_command(subparsers, "output-show", do_output_show,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("--all", action="store_true",
                        help="Show every output: one row (JSON: key) per output, as Heat does.")
    parser.add_argument("name", metavar="NAME", help="Stack name or id.")
    parser.add_argument("key", metavar="KEY", nargs="?", help="Output key.")
