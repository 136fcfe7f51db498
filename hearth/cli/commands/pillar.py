"""stackctl pillar-show and pillar-top: an agent's compiled pillar and the files that make it.

Through the pillar service (:class:`hearth.jobservice.pillar.PillarService`,
operations ``agent_pillar`` and ``pillar_top`` of the API's table): by
default this host's hearth-master compiles, as it does for the agent; with
``--url`` hearth-api asks its master, for a project its publisher_acl lets
run ``pillar.items`` on the agent.  With ``--local`` it is compiled
in-process, without a master, with this host's grains or the ones given.
Values are masked as Salt 3008 masks them unless ``--unmask`` (or
``[pillar] mask_output = False``), and stderr says so; ``_errors`` are
always shown, also on stderr, and make the exit code 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from hearth.cli import command
from hearth.cli.backend import backend_url, get_backend
from hearth.cli.command import CommandError, read_text_file
from hearth.cli.nested import OUTPUTTERS
from hearth.common import config, document_bounds, exception
from hearth.grains import load_grains
from hearth.loader import opts_from_conf
from hearth.pillar import ERRORS_KEY, compile_pillar, master_opts, pillar_top
from hearth.pillar.mask import shown

if TYPE_CHECKING:
    from hearth.cli.backend import Backend

T = TypeVar("T")

#: Said on stderr when pillar-show masked a value.
MASKED_HINT = ("Values are masked (**********, as Salt masks pillar output); add --unmask to "
               "show them, or set [pillar] mask_output = false.")


def _grains(args: argparse.Namespace) -> dict[str, Any]:
    """Return the grains of a local compile: --grains, --grains-file, else this host's.

    Given grains get the grain ``id`` of AGENT unless they name one (an
    agent's grains always carry its id, as Salt's), so pillar files reading
    ``grains['id']`` render as they would for that agent.
    """
    text = args.grains
    if args.grains_file:

        text = read_text_file(args.grains_file, f"--grains-file {args.grains_file}")
    if text is None:

        return dict(load_grains(opts_from_conf()))


    try:
        grains = document_bounds.load_yaml(text)
    except yaml.YAMLError as error:
        raise CommandError(f"--grains is not JSON or YAML: {error}") from error
    if not isinstance(grains, dict):
        raise CommandError("--grains must be a JSON or YAML mapping of grain names to values")
    grains.setdefault("id", args.agent)
    return grains


def _override(args: argparse.Namespace) -> dict[str, Any] | None:

    if not args.pillar:
        return None


    try:
        value = document_bounds.load_yaml(args.pillar)
    except yaml.YAMLError as error:
        raise CommandError(f"--pillar is not JSON or YAML: {error}") from error
    if not isinstance(value, dict):
        raise CommandError("--pillar must be a JSON or YAML mapping")
    return value


def _through_master(args: argparse.Namespace, ask: Callable[[Backend], T]) -> T:
    """Return ``ask(backend)``, the pillar service reached as every command reaches it.

    Without ``--url`` that is this host's master; a host with none is told
    how to do without.
    """
    try:
        return ask(get_backend(args))
    except exception.KeyFileError as error:
        raise CommandError(f"{error}. No hearth-master is set up for this host's "
                           "configuration; use --local to compile here.") from error


def _check_local_options(args: argparse.Namespace) -> None:
    """Refuse the options of local compiles without ``--local`` (never ignore them)."""
    given = [flag for flag, value in (("--grains", args.grains),
                                      ("--grains-file", args.grains_file),
                                      ("--pillarenv", args.pillarenv),
                                      ("--pillar", getattr(args, "pillar", None)))
             if value is not None]
    if given and not args.local:
        raise CommandError(f"{', '.join(given)} only apply with --local (the master compiles "
                           "with what it holds true about the agent and its own "
                           "configuration)")
    if args.local and getattr(args, "url", None):
        raise CommandError("--local compiles here, without a master or an API: it has no "
                           "--url form")


def compiled_pillar(args: argparse.Namespace) -> dict[str, Any]:
    """Return the agent's pillar: from the master, or compiled here with ``--local``."""
    _check_local_options(args)
    if not args.local:
        return _through_master(args, lambda backend: backend.agent_pillar(args.agent))

    config.load(config_files=args.config_file)
    return compile_pillar(args.agent, _grains(args), master_opts(), pillarenv=args.pillarenv,
                          pillar_override=_override(args))


def _print(agent: str, value: Any, fmt: str) -> None:

    print(OUTPUTTERS[fmt](agent, value))


def _report_errors(errors: list[Any]) -> int:
    for error in errors:
        print(f"ERROR: {error}", file=sys.stderr)
    return 1 if errors else 0


def do_pillar_show(args: argparse.Namespace) -> int:
    """Print an agent's compiled pillar (masked unless --unmask), with its _errors."""
    pillar = compiled_pillar(args)
    if backend_url(args):
        config.load(config_files=args.config_file)  # [pillar] mask_output: this host's choice
    errors = list(pillar.pop(ERRORS_KEY, None) or [])
    unmask = args.unmask or not config.CONF.pillar.mask_output
    value = shown(pillar, unmask)
    masked = value != pillar
    if errors:
        value[ERRORS_KEY] = errors
    _print(args.agent, value, args.format)
    if masked:
        print(MASKED_HINT, file=sys.stderr)
    return _report_errors(errors)


def do_pillar_top(args: argparse.Namespace) -> int:
    """Print which top-file targets select the agent and their SLS files."""
    _check_local_options(args)
    if args.local:
        grains = _grains(args)
        config.load(config_files=args.config_file)
        top = pillar_top(args.agent, grains, master_opts(), pillarenv=args.pillarenv)
    else:
        top = _through_master(args, lambda backend: backend.pillar_top(args.agent))
    errors = list(top.get(ERRORS_KEY) or [])
    if args.format == "json":
        print(json.dumps(top, indent=2))
    else:
        _print(args.agent, top, args.format)
    return _report_errors(errors)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent", metavar="AGENT", help="The agent id.")
    parser.add_argument("--local", action="store_true",
                        help="Compile here, without a master, with this host's grains "
                             "(or --grains).")
    parser.add_argument("--grains", default=None, metavar="JSON",
                        help="With --local: the agent's grains as a JSON or YAML mapping "
                             "(the grain id defaults to AGENT).")
    parser.add_argument("--grains-file", default=None, metavar="FILE",
                        help="With --local: read the agent's grains from a JSON/YAML file "
                             "(the grain id defaults to AGENT).")
    parser.add_argument("--pillarenv", default=None, metavar="ENV",
                        help="Only this pillar environment (local compiles).")
    parser.add_argument("--format", choices=("nested", "json", "yaml", "txt"),
                        default="nested", help="Output format (default: %(default)s).")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``stackctl pillar-show`` and ``pillar-top``."""
    parser = command.add_command(
        subparsers, "pillar-show", do_pillar_show,
        description="Print the pillar compiled for AGENT: by hearth-master, or here with "
                    "--local. Values show as ********** (as Salt 3008) unless --unmask. "
                    "Errors of the compile are listed under _errors and on stderr, and "
                    "make the exit code 1.")
    _common(parser)
    parser.add_argument("--pillar", default=None, metavar="JSON",
                        help="With --local: values that override the compiled pillar "
                             "(Salt's pillar=).")
    parser.add_argument("--unmask", action="store_true", help="Show the values.")

    parser = command.add_command(
        subparsers, "pillar-top", do_pillar_top)
    _common(parser)
