"""Tests of Template with CloudFormation-format documents (YAML and JSON)."""

import pytest

from hearth.common import exception
from hearth.engine.template import function, versions
from hearth.engine.template.template import Template

TEXT = """\
AWSTemplateFormatVersion: 2010-09-09
Description: A site
Parameters:
  Env: {Type: String, Default: dev}
Mappings:
  Sizes:
    dev: {Flavor: small}
Conditions:
  IsProd: {'Fn::Equals': [{Ref: Env}, prod]}
Resources:
  Db:
    Type: OS::Heat::None
  Web:
    Type: OS::Heat::Value
    DependsOn: Db
    Metadata: {role: web}
    DeletionPolicy: Retain
    UpdatePolicy: {x: 1}
    Description: the web
    Properties:
      value: {'Fn::FindInMap': [Sizes, {Ref: Env}, Flavor]}
  Big:
    Type: OS::Heat::None
    Condition: IsProd
Outputs:
  Flavor:
    Description: the flavor
    Value: {'Fn::GetAtt': [Web, value]}
  BigId:
    Condition: IsProd
    Value: {Ref: Big}
"""

JSON_TEXT = """{
  "HeatTemplateFormatVersion": "2012-12-12",
  "Parameters": {"Size": {"Type": "Number", "Default": 2}},
  "Resources": {
    "Web": {
      "Type": "OS::Heat::Value",
      "Properties": {"value": {"Fn::Join": ["-", ["web", {"Ref": "Siz"}]]}}
    }
  }
}
"""


def template(text=TEXT, params=None):
    tmpl = Template.from_text(text, "t.yaml")
    return tmpl, tmpl.context(tmpl.parameters(params))


def test_version_and_sections_are_read_the_cfn_way():
    tmpl, context = template()
    assert tmpl.version is versions.CFN_2010_09_09
    assert tmpl.description == "A site"
    assert list(tmpl.section("resources")) == ["Db", "Web", "Big"]
    assert tmpl.key("resources") == "Resources"
    assert list(context.mappings()) == ["Sizes"]


def test_definitions_read_cfn_keys():
    tmpl, context = template()
    definitions = tmpl.resource_definitions(context)
    assert list(definitions) == ["Db", "Web"]  # Big's condition is false
    web = definitions["Web"]
    assert (web.type, web.depends_on, web.description) == ("OS::Heat::Value", ["Db"], "the web")
    assert (web.deletion_policy, web.metadata, web.update_policy) == (
        "Retain", {"role": "web"}, {"x": 1})
    assert function.resolve(web.properties) == {"value": "small"}
    assert web.render_hot() == dict(tmpl.section("resources")["Web"])  # as written
    assert web.freeze(properties={"value": "x"}).raw["Properties"] == {"value": "x"}


def test_a_condition_enables_resources_and_outputs():
    tmpl, context = template(params={"Env": "prod"})
    assert "Big" in tmpl.resource_definitions(context)
    assert list(tmpl.outputs(context)) == ["Flavor", "BigId"]
    tmpl, context = template()
    outputs = tmpl.outputs(context)
    assert list(outputs) == ["Flavor"] and outputs["Flavor"].description == "the flavor"


def test_graph_follows_dependson_and_references():
    tmpl, context = template()
    assert sorted(tmpl.dependency_graph(context).edges) == [("Web", "Db")]


def test_errors_name_the_cfn_path_and_line():
    text = TEXT.replace("DependsOn: Db", "DependsOn: [Dbb]")
    tmpl, context = template(text)
    with pytest.raises(exception.InvalidTemplateReference) as info:
        tmpl.check(context)
    assert str(info.value) == ('t.yaml:15: Resources.Web.DependsOn: The specified reference '
                               '"Dbb" (in Web) is incorrect. Did you mean "Db"?')


def test_a_spelled_path_keeps_deeper_segments():
    tmpl, context = template()
    web = tmpl.resource_definitions(context)["Web"]
    assert web.spelled_path(["resources", "Web", "properties", "properties", "x"]) == [
        "Resources", "Web", "Properties", "properties", "x"]
    assert web.spelled_path(["resources", "Web", "resources", "inner", "properties"]) == [
        "Resources", "Web", "resources", "inner", "properties"]


def test_a_json_template_is_located_too():
    tmpl, context = template(JSON_TEXT)
    assert tmpl.version is versions.CFN_2012_12_12
    with pytest.raises(exception.InvalidTemplateReference) as info:
        tmpl.check(context)
    assert str(info.value) == ('t.yaml:7: Resources.Web.Properties.value.Fn::Join.1.1: The '
                               'specified reference "Siz" (in Resources.Web.Properties.value.'
                               'Fn::Join.1.1) is incorrect. Did you mean "Size"?')


def test_other_keys_of_a_definition_are_ignored_as_heat_does():
    text = ("HeatTemplateFormatVersion: '2012-12-12'\nResources:\n"
            "  r: {Type: OS::Heat::None, Condition: nope, CreationPolicy: {}}\n")
    tmpl, context = template(text)
    definition = tmpl.check(context).definitions["r"]
    assert definition.condition is None  # 2012-12-12 has no conditions
