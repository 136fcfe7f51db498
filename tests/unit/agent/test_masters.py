"""``[agent] master`` read as Salt reads it, and the order an agent tries its masters in."""

import random

import pytest

from hearth.agent.masters import MasterAddress, MasterRotation, parse_master, parse_masters
from hearth.common import exception

A, B, C = (MasterAddress(f"m{n}", 4510, 4511) for n in (1, 2, 3))


@pytest.mark.parametrize("item, expected", [
    ("salt", ("salt", 4510, 4511)),
    ("10.0.0.1:1234", ("10.0.0.1", 1234, 4511)),
    ("localhost:1234:1235", ("localhost", 1234, 1235)),
    ("[::1]:1234", ("::1", 1234, 4511)),
    ("[::1]:1234:1235", ("::1", 1234, 1235)),
    ("[::1]", ("::1", 4510, 4511)),
    ("fe80::a00:27ff:fedc:ba98", ("fe80::a00:27ff:fedc:ba98", 4510, 4511)),
    ("::1", ("::1", 4510, 4511)),
    (" m1 ", ("m1", 4510, 4511)),
])
def test_an_item_is_a_host_with_optional_ports(item, expected):
    assert parse_master(item, 4510, 4511) == MasterAddress(*expected)


@pytest.mark.parametrize("item, message", [
    ("m1:port", "[agent] master: 'm1:port': 'port' is not a port (1-65535)"),
    ("m1:70000", "[agent] master: 'm1:70000': '70000' is not a port (1-65535)"),
    ("m1:1:2:3", "[agent] master: 'm1:1:2:3' is not HOST, HOST:PORT or HOST:PORT:AUTH_PORT"),
    ("[::1:4510", "[agent] master: '[::1:4510' is not [IPV6]:PORT (an unclosed bracket)"),
    (":4510", "[agent] master: ':4510' is not HOST, HOST:PORT or HOST:PORT:AUTH_PORT"),
])
def test_a_bad_item_is_named(item, message):
    with pytest.raises(exception.BadRequest) as raised:
        parse_master(item, 4510, 4511)
    assert str(raised.value) == message


def test_several_masters_need_failover():
    assert parse_masters(["m1", "m2:4610:4611"], 4510, 4511, "failover") == (
        A, MasterAddress("m2", 4610, 4611))
    with pytest.raises(exception.BadRequest) as raised:
        parse_masters(["m1", "m2"], 4510, 4511, "str")
    assert str(raised.value) == (
        "[agent] master names 2 masters but master_type is 'str': set master_type = "
        "failover (an agent serves one master at a time; Salt's hot multi-master, several "
        "at once, is not supported)")


@pytest.mark.parametrize("items, master_type, message", [
    ([], "str", "[agent] master names no master"),
    (["", " "], "str", "[agent] master names no master"),
    (["m1", "m1:4510"], "failover", "[agent] master names the same master twice"),
    (["m1"], "hot", "[agent] master_type: 'hot' is not one of str, failover"),
])
def test_a_bad_list_is_refused(items, master_type, message):
    with pytest.raises(exception.BadRequest) as raised:
        parse_masters(items, 4510, 4511, master_type)
    assert str(raised.value) == message


def test_failover_goes_round_the_list_and_back_to_the_first():
    rotation = MasterRotation([A, B, C])
    assert (rotation.current, rotation.failover, rotation.on_primary) == (A, True, True)
    assert [rotation.advance() for _ in range(4)] == [B, C, A, B]
    assert not rotation.on_primary
    assert rotation.fail_back() == A and rotation.on_primary


def test_one_master_is_no_failover():
    rotation = MasterRotation([A], failback=True)
    assert (rotation.failover, rotation.failback, rotation.advance()) == (False, False, A)


def test_random_master_shuffles_once_and_keeps_the_first_with_failback():
    masters = [MasterAddress(f"m{n}", 4510, 4511) for n in range(8)]
    shuffled = MasterRotation(masters, shuffle=True, rng=random.Random(1)).order
    assert sorted(shuffled, key=masters.index) == masters and shuffled != masters
    kept = MasterRotation(masters, failback=True, shuffle=True, rng=random.Random(1)).order
    assert kept[0] == masters[0] and kept[1:] != masters[1:]
    assert sorted(kept, key=masters.index) == masters


def test_a_refused_master_leaves_the_rotation():
    error = exception.MasterKeyMismatch(address="m2:4511", actual="x", expected="y", source="")
    rotation = MasterRotation([A, B, C], failback=True)
    rotation.advance()
    assert rotation.refuse(B, error) == C       # the current one: the next takes its place
    assert rotation.order == [A, C] and rotation.failback
    assert rotation.refuse(A, error) == C       # the first one: nothing to fail back to
    assert rotation.order == [C] and not rotation.failback and not rotation.failover
    with pytest.raises(exception.MasterKeyMismatch):
        rotation.refuse(C, error)
