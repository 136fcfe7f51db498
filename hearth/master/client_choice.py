"""Which master a client talks to when several share one database (``[master] masters``).

Masters that share a database serve one fleet in turn: the agents serve
one master at a time (``master_type = failover``), so a job reaches them
only through that one.  A client listing several masters pings them all
at once and uses the one that serves the most agents among those that
answer (the first listed on a tie: the one agents fail back to), so that
after a failover without failback it finds the agents where they went.
A master that does not answer is not waited for longer than it takes the
others to answer, plus :data:`SETTLE` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import zmq

from hearth.common import exception
from hearth.transport import curve, keys, wire

#: Seconds the choice waits for the other masters once one has answered.
SETTLE = 0.5
#: The request id of the pings (a client's own requests count from 1).
PROBE_RID = 0


def connect(context: zmq.Context, address: str, client_keys: keys.KeyPair,
            master_public: bytes) -> zmq.Socket:
    """Return a client socket connected to the master at ``HOST:PORT``."""
    host, _, port = address.rpartition(":")
    return curve.client_socket(context, zmq.DEALER,
                               curve.tcp_endpoint(host.strip("[]"), int(port)), client_keys,
                               master_public)


def choose(context: zmq.Context, addresses: Sequence[str], client_keys: keys.KeyPair,
           master_public: bytes, timeout: float) -> tuple[str, zmq.Socket]:
    """Ping every master of ``addresses``; return the address and socket of the one to use.

    The other sockets are closed.  Raise MasterUnreachable naming them all
    when none answers within ``timeout`` seconds.
    """
    sockets = {address: connect(context, address, client_keys, master_public)
               for address in addresses}
    ping = wire.encode({"rid": PROBE_RID, "op": "ping"})
    for socket in sockets.values():
        socket.send(ping)
    poller = zmq.Poller()
    for socket in sockets.values():
        poller.register(socket, zmq.POLLIN)
    by_socket = {socket: address for address, socket in sockets.items()}
    serving: dict[str, int] = {}
    deadline = time.monotonic() + timeout
    while len(serving) < len(sockets):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        for socket, _ in poller.poll(remaining * 1000):
            answer = wire.decode(socket.recv())
            if answer.get("rid") == PROBE_RID and "data" in answer:
                serving[by_socket[socket]] = int((answer["data"] or {}).get("connected") or 0)
                deadline = min(deadline, time.monotonic() + SETTLE)
    if not serving:
        for socket in sockets.values():
            socket.close(linger=0)
        raise exception.MasterUnreachable(
            address=", ".join(addresses), timeout=timeout,
            hint="is any of these hearth-masters running, with the client key pair of this "
                 "host's [master] pki_dir?")
    chosen = max(serving, key=lambda address: (serving[address], -addresses.index(address)))
    for address, socket in sockets.items():
        if address != chosen:
            socket.close(linger=0)
    return chosen, sockets[chosen]
