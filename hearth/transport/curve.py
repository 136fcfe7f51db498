"""ZeroMQ sockets with CURVE security, and the ZAP handler that admits peers.

Every socket Hearth opens between processes is a CURVE socket: a server
binds with its secret key and asks the :class:`ZapHandler` (libzmq's ZAP
protocol, RFC 27) whether each connecting public key may talk, in a
*domain* that names the socket's purpose; a client connects knowing the
server's public key, so a server that cannot prove that key is refused by
libzmq itself.  Each admitted message carries the peer's Z85 public key as
its ``User-Id`` property (:func:`peer_key`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import zmq
import zmq.utils.z85

from hearth.common import daemon
from hearth.transport.keys import KeyPair

LOG = logging.getLogger(__name__)

ZAP_ENDPOINT = "inproc://zeromq.zap.01"
ZAP_VERSION = b"1.0"

#: ``authorize(domain, client_public_z85)`` returns whether the peer may talk.
Authorizer = Callable[[str, bytes], bool]


def server_socket(context: zmq.Context, kind: int, endpoint: str, keys: KeyPair,
                  domain: str, **options: Any) -> zmq.Socket:
    """Return a socket of ``kind`` bound to ``endpoint`` as a CURVE server in ``domain``.

    ``options`` are extra socket options by name (``maxmsgsize=4096``, ...),
    set before binding: libzmq gives a connection the options its socket
    had when it was bound.
    """
    socket = context.socket(kind)
    socket.setsockopt(zmq.LINGER, 0)
    socket.curve_secretkey = keys.secret
    socket.curve_publickey = keys.public
    socket.curve_server = True
    socket.zap_domain = domain.encode()
    socket.setsockopt(zmq.ZAP_ENFORCE_DOMAIN, 1)  # no ZAP handler: nobody gets in
    _set_options(socket, options)
    try:
        socket.bind(endpoint)
    except zmq.ZMQError:
        socket.close()
        raise
    return socket


def client_socket(context: zmq.Context, kind: int, endpoint: str, keys: KeyPair,
                  server_public: bytes, **options: Any) -> zmq.Socket:
    """Return a socket of ``kind`` connected to ``endpoint`` as a CURVE client.

    ``options`` are extra socket options by name (``immediate=1``, ...).
    """
    socket = context.socket(kind)
    socket.setsockopt(zmq.LINGER, 0)
    socket.curve_secretkey = keys.secret
    socket.curve_publickey = keys.public
    socket.curve_serverkey = server_public
    _set_options(socket, options)
    socket.connect(endpoint)
    return socket


def _set_options(socket: zmq.Socket, options: dict[str, Any]) -> None:
    for name, value in options.items():
        socket.setsockopt(getattr(zmq, name.upper()), value)


def peer_key(frame: zmq.Frame) -> bytes:
    """Return the Z85 public key of the peer that sent ``frame`` (its ZAP User-Id)."""
    return frame.get("User-Id").encode()


def tcp_endpoint(host: str, port: int) -> str:
    """Return the ZeroMQ TCP endpoint of ``host``:``port`` (IPv6 hosts bracketed)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"tcp://{host}:{port}"


class ZapHandler:
    """Answer a context's ZAP requests from a thread, asking ``authorize`` each time.

    Only the CURVE mechanism is admitted: a NULL or PLAIN peer is refused.
    Should the thread die, ``on_death(reason)`` is called (the daemon stops:
    without it nobody could connect).
    """

    def __init__(self, context: zmq.Context, authorize: Authorizer,
                 on_death: Callable[[str], None] = lambda reason: None) -> None:
        self._context = context
        self._authorize = authorize
        self._socket = context.socket(zmq.REP)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.bind(ZAP_ENDPOINT)
        self._stop_address = f"inproc://hearth-zap-stop-{id(self)}"
        self._stop_receiver = context.socket(zmq.PAIR)
        self._stop_receiver.bind(self._stop_address)
        self._thread = daemon.watch_thread("ZAP handler", self._serve, on_death)

    def _serve(self) -> None:
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self._stop_receiver, zmq.POLLIN)
        try:
            while True:
                ready = dict(poller.poll())
                if self._stop_receiver in ready:
                    return
                self._socket.send_multipart(self._answer(self._socket.recv_multipart()))
        finally:
            self._socket.close()
            self._stop_receiver.close()

    def _answer(self, request: list[bytes]) -> list[bytes]:
        """Return the ZAP reply to one request."""
        if len(request) < 6 or request[0] != ZAP_VERSION:
            return self._reply(request[1] if len(request) > 1 else b"", b"400", b"bad request")
        request_id, domain, mechanism = request[1], request[2].decode(), request[5]
        if mechanism != b"CURVE" or len(request) != 7:
            return self._reply(request_id, b"400", b"CURVE required")
        client_key = zmq.utils.z85.encode(request[6])
        try:
            allowed = self._authorize(domain, client_key)
        except Exception:  # noqa: BLE001 - a bug here must refuse, never crash the handler
            LOG.exception("ZAP authorization failed for a peer in domain %s", domain)
            allowed = False
        if not allowed:
            return self._reply(request_id, b"400", b"not authorized")
        return self._reply(request_id, b"200", b"OK", client_key)

    @staticmethod
    def _reply(request_id: bytes, code: bytes, text: bytes, user_id: bytes = b"") -> list[bytes]:
        return [ZAP_VERSION, request_id, code, text, user_id, b""]

    def close(self) -> None:
        """Stop answering (peers connecting afterwards are refused)."""
        sender = self._context.socket(zmq.PAIR)
        sender.setsockopt(zmq.LINGER, 0)
        sender.connect(self._stop_address)
        sender.send(b"")
        self._thread.join(timeout=2)
        sender.close()
