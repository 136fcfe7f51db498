"""``template-version-list`` and ``template-function-list``: what templates may use.

Both ask the engine's catalog (the operations ``list_template_versions`` and
``list_template_functions``), so an unknown version is refused in the same
words locally, in-process and with ``--url``.
"""

from __future__ import annotations

import argparse

from hearth.cli import command, output
from hearth.cli.backend import get_backend


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the template version and function listing commands."""
    command.add_command(
        subparsers, "template-version-list", list_versions,
        formats=output.ALL_FORMATS)
    parser = command.add_command(
        subparsers, "template-function-list", list_functions,
        description="List the intrinsic functions of a template version. VERSION may be a "
                    "date (2016-10-14), an alias (newton), heat_template_version.<date> or a "
                    "CloudFormation-format version (AWSTemplateFormatVersion.2010-09-09, "
                    "HeatTemplateFormatVersion.2012-12-12).",
        formats=output.ALL_FORMATS)
    parser.add_argument("version", metavar="VERSION", help="Template version, e.g. 2021-04-16.")
    parser.add_argument("--with-condition-functions", action="store_true",
                        help="Also list the functions usable in conditions.")


def list_versions(args: argparse.Namespace) -> int:
    """Print every template version with its type and aliases."""
    rows = get_backend(args).list_template_versions()
    output.listing(rows, ["version", "type", "aliases"], args.format,
                   headers=["Version", "Type", "Aliases"])
    return 0


def list_functions(args: argparse.Namespace) -> int:
    """Print the functions of one template version with their descriptions."""
    rows = get_backend(args).list_template_functions(args.version,
                                                     args.with_condition_functions)
    output.listing(rows, ["functions", "description"], args.format,
                   headers=["Functions", "Description"])
    return 0
