"""SSH to a new machine for the deploy step: wait for its port, log in, upload, run.

Built on paramiko: it speaks SSH in-process, so a password login needs no
``sshpass``, an ``ssh_gateway`` is one ``direct-tcpip`` channel, uploads go
over SFTP, and each failure arrives as an exception naming its cause
(refused, timed out, authentication) instead of an exit code to interpret.
Everything here blocks; it runs on the cloud call's worker thread, never on
the engine's green threads.

A new machine's host key cannot be known in advance: as Salt Cloud does,
it is accepted on first sight unless ``known_hosts_file`` names a file to
check it against; its fingerprint is reported either way.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.common import exception

LOG = logging.getLogger(__name__)


@dataclass
class Login:
    """Where and how to log in: one host, one user, a key file and/or a password."""

    host: str
    port: int = 22
    username: str = "root"
    private_key: str | None = None
    password: str | None = None
    timeout: float = 15.0
    known_hosts_file: str | None = None
    gateway: Login | None = None

    def describe(self) -> str:
        """Return ``user@host:port`` (and the gateway's), for messages."""
        via = f" via {self.gateway.describe()}" if self.gateway else ""
        return f"{self.username}@{self.host}:{self.port}{via}"


@dataclass
class Outcome:
    """What a remote command did: its exit status and its output (stdout then stderr)."""

    status: int
    output: str = ""

    def tail(self, lines: int = 20) -> str:
        """Return the last ``lines`` lines of the output."""
        return "\n".join(self.output.rstrip().splitlines()[-lines:])


@dataclass
class Session:
    """One logged-in SSH connection (a context manager)."""

    login: Login
    client: Any
    gateway_client: Any = None
    host_key: str = ""
    _sftp: Any = field(default=None, repr=False)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (and the gateway's)."""
        for item in (self._sftp, self.client, self.gateway_client):
            if item is not None:
                item.close()

    def run(self, command: str, timeout: float | None = None,
            stdin: bytes | None = None) -> Outcome:
        """Run ``command`` through the remote shell; return its status and output."""
        channel = self.client.get_transport().open_session()
        try:
            channel.settimeout(timeout)
            channel.set_combine_stderr(True)
            channel.exec_command(command)
            if stdin is not None:
                channel.sendall(stdin)
            channel.shutdown_write()
            chunks = []
            while True:
                data = channel.recv(65536)
                if not data:
                    break
                chunks.append(data)
            status = channel.recv_exit_status()
        except TimeoutError as error:
            raise exception.CloudExecutionTimeout(
                f"{command.split()[0]} on {self.login.describe()} did not finish within "
                f"{timeout:g} seconds") from error
        finally:
            channel.close()
        return Outcome(status, b"".join(chunks).decode("utf-8", "replace"))

    def sftp(self) -> Any:
        """Return the connection's SFTP client (opened once)."""
        if self._sftp is None:
            self._sftp = self.client.open_sftp()
        return self._sftp

    def upload(self, directory: str, files: Mapping[str, bytes], mode: int = 0o600) -> None:
        """Create ``directory`` (mode 0700) and write ``files`` (name -> content) in it."""
        sftp = self.sftp()
        made = set()
        for name, content in files.items():
            parts = name.split("/")[:-1]
            for depth in range(len(parts) + 1):
                path = "/".join([directory, *parts[:depth]])
                if path not in made:
                    try:
                        sftp.mkdir(path, 0o700)
                    except OSError:
                        sftp.stat(path)  # it exists already; anything else raises
                    made.add(path)
            with sftp.open(f"{directory}/{name}", "wb") as remote:
                remote.set_pipelined(True)
                remote.chmod(mode)
                remote.write(content)


def _client(login: Login, paramiko: Any) -> Any:
    client = paramiko.SSHClient()
    if login.known_hosts_file:
        client.load_host_keys(login.known_hosts_file)
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
    else:
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    return client


def _channel_through(gateway: Session, login: Login) -> Any:
    """Return a socket-like channel to ``login``'s host and port, opened by the gateway."""
    transport = gateway.client.get_transport()
    return transport.open_channel("direct-tcpip", (login.host, login.port), ("127.0.0.1", 0),
                                  timeout=login.timeout)


def connect(login: Login) -> Session:
    """Log in once; raise :class:`DeployLoginFailed` or an OSError naming the cause."""
    # lazy: paramiko (the [cloud] extra, with cryptography) only when a node is deployed over SSH
    import paramiko

    gateway = connect(login.gateway) if login.gateway else None
    client = _client(login, paramiko)
    try:
        sock = _channel_through(gateway, login) if gateway else None
        client.connect(login.host, port=login.port, username=login.username,
                       password=login.password, key_filename=login.private_key,
                       timeout=login.timeout, banner_timeout=login.timeout,
                       auth_timeout=login.timeout, sock=sock,
                       look_for_keys=False, allow_agent=False)
    except paramiko.AuthenticationException as error:
        client.close()
        if gateway:
            gateway.close()
        raise LoginRefused(f"{login.describe()}: {error}") from error
    except (paramiko.SSHException, OSError, EOFError) as error:
        client.close()
        if gateway:
            gateway.close()
        raise OSError(f"{login.describe()}: {type(error).__name__}: {error}") from error
    key = client.get_transport().get_remote_server_key()
    digest = base64.b64encode(hashlib.sha256(key.asbytes()).digest()).decode().rstrip("=")
    return Session(login, client, gateway.client if gateway else None,
                   f"{key.get_name()} SHA256:{digest}")


class LoginRefused(exception.CloudExecutionFailure):
    """The SSH server refused the credentials (the machine may not have them yet)."""


def wait_for_port(host: str, port: int, timeout: float, gateway: Login | None = None,
                  interval: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                  clock: Callable[[], float] = time.monotonic) -> None:
    """Wait until ``host:port`` accepts a TCP connection (through ``gateway`` when given)."""
    deadline = clock() + timeout
    last: Exception | None = None
    while True:
        try:
            if gateway is not None:
                with connect(gateway) as session:
                    _channel_through(session, Login(host, port, timeout=5)).close()
            else:
                socket.create_connection((host, port), timeout=min(5.0, timeout)).close()
            return
        except (OSError, exception.HearthException) as error:
            last = error
        if clock() >= deadline:
            raise exception.CloudExecutionTimeout(
                f"port {port} of {host} did not open within {timeout:g} seconds "
                f"(last error: {last})")
        sleep(min(interval, max(0.0, deadline - clock())))


def login_with_retries(logins: list[Login], tries: int, interval: float = 1.0,
                       sleep: Callable[[float], None] = time.sleep) -> Session:
    """Try each login in turn, up to ``tries`` rounds; return the first session that works."""
    errors: list[str] = []
    for attempt in range(max(1, tries)):
        for login in logins:
            try:
                return connect(login)
            except (OSError, exception.HearthException) as error:
                errors.append(str(error))
                LOG.debug("login %s (try %d) failed: %s", login.describe(), attempt + 1, error)
        if attempt + 1 < tries:
            sleep(interval)
    raise exception.CloudExecutionFailure(
        f"could not log in after {tries} tries: {errors[-1] if errors else 'no login to try'}")
