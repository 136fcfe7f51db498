"""CloudFormation-format templates against real Heat's answers.

The message texts were recorded from OpenStack Heat 27.0.1's REST API
(``POST /validate`` and ``POST /stacks``, heat-api with its engine) for the
same templates.  Hearth puts ``file:line: path:`` in front of Heat's text
(Heat gives no location for most of them) and may add a "did you mean";
where Hearth deliberately answers otherwise the case says why.
"""

import pytest

from hearth.common import exception
from hearth.common.context import RequestContext
from hearth.engine.service.catalog import Catalog
from hearth.engine.template import parser

HEAT = "HeatTemplateFormatVersion: '2012-12-12'\n"
AWS = "AWSTemplateFormatVersion: '2010-09-09'\n"
VALUE = HEAT + "Resources:\n  r:\n    Type: OS::Heat::Value\n    Properties:\n      value: "

#: (template, Hearth's whole error line: Heat's text with Hearth's location)
HEAT_MESSAGES = [
    (HEAT + "Resourcez: {}\n",
     't.yaml:2: The template section is invalid: Resourcez. Did you mean "Resources"?'),
    (HEAT + "Conditions: {}\nResources: {}\n",
     "t.yaml:2: The template section is invalid: Conditions"),
    (HEAT + AWS + "Resources: {}\n",
     "t.yaml:2: The template version is invalid: Ambiguous versions (HeatTemplateFormatVersion, "
     "AWSTemplateFormatVersion)"),
    ("AWSTemplateFormatVersion: '2010-09-10'\n",
     't.yaml:1: The template version is invalid: "AWSTemplateFormatVersion: 2010-09-10". '
     '"AWSTemplateFormatVersion" should be: 2010-09-09 Did you mean "2010-09-09"?'),
    ("HeatTemplateFormatVersion: '2012-12-13'\n",
     't.yaml:1: The template version is invalid: "HeatTemplateFormatVersion: 2012-12-13". '
     '"HeatTemplateFormatVersion" should be: 2012-12-12 Did you mean "2012-12-12"?'),
    (HEAT + "Resources:\n  r:\n    Properties: {}\n",
     "t.yaml:4: Resources.r: Each Resource must contain a Type key."),
    (HEAT + "Resources:\n  r:\n    type: OS::Heat::None\n",
     "t.yaml:4: Resources.r: Each Resource must contain a Type key."),
    (HEAT + "Resources:\n  r: [1]\n",
     "t.yaml:3: Resources.r: Resources must contain Resource. Found a [<class 'list'>] "
     "instead"),
    (HEAT + "Resources:\n  r:\n    Type: [1]\n",
     "t.yaml:4: Resources.r.Type: Resource r Type type must be string"),
    (HEAT + "Resources:\n  r:\n    Type: OS::Heat::None\n    Properties: [1]\n",
     "t.yaml:5: Resources.r.Properties: Resource r Properties type must be object"),
    (HEAT + "Resources:\n  r:\n    Type: OS::Heat::None\n    DependsOn: [1]\n",
     "t.yaml:5: Resources.r.DependsOn.0: Resource r DependsOn must be a list of strings"),
    (HEAT + "Resources:\n  r:\n    Type: OS::Heat::None\n    DependsOn: nope\n",
     't.yaml:5: Resources.r.DependsOn: The specified reference "nope" (in r) is incorrect.'),
    (HEAT + "Resources:\n  r:\n    Type: OS::Heat::None\n    DeletionPolicy: Forever\n",
     't.yaml:5: Resources.r.DeletionPolicy: Invalid deletion policy "Forever"'),
    (AWS + "Resources:\n  r:\n    Type: OS::Heat::None\n    DeletionPolicy: retain\n",
     't.yaml:5: Resources.r.DeletionPolicy: Invalid deletion policy "retain"'),
    (HEAT + "Resources: {}\nOutputs:\n  o: 1\n",
     "t.yaml:4: Outputs.o: Output definitions must be a map. Found a int instead"),
    (HEAT + "Resources: {}\nOutputs:\n  o: {Description: x}\n",
     "t.yaml:4: Outputs.o: Each output definition must contain a Value key."),
    (HEAT + "Parameters:\n  p: {Default: x}\n",
     "t.yaml:3: Parameters.p: Missing parameter type for parameter: p"),
    (HEAT + "Parameters:\n  p: {Type: String, Foo: x}\n",
     "t.yaml:3: Parameters.p: Invalid key 'Foo' for parameter (p)"),
    (HEAT + "Parameters:\n  p: {type: string}\n",
     "t.yaml:3: Parameters.p: Invalid key 'type' for parameter (p). Did you mean \"Type\"?"),
    (HEAT + "Parameters:\n  p: {Type: string, Default: x}\n",
     "t.yaml:3: Parameters.p.Type: Invalid type (string)"),
    (HEAT + "Parameters:\n  p: 1\n",
     "t.yaml:3: Parameters.p: Invalid parameter (p), expected a mapping"),
    (HEAT + "Parameters:\n  p: {Type: String, Default: x, AllowedValues: [a, b], "
            "ConstraintDescription: pick a or b}\n",
     "t.yaml:3: Parameters.p: Parameter 'p' is invalid: Invalid default x (pick a or b)"),
    (HEAT + "Parameters:\n  p: {Type: Number, Default: 9, MinValue: 1, MaxValue: 5}\n",
     "t.yaml:3: Parameters.p: Parameter 'p' is invalid: Invalid default 9 (9 is out of range "
     "(min: 1, max: 5))"),
    (HEAT + "Parameters:\n  p: {Type: String, Default: abcdef, MaxLength: 3}\n",
     "t.yaml:3: Parameters.p: Parameter 'p' is invalid: Invalid default abcdef (length (6) "
     "is out of range (min: None, max: 3))"),
    (HEAT + "Parameters:\n  p: {Type: String, Default: ABC, AllowedPattern: '[a-z]*'}\n",
     "t.yaml:3: Parameters.p: Parameter 'p' is invalid: Invalid default ABC (\"ABC\" does "
     "not match pattern \"[a-z]*\")"),
    (VALUE + "{'Fn::GetAtt': [nope, value]}\n",
     't.yaml:6: Resources.r.Properties.value: The specified reference "nope" (in '
     'Resources.r.Properties.value) is incorrect.'),
    (HEAT + "Resources:\n  s: {Type: OS::Heat::None}\n  r:\n    Type: OS::Heat::Value\n"
            "    Properties:\n      value: {'Fn::GetAtt': [s, value, x]}\n",
     't.yaml:7: Resources.r.Properties.value: Fn::GetAtt: Arguments to "Fn::GetAtt" must be '
     "of the form [resource_name, attribute]"),
    (HEAT + "Resources:\n  s: {Type: OS::Heat::RandomString}\n  r:\n    Type: OS::Heat::Value\n"
            "    Properties:\n      value: {'Fn::GetAtt': [s, nope]}\n",
     "t.yaml:7: Resources.r.Properties.value: The Referenced Attribute (s nope) is incorrect."),
    (VALUE + "{'Fn::Select': [a, [1, 2]]}\n",
     't.yaml:6: Resources.r.Properties.value: Fn::Select: Index to "Fn::Select" must be an '
     "integer"),
    (HEAT + "Resources:\n  r:\n    Type: OS::Heat::RandomString\n    Properties:\n"
            "      length: abc\n",
     "t.yaml:6: Property error: Resources.r.Properties.length: Value 'abc' is not an integer"),
    (HEAT + "Resources:\n  r:\n    Type: OS::Heat::RandomString\n    Properties:\n"
            "      lenght: 3\n",
     't.yaml:6: Property error: Resources.r.Properties: Unknown Property lenght. Did you mean '
     '"length"?'),
    (HEAT + "Resources:\n  r:\n    Type: OS::Heat::Nonee\n",
     't.yaml:4: Resources.r.Type: The Resource Type (OS::Heat::Nonee) could not be found. '
     'Did you mean "OS::Heat::None"?'),
    (AWS + "Conditions:\n  c: {'Fn::Equals': [a]}\nResources: {}\n",
     't.yaml:3: Conditions.c: Fn::Equals: Arguments to "Fn::Equals" must be of the form: '
     "[value_1, value_2]"),
    (AWS + "Conditions:\n  c: {'Fn::Not': true}\nResources: {}\n",
     't.yaml:3: Conditions.c: Fn::Not: Arguments to "Fn::Not" must be of the form: '
     "[condition]"),
    (AWS + "Conditions:\n  c: {'Fn::Equals': [a, a]}\nResources:\n"
           "  r: {Type: OS::Heat::None, Condition: d}\n",
     't.yaml:5: Resources.r.Condition: Invalid condition "d"'),
    (AWS + "Conditions:\n  c: {equals: [a, a]}\nResources:\n"
           "  r: {Type: OS::Heat::None, Condition: c}\n",
     "t.yaml:3: Conditions.c: The definition of condition \"c\" is invalid: {'equals': ['a', "
     "'a']} (a condition must be a boolean, a condition name or a condition function)"),
    (AWS + "Conditions:\n  c: {'Fn::Join': [',', [a]]}\nResources:\n"
           "  r: {Type: OS::Heat::None, Condition: c}\n",
     't.yaml:3: Conditions.c: The function "Fn::Join" is invalid in this context (only '
     "Fn::Equals, Ref, Fn::FindInMap, Fn::Not, Fn::And, Fn::Or may be used in conditions)"),
]

