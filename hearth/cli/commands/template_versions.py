"""``template-version-list`` and ``template-function-list``: what templates may use."""

from __future__ import annotations

import argparse
from typing import Any

from hearth.cli import command, output
from hearth.cli.backend import EmbeddedBackend, backend_url, get_backend
from hearth.engine.service.catalog import Catalog


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the template version and function listing commands."""
    command.add_command(
        subparsers, "template-version-list", list_versions,
        help="List the template versions (HOT and CloudFormation format) this engine "
             "understands.",
        formats=output.ALL_FORMATS)
    parser = command.add_command(
        subparsers, "template-function-list", list_functions,
        help="List the intrinsic functions of a template version.",
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
    rows = _catalog(args).list_template_versions()
    output.listing(rows, ["version", "type", "aliases"], args.format,
                   headers=["Version", "Type", "Aliases"])
    return 0


def list_functions(args: argparse.Namespace) -> int:
    """Print the functions of one template version with their descriptions."""
    rows = _catalog(args).list_template_functions(args.version, args.with_condition_functions)
    output.listing(rows, ["functions", "description"], args.format,
                   headers=["Functions", "Description"])
    return 0


def _catalog(args: argparse.Namespace) -> Any:
    """Return the API backend with ``--url``, else the engine service's Catalog in-process.

    Both answer through :class:`~hearth.engine.service.catalog.Catalog` (an
    unknown version is the same "not found"); the version table needs no
    database, so without ``--url`` no engine is started or asked.
    """
    if backend_url(args):
        return get_backend(args)
    return EmbeddedBackend(service=Catalog())
