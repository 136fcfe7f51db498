"""``stackctl template-validate --format json`` against real Heat's validate answers.

The expected objects in ``heat_answers/validate_templates.json`` and the
message texts below were recorded from OpenStack Heat 27.0.1 (its engine's
``validate_template`` with heatclient's file handling).  Hearth puts
``file:line: path:`` in front of Heat's text and may add a "did you mean".
"""

import json
import pathlib

import pytest

from hearth.cli import main
from hearth.common import exception
from hearth.engine.template.validate import validate_template

ROOT = pathlib.Path(__file__).resolve().parents[4]
ANSWERS = json.loads((pathlib.Path(__file__).parent / "heat_answers"
                      / "validate_templates.json").read_text())


@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_cli_json_is_heats_validate_object(case, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = ANSWERS[case]["args"]
    template = "templates/" + case.split("|")[0]
    assert main.main(["template-validate", "-f", template, *args, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == ANSWERS[case]["answer"]


def _hot(body):
    return "heat_template_version: 2018-08-31\n" + body


HEAT_MESSAGES = [
    (_hot("resourcez: {}\n"), "The template section is invalid: resourcez"),
    ("heat_template_version: 2016-04-08\nconditions: {}\n",
     "The template section is invalid: conditions"),
    (_hot("resources:\n  r:\n    properties: {}\n"), "Each resource must contain a type key."),
    (_hot("resources:\n  r: 5\n"),
     "\"resources\" must contain a map of resource maps. Found a [<class 'int'>] instead"),
    (_hot("resources:\n  r:\n    type: 5\n"), "Resource r type type must be string"),
    (_hot("resources:\n  r:\n    type: T\n    properties: [1]\n"),
     "Resource r properties type must be object"),
    (_hot("resources:\n  r:\n    type: T\n    update_policy: [1]\n"),
     "Resource r update_policy type must be object"),
    (_hot("resources:\n  r:\n    type: T\n    depends_on: 5\n"),
     "Resource r depends_on type must be list or string"),
    (_hot("resources:\n  r:\n    type: T\n    deletion_policy: Keep\n"),
     'Invalid deletion policy "Keep"'),
    (_hot("resources:\n  r:\n    type: T\n    depends_on: [x]\n"),
     'The specified reference "x" (in r) is incorrect.'),
    (_hot("outputs:\n  o:\n    description: x\n"),
     "Each output definition must contain a value key."),
    (_hot("outputs:\n  o: 5\n"), "Output definitions must be a map. Found a int instead"),
    (_hot("parameters:\n  p:\n    type: string\n    defalt: x\n"),
     "Invalid key 'defalt' for parameter (p)"),
    (_hot("parameters:\n  p:\n    default: x\n"), "Missing parameter type for parameter: p"),
    (_hot("parameters:\n  p:\n    type: strin\n"), "Invalid type (strin)"),
    (_hot("parameters:\n  p: string\n"), "Invalid parameter (p), expected a mapping"),
    ("heat_template_version: 2017-09-01\nparameters:\n  p:\n    type: string\n    tags: [a]\n",
     "Invalid key 'tags' for parameter (p)"),
    (_hot("parameters:\n  p:\n    type: string\n    tags: a\n"),
     "Tags property should be a list for parameter: p"),
    (_hot("parameters:\n  p:\n    type: string\n    constraints: {length: {min: 1}}\n"),
     "Invalid parameter constraints for parameter p, expected a list"),
    (_hot("parameters:\n  p:\n    type: string\n    constraints:\n      - lenght: {min: 1}\n"),
     "Invalid key 'lenght' for parameter constraints"),
    (_hot("parameters:\n  p:\n    type: number\n    constraints:\n      - length: {min: 1}\n"),
     "Parameter 'p' is invalid: Length constraint invalid for number"),
    (_hot("parameters:\n  p:\n    type: string\n    constraints:\n      - range: {min: 1}\n"),
     "Parameter 'p' is invalid: Range constraint invalid for string"),
    (_hot("parameters:\n  p:\n    type: string\n    default: c\n    constraints:\n"
          "      - allowed_values: [a, b]\n        description: pick a or b\n"),
     "Parameter 'p' is invalid: Invalid default c (pick a or b)"),
    (_hot("parameters:\n  p:\n    type: string\n    default: '9x'\n    constraints:\n"
          "      - allowed_pattern: '[a-z]+'\n"),
     "Parameter 'p' is invalid: Invalid default 9x (\"9x\" does not match pattern \"[a-z]+\")"),
    (_hot("parameters:\n  p:\n    type: number\n    default: 3\n    constraints:\n"
          "      - modulo: {step: 2, offset: 0}\n"),
     "Parameter 'p' is invalid: Invalid default 3 (3 is not a multiple of 2 with an offset "
     "of 0)"),
    (_hot("parameters:\n  p:\n    type: number\n    constraints:\n"
          "      - modulo: {step: 2, offset: 3}\n"),
     "offset must be smaller (by absolute value) than step."),
    (_hot("parameters:\n  p:\n    type: comma_delimited_list\n    default: 'a,b,c'\n"
          "    constraints:\n      - length: {max: 2}\n"),
     "Parameter 'p' is invalid: Invalid default a,b,c (length (3) is out of range "
     "(min: None, max: 2))"),
    (_hot("parameter_groups: {a: 1}\n"), "The parameter_groups should be a list."),
    (_hot("parameter_groups:\n  - label: G\nparameters:\n  a: {type: string}\n"),
     "The parameters must be provided for each parameter group."),
    (_hot("parameter_groups:\n  - parameters: a\nparameters:\n  a: {type: string}\n"),
     "The parameters of parameter group should be a list."),
    (_hot("parameter_groups:\n  - label: G\n    parameters: [a, zz]\n"
          "parameters:\n  a: {type: string}\n"),
     "The grouped parameter zz does not reference a valid parameter."),
    (_hot("parameter_groups:\n  - parameters: [a]\n  - parameters: [a]\n"
          "parameters:\n  a: {type: string}\n"),
     "The a parameter must be assigned to one parameter group only."),
    ("heat_template_version: 2015-10-15\noutputs:\n  o:\n    value: {Fn::Select: [0, [a]]}\n",
     "The template version is invalid: The function Fn::Select is not supported in this "
     "version of HOT."),
    (_hot("conditions:\n  c: true\noutputs:\n  o:\n    value: {if: [c, 1]}\n"),
     'Arguments to "if" must be of the form: [condition_name, value_if_true, value_if_false]'),
    (_hot("conditions:\n  c: {str_split: [',', 'a,b']}\n"),
     'The function "str_split" is invalid in this context'),
    (_hot("resources:\n  r:\n    type: T\n    condition: nope\n"), 'Invalid condition "nope"'),
    ("heat_template_version: 2021-04-15\n",
     'The template version is invalid: "heat_template_version: 2021-04-15". '
     '"heat_template_version" should be one of: 2013-05-23, 2014-10-16, 2015-04-30, '
     "2015-10-15, 2016-04-08, 2016-10-14, 2017-02-24, 2017-09-01, 2018-03-02, 2018-08-31, "
     "2021-04-16, newton, ocata, pike, queens, rocky, wallaby"),
    ("description: x\n", "Template format version not found."),
]


@pytest.mark.parametrize("text, heat_message", HEAT_MESSAGES)
def test_error_text_is_heats(text, heat_message):
    with pytest.raises(exception.HearthException) as info:
        validate_template(text, "t.yaml")
    assert heat_message in str(info.value)


@pytest.mark.parametrize("text", [
    _hot("resources:\n  r:\n    type: T\n    description: hi\n"),
    "heat_template_version: 2021-04-16\nconditions:\n  c: true\n"
    "outputs:\n  o:\n    value: {if: [c, 1]}\n",
    _hot("parameters:\n  p:\n    type: boolean\n    default: maybe\n"),
    _hot("parameters:\n  p:\n    type: json\n    default: '{bad'\n"),
    _hot("parameters:\n  p:\n    type: string\n    default: notanip\n"
         "    constraints: [{custom_constraint: ip_addr}]\n"),
])
def test_heat_accepts(text):
    assert "Parameters" in validate_template(text, "t.yaml")


def test_hidden_is_truthiness():
    text = _hot("parameters:\n  p:\n    type: string\n    hidden: maybe\n"
                "  q:\n    type: string\n    hidden: 0\n")
    parameters = validate_template(text)["Parameters"]
    assert (parameters["p"]["NoEcho"], parameters["q"]["NoEcho"]) == ("true", "false")
