"""Tests of stackctl resource-type-list / -show / -template."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from hearth.cli import main
from hearth.engine.nested.template_resource import default_registry
from tests.conftest import stop_local_engines

EXAMPLE = (Path(__file__).resolve().parents[3] / "examples" / "hearth-example-plugin"
           / "hearth_example_plugin" / "site.py")


@pytest.fixture(scope="module")
def plugin_conf(tmp_path_factory):
    """A config whose plugin_dirs holds the example plug-in and a broken module.

    The module's tests only read the catalogue: one HEARTH_HOME, so one local engine.
    """
    directory = tmp_path_factory.mktemp("resource-types")
    home = directory / "hearth-home"
    home.mkdir()
    plugins = directory / "plugins"
    plugins.mkdir()
    shutil.copy(EXAMPLE, plugins / "site.py")
    (plugins / "broken.py").write_text("import no_such_dependency\n")
    conf = directory / "hearth.conf"
    conf.write_text(f"[DEFAULT]\nplugin_dirs = {plugins}\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HEARTH_HOME", str(home))
        default_registry.cache_clear()
        yield ["--config-file", str(conf)], plugins
        default_registry.cache_clear()
    stop_local_engines(home)


def run(capsys, *argv):
    code = main.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_with_filter_and_all(capsys, plugin_conf):
    conf, plugins = plugin_conf
    code, out, _ = run(capsys, *conf, "resource-type-list", "--format", "value")
    assert code == 0 and "Example::Web::Site" in out.split() and "OS::Heat::None" in out.split()
    code, out, _ = run(capsys, *conf, "resource-type-list", "--filter", "name=Example::.*",
                       "--format", "json")
    assert json.loads(out) == [{"resource_type": "Example::Web::Site"}]
    code, out, _ = run(capsys, *conf, "resource-type-list", "--filter", "name=OS::Heat::N.*",
                       "--long", "--format", "json")
    assert json.loads(out) == [{
        "resource_type": "OS::Heat::None",
        "description": "Enables easily disabling certain resources via the resource_registry."}]
    code, out, _ = run(capsys, *conf, "resource-type-list", "--all", "--filter",
                       "name=Example.*", "--format", "json")
    assert json.loads(out) == [
        {"resource_type": "Example::Web::Site", "status": "LOADED", "reason": ""},
        {"resource_type": str(plugins / "broken.py"), "status": "FAILED",
         "reason": f"Failed to load resource plug-in {plugins / 'broken.py'}: "
                   "ModuleNotFoundError: No module named 'no_such_dependency'"}]


def test_bad_filter(capsys, plugin_conf):
    code, _, err = run(capsys, *plugin_conf[0], "resource-type-list", "--filter", "type=x")
    assert code == 2 and err == "ERROR: --filter type: only name=PATTERN is supported\n"


def test_show_example_type(capsys, plugin_conf):
    code, out, _ = run(capsys, *plugin_conf[0], "resource-type-show", "Example::Web::Site",
                       "--format", "json")
    schema = json.loads(out)
    assert code == 0 and schema["resource_type"] == "Example::Web::Site"
    assert schema["properties"]["listener"]["schema"]["port"] == {
        "type": "integer", "description": "TCP port.", "required": True,
        "constraints": [{"range": {"min": 1, "max": 65535}}],
        "update_allowed": False, "immutable": False}
    assert schema["properties"]["workers"]["constraints"] == [{"range": {"min": 5, "max": 10}}]
    assert schema["properties"]["name"]["constraints"] == [
        {"allowed_pattern": "[a-z][a-z-]*"}, {"length": {"min": 3, "max": 20}}]
    assert sorted(schema["attributes"]) == ["listener_count", "show", "url"]


def test_show_unknown_type(capsys, plugin_conf):
    code, _, err = run(capsys, *plugin_conf[0], "resource-type-show", "Example::Web::Sit")
    assert code == 1 and err == ('ERROR: The Resource Type (Example::Web::Sit) could not be '
                                 'found. Did you mean "Example::Web::Site"?\n')


def test_template_hot_and_cfn(capsys, plugin_conf):
    code, out, _ = run(capsys, *plugin_conf[0], "resource-type-template", "Example::Web::Site")
    template = yaml.safe_load(out)
    assert code == 0 and sorted(template["parameters"]) == ["listener", "name", "workers"]
    assert template["resources"]["WebSite"]["type"] == "Example::Web::Site"
    assert sorted(template["outputs"]) == ["OS::stack_id", "listener_count", "show", "url"]
    code, out, _ = run(capsys, *plugin_conf[0], "resource-type-template", "Example::Web::Site",
                       "--template-type", "cfn", "--format", "json")
    assert json.loads(out)["Parameters"]["workers"] == {
        "Type": "Number", "Description": "Number of worker processes.", "Default": 5,
        "MinValue": 5, "MaxValue": 10}
