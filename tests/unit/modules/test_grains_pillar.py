"""grains.* and pillar.*: nested paths, defaults, setval persistence."""

import json


def test_grains_get_nested_and_default(salt):
    assert salt["grains.get"]("os") == "Debian"
    assert salt["grains.get"]("ip4_interfaces:eth0:0") == "10.0.0.5"
    assert salt["grains.get"]("nope:deep", "dflt") == "dflt"
    assert salt["grains.get"]("nope") == ""


def test_grains_items_item_ls(salt):
    assert salt["grains.items"]()["id"] == "m1"
    assert salt["grains.item"]("os", "missing") == {"os": "Debian"}
    assert salt["grains.ls"]() == ["id", "ip4_interfaces", "os"]


def test_grains_setval_persists(salt, tmp_path):
    assert salt["grains.setval"]("role", "db") == {"role": "db"}
    assert salt["grains.get"]("role") == "db"
    assert json.loads((tmp_path / "grains.json").read_text()) == {"role": "db"}


def test_pillar_get(salt):
    assert salt["pillar.get"]("db:creds:user", unmask=True) == "admin"
    assert salt["pillar.get"]("nope:x", "dflt") == "dflt"
    assert salt["pillar.get"]("nope:x") == ""
    assert salt["pillar.get"]("db/ports", delimiter="/", unmask=True) == [5432]
    assert salt["pillar.get"]("db:creds", {"pass": "x"}, merge=True, unmask=True) == {
        "pass": "x", "user": "admin"}


def test_pillar_raw_item_ls(salt):
    assert salt["pillar.raw"]()["role"] == "web"
    assert salt["pillar.item"]("role", "nope", unmask=True) == {"role": "web", "nope": ""}
    assert salt["pillar.ls"]() == ["db", "role"]