#: Where Hearth answers otherwise than Heat, on purpose.
HEARTH_MESSAGES = [
    # Heat: "'not enough values to unpack (expected 3, got 2)'"
    (HEAT + "Mappings:\n  m: {k: {v: 1}}\nResources:\n  r:\n    Type: OS::Heat::Value\n"
            "    Properties:\n      value: {'Fn::FindInMap': [m, k]}\n",
     't.yaml:8: Resources.r.Properties.value: Fn::FindInMap: Arguments to "Fn::FindInMap" '
     "must be of the form: [map_name, top_level_key, second_level_key]"),
    # Heat validates, then refuses the create with "Property error: ...value: 'nope'"
    (HEAT + "Mappings:\n  m: {k: {v: 1}}\nResources:\n  r:\n    Type: OS::Heat::Value\n"
            "    Properties:\n      value: {'Fn::FindInMap': [m, nope, v]}\n",
     't.yaml:8: Resources.r.Properties.value: Fn::FindInMap: The key "nope" is not in the '
     'mapping "m"'),
    # Heat validates, then refuses the create naming "(in unknown)"
    (VALUE + "{Ref: nope}\n",
     't.yaml:6: Resources.r.Properties.value: The specified reference "nope" (in '
     'Resources.r.Properties.value) is incorrect.'),
    # Heat: "'list' object has no attribute 'values'"
    (HEAT + "Resources: [1]\n",
     't.yaml:2: Resources: the "Resources" section must be a map, not a list'),
    # Heat gives the output no value: HOT's pseudo parameters are not CloudFormation's
    (HEAT + "Resources: {}\nOutputs:\n  os: {Value: {Ref: 'OS::stack_name'}}\n",
     't.yaml:4: Outputs.os.Value: The specified reference "OS::stack_name" (in '
     'Outputs.os.Value) is incorrect.'),
    # Heat: "Template version was not provided" (it reads only text values)
    ("HeatTemplateFormatVersion: 2012\nResources: {}\n",
     't.yaml:1: The template version is invalid: "HeatTemplateFormatVersion: 2012". '
     '"HeatTemplateFormatVersion" should be: 2012-12-12'),
]

