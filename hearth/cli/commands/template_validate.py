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
    command.add_template_file_arguments(parser)
    parser.add_argument("--show-nested", action="store_true",
                        help="Also validate nested (provider) templates.")


def validate(args: argparse.Namespace) -> int:
    """Validate the template in-process and print the result."""
    from hearth.cli import template_files
    from hearth.cli.backend import backend_url

    params = command.parse_key_values(args.parameter)
    request = template_files.gather(args.template_file, args.environment_file or ())
    if backend_url(args):
        from hearth.cli.backend import get_backend
        result = get_backend(args).validate_template(
            template=request["template"], params=params, files=request["files"],
            environment_files=request.get("environment_files"))
    else:
        result = validate_locally(args.template_file, request, params)
    output.show(result, args.format)
    return 0


def validate_locally(filename: str, request: dict, params: dict) -> dict:
    """Validate in-process, resource types and properties included (no database needed)."""
    from hearth.cli import template_files
    from hearth.engine.registry.types import default_registry
    from hearth.engine.resources.validation import definition_checker
    from hearth.engine.template.environment import Environment, parameter_types
    from hearth.engine.template.validate import validate_template

    documents = template_files.environment_documents(request)
    env = Environment.from_documents(documents, parameter_types(request["template"]))
    checker = definition_checker(default_registry(), env)
    return validate_template(request["template"], filename, params, documents,
                             request["files"], resource_validator=checker)
