"""pillar.*: compiled on first use without an agent, errors, masking, pillar.ext."""

import pytest

from hearth.common.exception import CommandExecutionError
from hearth.loader import EXECUTION, Loader


def loader(tmp_path, pillar=None, **opts):
    return Loader(EXECUTION, {"state_path": str(tmp_path), "id": "m1", **opts},
                  pack={"__grains__": {"id": "m1", "role": "db"}, "__pillar__": pillar or {}})


@pytest.fixture
def roots(tmp_path):
    base = tmp_path / "pillar"
    base.mkdir()
    (base / "top.sls").write_text("base:\n  '*':\n    - data\n")
    (base / "data.sls").write_text("db:\n  role: {{ grains.role }}\n  port: 5432\n")
    return {"base": [str(base)]}


def test_compiled_on_first_use_without_an_agent(tmp_path, roots):
    salt = loader(tmp_path, pillar_roots=roots, ext_pillar=[])
    assert salt["pillar.get"]("db:role") == "**********"
    assert salt["pillar.get"]("db", unmask=True) == {"role": "db", "port": 5432}
    assert salt["pillar.raw"]() == {"db": {"role": "db", "port": 5432}}
    assert salt["pillar.keys"]("db") == ["role", "port"]
    assert salt["pillar.items"](pillar={"db": {"port": 1}}, unmask=True) == {
        "db": {"role": "db", "port": 1}}
    assert salt["pillar.items"](unmask=False) == {"db": {"role": "**********",
                                                         "port": "**********"}}


def test_items_default_follows_pillar_mask_output(tmp_path, roots):
    salt = loader(tmp_path, pillar_roots=roots, ext_pillar=[], pillar_mask_output=False)
    assert salt["pillar.items"]()["db"]["port"] == 5432
    assert salt["pillar.get"]("db:port") == "**********"  # only items' default changes


def test_errors_fail_readers_unless_configured(tmp_path):
    held = {"a": 1, "_errors": ["Rendering SLS 'x' failed"]}
    with pytest.raises(CommandExecutionError) as caught:
        loader(tmp_path, held)["pillar.get"]("a")
    assert str(caught.value) == "Pillar has errors: Rendering SLS 'x' failed"
    lenient = loader(tmp_path, dict(held), pillar_fail_on_errors=False)
    assert lenient["pillar.get"]("a", unmask=True) == 1


def test_ext_runs_only_whitelisted_modules(tmp_path, roots):
    salt = loader(tmp_path, pillar_roots=roots, on_demand_ext_pillar=["cmd_yaml"])
    with pytest.raises(CommandExecutionError) as caught:
        salt["pillar.ext"]({"file_tree": {"root_dir": "/"}})
    assert str(caught.value) == ("ext_pillar file_tree may not run on demand; list it in "
                                 "on_demand_ext_pillar (allowed now: ['cmd_yaml'])")
    assert salt["pillar.ext"]("{cmd_yaml: \"echo 'extra: 1'\"}", unmask=True) == {
        "db": {"role": "db", "port": 5432}, "extra": 1}
