"""Tests of the per-version structural JSON Schema and its messages."""

import pytest

from hearth.common import exception
from hearth.engine.template import parser, structure, versions

V = versions.HOT_2021_04_16


def check(text, version=V):
    structure.validate_structure(parser.parse(text, "template.yaml"), version, "template.yaml")


# Message texts after the location are Heat 27.0.1's (with Hearth's did-you-mean).
@pytest.mark.parametrize("text, message", [
    ("heat_template_version: 2021-04-16\noutput: {}\n",
     'template.yaml:2: The template section is invalid: output. Did you mean "outputs"?'),
    ("heat_template_version: 2021-04-16\nresources:\n  web:\n    type: OS::Heat::None\n"
     "    propertis: {}\n",
     'template.yaml:5: resources.web: "propertis" is not a valid keyword inside a resource '
     'definition. Did you mean "properties"?'),
    ("heat_template_version: 2021-04-16\nresources:\n  web:\n    properties: {}\n",
     "template.yaml:4: resources.web: Each resource must contain a type key."),
    ("heat_template_version: 2021-04-16\nresources:\n  web: [1]\n",
     "template.yaml:3: resources.web: \"resources\" must contain a map of resource maps. "
     "Found a [<class 'list'>] instead"),
    ("heat_template_version: 2021-04-16\nresources: [1]\n",
     'template.yaml:2: resources: the "resources" section must be a map, not a list'),
    ("heat_template_version: 2021-04-16\nresources:\n  web:\n    type: 5\n",
     "template.yaml:4: resources.web.type: Resource web type type must be string"),
    ("heat_template_version: 2021-04-16\nresources:\n  web:\n    type: T\n"
     "    deletion_policy: Keep\n",
     'template.yaml:5: resources.web.deletion_policy: Invalid deletion policy "Keep"'),
    ("heat_template_version: 2021-04-16\nresources:\n  web:\n    type: T\n"
     "    depends_on: {a: 1}\n",
     "template.yaml:5: resources.web.depends_on: Resource web depends_on type must be list or "
     "string"),
    ("heat_template_version: 2021-04-16\noutputs:\n  o:\n    valeu: 1\n",
     'template.yaml:4: outputs.o: "valeu" is not a valid keyword inside an output definition. '
     'Did you mean "value"?'),
    ("heat_template_version: 2021-04-16\nparameters:\n  p:\n    type: strin\n",
     "template.yaml:4: parameters.p.type: Invalid type (strin)"),
    ("heat_template_version: 2021-04-16\nparameter_groups:\n- label: x\n",
     "template.yaml:3: parameter_groups.0: The parameters must be provided for each parameter "
     "group."),
    ("heat_template_version: 2021-04-16\ndescription: [1]\n",
     "template.yaml:2: description: the description must be a string, not a list"),
])
def test_messages(text, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        check(text)
    assert str(info.value) == message


@pytest.mark.parametrize("text, version, message", [
    ("heat_template_version: 2016-04-08\nconditions: {}\n", versions.HOT_2016_04_08,
     "template.yaml:2: The template section is invalid: conditions"),
    ("heat_template_version: 2016-04-08\nresources:\n  r:\n    type: T\n    condition: c\n",
     versions.HOT_2016_04_08,
     'template.yaml:5: resources.r: "condition" is not a valid keyword inside a resource '
     'definition. Did you mean "description"?'),
    ("heat_template_version: 2017-09-01\nparameters:\n  p:\n    type: string\n    tags: []\n",
     versions.HOT_2017_09_01,
     "template.yaml:5: parameters.p: Invalid key 'tags' for parameter (p)"),
    ("heat_template_version: 2016-04-08\nresources:\n  r:\n    type: T\n"
     "    deletion_policy: delete\n", versions.HOT_2016_04_08,
     'template.yaml:5: resources.r.deletion_policy: Invalid deletion policy "delete"'),
])
def test_keys_follow_the_version(text, version, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        check(text, version)
    assert str(info.value) == message


def test_best_error_is_deepest_then_first_by_line():
    text = ("heat_template_version: 2021-04-16\noutput: {}\nresources:\n  b:\n    type: T\n"
            "    propertis: {}\n  a:\n    type: T\n    metdata: {}\n")
    errors = structure.find_errors(parser.parse(text, "t.yaml"), V, "t.yaml")
    assert [str(e) for e in errors] == [
        't.yaml:6: resources.b: "propertis" is not a valid keyword inside a resource '
        'definition. Did you mean "properties"?',
        't.yaml:9: resources.a: "metdata" is not a valid keyword inside a resource '
        'definition. Did you mean "metadata"?',
        't.yaml:2: The template section is invalid: output. Did you mean "outputs"?',
    ]


def test_valid_template_passes():
    check("heat_template_version: 2021-04-16\ndescription: d\nparameters:\n  p: {type: string}\n"
          "resources:\n  r:\n    type: T\n    properties: {a: {get_param: p}}\n"
          "    depends_on: [x]\n    deletion_policy: {get_param: p}\n"
          "outputs:\n  o: {value: 1, condition: c}\nconditions:\n  c: true\n")


def test_schema_is_built_from_version_data():
    schema = structure.build_schema(versions.HOT_2013_05_23)
    assert set(schema["properties"]) == set(versions.HOT_2013_05_23.sections)
    resource = schema["properties"]["resources"]["additionalProperties"]
    assert set(resource["properties"]) == set(versions.HOT_2013_05_23.resource_keys)
