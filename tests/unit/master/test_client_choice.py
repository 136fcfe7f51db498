"""Which master a client listing several uses (hearth.master.client_choice), over real sockets.

Each fake master is a CURVE ROUTER on 127.0.0.1 with the masters' shared
key pair that answers a client's ping with how many agents it serves, as
hearth-master does; one that is "down" reads nothing.  And a publish the
master never answers is not sent again.
"""

import threading
import time

import pytest
import zmq

from hearth.common import exception
from hearth.master import client_choice
from hearth.transport import certificates, wire


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """Return the masters' pki directory: their key pair and the client's."""
    return str(tmp_path_factory.mktemp("pki"))


def pair(pki, name):
    return certificates.load_or_create(pki, name)


class FakeMaster:
    """A master that answers pings with ``connected`` agents (None: it never answers)."""

    def __init__(self, context, master, connected, answers=("ping",)):
        self.socket = context.socket(zmq.ROUTER)
        self.socket.curve_server = True
        self.socket.curve_secretkey = master.secret
        self.socket.curve_publickey = master.public
        self.socket.setsockopt(zmq.LINGER, 0)
        port = self.socket.bind_to_random_port("tcp://127.0.0.1")
        self.address = f"127.0.0.1:{port}"
        self.connected = connected
        self.answers = answers
        self.asked = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            if not self.socket.poll(50):
                continue
            route, frame = self.socket.recv_multipart()
            request = wire.decode(frame)
            self.asked.append(request["op"])
            if self.connected is not None and request["op"] in self.answers:
                self.socket.send_multipart([route, wire.encode(
                    {"rid": request["rid"], "data": {"boot": "b", "connected": self.connected}})])

    def close(self):
        self._stop.set()
        self._thread.join()
        self.socket.close()


@pytest.fixture
def masters(pki):
    context = zmq.Context()
    made = []

    def start(*connected):
        for count in connected:
            made.append(FakeMaster(context, pair(pki, "master"), count))
        return [master.address for master in made[-len(connected):]]

    start.made = made
    yield start
    for master in made:
        master.close()
    context.term()


def choose(pki, addresses, timeout=5.0):
    context = zmq.Context.instance()
    address, socket = client_choice.choose(context, addresses, pair(pki, "client"),
                                           pair(pki, "master").public, timeout)
    socket.close(linger=0)
    return address


def test_the_master_serving_the_most_agents_is_chosen(masters, pki):
    first, second = masters(1, 3)
    assert choose(pki, [first, second]) == second    # the agents failed over to the second


def test_on_a_tie_the_first_listed_is_chosen(masters, pki):
    first, second = masters(2, 2)
    assert choose(pki, [first, second]) == first
    assert choose(pki, [second, first]) == second


def test_a_master_that_does_not_answer_is_left_after_the_others_answered(masters, pki):
    silent, alive = masters(None, 0)
    started = time.monotonic()
    assert choose(pki, [silent, alive], timeout=10.0) == alive
    # not the client's whole timeout: SETTLE seconds after the first answer
    assert time.monotonic() - started < client_choice.SETTLE + 2.0


def test_no_master_answering_names_them_all(masters, pki):
    one, two = masters(None, None)
    with pytest.raises(exception.MasterUnreachable) as raised:
        choose(pki, [one, two], timeout=0.5)
    assert f"The master at {one}, {two} did not answer within 0.5 s" in str(raised.value)


def test_a_publish_the_master_never_answers_is_not_sent_again(masters, pki):
    # the master chosen answered its ping, then stopped answering: the job may be published
    from hearth.master.client import MasterClient
    from hearth.master.settings import MasterSettings

    first, second = masters(1, 0)
    settings = MasterSettings(pki_dir=pki, masters=(first, second))
    with MasterClient(settings, timeout=1.0) as client, \
            pytest.raises(exception.MasterLostDuringPublish) as raised:
        client.publish("*", "test.ping", targeted=["a"])
    assert str(raised.value).startswith(
        f"The master at {first} did not answer the publish of test.ping within 1.0 s: it "
        "may have published the job")
    chosen, other = masters.made
    assert chosen.asked == ["ping", "publish"] and other.asked == ["ping"]
