"""Tests of Template: definitions, conditions, outputs, graph, validation."""

import pytest

from hearth.common import exception
from hearth.engine.template import function, graph
from hearth.engine.template.resource_definition import required_by
from hearth.engine.template.snippet import parse_snippet
from hearth.engine.template.template import Template

TEXT = """\
heat_template_version: 2021-04-16
parameters:
  env: {type: string, default: dev}
conditions:
  prod: {equals: [{get_param: env}, prod]}
resources:
  db:
    type: OS::Heat::None
  web:
    type: OS::Heat::Value
    depends_on: db
    metadata: {m: {get_resource: cache}}
    properties:
      value: {get_attr: [db, show]}
      extra: {if: [prod, 1]}
  cache:
    type: OS::Heat::None
  big:
    type: OS::Heat::None
    condition: prod
outputs:
  url:
    description: the url
    value: {get_attr: [web, value]}
  big:
    condition: prod
    value: {get_resource: big}
"""


def template(params=None, text=TEXT):
    tmpl = Template.from_text(text, "t.yaml")
    params = tmpl.parameters(params)
    return tmpl, tmpl.context(params)


def test_definitions_skip_condition_false():
    tmpl, ctx = template()
    definitions = tmpl.resource_definitions(ctx)
    assert list(definitions) == ["db", "web", "cache"]
    web = definitions["web"]
    assert web.type == "OS::Heat::Value" and web.depends_on == ["db"] and web.line == 9
    assert web.dependencies() == {"db", "cache"}
    assert function.resolve(web.properties) == {"value": None}
    assert tmpl.disabled_resource_names(ctx) == ["big"]


def test_condition_true_enables():
    tmpl, ctx = template({"env": "prod"})
    assert "big" in tmpl.resource_definitions(ctx)
    assert function.resolve(tmpl.resource_definitions(ctx)["web"].properties)["extra"] == 1
    assert list(tmpl.outputs(ctx)) == ["url", "big"]


def test_outputs():
    tmpl, ctx = template()
    outputs = tmpl.outputs(ctx)
    assert list(outputs) == ["url"]
    assert outputs["url"].description == "the url" and outputs["url"].line == 22


def test_graph_from_real_functions():
    tmpl, ctx = template()
    assert graph.dump(tmpl.dependency_graph(ctx)) == "cache\ndb\nweb\n  cache\n  db"


def test_required_by_is_the_dependency_graph_reversed():
    # one meaning of "what a resource needs": the graph's edges and the
    # required_by a resource shows (the update plan's and leftovers' too)
    text = TEXT.replace("outputs:", """  policy:
    type: OS::Heat::None
    update_policy: {after: {get_resource: cache}}
outputs:""")
    tmpl, ctx = template(text=text)
    definitions = tmpl.resource_definitions(ctx)
    dependency_graph = tmpl.dependency_graph(ctx, definitions)
    assert {name: set(users) for name, users in required_by(definitions).items()} == {
        name: set(dependency_graph.predecessors(name)) for name in definitions}
    assert required_by(definitions)["cache"] == ["web", "policy"]


def test_render_and_equality():
    tmpl, ctx = template()
    first = tmpl.resource_definitions(ctx)["web"]
    again = Template.from_text(TEXT, "t.yaml")
    second = again.resource_definitions(again.context(again.parameters()))["web"]
    assert first == second
    assert first.render_hot()["depends_on"] == "db"
    assert first != tmpl.resource_definitions(ctx)["db"]


def test_validate_returns_parameters():
    tmpl, _ = template()
    assert tmpl.validate()["env"] == "dev"


def test_description_default():
    tmpl, _ = template()
    assert tmpl.description == "No description"


def test_reference_to_disabled_resource_fails():
    text = TEXT.replace("value: {get_attr: [web, value]}", "value: {get_attr: [big, x]}")
    tmpl, _ = template(text=text)
    with pytest.raises(exception.StackValidationFailed) as info:
        tmpl.validate()
    assert "big" in str(info.value) and str(info.value).startswith("t.yaml:")


def test_unknown_version():
    with pytest.raises(exception.InvalidTemplateVersion):
        Template({"resources": {}})


def test_environment_dict_accepted():
    tmpl = Template({"heat_template_version": "2021-04-16",
                     "parameters": {"p": {"type": "string"}}},
                    env={"parameters": {"p": "v"}})
    assert tmpl.parameters()["p"] == "v"
    assert tmpl.env.to_dict()["parameters"] == {"p": "v"}


def test_a_malformed_template_is_refused_when_built():
    """No caller can reach the sections of a template that breaks the structure."""
    with pytest.raises(exception.StackValidationFailed) as info:
        Template({"heat_template_version": "2021-04-16", "resources": {"a": 3}})
    assert str(info.value) == ('resources.a: "resources" must contain a map of resource maps. '
                               "Found a [<class 'int'>] instead")


UNGIVEN = """\
heat_template_version: 2021-04-16
parameters:
  name: {type: string}
  given: {type: string}
resources:
  v:
    type: OS::Heat::Value
    properties:
      value: {list_join: ['-', [{get_param: name}]]}
"""


def test_a_parameter_given_no_value_is_unknown_while_validating_without_values():
    tmpl = Template.from_text(UNGIVEN, "t.yaml")
    params = tmpl.parameters({"given": "x"}, validate_value=False)
    context = tmpl.context(params)
    assert "name" in params and "nope" not in params  # no value computed, no error
    assert not context.parameter_known("name") and context.parameter_known("given")
    assert context.parameter_value("name") is None
    value = tmpl.resource_definitions(context)["v"].properties["value"]
    assert function.is_unknown(value)
    given = parse_snippet(tmpl.version, context, {"list_join": ["-", [{"get_param": "given"}]]})
    assert not function.is_unknown(given) and function.resolve(given) == "x"
