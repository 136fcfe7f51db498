"""stackctl call, module-list, doc, job-list, job-show, event-listen: the execution layer.

``stackctl call`` works like ``salt-call --local``: it loads the execution
modules in-process, runs one function as a job and prints its return with
an outputter.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

import yaml

from hearth import bus
from hearth.bus import Event
from hearth.bus.bridge import listen
from hearth.cli import command, output
from hearth.cli.backend import get_backend
from hearth.cli.nested import OUTPUTTERS
from hearth.cli.parser import StackctlParser, did_you_mean, option_strings
from hearth.common import config, document_bounds, exception
from hearth.jobservice.service import JobService
from hearth.loader import execution_loader, job_runner, opts_from_conf
from hearth.master.client import client_from_args

#: Exit code of a call whose function is missing or refused (as salt-call).
EXIT_NOT_AVAILABLE = 255
KEYWORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
#: A number as YAML reads one: no leading zero (an account id, a file mode stay text).
NUMBER = re.compile(r"[-+]?(0|[1-9][0-9]*)(\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?\.[0-9]+")
SCALARS = {"true": True, "false": False, "null": None, "none": None, "~": None}


def parse_value(text: str) -> Any:
    """Turn one command-line argument into a value, as Salt's YAML loading of args does.

    Integers, floats, true/false/null and JSON/YAML lists and maps are
    converted; anything else stays a string.
    """
    lowered = text.strip().lower()
    if lowered in SCALARS:
        return SCALARS[lowered]
    if NUMBER.fullmatch(text.strip()):  # as YAML: 0755 or 099720109477 stay strings
        for convert in (int, float):
            try:
                return convert(text)
            except ValueError:
                pass
    if text.startswith(("[", "{")):


        try:
            return document_bounds.load_yaml(text)
        except yaml.YAMLError:
            return text
    return text


def split_arguments(items: list[str]) -> tuple[list[Any], dict[str, Any]]:
    """Split ``ARG`` and ``KEY=VALUE`` items into positional and keyword arguments."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for item in items:
        match = KEYWORD.match(item)
        if match:
            kwargs[match.group(1)] = parse_value(match.group(2))
        else:
            args.append(parse_value(item))
    return args, kwargs


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """Load the configuration; return the opts of the execution modules (``-m`` included)."""
    config.load(config_files=getattr(args, "config_file", None))
    opts = opts_from_conf()
    if getattr(args, "module_dir", None):
        opts["module_dirs"] = [*opts["module_dirs"], *args.module_dir]
    return opts


