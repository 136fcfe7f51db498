"""``stack-graph``: draw a stack's (or a template's) dependency graph.

A stack's graph comes from the engine (the operation ``stack_graph``:
``GET .../graph?format=json``), so every mode draws the same picture:
resources coloured by state, arrows from a resource to what it needs
styled by ``depends_on``, ``get_resource`` or ``get_attr`` (labelled with
the attributes read), a legend saying so, nested stacks as clusters.
``-f TEMPLATE`` draws a template before any stack exists, validated in full
as create would by the engine's catalog (the operation ``template_graph``,
like ``template-validate``'s: the same answer locally and with ``--url``).

DOT text is written by Hearth; SVG and PNG are drawn by Graphviz's ``dot``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from hearth.cli import command, oversized, template_files
from hearth.cli.backend import get_backend
from hearth.common import exception
from hearth.engine.stacks.graph_dot import to_dot
from hearth.engine.stacks.graph_view import GraphView
from hearth.utils import graphviz

FORMATS = ("dot", "svg", "png")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the stack-graph command."""
    parser = command.add_command(
        subparsers, "stack-graph", do_stack_graph,
        description="Draw the dependency graph of a stack (nodes coloured by state) or of a "
                    "template given with -f. An arrow points from a resource to the one it "
                    "needs; its style says why: depends_on (dashed), get_resource (solid), "
                    "get_attr (bold, labelled with the attributes read), as the picture's "
                    "legend says. Nested stacks are clusters. DOT needs nothing; SVG and PNG "
                    "need Graphviz's 'dot' program.")
    parser.add_argument("name", metavar="STACK", nargs="?", help="Stack name or id.")
    command.add_template_file_arguments(parser, required=False)
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="Output format (default: from the --output file's extension, "
                             "else dot).")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="Write to FILE instead of standard output.")


def output_format(args: argparse.Namespace) -> str:
    """Return the chosen format: --format, else the --output extension, else dot."""
    if args.format:
        return str(args.format)
    extension = os.path.splitext(args.output or "")[1].lstrip(".").lower()
    return extension if extension in FORMATS else "dot"


def graph_data(args: argparse.Namespace) -> dict[str, Any]:
    """Return the graph of the named stack, or of the template of ``-f``."""
    if bool(args.name) == bool(args.template_file):
        raise command.CommandError("stack-graph needs a STACK name or -f TEMPLATE (not both)",
                                   exit_code=2)
    if args.name:
        if args.environment_file or args.parameter:
            raise command.CommandError("-e and -P go with -f TEMPLATE only", exit_code=2)
        return get_backend(args).stack_graph(args.name)
    return template_graph(args)


def template_graph(args: argparse.Namespace) -> dict[str, Any]:
    """Return the graph of the ``-f`` template, validated by the engine as a create would."""
    request = template_files.gather(args.template_file, args.environment_file or ())
    name = os.path.splitext(os.path.basename(args.template_file))[0]
    try:
        with oversized.naming_files(args.template_file, request):
            return get_backend(args).template_graph(
                template=request["template"], params=command.parse_key_values(args.parameter),
                files=request["files"], environment_files=request.get("environment_files"),
                name=name)
    except exception.StackValidationFailed as exc:
        raise exc.located(args.template_file, document=request["template"]) from None


def draw(data: dict[str, Any], fmt: str) -> bytes:
    """Return the graph in ``fmt``: DOT text, or a picture drawn by Graphviz."""
    dot_text = to_dot(GraphView.from_dict(data))
    return dot_text.encode("utf-8") if fmt == "dot" else graphviz.render(dot_text, fmt)


def do_stack_graph(args: argparse.Namespace) -> int:
    """Draw the graph to --output or standard output."""
    fmt = output_format(args)
    if fmt == "png" and not args.output and sys.stdout.isatty():
        raise command.CommandError("PNG is binary: give --output FILE or redirect the output",
                                   exit_code=2)
    picture = draw(graph_data(args), fmt)
    if args.output:
        try:
            with open(args.output, "wb") as handle:
                handle.write(picture)
        except OSError as exc:
            raise command.CommandError(f"Cannot write {args.output}: {exc.strerror}") from None
        return 0
    sys.stdout.buffer.write(picture)
    sys.stdout.flush()
    return 0
