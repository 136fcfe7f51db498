"""How stackctl reaches an engine: in-process (embedded) or over HTTP.

A backend offers EngineService's method names without the request context
(``backend.create_stack(stack_name, template, ...)``), so commands are
written once for both modes.  :func:`get_backend` picks the mode: ``--url``
or ``$HEARTH_URL`` selects :class:`hearth.cli.backend_http.HttpBackend` on
that server; by default the same backend talks to this user's local engine
(:mod:`hearth.cli.local_engine`); ``--in-process`` selects
:class:`EmbeddedBackend`, which runs the engine in this process on the
configured database (SQLite under ``$HEARTH_HOME`` by default).
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from typing import Any

from hearth.cli import local_engine
from hearth.cli.backend_http import HttpBackend
from hearth.common.context import RequestContext
from hearth.engine.service.catalog import Catalog
from hearth.engine.service.engine import EngineService
from hearth.jobservice import JobService

#: Seconds between two event polls while following an action in embedded mode (the
#: action's end wakes the follower at once: :meth:`EmbeddedBackend.sleep`).  Each poll
#: reads the database on the engine's own thread, so polls are not made too often.
EMBEDDED_POLL_INTERVAL = 0.25


class EmbeddedBackend:
    """Call an in-process :class:`~hearth.engine.service.engine.EngineService` as local admin."""

    poll_interval = EMBEDDED_POLL_INTERVAL

    def __init__(self, service: Any = None, project_id: str = "admin") -> None:
        if service is None:
            service = EngineService(jobs=JobService.for_local_user())
        self.service = service
        self.context = RequestContext.local(project_id)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.service, name)
        if name.startswith("_") or not callable(method):
            raise AttributeError(name)
        return functools.partial(method, self.context)

    def sleep(self, seconds: float) -> None:
        """Wait while the engine's green threads keep working; an action that ends wakes it."""
        pause = getattr(self.service, "pause", None)
        if pause is not None:
            pause(seconds)
        else:
            from hearth.common.green import green_sleep
            green_sleep(seconds)

    def settle(self, stack_identity: str) -> None:
        """Wait until this process's engine has finished the stack's action.

        The stack's final state is stored (and followed) before the action's
        thread releases the stack's lock; a process that exited in between
        would leave the lock to a registered engine that no longer runs.
        """
        runtime = getattr(self.service, "runtime", None)
        if runtime is not None:
            runtime.wait(stack_identity.rpartition("/")[2])

    def close(self) -> None:
        """Stop the in-process engine: cancel what runs, release locks."""
        stop = getattr(self.service, "stop", None)
        if stop:
            stop()


def backend_url(args: argparse.Namespace) -> str | None:
    """Return the API URL chosen by ``--url`` or ``$HEARTH_URL`` (None: embedded)."""
    return getattr(args, "url", None) or os.environ.get("HEARTH_URL") or None


def get_backend(args: argparse.Namespace) -> Any:
    """Return the backend for the parsed command line.

    ``--url``: that API server.  ``--in-process``: an engine in this
    process (the configuration is loaded here).  Otherwise the local engine
    of this setting (:mod:`hearth.cli.local_engine`), started if need be.
    """
    url = backend_url(args)
    if url:
        token = getattr(args, "token", None) or os.environ.get("HEARTH_TOKEN")
        return HttpBackend(url, token=token)
    if not local_engine.in_process_requested(args):
        return local_engine.local_backend(args)
    from hearth.common import config
    config.load(config_files=getattr(args, "config_file", None))
    return EmbeddedBackend()


def get_catalog(args: argparse.Namespace) -> Any:
    """Return what answers template and resource-type questions.

    An API server or the local engine, as :func:`get_backend`; in-process, a
    :class:`~hearth.engine.service.catalog.Catalog`: the same object the
    engine service answers these calls with, without a database or engine.
    """
    if backend_url(args) or not local_engine.in_process_requested(args):
        return get_backend(args)
    from hearth.common import config
    config.load(config_files=getattr(args, "config_file", None))
    return EmbeddedBackend(service=Catalog())


def backend_sleep(backend: Any, seconds: float) -> None:
    """Sleep the way ``backend`` needs (green for embedded, plain for HTTP)."""
    getattr(backend, "sleep", time.sleep)(seconds)