def _setup(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Load the configuration; return the opts and an execution loader."""
    opts = _options(args)
    return opts, execution_loader(opts)


def do_call(args: argparse.Namespace) -> int:
    """Run one execution function locally (the local user's right) and print its return."""
    args = trailing_options(args)
    runner = job_runner(_options(args))
    service = JobService.for_local_user(runner_factory=lambda: runner)
    positional, keywords = split_arguments(args.arguments)
    try:
        job = service.run_on_engine_host(
            service.local_user, args.function, positional, keywords, target="stackctl-call",
            record=args.cache_job or config.CONF.jobs.cache_local_calls)
    except (exception.FunctionNotFound, exception.ModuleNotAvailable) as error:
        print(error, file=sys.stderr)
        return EXIT_NOT_AVAILABLE
    if job.error:
        print(f"Error running '{args.function}': {job.error}", file=sys.stderr)
    else:
        print(OUTPUTTERS[args.format or job.out or "nested"]("local", job.ret))
    if args.retcode_passthrough:
        return job.retcode
    return 1 if job.retcode else 0


def do_module_list(args: argparse.Namespace) -> int:
    """List the loaded modules; with --all also the refused ones and why."""
    _, loader = _setup(args)
    rows = [{"module": name, "status": "loaded", "functions": len(module.functions),
             "source": module.source.path, "reason": ""}
            for name, module in loader.modules.items()]
    if args.all:
        rows += [{"module": name, "status": "refused", "functions": 0, "source": "",
                  "reason": str(error)} for name, error in loader.failures.items()]
    columns = ("module", "status", "functions", "reason") if args.all else (
        "module", "functions", "source")
    output.listing(rows, columns, args.format)
    return 0


def do_doc(args: argparse.Namespace) -> int:
    """Print the docstrings of a module's functions (or of one function, or of all)."""
    _, loader = _setup(args)
    target = args.name or ""
    wildcard = any(ch in target for ch in "*?[")
    if target and "." in target and not wildcard:
        docs = {target: loader.function(target).doc}
    else:
        if target and not wildcard and target not in loader.modules:
            raise loader.missing_reason(target)
        docs = loader.call("sys.doc", *([target] if target else []))
    if args.format == "json":
        print(json.dumps(docs, indent=2))
        return 0
    for name, text in docs.items():
        print(f"{name}:\n")
        for line in (text or "(no documentation)").splitlines():
            print(f"    {line}".rstrip())
        print()
    return 0


def do_job_list(args: argparse.Namespace) -> int:
    """List the jobs in the job cache (with --url: the project's, through the API)."""
    jobs = get_backend(args).list_jobs(limit=args.limit)
    output.listing(jobs, ("jid", "function", "target", "retcode", "success", "started_at"),
                   args.format)
    return 0


def do_job_show(args: argparse.Namespace) -> int:
    """Show one cached job with its return (per agent, and who is missing, for remote jobs).

    With --url the job is the API's (``GET /jobs/{jid}``): the project's jobs only.
    """
    output.show(get_backend(args).show_job(args.jid), args.format)
    return 0


def _master_events(args: argparse.Namespace) -> Any:
    """Yield hearth-master's bus events as :class:`hearth.bus.Event` records."""
    with client_from_args(getattr(args, "config_file", None)) as client:
        for tag, data in client.events(args.tag or "", timeout=args.timeout):
            yield Event(tag, data)


def do_event_listen(args: argparse.Namespace) -> int:
    """Print a running engine's (or master's) events as ``tag<TAB>json`` lines, live."""
    if args.master:
        return _print_events(_master_events(args), args.count)
    path = args.socket
    if path is None:

        config.load(config_files=getattr(args, "config_file", None))
        path = bus.configured_socket_path()
    return _print_events(listen(path, args.tag or "", timeout=args.timeout), args.count)


def _print_events(events: Any, count: int) -> int:
    seen = 0
    try:
        for event in events:
            print(f"{event.tag}\t{json.dumps(event.data, default=str)}", flush=True)
            seen += 1
            if count and seen >= count:
                break
    except KeyboardInterrupt:
        return 0
    return 0


def add_call_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``stackctl call`` (also accepted after its arguments)."""
    parser.add_argument("--local", action="store_true",
                        help="Run on this host without an engine (the only mode for now).")
    parser.add_argument("--format", choices=("nested", "json", "yaml", "txt"), default=None,
                        help="Outputter (default: the function's own, else nested).")
    parser.add_argument("--retcode-passthrough", action="store_true",
                        help="Exit with the function's retcode instead of 0/1.")
    parser.add_argument("--cache-job", action="store_true",
                        help="Record the return in the job cache ([jobs] cache_local_calls).")
    parser.add_argument("-m", "--module-dir", action="append", metavar="DIR",
                        help="Extra directory of execution modules (repeatable).")


def trailing_options(args: argparse.Namespace, add_options: Any = None,
                     prog: str = "stackctl call") -> argparse.Namespace:
    """Move options written after MODULE.FUNCTION's arguments onto ``args``.

    ``add_options`` adds the command's options to a parser (default: call's).
    An argument that looks like a long option but is none of them is refused
    with the closest ones, as Salt's CLI refuses it (never passed on to the
    function as a value).
    """
    parser = StackctlParser(prog=prog, add_help=False)
    (add_options or add_call_options)(parser)
    parser.set_defaults(**{action.dest: None for action in parser._actions})
    given = [item for item in args.arguments if item.startswith("--") or item == "-m"
             or (add_options is not None and item.startswith("-"))]
    if not given:
        return args
    extra, rest = parser.parse_known_args(args.arguments)
    for item in rest:
        option = item.split("=", 1)[0]
        if option.startswith("--") and len(option) > 2:
            parser.error(f"unknown option '{option}'"
                         f"{did_you_mean(option, option_strings(parser))}")
    for key, value in vars(extra).items():
        if value not in (None, False):
            current = getattr(args, key, None)
            setattr(args, key, [*(current or []), *value] if isinstance(value, list) else value)
    args.arguments = rest
    return args


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the execution-layer commands."""
    parser = command.add_command(
        subparsers, "call", do_call,
        description="Run MODULE.FUNCTION in-process and print its return. Arguments are "
                    "positional values or KEY=VALUE keywords; numbers, true/false/null and "
                    "JSON/YAML lists and maps are converted. Options may follow the arguments.")
    add_call_options(parser)
    parser.add_argument("function", metavar="MODULE.FUNCTION")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARG | KEY=VALUE")

    parser = command.add_command(subparsers, "module-list", do_module_list,
                                 formats=("table", "json", "yaml", "value"))
    parser.add_argument("--all", action="store_true",
                        help="Also list modules that failed to load, with the reason.")
    parser.add_argument("-m", "--module-dir", action="append", metavar="DIR",
                        help="Extra directory of execution modules (repeatable).")

    parser = command.add_command(subparsers, "doc", do_doc)
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="Output format (default: %(default)s).")
    parser.add_argument("-m", "--module-dir", action="append", metavar="DIR",
                        help="Extra directory of execution modules (repeatable).")
    parser.add_argument("name", nargs="?", metavar="MODULE[.FUNCTION]")

    parser = command.add_command(subparsers, "job-list", do_job_list,
                                 formats=("table", "json", "yaml", "value"))
    parser.add_argument("--limit", type=int, default=None, help="Show at most this many jobs.")

    parser = command.add_command(subparsers, "job-show", do_job_show,
                                 formats=("table", "json", "yaml", "value"))
    parser.add_argument("jid", metavar="JID")

    parser = command.add_command(subparsers, "event-listen", do_event_listen)
    parser.add_argument("--tag", default="", metavar="GLOB",
                        help="Only tags matching this glob (or prefix without wildcards).")
    parser.add_argument("--count", type=int, default=0,
                        help="Exit after this many events (default: never).")
    parser.add_argument("--timeout", type=float, default=None,
                        help="Exit after this many seconds without an event.")
    parser.add_argument("--socket", default=None, metavar="PATH",
                        help="The engine's bus socket (default: [bus] publish_socket).")
    parser.add_argument("--master", action="store_true",
                        help="Follow hearth-master's bus (jobs, returns, agents, keys) "
                             "instead of an engine's.")
