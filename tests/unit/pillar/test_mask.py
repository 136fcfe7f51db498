"""Masking as recorded from Salt 3008.3 (salt-call --local pillar.items --out json)."""

from hearth.pillar.mask import PLACEHOLDER, mask, shown

PILLAR = {"db": {"password": "s3cret", "port": 5432, "ssl": True, False: False, "empty": "",
                 "zero": 0, "ports": [1, 2], "none": None}}

#: Salt 3008.3's answer for PILLAR (pillar.items, pillar.get db, pillar.item db).
SALT_MASKED = {"db": {"password": "**********", "port": "**********", "ssl": "**********",
                      False: False, "empty": "", "zero": 0,
                      "ports": ["**********", "**********"], "none": None}}


def test_every_truthy_leaf_is_masked_as_salt_3008():
    assert mask(PILLAR) == SALT_MASKED


def test_bytes_keep_their_type_and_unmask_shows_values():
    assert mask(b"x") == PLACEHOLDER.encode()
    assert mask(b"") == b""
    assert shown(PILLAR, unmask=True) is PILLAR
    assert shown("s3cret", unmask=False) == PLACEHOLDER