#: Templates Heat accepts as they are (keys it ignores, functions of other formats as data)
HEAT_ACCEPTS = [
    HEAT + "Resources:\n  r:\n    Type: OS::Heat::None\n    Foo: bar\n    CreationPolicy: {}\n",
    HEAT + "Resources:\n  r: {Type: OS::Heat::None, Condition: c}\n",
    HEAT + "Resources: {}\nOutputs:\n  o: {Value: x, Foo: y}\n",
    VALUE + "{get_param: x}\n",
    VALUE + "{'Fn::If': [c, a, b]}\n",
    HEAT + "Description: hi\n",
]


@pytest.fixture(scope="module")
def catalog():
    """The catalog template-validate uses (plug-ins loaded once for the module)."""
    return Catalog()


def _validate(catalog, text):
    """Validate ``text`` as ``stackctl template-validate -f t.yaml`` does."""
    data = parser.parse(text, "t.yaml")
    try:
        return catalog.validate_template(RequestContext.local(), template=data)
    except exception.StackValidationFailed as exc:
        raise exc.located("t.yaml", document=data) from None


@pytest.mark.parametrize("text, message", HEAT_MESSAGES + HEARTH_MESSAGES)
def test_errors_are_heats_text_located(catalog, text, message):
    with pytest.raises(exception.HearthException) as raised:
        _validate(catalog, text)
    assert str(raised.value) == message


@pytest.mark.parametrize("text", HEAT_ACCEPTS)
def test_heat_accepts(catalog, text):
    assert "Parameters" in _validate(catalog, text)
