"""``stackctl console``: the console for one user, on 127.0.0.1, beside their local engine.

Started by ``stackctl console`` as ``python -m hearth.console.local``, so
that eventlet patches the process before the console's web stack loads.  It serves
the console on a loopback address only, with the local user's rights (the
same as ``stackctl``'s: their local engine over its Unix socket, their
master's client key for agent keys and pillar), and prints a one-time login
link, as Jupyter does: whoever opens it first gets the session, and the link
works no more.  It stops on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

import eventlet

from hearth.api.server import is_loopback, serve
from hearth.cli import local_engine
from hearth.cli.commands.console import add_arguments
from hearth.common import config, exception
from hearth.console.connect import LocalConnector
from hearth.jobservice.callers import LocalUser


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser (``stackctl console``'s options)."""
    parser = argparse.ArgumentParser(prog="stackctl console",
                                     description="Serve the web console for this user.")
    add_arguments(parser)
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable).")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the console until SIGTERM or Ctrl-C; return the exit code."""
    args = build_parser().parse_args(argv)
    if not is_loopback(args.host):
        print(f"ERROR: stackctl console listens on a loopback address only (it acts with "
              f"your rights), not on {args.host}.", file=sys.stderr)
        return 2
    eventlet.monkey_patch()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config.load(config_files=args.config_file)
    # lazy: the console's web stack (falcon, jinja2) loads once the process is green
    from hearth.console import site
    connector = LocalConnector(args.config_file)
    try:
        connector.calls(None).list_stacks()  # the local engine starts now, or says why not
    except exception.HearthException as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 1
    console, app = site.local_console(connector)
    secret = console.sessions.login_link(project=local_engine.LOCAL_PROJECT, token=None,
                                             user=LocalUser.current().name)
    sock = eventlet.listen((args.host, args.port))
    host = f"[{args.host}]" if ":" in args.host else args.host
    root = f"http://{host}:{sock.getsockname()[1]}/console"
    print(f"Hearth console for {LocalUser.current().name} at {root}\n"
          f"Open this link to log in (it works once):\n    {root}/login?link={secret}",
          flush=True)
    serve(sock, app, None)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
