"""How a console session reaches the API, and what it waits on for live updates.

* :class:`ApiConnector` — the console inside ``hearth-api``: a session is
  an API token (its project); calls go to the API's own WSGI application in
  this process (:class:`~hearth.console.wsgi_session.WsgiSession`), through
  its authentication, routes and policy; streams wake on this process's bus.
* :class:`LocalConnector` — ``stackctl console``: the session is the local
  user's; calls go to the local engine over its Unix socket, as
  ``stackctl``'s do; streams wake on the engine's bus socket.  Agent keys
  and pillar are operations of the API like the others (the local user may
  do everything, a project what its publisher_acl grants);
  :attr:`LocalConnector.clouds` lists the nodes of the local user's cloud
  providers (``stackctl cloud-nodes``), which an API project does not.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hearth.bus import configured_socket_path
from hearth.cli import local_engine
from hearth.cli.backend import Backend
from hearth.cli.backend_http import HttpTransport
from hearth.clouds.cloud import Cloud
from hearth.common import config, exception
from hearth.common.green import run_blocking
from hearth.console.calls import ConsoleCalls
from hearth.console.wake import BusWake, TimerWake, Wake, ZmqWake
from hearth.console.wsgi_session import WsgiSession

#: The base URL the in-process API is called at (its host is never resolved).
IN_PROCESS_URL = "http://localhost"


@dataclass(frozen=True)
class Identity:
    """Who a new session is: project, API token (None: the local user), user name."""

    project: str
    token: str | None
    user: str


class ApiConnector:
    """Sessions of API projects, served by the API application in this process."""

    local = False

    def __init__(self, verify: Callable[[str], Any] | None, noauth: bool = False) -> None:
        self.verify = verify
        self.noauth = noauth
        self.api: Callable[..., Any] | None = None  # set once the API app is built

    def login(self, token: str, project: str) -> Identity:
        """Return the identity of an API token (no-auth: of the project named).

        :raises Unauthorized: the token is unknown or expired.
        """
        if self.noauth:
            return Identity(project or "admin", token or None, "admin")
        if not token:
            raise exception.Unauthorized(message="Give an API token (hearth-manage "
                                                 "token-create).")
        assert self.verify is not None
        found = self.verify(token)
        if project and project != found.project_id:
            raise exception.InvalidTenant(target=project, actual=found.project_id)
        return Identity(found.project_id, token, found.user)

    def calls(self, session: Any) -> ConsoleCalls:
        """Return the API calls of ``session``, made with its token."""
        assert self.api is not None, "the API application is not attached"
        return ConsoleCalls(Backend(HttpTransport(
            f"{IN_PROCESS_URL}/v1/{session.project}", token=session.token,
            session=WsgiSession(self.api))))

    def wake(self, prefix: str) -> Wake:
        """Return a wake-up on this process's bus."""
        return BusWake(prefix)

    def job_wake(self) -> Wake:
        """Return what a job's stream waits on between two reads of the job cache."""
        return TimerWake()

    clouds = None


class LocalConnector:
    """The local user's session, served by their local engine."""

    local = True

    def __init__(self, config_files: Sequence[str] | None = None) -> None:
        self.config_files = list(config_files or []) or None

    def calls(self, session: Any) -> ConsoleCalls:
        """Return calls to the local engine (started if need be), as stackctl makes them."""
        args = argparse.Namespace(config_file=self.config_files, in_process=False)
        return ConsoleCalls(Backend(local_engine.local_transport(args)))

    def wake(self, prefix: str) -> Wake:
        """Return a wake-up on the local engine's bus socket."""
        return ZmqWake(configured_socket_path(), prefix)

    def job_wake(self) -> Wake:
        """Return what a job's stream waits on between two reads of the job cache."""
        return TimerWake()

    @property
    def clouds(self) -> CloudNodes:
        """Return the nodes of this user's cloud providers."""
        return CloudNodes()


class CloudNodes:
    """The nodes of the configured cloud providers, as ``stackctl cloud-nodes`` lists them."""

    def list_nodes(self) -> list[dict[str, Any]]:
        """Return every provider's nodes (``provider``, ``name`` and the node's fields).

        Secrets are hidden (the cloud client scrubs every answer); a provider
        that does not answer is skipped, as Salt Cloud does.

        :raises NotSupported: no cloud is configured.
        """
        directory = config.CONF.cloud.config_dir
        if not os.path.isdir(directory):
            raise exception.NotSupported(
                feature=f"Cloud nodes without a cloud configuration ({directory}, "
                        f"{config.origin('config_dir', 'cloud')}, does not exist)")
        answer = run_blocking(lambda: Cloud.from_conf().query("list_nodes"))
        return [{"provider": f"{alias}:{driver}", "name": name, **node}
                for alias, drivers in answer.items() for driver, nodes in drivers.items()
                for name, node in sorted(nodes.items())]
