"""``hearth-api``: serve the REST API with eventlet's WSGI server.

The engine runs on green threads of the same process.  On SIGTERM (or
SIGINT) the server stops accepting connections, lets the requests in flight
finish, then stops the engine, which gives running stack actions
``[api] graceful_shutdown_timeout`` seconds to finish and marks the rest
FAILED (never left IN_PROGRESS).
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

LOG = logging.getLogger("hearth.api")

#: Seconds requests in flight get to finish once the server stops accepting.
REQUEST_DRAIN_TIMEOUT = 3.0


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``hearth-api``."""
    parser = argparse.ArgumentParser(
        prog="hearth-api",
        description="Serve Hearth's REST API (OpenStack Heat v1 compatible).")
    parser.add_argument("--host", default=None,
                        help="Address to listen on (default: [api] bind_host, 127.0.0.1).")
    parser.add_argument("--port", type=int, default=None,
                        help="Port to listen on (default: [api] bind_port, 8004; 0 picks one).")
    parser.add_argument("--config-file", action="append", metavar="FILE", default=None,
                        help="Configuration file (repeatable).")
    parser.add_argument("--noauth", action="store_true",
                        help="Accept any token (or none); the tenant comes from the URL. "
                             "Local development only: refuses non-loopback addresses.")
    parser.add_argument("--debug", action="store_true", help="Log every request.")
    return parser


def is_loopback(host: str) -> bool:
    """Return whether ``host`` is a loopback address (or 'localhost')."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_application(noauth: bool, local_user: bool = False) -> tuple[Any, Any]:
    """Return ``(wsgi_app, engine_service)`` on the configured database.

    ``local_user``: the engine is the user's own (stackctl's local engine):
    its stacks and job requests act with the user's rights, not a project's.
    """
    import functools

    from hearth.api.app import build_app
    from hearth.common import config
    from hearth.db import tokens
    from hearth.engine.service.engine import EngineService
    from hearth.jobservice import JobService

    url = config.database_url()
    jobs = JobService.for_local_user() if local_user else JobService()
    service = EngineService(db_url=url, jobs=jobs)
    service.start()  # a server is an engine from its start: registered, beating, recovered
    verify = None if noauth else functools.partial(tokens.verify_token, url=url)
    app = build_app(service, verify=verify, noauth=noauth, local=local_user)
    if local_user or not config.CONF.api.console:
        return app, service
    return with_frontend(app, "console", verify=verify, noauth=noauth), service


#: Entry point group of the front ends hearth-api serves beside the API (the web console).
FRONTENDS = "hearth.api.frontends"


def with_frontend(app: Any, name: str, **options: Any) -> Any:
    """Return ``app`` with the front end ``name`` of :data:`FRONTENDS` in front of it.

    A front end is a client of the API that lives above it (the console:
    ``hearth.console.serve_console``), so the API finds it by its entry point
    rather than importing it.  One that is not installed is logged and left out.
    """
    from stevedore import driver
    try:
        wrap: Callable[..., Any] = driver.DriverManager(FRONTENDS, name).driver
    except Exception as error:  # noqa: BLE001 - any failure to load leaves the API alone
        LOG.error("hearth-api serves no %s: its entry point in %s does not load (%s)",
                  name, FRONTENDS, error)
        return app
    return wrap(app, **options)


def _stop_engine(service: Any, timeout: float) -> None:
    stop = getattr(service, "stop", None)
    if stop is None:
        return
    try:
        stop(timeout=timeout)
    except TypeError:
        stop()


def serve(sock: Any, app: Any, service: Any, debug: bool = False,
          stopping: Any = None) -> None:
    """Serve until SIGTERM/SIGINT (or ``stopping`` is sent), then shut down gracefully."""
    import eventlet
    import eventlet.event
    import eventlet.wsgi

    from hearth.common.config import CONF

    stopping = stopping or eventlet.event.Event()

    def request_stop(signum: int, _frame: Any) -> None:
        LOG.info("Signal %d received: shutting down", signum)
        if not stopping.ready():
            stopping.send(signum)

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    server = eventlet.spawn(eventlet.wsgi.server, sock, app, log=LOG, log_output=debug,
                            debug=False, keepalive=True, socket_timeout=60)
    while not stopping.ready():
        # a signal's handler runs inside the hub's poll, which then waits on with the
        # timeout it had: with no timer of its own (stackctl console has no engine)
        # the hub would sleep through the wake-up the handler scheduled
        stopping.wait(1.0)
    # Stop accepting; requests in flight get a few seconds (idle keep-alive
    # connections would otherwise hold the shutdown until their socket timeout).
    stopper = eventlet.spawn(server.kill, SystemExit)
    with eventlet.Timeout(REQUEST_DRAIN_TIMEOUT, False):
        stopper.wait()
    _stop_engine(service, CONF.api.graceful_shutdown_timeout)
    LOG.info("hearth-api stopped")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hearth-api``; return the exit code."""
    args = build_parser().parse_args(argv)
    import eventlet
    eventlet.monkey_patch()
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    from hearth.common import config
    config.load(config_files=args.config_file)
    host = args.host or config.CONF.api.bind_host
    port = config.CONF.api.bind_port if args.port is None else args.port
    if args.noauth and not is_loopback(host):
        print(f"ERROR: --noauth refuses to listen on {host}: use a loopback address "
              "such as 127.0.0.1.", file=sys.stderr)
        return 2
    app, service = build_application(args.noauth)
    sock = eventlet.listen((host, port))
    actual_port = sock.getsockname()[1]
    from hearth.engine.resources import signal_url
    signal_url.set_serving_url(f"http://{host}:{actual_port}")
    mode = " (noauth)" if args.noauth else ""
    print(f"hearth-api listening on http://{host}:{actual_port}{mode}", flush=True)
    serve(sock, app, service, debug=args.debug)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
