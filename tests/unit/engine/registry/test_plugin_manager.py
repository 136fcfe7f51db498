"""Tests of hearth.engine.registry.plugin_manager: every discovery route, failures, conflicts."""

import logging
import shutil
import sys
from pathlib import Path

import pytest

from hearth.engine.registry import plugin_manager
from hearth.engine.registry.plugin_manager import PluginManager, PluginSource

EXAMPLE = (Path(__file__).resolve().parents[4] / "examples" / "hearth-example-plugin"
           / "hearth_example_plugin" / "site.py")
BUILTIN_TYPES = {"OS::Heat::None", "OS::Heat::Value", "OS::Heat::RandomString",
                 "OS::Heat::TestResource", "OS::Heat::Delay"}


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


MODULE = """
from hearth.engine import resource

class {cls}(resource.Resource):
    '''A {cls}.'''

def resource_mapping():
    return {{'{type}': {cls}}}
"""


def test_builtin_types_load():
    manager = PluginManager.load(plugin_dirs=[], entry_point_group=None)
    assert set(manager.classes) >= BUILTIN_TYPES and manager.failures == []
    assert manager.modules["OS::Heat::None"] == "hearth.plugins.none"
    assert manager.classes["OS::Heat::None"].resource_type == "OS::Heat::None"


def test_example_plugin_copied_into_a_plugin_dir(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "site.py")
    manager = PluginManager.load(plugin_dirs=[str(tmp_path)], include_builtin=False,
                                 entry_point_group=None)
    assert list(manager.classes) == ["Example::Web::Site"]
    assert manager.modules["Example::Web::Site"] == str(tmp_path / "site.py")


def test_plugin_dirs_option_is_read(tmp_path):
    from hearth.common import config
    shutil.copy(EXAMPLE, tmp_path / "site.py")
    config.register_opts()
    config.CONF.set_override("plugin_dirs", [str(tmp_path)])
    try:
        manager = PluginManager.load(include_builtin=False, entry_point_group=None)
    finally:
        config.CONF.clear_override("plugin_dirs")
    assert "Example::Web::Site" in manager.classes


def test_tests_folders_hidden_and_private_files_are_skipped(tmp_path):
    write(tmp_path / "tests" / "bad.py", MODULE.format(cls="T", type="T::T"))
    write(tmp_path / "sub" / "good.py", MODULE.format(cls="G", type="G::G"))
    write(tmp_path / "_private.py", MODULE.format(cls="P", type="P::P"))
    write(tmp_path / ".hidden" / "h.py", MODULE.format(cls="H", type="H::H"))
    write(tmp_path / "notes.txt", "not python")
    manager = PluginManager.load(plugin_dirs=[str(tmp_path), str(tmp_path / "missing")],
                                 include_builtin=False, entry_point_group=None)
    assert list(manager.classes) == ["G::G"]


def test_available_resource_mapping_is_merged(tmp_path):
    write(tmp_path / "two.py", MODULE.format(cls="A", type="A::A")
          + "\ndef available_resource_mapping():\n    return {'B::B': A}\n")
    manager = PluginManager.load(plugin_dirs=[str(tmp_path)], include_builtin=False,
                                 entry_point_group=None)
    assert sorted(manager.classes) == ["A::A", "B::B"]


@pytest.mark.parametrize("text, reason", [
    ("import no_such_module_xyz\n", "ModuleNotFoundError: No module named 'no_such_module_xyz'"),
    ("x = 1\n", "ValueError: defines neither resource_mapping() nor "
                "available_resource_mapping()"),
    ("def resource_mapping():\n    return {'X::Y': 3}\n",
     "TypeError: type X::Y maps to 3, not a class"),
    ("raise SystemExit(3)\n", "SystemExit: 3"),
])
def test_broken_module_is_kept_as_a_failure(tmp_path, caplog, text, reason):
    path = write(tmp_path / "broken.py", text)
    write(tmp_path / "ok.py", MODULE.format(cls="Ok", type="Ok::Ok"))
    with caplog.at_level(logging.WARNING):
        manager = PluginManager.load(plugin_dirs=[str(tmp_path)], include_builtin=False,
                                     entry_point_group=None)
    assert list(manager.classes) == ["Ok::Ok"]
    message = f"Failed to load resource plug-in {path}: {reason}"
    assert [str(f) for f in manager.failures] == [message]
    assert message in caplog.text and "Traceback" not in caplog.text


