"""``hearth-api``: serve the REST API with eventlet's WSGI server.

The command line makes the process green (eventlet's monkey-patching)
before the application and its engine are imported (:mod:`hearth.api.serving`).
The engine runs on green threads of the same process.  On SIGTERM (or
SIGINT) the server stops accepting connections, lets the requests in flight
finish, then stops the engine, which gives running stack actions
``[api] graceful_shutdown_timeout`` seconds to finish and marks the rest
FAILED (never left IN_PROGRESS).  :func:`serve` serves the local engine and
the console too.
"""

from __future__ import annotations

import argparse
import gc
import ipaddress
import logging
import signal
import sys
from collections.abc import Sequence
from typing import Any

import eventlet
import eventlet.event
import eventlet.wsgi

from hearth.common import config

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
    _stop_engine(service, config.CONF.api.graceful_shutdown_timeout)
    LOG.info("hearth-api stopped")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hearth-api``; return the exit code."""
    args = build_parser().parse_args(argv)
    # Start-up builds objects that live as long as the process (modules, plug-ins, the
    # application): collecting while they are made only scans them again and again (about
    # a tenth of the start's CPU); serving.run enables the collector once it listens
    gc.disable()
    eventlet.monkey_patch()
    # lazy: the server's modules load once the process is green (they take sockets and locks)
    from hearth.api import serving
    return serving.run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
