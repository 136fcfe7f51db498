"""``template-validate``: check a template and show what Heat's validate API returns."""

from __future__ import annotations

import argparse

from hearth.cli import command, output, oversized, template_files
from hearth.cli.backend import get_backend
from hearth.common import exception


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the template-validate command."""
    parser = command.add_command(
        subparsers, "template-validate", validate,
        description="Validate a template (structure, parameters, functions, dependencies) "
                    "and print Heat's validate output: Description, Parameters, "
                    "ParameterGroups, Environment. Exits 1 with the located error when the "
                    "template is invalid.",
        formats=("table", "json", "yaml"))
    command.add_template_file_arguments(parser)
    parser.add_argument("--show-nested", action="store_true",
                        help="Also validate nested (provider) templates.")


def validate(args: argparse.Namespace) -> int:
    """Validate the template through the engine's catalog and print the result."""
    params = command.parse_key_values(args.parameter)
    request = template_files.gather(args.template_file, args.environment_file or ())
    try:
        with oversized.naming_files(args.template_file, request):
            result = get_backend(args).validate_template(
                template=request["template"], params=params, files=request["files"],
                environment_files=request.get("environment_files"),
                show_nested=args.show_nested)
    except exception.StackValidationFailed as exc:
        raise exc.located(args.template_file, document=request["template"]) from None
    output.show(result, args.format)
    return 0