def test_two_modules_claiming_one_type(tmp_path):
    write(tmp_path / "a.py", MODULE.format(cls="A", type="Same::Type"))
    write(tmp_path / "b.py", MODULE.format(cls="B", type="Same::Type"))
    manager = PluginManager.load(plugin_dirs=[str(tmp_path)], include_builtin=False,
                                 entry_point_group=None)
    assert manager.classes["Same::Type"].__name__ == "A"
    assert [str(f) for f in manager.failures] == [
        f"Resource type Same::Type is provided by both {tmp_path / 'a.py'} and "
        f"{tmp_path / 'b.py'}; {tmp_path / 'b.py'} is ignored for it."]


def test_from_mappings_and_read_mapping_routes():
    class T:
        pass
    manager = PluginManager.from_mappings([("m1", {"T::T": T}), ("m2", {"T::T": T})])
    assert manager.classes == {"T::T": T} and manager.failures == []
    assert plugin_manager.read_mapping({"T::T": T}) == {"T::T": T}
    assert plugin_manager.read_mapping(lambda: {"T::T": T}) == {"T::T": T}
    with pytest.raises(TypeError) as info:
        plugin_manager.read_mapping(3)
    assert str(info.value) == "expected a module, a mapping or a callable, got int"


def test_load_source_records_any_error():
    def explode():
        raise RuntimeError("bad")
    manager = PluginManager()
    manager.load_source(PluginSource("thing", explode))
    assert [str(f) for f in manager.failures] == [
        "Failed to load resource plug-in thing: RuntimeError: bad"]


@pytest.fixture
def installed_example(tmp_path, monkeypatch):
    """Install the example package as a real distribution with an entry point."""
    site = tmp_path / "site-packages"
    shutil.copytree(EXAMPLE.parent, site / "hearth_example_plugin")
    info = site / "hearth_example_plugin-1.0.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: hearth-example-plugin\n"
                             "Version: 1.0.0\n")
    write(info / "entry_points.txt", "[hearth.resources]\n"
                                     "example_site = hearth_example_plugin.site\n"
                                     "broken = hearth_example_plugin.nope\n"
                                     "callable = hearth_example_plugin.extra:mapping\n")
    write(site / "hearth_example_plugin" / "extra.py",
          "from hearth_example_plugin.site import WebSite\n\n"
          "def mapping():\n    return {'Example::Web::Other': WebSite}\n")
    monkeypatch.syspath_prepend(str(site))
    # stevedore keeps each group's entry points in memory: an earlier load in this
    # process must not hide the distribution installed just now.
    from stevedore import extension
    extension.ExtensionManager.ENTRY_POINT_CACHE.pop(plugin_manager.ENTRY_POINT_GROUP, None)
    yield site
    for name in [m for m in sys.modules if m.startswith("hearth_example_plugin")]:
        del sys.modules[name]
    monkeypatch.undo()
    # stevedore keeps the entry points of each group in memory; forget the temporary ones.
    from stevedore import extension
    extension.ExtensionManager.ENTRY_POINT_CACHE.pop(plugin_manager.ENTRY_POINT_GROUP, None)


def test_example_plugin_through_a_real_entry_point(installed_example):
    manager = PluginManager.load(plugin_dirs=[], include_builtin=False)
    assert manager.modules["Example::Web::Site"] == (
        "example_site (hearth_example_plugin.site)")
    assert manager.modules["Example::Web::Other"] == (
        "callable (hearth_example_plugin.extra:mapping)")
    assert [str(f) for f in manager.failures] == [
        "Failed to load resource plug-in broken (hearth_example_plugin.nope): "
        "ModuleNotFoundError: No module named 'hearth_example_plugin.nope'"]
