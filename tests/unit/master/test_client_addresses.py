"""Where a client reaches hearth-master: ``[master] masters`` and ``$HEARTH_MASTER``."""

import pytest

from hearth.common import exception
from hearth.master.settings import MasterSettings


def settings(**values):
    return MasterSettings(interface="0.0.0.0", port=4510, **values)


def test_without_a_list_the_client_reaches_this_hosts_master():
    assert settings().client_addresses() == ["127.0.0.1:4510"]


def test_the_list_is_kept_in_order_with_the_port_by_default():
    listed = settings(masters=("m1.example.com", "m2.example.com:4600", "[::1]:4700"))
    assert listed.client_addresses() == ["m1.example.com:4510", "m2.example.com:4600",
                                         "[::1]:4700"]


def test_hearth_master_overrides_the_list():
    listed = settings(masters=("m1",))
    assert listed.client_addresses("a:1, b:2") == ["a:1", "b:2"]
    assert listed.client_addresses("") == ["m1:4510"]


@pytest.mark.parametrize("masters, override, message", [
    (("m1:99999",), None, "[master] masters: 'm1:99999': '99999' is not a port (1-65535)"),
    (("m1", "m1:4510"), None, "[master] masters names the same master twice"),
    ((), "a:1:2:3", "$HEARTH_MASTER: 'a:1:2:3' is not HOST, HOST:PORT or HOST:PORT:AUTH_PORT"),
])
def test_a_bad_item_is_named(masters, override, message):
    with pytest.raises(exception.BadRequest) as raised:
        settings(masters=masters).client_addresses(override)
    assert str(raised.value) == message
