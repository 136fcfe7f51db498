"""The API's application on its engine: what ``hearth-api`` and the local engine serve.

Loaded by ``hearth-api`` (:mod:`hearth.api.server`) once the process is
green, and by the local engine (:mod:`hearth.api.local_server`).  The
engine runs on green threads of the same process; the application is the
REST API, with the web console in front of it when ``[api] console``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import logging
import sys
from collections.abc import Callable
from typing import Any

import eventlet
from stevedore import driver

from hearth.api.app import build_app
from hearth.api.server import is_loopback, serve
from hearth.common import config
from hearth.db import tokens
from hearth.engine.resources import signal_url
from hearth.engine.service.engine import EngineService
from hearth.jobservice.service import JobService

LOG = logging.getLogger("hearth.api")


def build_application(noauth: bool, local_user: bool = False) -> tuple[Any, Any]:
    """Return ``(wsgi_app, engine_service)`` on the configured database.

    ``local_user``: the engine is the user's own (stackctl's local engine):
    its stacks and job requests act with the user's rights, not a project's.
    """
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
    try:
        wrap: Callable[..., Any] = driver.DriverManager(FRONTENDS, name).driver
    except Exception as error:  # noqa: BLE001 - any failure to load leaves the API alone
        LOG.error("hearth-api serves no %s: its entry point in %s does not load (%s)",
                  name, FRONTENDS, error)
        return app
    return wrap(app, **options)


def run(args: argparse.Namespace) -> int:
    """Serve ``hearth-api``'s parsed command line; return the exit code."""
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    config.load(config_files=args.config_file)
    host = args.host or config.CONF.api.bind_host
    port = config.CONF.api.bind_port if args.port is None else args.port
    if args.noauth and not is_loopback(host):
        print(f"ERROR: --noauth refuses to listen on {host}: use a loopback address "
              "such as 127.0.0.1.", file=sys.stderr)
        return 2
    app, service = build_application(args.noauth)
    sock = eventlet.listen((host, port))
    gc.enable()  # hearth.api.server.main disabled it for the start-up
    actual_port = sock.getsockname()[1]
    signal_url.set_serving_url(f"http://{host}:{actual_port}")
    mode = " (noauth)" if args.noauth else ""
    print(f"hearth-api listening on http://{host}:{actual_port}{mode}", flush=True)
    serve(sock, app, service, debug=args.debug)
    return 0
