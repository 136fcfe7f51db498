"""A loader of the built-in execution modules, with known grains and pillar."""

import pytest

from hearth.loader import EXECUTION, Loader


@pytest.fixture
def salt(tmp_path):
    opts = {"state_path": str(tmp_path), "cachedir": str(tmp_path / "cache"), "id": "m1"}
    return Loader(EXECUTION, opts, pack={
        "__grains__": {"os": "Debian", "id": "m1", "ip4_interfaces": {"eth0": ["10.0.0.5"]}},
        "__pillar__": {"db": {"creds": {"user": "admin"}, "ports": [5432]}, "role": "web"}})
