"""Which master a client listing several uses (hearth.master.client_choice), over real sockets.

Each fake master is a CURVE ROUTER on 127.0.0.1 with the masters' shared
key pair that answers a client's ping with how many agents it serves, as
hearth-master does; one that is "down" reads nothing.
"""

import threading
import time

import pytest
import zmq

from hearth.common import exception
from hearth.master import client_choice
from hearth.transport import keys, wire

MASTER, CLIENT = keys.generate(), keys.generate()


class FakeMaster:
    """A master that answers pings with ``connected`` agents (None: it never answers)."""

    def __init__(self, context, connected):
        self.socket = context.socket(zmq.ROUTER)
        self.socket.curve_server = True
        self.socket.curve_secretkey = MASTER.secret
        self.socket.curve_publickey = MASTER.public
        self.socket.setsockopt(zmq.LINGER, 0)
        port = self.socket.bind_to_random_port("tcp://127.0.0.1")
        self.address = f"127.0.0.1:{port}"
        self.connected = connected
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            if not self.socket.poll(50):
                continue
            route, frame = self.socket.recv_multipart()
            request = wire.decode(frame)
            if self.connected is not None:
                self.socket.send_multipart([route, wire.encode(
                    {"rid": request["rid"], "data": {"boot": "b", "connected": self.connected}})])

    def close(self):
        self._stop.set()
        self._thread.join()
        self.socket.close()


@pytest.fixture
def masters():
    context = zmq.Context()
    made = []

    def start(*connected):
        for count in connected:
            made.append(FakeMaster(context, count))
        return [master.address for master in made[-len(connected):]]

    yield start
    for master in made:
        master.close()
    context.term()


def choose(addresses, timeout=5.0):
    context = zmq.Context.instance()
    address, socket = client_choice.choose(context, addresses, CLIENT, MASTER.public, timeout)
    socket.close(linger=0)
    return address


def test_the_master_serving_the_most_agents_is_chosen(masters):
    first, second = masters(1, 3)
    assert choose([first, second]) == second    # the agents failed over to the second


def test_on_a_tie_the_first_listed_is_chosen(masters):
    first, second = masters(2, 2)
    assert choose([first, second]) == first
    assert choose([second, first]) == second


def test_a_master_that_does_not_answer_is_left_after_the_others_answered(masters):
    silent, alive = masters(None, 0)
    started = time.monotonic()
    assert choose([silent, alive], timeout=10.0) == alive
    # not the client's whole timeout: SETTLE seconds after the first answer
    assert time.monotonic() - started < client_choice.SETTLE + 2.0


def test_no_master_answering_names_them_all(masters):
    one, two = masters(None, None)
    with pytest.raises(exception.MasterUnreachable) as raised:
        choose([one, two], timeout=0.5)
    assert f"The master at {one}, {two} did not answer within 0.5 s" in str(raised.value)
