"""``template-validate``: check a template and show what Heat's validate API returns."""

from __future__ import annotations

import argparse

from hearth.cli import command, output


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the template-validate command."""
    parser = command.add_command(
        subparsers, "template-validate", validate,
        help="Validate a template and show its description and parameters.",
        description="Validate a template (structure, parameters, functions, dependencies) "
                    "and print Heat's validate output: Description, Parameters, "
                    "ParameterGroups, Environment. Exits 1 with the located error when the "
                    "template is invalid.",
        formats=("table", "json", "yaml"))
    parser.add_argument("-f", "--template-file", required=True, metavar="FILE",
                        help="Path to the template.")
    parser.add_argument("-e", "--environment-file", action="append", metavar="ENV",
                        help="Environment file (repeatable, later ones win).")
    parser.add_argument("-P", "--parameter", action="append", metavar="KEY=VALUE",
                        help="Parameter value (repeatable, or 'K1=V1;K2=V2').")
    parser.add_argument("--show-nested", action="store_true",
                        help="Also validate nested (provider) templates.")


def validate(args: argparse.Namespace) -> int:
    """Validate the template in-process and print the result."""
    from hearth.cli import template_files
    from hearth.engine.template.validate import validate_template

    params = command.parse_key_values(args.parameter)
    request = template_files.gather(args.template_file, args.environment_file or ())
    result = validate_template(request["template"], args.template_file, params,
                               template_files.environment_documents(request),
                               request["files"])
    output.show(result, args.format)
    return 0
