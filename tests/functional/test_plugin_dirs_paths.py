"""A plug-in from ``plugin_dirs`` is seen by every stackctl command alike (defect 2).

``template-validate`` and the resource-type commands ask the catalog, the
same object the engine service answers with, so the registry they check
types against is the one built from configuration.
"""

from __future__ import annotations

import json

import pytest

from tests.functional import stackctl_process

PLUGIN = '''
from hearth.engine import attributes, properties, resource


class Foo(resource.Resource):
    """A resource that only remembers its size."""

    properties_schema = {"size": properties.Schema(properties.Schema.INTEGER, default=1)}
    attributes_schema = {"size": attributes.Schema("The size.")}

    def handle_create(self):
        self.resource_id_set(self.physical_resource_name())

    def _resolve_attribute(self, name):
        return self.properties["size"] if name == "size" else None


def resource_mapping():
    return {"Resource::Foo": Foo}
'''

TEMPLATE = """heat_template_version: 2021-04-16
resources:
  foo: {type: Resource::Foo, properties: {size: 3}}
outputs:
  size: {value: {get_attr: [foo, size]}}
"""


@pytest.fixture
def configured(tmp_path):
    plugins = tmp_path / "my-plugins"
    plugins.mkdir()
    (plugins / "foo.py").write_text(PLUGIN)
    config = tmp_path / "hearth.conf"
    config.write_text(f"[DEFAULT]\nplugin_dirs = {plugins}\n")
    template = tmp_path / "foo.yaml"
    template.write_text(TEMPLATE)
    return tmp_path / "home", config, str(template)


@pytest.mark.slow
def test_validate_list_show_and_create_see_the_plugin(configured):
    home, config, template = configured

    def run(*args):
        done = stackctl_process.run(home, *args, config=config)
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout

    listed = json.loads(run("resource-type-list", "--format", "json"))
    assert {"resource_type": "Resource::Foo"} in listed
    assert "size" in json.loads(run("resource-type-show", "Resource::Foo",
                                    "--format", "json"))["properties"]
    assert json.loads(run("template-validate", "-f", template, "--format", "json"))[
        "Description"] == "No description"
    run("stack-create", "-f", template, "foo")
    assert json.loads(run("output-show", "foo", "size", "--format", "json"))[
        "output_value"] == 3


def test_validate_still_refuses_an_unknown_type(configured):
    home, config, template = configured
    broken = template.replace("foo.yaml", "bar.yaml")
    with open(broken, "w") as handle:
        handle.write(TEMPLATE.replace("Resource::Foo", "Resource::Fooo"))
    done = stackctl_process.run(home, "template-validate", "-f", broken, config=config)
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        'bar.yaml:3: resources.foo.type: The Resource Type (Resource::Fooo) could not be '
        'found. Did you mean "Resource::Foo"?')
