"""Core grains: the expected keys, no DNS, cached, static grains over them."""

import json
import socket
import time

from hearth import grains
from hearth.grains import core


def test_core_grains_have_the_documented_keys():
    data = core.core_grains("m1")
    for key in ("id", "os", "os_family", "osrelease", "kernel", "num_cpus", "mem_total",
                "host", "fqdn", "ipv4", "ip4_interfaces", "pythonversion"):
        assert key in data, key
    assert data["id"] == "m1"
    assert "127.0.0.1" in data["ipv4"]


def test_id_defaults_to_hostname():
    assert core.core_grains(None)["id"] == socket.gethostname()


def test_no_dns_lookups(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("DNS lookup")

    for name in ("getfqdn", "gethostbyname", "gethostbyaddr", "getaddrinfo"):
        monkeypatch.setattr(socket, name, forbidden)
    started = time.perf_counter()
    core.core_grains("x")
    assert time.perf_counter() - started < 0.5


def test_fqdn_from_hosts_file(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.1.1 web1.example.org web1 # comment\n")
    assert core._fqdn_from_hosts("web1", str(hosts)) == "web1.example.org"
    assert core._fqdn_from_hosts("db", str(hosts)) == "db"


def test_os_release_parsing(tmp_path):
    release = tmp_path / "os-release"
    release.write_text('NAME="Debian GNU/Linux"\nID=debian\nVERSION_ID="12"\n')
    assert core._os_release(str(release))["VERSION_ID"] == "12"
    assert core._os_release(str(tmp_path / "missing")) == {}


def test_static_grains_are_laid_over_core_and_lazy_grains_defer(tmp_path):
    opts = {"state_path": str(tmp_path), "id": "m9"}
    grains.save_static_grain(opts, "os", "Custom")
    assert json.loads((tmp_path / "grains.json").read_text()) == {"os": "Custom"}
    lazy = grains.LazyGrains(opts)
    assert lazy._grains is None
    assert lazy["os"] == "Custom" and lazy["id"] == "m9"
    lazy["x"] = 1
    assert "x" in dict(lazy)
    del lazy["x"]
    assert len(lazy) == len(grains.load_grains(opts))
