"""Tests of template/environment parsing with lines."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.common import config, exception
from hearth.common.located import LocatedDict, LocatedList, line_of
from hearth.engine.template import parser

TEMPLATE = """\
heat_template_version: 2016-10-14
description: demo
resources:
  web:
    type: OS::Heat::None
    properties:
      ports:
        - 80
        - 443
"""


def test_yaml_keeps_lines_of_keys_and_items():
    data = parser.parse(TEMPLATE, "demo.yaml")
    assert isinstance(data, LocatedDict)
    assert data["heat_template_version"] == "2016-10-14"
    assert line_of(data, "resources") == 3
    web = data["resources"]["web"]
    assert web.line == 5 and line_of(web, "properties") == 6
    ports = web["properties"]["ports"]
    assert isinstance(ports, LocatedList)
    assert ports.lines == [8, 9]


def test_dates_stay_strings():
    data = parser.parse("heat_template_version: 2013-05-23\nwhen: 2001-12-14t21:59:43.10-05:00\n")
    assert data == {"heat_template_version": "2013-05-23",
                    "when": "2001-12-14t21:59:43.10-05:00"}


def test_json_is_parsed_with_lines():
    data = parser.parse('{"heat_template_version": "2015-04-30",\n "resources": {}}', "t.json")
    assert data == {"heat_template_version": "2015-04-30", "resources": {}}
    assert line_of(data, "resources") == 2


def test_json_yaml_incompatible_still_parses():
    data = parser.parse('{"a": "x\\/y"}')
    assert data == {"a": "x/y"}
    assert isinstance(data, LocatedDict)


def test_empty_document_is_empty_mapping():
    assert parser.parse("") == {}


def test_merge_keys_work():
    data = parser.parse("base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n")
    assert data["other"] == {"x": 1, "y": 2}


@pytest.mark.parametrize("text, message", [
    ("a: 1\nb: 2\na: 3\n",
     'demo.yaml:3: Error parsing template: duplicate key "a" (lines 1 and 3)'),
    ('{"a": 1,\n "a": 2}',
     'demo.yaml:2: Error parsing template: duplicate key "a" (lines 1 and 2)'),
    ("a: 1\n  b: 2\n", "demo.yaml:2:4: Error parsing template: mapping values are not "
                       "allowed in this context"),
    ('{"a": 1,}', "demo.yaml:1:9: Error parsing template: Expecting property name enclosed "
                  "in double quotes"),
    ("a:\n\tb: 1\n", "demo.yaml:2:1: Error parsing template: found a tab character: YAML "
                    "indents with spaces only, never tabs"),
    ("a:\n  b: 1\n \tc: 2\n", "demo.yaml:3:2: Error parsing template: found a tab "
                             "character: YAML indents with spaces only, never tabs"),
    ("a:\n  b: |\n\t  x\n", "demo.yaml:3:1: Error parsing template: found a tab "
                           "character: YAML indents with spaces only, never tabs"),
    ("- 1\n- 2\n", "demo.yaml:1: The template is not a JSON object or YAML mapping."),
    ("? [1]\n: 2\n", "demo.yaml:1:3: Error parsing template: found unhashable key"),
    (b"a: \xff\n", "demo.yaml:1: Error parsing template: the file is not valid UTF-8 "
                   "(invalid start byte at byte 3); save it as UTF-8"),
    (b"a: 1\nb: caf\xe9\n", "demo.yaml:2: Error parsing template: the file is not valid "
                           "UTF-8 (invalid continuation byte at byte 11); save it as UTF-8"),
])
def test_errors_name_file_and_line(text, message):
    with pytest.raises(exception.StackValidationFailed) as info:
        parser.parse(text, "demo.yaml")
    assert str(info.value) == message


def test_environment_wording():
    with pytest.raises(exception.StackValidationFailed) as info:
        parser.parse("just text", "env.yaml", kind="environment")
    assert str(info.value) == "env.yaml:1: The environment is not a valid YAML mapping data type."


def test_size_limit():
    config.register_opts()
    config.CONF.set_override("max_template_size", 20)
    try:
        with pytest.raises(exception.TemplateSizeExceeded) as info:
            parser.parse("description: " + "x" * 20)
    finally:
        config.CONF.clear_override("max_template_size")
    assert str(info.value) == ("Request limit exceeded: Template size (33 bytes) exceeds "
                               "maximum allowed size (20 bytes).")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_random_text_raises_only_hearth_errors(text):
    try:
        result = parser.parse(text, "random.yaml")
    except exception.HearthException:
        return
    assert isinstance(result, dict)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda children: st.lists(children, max_size=3)
                    | st.dictionaries(st.text(max_size=5), children, max_size=3),
                    max_leaves=10))
def test_yaml_dump_round_trips(tree):
    import yaml
    text = yaml.safe_dump({"root": tree})
    assert parser.parse(text) == {"root": tree}
